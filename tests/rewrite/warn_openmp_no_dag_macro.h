/* OpenMP pragmas behind macros that vanish without _OPENMP, as the Parallel
 * Research Kernels write them. */
#ifndef WARN_OPENMP_NO_DAG_MACRO_H
#define WARN_OPENMP_NO_DAG_MACRO_H

#define PRAGMA(x) _Pragma(#x)

#ifdef _OPENMP
#include <omp.h>
#define OMP(x) PRAGMA(omp x)
#define OMP_PARALLEL(x) PRAGMA(omp parallel x)
#define OMP_MASTER PRAGMA(omp master)
#define OMP_TASK(x) PRAGMA(omp task x)
#define OMP_TASKWAIT _Pragma("omp taskwait")
#define OMP_SIMD PRAGMA(omp simd)
#define OMP_FOR_SIMD(x) OMP(for simd x)
#else
#define OMP(x)
#define OMP_PARALLEL(x)
#define OMP_MASTER
#define OMP_TASK(x)
#define OMP_TASKWAIT
#define OMP_SIMD
#define OMP_FOR_SIMD(x)
#endif

#endif
