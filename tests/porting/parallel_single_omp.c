/* OpenMP original: tasks created by one thread of a parallel region. */
#include <stdio.h>

#define N 16

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[N];
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < N; i++) {
#pragma omp task
      r[i] = work(i); /* r is shared: declared before the parallel region */
    }
  } /* implicit barrier: every task is complete here */

  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += r[i];
  printf("sum = %ld\n", sum);
  return 0;
}
