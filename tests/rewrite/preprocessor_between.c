/* Preprocessor lines between a task pragma and its statement (USE_TASKS
 * is defined by the .flags): the pragma under '#ifdef USE_TASKS' with its
 * '#endif' before the statement, and after a pragma a statement chosen by
 * '#ifdef'. The lines stay where they are and the statement moves to its
 * task, so the branches hold in the rewritten file. */
#include <stdio.h>

static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
#ifdef USE_TASKS
#pragma dag task inout(x)
#endif
  add(&x, 1);
#pragma dag task inout(x)
#ifdef TWO
  add(&x, 2);
#else
  add(&x, 3);
#endif
#pragma dag taskwait
  printf("%d\n", x);
  return 0;
}
