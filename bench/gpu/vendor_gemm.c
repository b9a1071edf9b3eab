/* vendor_gemm.c — gpu_vendor's GEMM peers (vendor.h), C := C + A B of
 * row-major n x n matrices. In memory a row-major matrix is the
 * column-major one of its transpose, so each calls cuBLAS on
 * C^T := C^T + B^T A^T, on the same bytes.
 */
#include "vendor.h"

#include <cublasXt.h>
#include <stdlib.h>

static const double one = 1.0;

/* C(i, j) += A(i, :) B(:, j), b x b tiles of C, on the compute stream (the
 * whole product when b = n). */
static void product(struct job *j, int i, int jt) {
  size_t n = j->n, b = j->b;
  CHECK(cublasDgemm(j->blas, CUBLAS_OP_N, CUBLAS_OP_N, j->b, j->b, j->n, &one,
                    j->d[1] + jt * b, j->n, j->d[0] + i * b * n, j->n, &one,
                    j->d[2] + i * b * n + jt * b, j->n));
}

/* Device-resident: the three matrices copied in beforehand, untimed; the
 * product alone is the ceiling of every other peer. */
static void copy_in(struct job *j) {
  CHECK(cudaMemcpy(j->d[0], j->a, j->bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(j->d[1], j->bm, j->bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(j->d[2], j->c, j->bytes, cudaMemcpyHostToDevice));
}
static void copy_out(struct job *j) {
  CHECK(cudaMemcpy(j->c, j->d[2], j->bytes, cudaMemcpyDeviceToHost));
}
static void whole(struct job *j) {
  struct job all = *j;
  all.b = j->n;
  product(&all, 0, 0);
  vendor_sync();
}

/* Pageable: malloc'd matrices, synchronous copies around one call. */
static void pageable(struct job *j) {
  copy_in(j);
  whole(j);
  copy_out(j);
}

/* Page-locked, by hand: tiles of C in growing squares (every tile with
 * max(i, j) = k once A's row panel k and B's column panel k are in), so
 * that each new pair of panels brings 2k + 1 products. The copies in go on
 * their stream in that order, each tile of C after them; the compute
 * stream waits for a tile's event, the copies out for its product. */
static void pinned(struct job *j) {
  size_t n = j->n, b = j->b, row = n * sizeof(double), w = b * sizeof(double);
  int nt = j->n / j->b, t = 0;
  cudaEvent_t *ev = malloc(2 * (size_t)nt * nt * sizeof *ev);
  for (int e = 0; e < 2 * nt * nt; e++)
    CHECK(cudaEventCreateWithFlags(&ev[e], cudaEventDisableTiming));
  for (int k = 0; k < nt; k++) {
    CHECK(cudaMemcpyAsync(j->d[0] + k * b * n, j->a + k * b * n, b * row,
                          cudaMemcpyHostToDevice, j->in));
    CHECK(cudaMemcpy2DAsync(j->d[1] + k * b, row, j->bm + k * b, row, w, n,
                            cudaMemcpyHostToDevice, j->in));
    for (int s = 0; s < 2 * k + 1; s++, t++) {
      int i = s <= k ? k : s - k - 1, jt = s <= k ? s : k; /* row k, col k */
      size_t at = i * b * n + jt * b;
      CHECK(cudaMemcpy2DAsync(j->d[2] + at, row, j->c + at, row, w, b,
                              cudaMemcpyHostToDevice, j->in));
      CHECK(cudaEventRecord(ev[2 * t], j->in));
      CHECK(cudaStreamWaitEvent(j->compute, ev[2 * t], 0));
      product(j, i, jt);
      CHECK(cudaEventRecord(ev[2 * t + 1], j->compute));
      CHECK(cudaStreamWaitEvent(j->out, ev[2 * t + 1], 0));
      CHECK(cudaMemcpy2DAsync(j->c + at, row, j->d[2] + at, row, w, b,
                              cudaMemcpyDeviceToHost, j->out));
    }
  }
  vendor_sync();
  for (int e = 0; e < 2 * nt * nt; e++)
    cudaEventDestroy(ev[e]);
  free(ev);
}

/* cublasXt on the page-locked host matrices: it tiles them over the
 * device itself, in tiles of b. */
static cublasXtHandle_t xt;
static void xt_prepare(struct job *j) {
  int device = 0;
  if (!xt) {
    CHECK(cublasXtCreate(&xt));
    CHECK(cublasXtDeviceSelect(xt, 1, &device));
    CHECK(cublasXtSetBlockDim(xt, j->b));
  }
}
static void xt_run(struct job *j) {
  CHECK(cublasXtDgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, j->n, j->n, j->n, &one,
                      j->bm, j->n, j->a, j->n, &one, j->c, j->n));
  vendor_sync();
}

const struct peer vendor_gemm_peers[] = {
    {"gemm", "cublas-resident", 1, copy_in, whole, copy_out},
    {"gemm", "cublas-pinned", 1, NULL, pinned, NULL},
    {"gemm", "cublasxt", 1, xt_prepare, xt_run, NULL},
    {"gemm", "cublas-pageable", 0, NULL, pageable, NULL},
    {NULL, NULL, 0, NULL, NULL, NULL}};
