/* dag port of an OpenMP atomic: a C11 atomic that the tasks share. */
#include <stdio.h>

#define NB 64
#define BS 10000

static double x[NB * BS];

static long count_above(const double *v, int n, double t) {
  long c = 0;
  for (int i = 0; i < n; i++)
    c += v[i] > t;
  return c;
}

int main(void) {
  for (int i = 0; i < NB * BS; i++)
    x[i] = i % 100;
  _Atomic long hits = 0;
  for (int b = 0; b < NB; b++) {
#pragma dag task in(x[b * BS : BS]) shared(hits)
    hits += count_above(&x[b * BS], BS, 49.5); /* an atomic add */
  }
#pragma dag taskwait
  printf("hits = %ld\n", (long)hits);
  return 0;
}
