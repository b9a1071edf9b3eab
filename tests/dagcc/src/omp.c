/* A rewritten file that includes gcc's omp.h, built with -fopenmp. */
#include <omp.h>
#include <stdio.h>

static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
#pragma dag task inout(x)
  add(&x, omp_get_max_threads() > 0);
#pragma dag taskwait
  printf("%d\n", x);
  return 0;
}
