/* main waits for its tasks before it returns, as an OpenMP parallel region
 * ends with a barrier (tasks may write main's locals, whose frame goes when
 * main returns). Each return, however deep, waits before its expression is
 * evaluated, since the expression may read what a task wrote; the `for`
 * stands on a line of its own, so the return keeps its line and column.
 * The end of the body waits too, where control may reach it (main then
 * returns 0). exit() is left alone: the runtime waits at exit, while main's
 * frame is still there. */
#include <stdlib.h>

int work(int *x);
int check(int x);

int main(int argc, char **argv) {
  int x = 0;
#pragma dag task out(x)
  work(&x);
  if (argc > 1)
    return check(x) + work(&x);
  if (argc > 9)
    exit(1);
  for (int i = 0; i < argc; i++) {
    switch (argv[i][0]) {
    case 'q':
      return x > 0 ? 0 : 1;
    default:
      while (i > 3) {
        if (i == 7) return 7; else break;
      }
    }
  }
}
