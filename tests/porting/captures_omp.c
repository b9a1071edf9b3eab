/* OpenMP original: firstprivate, private and shared variables of a task. */
#include <stdio.h>

#define N 100

int main(void) {
  int a[N], b[N];
  int scale = 3;  /* read by every task */
  int tmp;        /* scratch of each task */
  long count = 0; /* every task adds to it */
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(i, scale) private(tmp) shared(a, b, count)
    {
      tmp = a[i] * scale;
      b[i] = tmp + 1;
#pragma omp atomic
      count += b[i];
    }
  }
  printf("b[%d] = %d, count = %ld\n", N - 1, b[N - 1], count);
  return 0;
}
