/* A kernel of a header, its loop behind an OpenMP macro. */
#include "warn_openmp_no_dag_macro.h"

static void scale(double *x, int n) {
  OMP_FOR_SIMD()
  for (int i = 0; i < n; i++)
    x[i] *= 2;
}
