/* OpenMP original: recursive fib with final, mergeable and untied. */
#include <stdio.h>

#define CUTOFF 20

long fib(int n) {
  if (n < 2)
    return n;
  long x, y;
#pragma omp task shared(x) firstprivate(n) final(n <= CUTOFF) mergeable untied
  x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n) final(n <= CUTOFF) mergeable untied
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

int main(void) {
  long r;
#pragma omp parallel
#pragma omp single
  r = fib(32);
  printf("fib(32) = %ld\n", r);
  return 0;
}
