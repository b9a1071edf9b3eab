/* OpenMP original: a pipeline over blocks with depend, and a total that
 * the tasks add to in any order (mutexinoutset). */
// clang-format off
#include <stdio.h>

#define NB 8
#define BS 1000

static long x[NB * BS], part[NB];

static void fill(long *v, int n, long first) {
  for (int i = 0; i < n; i++)
    v[i] = first + i;
}

static void twice(long *v, int n) {
  for (int i = 0; i < n; i++)
    v[i] *= 2;
}

static long sum(const long *v, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s;
}

int main(void) {
  long total = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int b = 0; b < NB; b++) {
#pragma omp task depend(out: x[b * BS : BS])
      fill(&x[b * BS], BS, (long)b * BS);
#pragma omp task depend(inout: x[b * BS : BS])
      twice(&x[b * BS], BS);
#pragma omp task depend(in: x[b * BS : BS]) depend(out: part[b])
      part[b] = sum(&x[b * BS], BS);
#pragma omp task depend(in: part[b]) depend(mutexinoutset: total)
      total += part[b];
    }
#pragma omp taskwait
  }
  printf("total = %ld\n", total);
  return 0;
}
