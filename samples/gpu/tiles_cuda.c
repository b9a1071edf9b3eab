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
 * cuBLAS and cuSOLVER handles are one per worker and per stream: a device
 * body runs on the worker that launches it, on one of the device's streams
 * (dag_cuda_stream()), and a handle's workspace (potrf's, cuBLAS's own)
 * must not be shared by two streams at once. cuda_tiles_set_up makes them
 * all before the tasks, with dag_on_each_worker and dag_device_streams, so
 * that no task's time pays for a cublasCreate; a body that finds none for
 * its stream (the program did not call it) makes it then. potrf's status
 * word stays on the device: a tile that is not positive definite shows in
 * the residual the program checks, without a synchronisation per tile.
 */
#include "tiles_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dag.h>
#include <stdio.h>
#include <stdlib.h>

/* Streams a worker's bodies may run on: 8 per device (dag_device_streams). */
enum { MAX_STREAMS = 128 };

struct handles {
  cudaStream_t stream; /* NULL: a free slot */
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
  double *work; /* potrf's workspace, on the device */
  int work_size;
  int *info; /* potrf's status, on the device */
};

static _Thread_local struct handles per_stream[MAX_STREAMS];

static void check(int status, const char *what) {
  if (status) {
    fprintf(stderr, "tiles_cuda: %s failed (status %d)\n", what, status);
    abort();
  }
}

/* This thread's handles for `stream` of the current device, made if need
 * be. */
static struct handles *handles_for(cudaStream_t stream) {
  for (int i = 0; i < MAX_STREAMS; i++) {
    struct handles *h = &per_stream[i];
    if (h->stream == stream)
      return h;
    if (h->stream)
      continue;
    h->stream = stream;
    check(cublasCreate(&h->blas), "cublasCreate");
    check(cublasSetStream(h->blas, stream), "cublasSetStream");
    check(cusolverDnCreate(&h->solver), "cusolverDnCreate");
    check(cusolverDnSetStream(h->solver, stream), "cusolverDnSetStream");
    check(cudaMalloc((void **)&h->info, sizeof *h->info), "cudaMalloc");
    return h;
  }
  check(-1, "more streams than tiles_cuda knows");
  return NULL;
}

/* The handles of the running body: this thread's, for its stream. */
static struct handles *handles(void) {
  return handles_for((cudaStream_t)dag_cuda_stream());
}

/* On one worker: handles for every stream of every CUDA device. */
static void set_up_worker(void *unused) {
  (void)unused;
  struct dag_stream streams[MAX_STREAMS];
  int n = dag_device_streams(DAG_DEVICE_CUDA, streams, MAX_STREAMS);
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  for (int i = 0; i < n && i < MAX_STREAMS; i++) {
    check(cudaSetDevice(streams[i].device), "cudaSetDevice");
    handles_for((cudaStream_t)streams[i].stream);
  }
  check(cudaSetDevice(current), "cudaSetDevice");
}

int cuda_tiles_set_up(void) {
  struct dag_stream any;
  int n = dag_device_streams(DAG_DEVICE_CUDA, &any, 1);
  if (n <= 0) /* no CUDA device: the CPU variants run */
    return n;
  return dag_on_each_worker(set_up_worker, NULL);
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
