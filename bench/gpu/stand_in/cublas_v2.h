/* stand_in/cublas_v2.h — the cuBLAS calls gpu_vendor makes, as CBLAS
 * calls (stand_in/cuda_runtime.h says why). */
#ifndef STAND_IN_CUBLAS_V2_H
#define STAND_IN_CUBLAS_V2_H

#include "cuda_runtime.h"
#include <cblas.h>

typedef void *cublasHandle_t;
typedef enum { CUBLAS_OP_N, CUBLAS_OP_T } cublasOperation_t;
typedef enum { CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER } cublasFill_t;
typedef enum { CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT } cublasSide_t;
enum { CUBLAS_DIAG_NON_UNIT };

#define STAND_IN_OP(op) ((op) == CUBLAS_OP_T ? CblasTrans : CblasNoTrans)
#define STAND_IN_UPLO(u)                                                       \
  ((u) == CUBLAS_FILL_MODE_UPPER ? CblasUpper : CblasLower)

static inline int cublasCreate(cublasHandle_t *h) {
  *h = (void *)1;
  return 0;
}
static inline int cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  return !h || !s;
}
static inline int cublasDgemm(cublasHandle_t h, int ta, int tb, int m, int n,
                              int k, const double *alpha, const double *a,
                              int lda, const double *b, int ldb,
                              const double *beta, double *c, int ldc) {
  cblas_dgemm(CblasColMajor, STAND_IN_OP(ta), STAND_IN_OP(tb), m, n, k, *alpha,
              a, lda, b, ldb, *beta, c, ldc);
  return !h;
}
static inline int cublasDtrsm(cublasHandle_t h, int side, int uplo, int t,
                              int diag, int m, int n, const double *alpha,
                              const double *a, int lda, double *b, int ldb) {
  cblas_dtrsm(CblasColMajor, side == CUBLAS_SIDE_RIGHT ? CblasRight : CblasLeft,
              STAND_IN_UPLO(uplo), STAND_IN_OP(t), CblasNonUnit, m, n, *alpha,
              a, lda, b, ldb);
  return !h || diag != CUBLAS_DIAG_NON_UNIT;
}
static inline int cublasDsyrk(cublasHandle_t h, int uplo, int t, int n, int k,
                              const double *alpha, const double *a, int lda,
                              const double *beta, double *c, int ldc) {
  cblas_dsyrk(CblasColMajor, STAND_IN_UPLO(uplo), STAND_IN_OP(t), n, k, *alpha,
              a, lda, *beta, c, ldc);
  return !h;
}

#endif
