/* dag port: critical and atomic become a commutative task, or partial
 * results added by one task (atomic.c: C11 atomics). */
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

  /* 1. critical -> a commutative task: it runs alone among the tasks
   * commutative on sum, in any order. Keep it short: the work goes in a
   * task of its own, which writes a partial result. */
  double sum = 0, part[NB];
  for (int b = 0; b < NB; b++) {
#pragma dag task in(x[b * BS : BS]) out(part[b])
    part[b] = block_sum(&x[b * BS], BS);
#pragma dag task in(part[b]) commutative(sum)
    sum += part[b];
  }

  /* 2. Partial results, added by one task: no lock, no atomic, a fixed
   * order, and it works on several ranks. */
  long cnt[NB], hits = 0;
  for (int b = 0; b < NB; b++) {
#pragma dag task in(x[b * BS : BS]) out(cnt[b])
    cnt[b] = count_above(&x[b * BS], BS, 49.5);
  }
#pragma dag task in(cnt) out(hits)
  {
    long h = 0;
    for (int b = 0; b < NB; b++)
      h += cnt[b];
    hits = h;
  }

#pragma dag taskwait
  printf("sum = %.0f, hits = %ld\n", sum, hits);
  return 0;
}
