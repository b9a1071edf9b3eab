/* tiles_cuda.c — tile kernels on a CUDA device (tiles_cuda.h).
 *
 * The tiles are row-major blocks of a row-major matrix. In memory a
 * row-major block is the column-major block of its transpose, so each
 * kernel calls cuBLAS (column-major) on the transposed problem, on the same
 * bytes, as samples/cholesky/tiles.c does with LAPACK:
 *   potrf  A = L L^T (row-major lower)  is  A^T = U^T U, 'U' column-major;
 *   trsm   Aik := Aik Lkk^-T            is  Aik^T := Lkk^-1 Aik^T;
 *   syrk   Aii -= Aik Aik^T             is  upper Aii^T -= (Aik^T)^T Aik^T;
 *   gemm   Aij -= Aik Ajk^T             is  Aij^T -= Ajk Aik^T.
 *
 * cuBLAS and cuSOLVER handles are made on first use, one per thread and
 * device (a device body runs on the worker that launches it), and pointed
 * at the running task's stream at every call. potrf's status word stays on
 * the device: a tile that is not positive definite shows in the residual
 * the program checks, without a synchronisation per tile.
 */
#include "tiles_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dag.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_GPUS = 16 };

struct handles {
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
  double *work; /* potrf's workspace, on the device */
  int work_size;
  int *info; /* potrf's status, on the device */
};

static _Thread_local struct handles per_device[MAX_GPUS];

static void check(int status, const char *what) {
  if (status) {
    fprintf(stderr, "tiles_cuda: %s failed (status %d)\n", what, status);
    abort();
  }
}

/* The handles of this thread for the current device, on the task's
 * stream. */
static struct handles *handles(void) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  if (device >= MAX_GPUS)
    check(-1, "more devices than tiles_cuda knows");
  struct handles *h = &per_device[device];
  cudaStream_t stream = (cudaStream_t)dag_cuda_stream();
  if (!h->blas) {
    check(cublasCreate(&h->blas), "cublasCreate");
    check(cusolverDnCreate(&h->solver), "cusolverDnCreate");
    check(cudaMalloc((void **)&h->info, sizeof *h->info), "cudaMalloc");
  }
  check(cublasSetStream(h->blas, stream), "cublasSetStream");
  check(cusolverDnSetStream(h->solver, stream), "cusolverDnSetStream");
  return h;
}

void cuda_tile_potrf(double *akk, int k, int ld) {
  struct handles *h = handles();
  int size = 0;
  check(cusolverDnDpotrf_bufferSize(h->solver, CUBLAS_FILL_MODE_UPPER, k, akk,
                                    ld, &size),
        "cusolverDnDpotrf_bufferSize");
  if (size > h->work_size) {
    cudaStream_t stream = (cudaStream_t)dag_cuda_stream();
    if (h->work)
      check(cudaFreeAsync(h->work, stream), "cudaFreeAsync");
    check(cudaMallocAsync((void **)&h->work, (size_t)size * sizeof(double),
                          stream),
          "cudaMallocAsync");
    h->work_size = size;
  }
  check(cusolverDnDpotrf(h->solver, CUBLAS_FILL_MODE_UPPER, k, akk, ld, h->work,
                         size, h->info),
        "cusolverDnDpotrf");
}

void cuda_tile_trsm(const double *lkk, double *aik, int m, int k, int ld) {
  const double one = 1.0;
  check(cublasDtrsm(handles()->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                    CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, k, m, &one, lkk, ld, aik,
                    ld),
        "cublasDtrsm");
}

void cuda_tile_syrk(const double *aik, double *aii, int m, int k, int ld) {
  const double minus_one = -1.0, one = 1.0;
  check(cublasDsyrk(handles()->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, m, k,
                    &minus_one, aik, ld, &one, aii, ld),
        "cublasDsyrk");
}

void cuda_tile_gemm(const double *aik, const double *ajk, double *aij, int m,
                    int n, int k, int ld) {
  const double minus_one = -1.0, one = 1.0;
  check(cublasDgemm(handles()->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k,
                    &minus_one, ajk, ld, aik, ld, &one, aij, ld),
        "cublasDgemm");
}

void cuda_tile_gemm_nn(const double *a, const double *b, double *c, int m,
                       int n, int k, int ld) {
  /* C = C + A B  is  C^T = C^T + B^T A^T. */
  const double one = 1.0;
  check(cublasDgemm(handles()->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b,
                    ld, a, ld, &one, c, ld),
        "cublasDgemm");
}
