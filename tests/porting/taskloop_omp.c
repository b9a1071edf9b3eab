/* OpenMP original: a taskloop with a reduction. */
// clang-format off
#include <stdio.h>

#define N 1000000
#define CHUNK 10000

static double a[N], b[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = i % 10;
    b[i] = 2;
  }
  double s = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(CHUNK) reduction(+: s)
  for (int i = 0; i < N; i++)
    s += a[i] * b[i];
  printf("a.b = %.0f\n", s);
  return 0;
}
