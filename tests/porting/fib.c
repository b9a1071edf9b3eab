/* dag port: out(x) shares x; the cutoff that final() gave is plain C;
 * mergeable and untied are dropped. fib needs no prototype. */
#include <stdio.h>

#define CUTOFF 20

static long fib_serial(int n) {
  return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

long fib(int n) {
  if (n <= CUTOFF) /* what final(n <= CUTOFF) did: no tasks below it */
    return fib_serial(n);
  long x, y;
#pragma dag task out(x)
  x = fib(n - 1);
#pragma dag task out(y)
  y = fib(n - 2);
#pragma dag taskwait
  return x + y;
}

/* Without a cutoff: every call is a task, and it still runs. */
long fib_tasks(int n) {
  if (n < 2)
    return n;
  long x, y;
#pragma dag task out(x)
  x = fib_tasks(n - 1);
#pragma dag task out(y)
  y = fib_tasks(n - 2);
#pragma dag taskwait
  return x + y;
}

int main(void) {
  printf("fib(32) = %ld\n", fib(32));
  printf("fib_tasks(25) = %ld\n", fib_tasks(25));
  return 0;
}
