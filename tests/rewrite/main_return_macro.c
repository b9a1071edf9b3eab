/* A return that a macro's definition spells cannot take main's wait where
 * it is written: `return` is defined as the waiting return around the
 * macro's invocation in main, and restored after it. A return written in a
 * macro's argument takes the wait on its line (no #line can be there). */
#define CHECK(c) if (!(c)) return 2
#define FAIL(msg)                                                              \
  do {                                                                         \
    report(msg);                                                               \
    return 3;                                                                  \
  } while (0)
#define RET return
#define SAME(s) s

void report(const char *msg);
void work(int *x);

int main(int argc, char **argv) {
  int x = 0;
  (void)argv;
#pragma dag task out(x)
  work(&x);
  CHECK(argc > 0);
  if (argc > 7)
    FAIL("seven");
  SAME(if (argc > 5) return 5;)
  RET x;
}
