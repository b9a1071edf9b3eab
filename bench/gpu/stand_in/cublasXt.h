/* stand_in/cublasXt.h — cublasXtDgemm as cublasDgemm on host memory
 * (stand_in/cuda_runtime.h says why). */
#ifndef STAND_IN_CUBLASXT_H
#define STAND_IN_CUBLASXT_H

#include "cublas_v2.h"

typedef void *cublasXtHandle_t;

static inline int cublasXtCreate(cublasXtHandle_t *h) {
  *h = (void *)1;
  return 0;
}
static inline int cublasXtDeviceSelect(cublasXtHandle_t h, int n, int *d) {
  return !h || n != 1 || *d;
}
static inline int cublasXtSetBlockDim(cublasXtHandle_t h, int b) {
  return !h || b < 1;
}
static inline int cublasXtDgemm(cublasXtHandle_t h, int ta, int tb, size_t m,
                                size_t n, size_t k, const double *alpha,
                                const double *a, size_t lda, const double *b,
                                size_t ldb, const double *beta, double *c,
                                size_t ldc) {
  return cublasDgemm(h, ta, tb, (int)m, (int)n, (int)k, alpha, a, (int)lda, b,
                     (int)ldb, beta, c, (int)ldc);
}

#endif
