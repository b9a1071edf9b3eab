/* blas_omptask.c — GEMM, SYRK, GEMV and Cholesky of the linalg group with
 * OpenMP tasks (runtime "omptask"), the peer of blas.c.
 *
 *   blas_omptask -k gemm|syrk|gemv|cholesky [-n N] [-b B] [-r REPS]
 *                [-t SECONDS]
 *
 * The same problems (blas_tiles.h), tiles, loop nests and tile kernels as
 * blas.c, on row-major n x n matrices in one process: each tile kernel is a
 * `#pragma omp task` with `depend` clauses, submitted by one thread of a
 * `parallel` region. OpenMP orders tasks by the address of a dependence
 * item, so a tile is named by its first entry (exact: tiles never partly
 * overlap); GEMV is a task per band of rows, as in blas.c. Each tile's kernels
 * run in the same order as in blas.c, so the result and sum= are the same bits
 * as dag's. The Cholesky's priorities only count up to OMP_MAX_TASK_PRIORITY (0
 * when unset: no priorities; the suite sets it, bench/runner.py).
 *
 * The tile kernels run in parallel tasks, so OpenBLAS gets one thread each
 * (set here, whatever OPENBLAS_NUM_THREADS says). OMP_NUM_THREADS sets the
 * threads. Timed: the kernel (its parallel region). Untimed: the inputs
 * (filled in parallel before each repetition), the check and sum=
 * (blas_tiles.h; sum= adds tile sums in tile order, as blas.c).
 */
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "linalg_program.h"
#include "suite.h"
#include "tiles.h" /* samples/cholesky: the Cholesky's kernels, priorities */

/* Fills matrix m with the input `shape` of `seed`, tiles in parallel. */
static void fill(const struct blas_problem *p, void *m, enum blas_shape shape,
                 uint64_t seed) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*M)[n] = m;
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (long i = 0; i < nt; i++)
    for (long j = 0; j < nt; j++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
      long j0 = j * bs, dj = suite_block_dim(n, bs, j);
      blas_fill(&M[i0][j0], n, 1, shape, seed, n, i0, j0, di, dj);
    }
}

/* ------------------------------------------------------------- kernels */

/* C += A B. */
static void gemm(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a, (*B)[n] = p->b, (*C)[n] = p->c;
#pragma omp parallel
#pragma omp single
  for (long k = 0; k < nt; k++) {
    long k0 = k * bs, dk = suite_block_dim(n, bs, k);
    for (long i = 0; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
      for (long j = 0; j < nt; j++) {
        long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma omp task depend(in : A[i0][k0], B[k0][j0]) depend(inout : C[i0][j0])
        blas_tile_gemm(&A[i0][k0], &B[k0][j0], &C[i0][j0], di, dj, dk, n);
      }
    }
  }
}

/* C += A A^T on the lower tiles of C. */
static void syrk(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a, (*C)[n] = p->c;
#pragma omp parallel
#pragma omp single
  for (long k = 0; k < nt; k++) {
    long k0 = k * bs, dk = suite_block_dim(n, bs, k);
    for (long i = 0; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma omp task depend(in : A[i0][k0]) depend(inout : C[i0][i0])
      blas_tile_syrk(&A[i0][k0], &C[i0][i0], di, dk, n);
      for (long j = 0; j < i; j++) {
        long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma omp task depend(in : A[i0][k0], A[j0][k0]) depend(inout : C[i0][j0])
        blas_tile_gemm_nt(&A[i0][k0], &A[j0][k0], &C[i0][j0], di, dj, dk, n);
      }
    }
  }
}

/* y = A x, a task per band of rows. */
static void gemv(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a;
  double *x = p->x, *y = p->y;
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < nt; i++) {
    long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma omp task depend(out : y[i0])
    blas_tile_gemv(&A[i0][0], x, &y[i0], di, n, n);
  }
}

/* A = L L^T, L over the lower tiles of A. (clang-format would split the
 * clauses of its long pragmas at their colons.) */
// clang-format off
static void cholesky(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a;
#pragma omp parallel
#pragma omp single
  for (long k = 0; k < nt; k++) {
    long k0 = k * bs, dk = suite_block_dim(n, bs, k);
#pragma omp task depend(inout : A[k0][k0])                                     \
    priority(chol_priority(CHOL_POTRF, k, k, k, nt))
    tile_potrf(&A[k0][k0], dk, n);
    for (long i = k + 1; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma omp task depend(in : A[k0][k0]) depend(inout : A[i0][k0])             \
    priority(chol_priority(CHOL_TRSM, i, k, k, nt))
      tile_trsm(&A[k0][k0], &A[i0][k0], di, dk, n);
    }
    for (long i = k + 1; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma omp task depend(in : A[i0][k0]) depend(inout : A[i0][i0])             \
    priority(chol_priority(CHOL_SYRK, i, i, k, nt))
      tile_syrk(&A[i0][k0], &A[i0][i0], di, dk, n);
      for (long j = k + 1; j < i; j++) {
        long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma omp task depend(in : A[i0][k0], A[j0][k0]) depend(inout : A[i0][j0])  \
    priority(chol_priority(CHOL_GEMM, i, j, k, nt))
        tile_gemm(&A[i0][k0], &A[j0][k0], &A[i0][j0], di, dj, dk, n);
      }
    }
  }
}
// clang-format on

/* ------------------------------------------------------------- result */

static double check(const struct blas_problem *p, void *m, blas_check_fn *fn) {
  return fn(m, p->n, 1, p->n);
}

/* The sum of m's entries (of its lower triangle when lower is set), tile
 * sums added in tile order as blas.c adds them. */
static double sum_by_tiles(const struct blas_problem *p, void *m, bool lower) {
  long n = p->n, bs = p->bs;
  double(*M)[n] = m;
  double sum = 0.0;
  for (long i = 0; i < p->nt; i++)
    for (long j = 0; j <= (lower ? i : p->nt - 1); j++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
      long j0 = j * bs, dj = suite_block_dim(n, bs, j);
      sum += blas_block_sum(&M[i0][j0], n, 1, di, dj, lower && i == j);
    }
  return sum;
}

int main(int argc, char **argv) {
  return blas_main(argc, argv,
                   &(struct blas_program){.runtime = "omptask",
                                          .tiled = true,
                                          .fill = fill,
                                          .run = {gemm, syrk, gemv, cholesky},
                                          .check = check,
                                          .sum = sum_by_tiles,
                                          .threads = omp_get_max_threads});
}
