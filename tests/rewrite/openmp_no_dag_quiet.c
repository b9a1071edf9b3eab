/* No warning for a file without dag pragma whose OpenMP asks for no
 * threads: a header's OpenMP macros that the file does not use (except
 * OMP_SIMD), `#pragma omp simd` and `declare simd`, omp.h and omp_* calls
 * (timers, thread counts), and text in comments and strings. Such a file
 * loses no parallelism under dagcc. */
#include "warn_openmp_no_dag_macro.h"

/* #pragma omp parallel */
static const char *doc = "_Pragma(\"omp task\") PRAGMA(omp task)";

#pragma omp declare simd
double twice(double x);

double now(void) {
#ifdef _OPENMP
  return omp_get_wtime();
#else
  return doc[0];
#endif
}

void clear(double *x, int n) {
  OMP_SIMD
  for (int i = 0; i < n; i++)
    x[i] = 0;
#pragma omp simd
  for (int i = 0; i < n; i++)
    x[i] = twice(x[i]);
}
