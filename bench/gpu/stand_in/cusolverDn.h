/* stand_in/cusolverDn.h — the cuSOLVER calls gpu_vendor makes, as LAPACKE
 * calls (stand_in/cuda_runtime.h says why). */
#ifndef STAND_IN_CUSOLVERDN_H
#define STAND_IN_CUSOLVERDN_H

#include "cublas_v2.h"
#include <lapacke.h>

typedef void *cusolverDnHandle_t;

static inline int cusolverDnCreate(cusolverDnHandle_t *h) {
  *h = (void *)1;
  return 0;
}
static inline int cusolverDnSetStream(cusolverDnHandle_t h, cudaStream_t s) {
  return !h || !s;
}
static inline int cusolverDnDpotrf_bufferSize(cusolverDnHandle_t h, int uplo,
                                              int n, double *a, int lda,
                                              int *lwork) {
  (void)uplo, (void)n, (void)a, (void)lda;
  *lwork = 1;
  return !h;
}
static inline int cusolverDnDpotrf(cusolverDnHandle_t h, int uplo, int n,
                                   double *a, int lda, double *work, int lwork,
                                   int *info) {
  (void)work, (void)lwork;
  *info = LAPACKE_dpotrf(LAPACK_COL_MAJOR,
                         uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L', n, a, lda);
  return !h;
}

#endif
