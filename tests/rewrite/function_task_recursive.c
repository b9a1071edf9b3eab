/* A task function that calls itself: the calls in its own body are tasks
 * too (children of the running task), thanks to the wrapper's prototype
 * where the pragma was. */
#include <stdio.h>

#pragma dag task inout(*r)
static void fib(int n, long *r) {
  if (n < 2) {
    *r = n;
    return;
  }
  long a, b;
  fib(n - 1, &a);
  fib(n - 2, &b);
#pragma dag taskwait
  *r = a + b;
}

int main(void) {
  long r;
  fib(15, &r);
#pragma dag taskwait
  printf("%ld\n", r);
  return 0;
}
