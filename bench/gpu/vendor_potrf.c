/* vendor_potrf.c — gpu_vendor's Cholesky peers (vendor.h), A = L L^T of
 * an SPD n x n matrix, L column-major lower (A is symmetric, so the
 * row-major and column-major views of the input agree); and the rates of
 * the tile kernels a device model charges.
 */
#include "vendor.h"

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double one = 1.0, minus_one = -1.0;

/* dpotrf of the k x k block at p (leading dimension n), status word
 * `info`, on the compute stream. */
static void potrf_at(struct job *j, int k, double *p, int *info) {
  CHECK(cusolverDnDpotrf(j->solver, CUBLAS_FILL_MODE_LOWER, k, p, j->n, j->work,
                         j->lwork, info));
}

static void copy_in(struct job *j) {
  CHECK(cudaMemcpy(j->d[0], j->a, j->bytes, cudaMemcpyHostToDevice));
}
/* Every status word 0, else the matrix was not SPD: a wrong run. */
static void statuses(struct job *j) {
  int nt = j->n / j->b, *info = calloc((size_t)nt, sizeof *info);
  CHECK(cudaMemcpy(info, j->info, (size_t)nt * sizeof *info,
                   cudaMemcpyDeviceToHost));
  for (int k = 0; k < nt; k++)
    vendor_check(info[k], "dpotrf (a status word)");
  free(info);
}
static void copy_out(struct job *j) {
  CHECK(cudaMemcpy(j->a, j->d[0], j->bytes, cudaMemcpyDeviceToHost));
  statuses(j);
}

/* Device-resident: one dpotrf of the whole matrix, the ceiling. */
static void whole(struct job *j) {
  CHECK(cudaMemsetAsync(j->info, 0, (size_t)(j->n / j->b) * sizeof(int),
                        j->compute));
  potrf_at(j, j->n, j->d[0], j->info);
  vendor_sync();
}

/* Pageable: malloc'd memory, synchronous copies around one call. */
static void pageable(struct job *j) {
  copy_in(j);
  whole(j);
  CHECK(cudaMemcpy(j->a, j->d[0], j->bytes, cudaMemcpyDeviceToHost));
}

/* Page-locked, by hand: left-looking by panels of b columns, so that each
 * panel is copied in while the ones before it are worked on, and copied
 * out once final while the ones after it are. Panel k (columns kb.. of
 * rows kb.. : in the row-major host array, b rows from column kb, a 2-D
 * copy) is updated by every panel before it (one dgemm), then its
 * diagonal block factored (dpotrf) and the rest solved (dtrsm). */
static void pinned(struct job *j) {
  size_t n = j->n, b = j->b, row = n * sizeof(double);
  int nt = j->n / j->b;
  cudaEvent_t *ev = malloc(2 * (size_t)nt * sizeof *ev);
  for (int e = 0; e < 2 * nt; e++)
    CHECK(cudaEventCreateWithFlags(&ev[e], cudaEventDisableTiming));
  CHECK(cudaMemsetAsync(j->info, 0, (size_t)nt * sizeof(int), j->compute));
  for (int k = 0; k < nt; k++) { /* every panel in, in order */
    size_t at = k * b * n + k * b;
    CHECK(cudaMemcpy2DAsync(j->d[0] + at, row, j->a + at, row,
                            (n - k * b) * sizeof(double), b,
                            cudaMemcpyHostToDevice, j->in));
    CHECK(cudaEventRecord(ev[2 * k], j->in));
  }
  for (int k = 0; k < nt; k++) {
    size_t at = k * b * n + k * b, rows = n - k * b;
    CHECK(cudaStreamWaitEvent(j->compute, ev[2 * k], 0));
    if (k) /* A(kb:, kb:kb+b) -= L(kb:, :kb) L(kb:kb+b, :kb)^T */
      CHECK(cublasDgemm(j->blas, CUBLAS_OP_N, CUBLAS_OP_T, rows, j->b, k * j->b,
                        &minus_one, j->d[0] + k * b, j->n, j->d[0] + k * b,
                        j->n, &one, j->d[0] + at, j->n));
    potrf_at(j, j->b, j->d[0] + at, j->info + k);
    if (rows > b) /* L(kb+b:, kb:kb+b) = A(kb+b:, kb:kb+b) L(kb, kb)^-T */
      CHECK(cublasDtrsm(j->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER,
                        CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, rows - b, j->b, &one,
                        j->d[0] + at, j->n, j->d[0] + at + b, j->n));
    CHECK(cudaEventRecord(ev[2 * k + 1], j->compute));
    CHECK(cudaStreamWaitEvent(j->out, ev[2 * k + 1], 0));
    CHECK(cudaMemcpy2DAsync(j->a + at, row, j->d[0] + at, row,
                            rows * sizeof(double), b, cudaMemcpyDeviceToHost,
                            j->out));
  }
  vendor_sync();
  for (int e = 0; e < 2 * nt; e++)
    cudaEventDestroy(ev[e]);
  free(ev);
}

const struct peer vendor_potrf_peers[] = {
    {"potrf", "cusolver-resident", 1, copy_in, whole, copy_out},
    {"potrf", "cusolver-pinned", 1, NULL, pinned, statuses},
    {"potrf", "cusolver-pageable", 0, NULL, pageable, statuses},
    {NULL, NULL, 0, NULL, NULL, NULL}};

/* Seconds of the best of reps of one tile kernel. */
#define BEST_OF(reps, call)                                                    \
  ({                                                                           \
    double best_ = INFINITY;                                                   \
    for (int r_ = 0; r_ < (reps); r_++) {                                      \
      vendor_sync();                                                           \
      double t0_ = bench_now();                                                \
      CHECK(call);                                                             \
      vendor_sync();                                                           \
      best_ = fmin(best_, bench_now() - t0_);                                  \
    }                                                                          \
    best_;                                                                     \
  })

void vendor_tile_rates(int b, int reps) {
  struct job j = {.n = b, .b = b, .bytes = (size_t)b * b * sizeof(double)};
  double *t[3], *spd = malloc(j.bytes), bb = (double)b * b * b;
  for (size_t i = 0; i < (size_t)b * b; i++) /* diagonally dominant */
    spd[i] = (i % (b + 1) ? 0.5 : b) + 0.25 * (i % 7 == 0);
  for (int i = 0; i < 3; i++) {
    CHECK(cudaMalloc((void **)&t[i], j.bytes));
    CHECK(cudaMemcpy(t[i], spd, j.bytes, cudaMemcpyHostToDevice));
  }
  CHECK(cublasCreate(&j.blas));
  CHECK(cusolverDnCreate(&j.solver));
  CHECK(cusolverDnDpotrf_bufferSize(j.solver, CUBLAS_FILL_MODE_LOWER, b, t[2],
                                    b, &j.lwork));
  CHECK(cudaMalloc((void **)&j.work, (size_t)j.lwork * sizeof(double)));
  CHECK(cudaMalloc((void **)&j.info, sizeof(int)));
  /* potrf first, on a copy of the SPD tile each time, then the others
   * with its factor. */
  double potrf = INFINITY;
  for (int r = 0; r < reps; r++) {
    CHECK(cudaMemcpy(t[2], spd, j.bytes, cudaMemcpyHostToDevice));
    potrf = fmin(
        potrf, BEST_OF(1, cusolverDnDpotrf(j.solver, CUBLAS_FILL_MODE_LOWER, b,
                                           t[2], b, j.work, j.lwork, j.info)));
  }
  double s[4] = {
      BEST_OF(reps, cublasDgemm(j.blas, CUBLAS_OP_N, CUBLAS_OP_T, b, b, b,
                                &minus_one, t[0], b, t[0], b, &one, t[1], b)),
      BEST_OF(reps, cublasDsyrk(j.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, b,
                                b, &minus_one, t[0], b, &one, t[1], b)),
      BEST_OF(reps,
              cublasDtrsm(j.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER,
                          CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, b, b, &one, t[2],
                          b, t[0], b)),
      potrf};
  const char *label[4] = {"gemm", "syrk", "trsm", "potrf"};
  double flops[4] = {2 * bb, bb, bb, bb / 3};
  for (int k = 0; k < 4; k++)
    printf("tiles label=%s b=%d time=%.6f tflops=%.2f\n", label[k], b, s[k],
           flops[k] / s[k] * 1e-12);
  free(spd);
}
