/* The port of parallel_single_omp.c without out(r[i]): the array r is
 * copied into each task, so the tasks fill copies. dagcc warns. */
#include <stdio.h>

#define N 16

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[N] = {0};
  for (int i = 0; i < N; i++) {
#pragma dag task
    r[i] = work(i); /* WRONG: writes the task's own copy of r */
  }
#pragma dag taskwait
  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += r[i];
  printf("sum = %ld\n", sum);
  return 0;
}
