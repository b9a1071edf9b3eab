/* dag port: no parallel region, no single; a taskwait replaces the barrier. */
#include <stdio.h>

#define N 16

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[N];
  for (int i = 0; i < N; i++) {
#pragma dag task out(r[i])
    r[i] = work(i); /* out(r[i]): the task writes the r of main */
  }
#pragma dag taskwait /* the barrier that ended the parallel region */

  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += r[i];
  printf("sum = %ld\n", sum);
  return 0;
}
