/* OpenMP original: tasks that update shared totals under critical and
 * atomic. */
#include <stdio.h>

#define NB 64
#define BS 10000

static double x[NB * BS];

static double block_sum(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s;
}

static long count_above(const double *v, int n, double t) {
  long c = 0;
  for (int i = 0; i < n; i++)
    c += v[i] > t;
  return c;
}

int main(void) {
  for (int i = 0; i < NB * BS; i++)
    x[i] = i % 100;
  double sum = 0;
  long hits = 0;
#pragma omp parallel
#pragma omp single
  for (int b = 0; b < NB; b++) {
#pragma omp task firstprivate(b) shared(sum, hits)
    {
      double s = block_sum(&x[b * BS], BS);
      long h = count_above(&x[b * BS], BS, 49.5);
#pragma omp critical
      sum += s;
#pragma omp atomic
      hits += h;
    }
  }
  printf("sum = %.0f, hits = %ld\n", sum, hits);
  return 0;
}
