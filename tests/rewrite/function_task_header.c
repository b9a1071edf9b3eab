/* A task function declared in a quoted header: the header is left as it
 * is; the wrapper goes before the first function of the main file that
 * calls it, and the calls become tasks. */
#include "function_task_header.h"

static int unrelated(int x) { return x + 1; }

void f(double *a, double *b, int n) {
  normalize(a, unrelated(n) - 1);
  normalize(b, n);
}
