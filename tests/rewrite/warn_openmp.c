/* A port that keeps OpenMP pragmas: without -fopenmp they do nothing, and
 * dagcc says so once, at the first one the preprocessor surely keeps.
 * Passed over: those under a condition that is false (_OPENMP is not
 * defined, _DAG is) or not known (a macro of a header), and 'simd', which
 * only asks for vector code. */
#include <stdio.h>

#define USE_OMP_LOOP 0

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[8], sum = 0;
#ifdef _OPENMP
#pragma omp parallel
#endif
#if USE_OMP_LOOP || !defined(_DAG)
#pragma omp parallel for
#endif
#ifdef HAVE_OMP_SINGLE
#pragma omp single
#endif
#pragma omp simd
  for (int i = 0; i < 8; i++)
    r[i] = 0;
#if defined(_DAG) && _DAG >= 202612
#pragma omp taskgroup
#endif
  {
    for (int i = 0; i < 8; i++) {
#pragma omp task depend(out: r[i])
#pragma dag task out(r[i])
      r[i] = work(i);
    }
  }
#pragma omp taskwait
#pragma dag taskwait
  for (int i = 0; i < 8; i++)
    sum += r[i];
  printf("%ld\n", sum);
  return 0;
}
