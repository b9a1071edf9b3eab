/* blas_lapacke.c — GEMM, SYRK, GEMV and Cholesky of the linalg group as one
 * call of threaded OpenBLAS/LAPACKE on the whole matrix (runtime
 * "lapacke"): what a user without a task runtime would write.
 *
 *   blas_lapacke -k gemm|syrk|gemv|cholesky [-n N] [-r REPS] [-t SECONDS]
 *
 * The problems are blas_tiles.h's, stored column-major, LAPACK's natural
 * layout: entry (i, j) of an n x n matrix is m[i + j*n]. The calls are
 * cblas_dgemm, cblas_dsyrk (lower), cblas_dgemv and LAPACKE_dpotrf_work
 * (lower; the _work form skips LAPACKE_dpotrf's O(n^2) scan of the input
 * for NaNs, which is no part of the factorization). OpenBLAS's own threads
 * (OPENBLAS_NUM_THREADS) run them; there are no blocks, so -b is ignored and
 * b=n is reported.
 *
 * Timed: the call. Untimed: the inputs (filled before each repetition), the
 * check (blas_tiles.h's, with the
 * column-major strides) and sum=, the sum of the result's entries (of its
 * lower triangle for syrk and cholesky), row by row: not the bits of the
 * tiled programs' sum, since OpenBLAS adds in another order.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "linalg_program.h"

/* Fills the column-major matrix m with the input `shape` of `seed`. */
static void fill(const struct blas_problem *p, void *m, enum blas_shape shape,
                 uint64_t seed) {
  blas_fill(m, 1, p->n, shape, seed, p->n, 0, 0, p->n, p->n);
}

/* The kernels: one call each. */
static void gemm(const struct blas_problem *p) {
  int n = (int)p->n;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, p->a, n,
              p->b, n, 1.0, p->c, n);
}

static void syrk(const struct blas_problem *p) {
  int n = (int)p->n;
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, p->a, n, 1.0,
              p->c, n);
}

static void gemv(const struct blas_problem *p) {
  int n = (int)p->n;
  cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, p->a, n, p->x, 1, 0.0,
              p->y, 1);
}

static void cholesky(const struct blas_problem *p) {
  int n = (int)p->n;
  if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, p->a, n) != 0) {
    fprintf(stderr, "blas_lapacke: dpotrf failed\n");
    exit(1);
  }
}

static double check(const struct blas_problem *p, void *m, blas_check_fn *fn) {
  return fn(m, 1, p->n, p->n);
}

/* Row by row: not the tiled programs' order. */
static double sum(const struct blas_problem *p, void *m, bool lower) {
  return blas_block_sum(m, 1, p->n, p->n, p->n, lower);
}

int main(int argc, char **argv) {
  return blas_main(argc, argv,
                   &(struct blas_program){.runtime = "lapacke",
                                          .fill = fill,
                                          .run = {gemm, syrk, gemv, cholesky},
                                          .check = check,
                                          .sum = sum,
                                          .threads = openblas_get_num_threads});
}
