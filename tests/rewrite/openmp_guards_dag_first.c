/* One file for OpenMP and dag that dagcc also builds with -fopenmp: each
 * kind of pragma under its own guard, dag's first, since dagcc defines
 * _DAG and -fopenmp defines _OPENMP. The OpenMP constructs stay out of
 * dagcc's build; the rest of OpenMP (omp.h) still serves it. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[8], sum = 0;
#ifdef _OPENMP
  fprintf(stderr, "%d OpenMP threads\n", omp_get_max_threads());
#endif
#ifndef _DAG
#pragma omp parallel
#pragma omp single
#endif
  {
    for (int i = 0; i < 8; i++) {
#ifdef _DAG
#pragma dag task out(r[i])
#else
#pragma omp task depend(out: r[i])
#endif
      r[i] = work(i);
    }
#ifdef _DAG
#pragma dag taskwait
#else
#pragma omp taskwait
#endif
  }
  for (int i = 0; i < 8; i++)
    sum += r[i];
  printf("sum = %ld\n", sum);
  return 0;
}
