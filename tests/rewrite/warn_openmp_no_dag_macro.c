/* OpenMP through macros of a quoted header that vanish without _OPENMP: no
 * pragma is left for the compiler to warn about, and the program runs
 * serially without a word. The rewriter finds the macros whose definition
 * makes an OpenMP pragma (directly, `_Pragma("omp ...")` or `PRAGMA(omp
 * ...)`, or through another such macro) and warns at the first use in the
 * file; `simd` alone (OMP_SIMD) asks for no threads and does not count. */
// clang-format off
#include "warn_openmp_no_dag_macro.h"

void sweep(double *g, int i);

void pipeline(double *g, int n) {
  OMP_SIMD
  for (int i = 0; i < n; i++)
    g[i] = 0;
  OMP_PARALLEL()
  OMP_MASTER
  {
    for (int i = 1; i < n; i++) {
      OMP_TASK(depend(in: g[i - 1]) depend(out: g[i]))
      sweep(g, i);
    }
    OMP_TASKWAIT
  }
}
