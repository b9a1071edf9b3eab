/* Next to tasks.c: found with quotes from the rewritten file too. */
#define OFFSET 0
