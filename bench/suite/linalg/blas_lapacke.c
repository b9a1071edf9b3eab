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
 * Timed: the call. Untimed: the inputs (before each repetition for the
 * matrix the call overwrites), the check (blas_tiles.h's, with the
 * column-major strides) and sum=, the sum of the result's entries (of its
 * lower triangle for syrk and cholesky), row by row: not the bits of the
 * tiled programs' sum, since OpenBLAS adds in another order.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas_tiles.h"
#include "suite.h"

/* One run's data: column-major n x n matrices and vectors; those the kernel
 * does not use are NULL. */
struct problem {
  long n;
  double *a, *b, *c, *x, *y;
};

/* p, or the end of the program if memory ran out. */
static void *need(void *p) {
  if (!p) {
    fprintf(stderr, "blas_lapacke: out of memory\n");
    exit(1);
  }
  return p;
}

static double *doubles(long count) {
  return need(malloc((size_t)count * sizeof(double)));
}

/* Fills the column-major matrix m with the input `shape` of `seed`. */
static void fill(const struct problem *p, double *m, enum blas_shape shape,
                 uint64_t seed) {
  blas_fill(m, 1, p->n, shape, seed, p->n, 0, 0, p->n, p->n);
}

/* Allocates what kernel k uses and fills the inputs it only reads. */
static struct problem setup(enum blas_kernel k, long n) {
  struct problem p = {.n = n, .a = doubles(n * n)};
  switch (k) {
  case BLAS_GEMM:
    p.b = doubles(n * n);
    p.c = doubles(n * n);
    fill(&p, p.a, BLAS_GENERAL, 1);
    fill(&p, p.b, BLAS_GENERAL, 2);
    break;
  case BLAS_SYRK:
    p.c = doubles(n * n);
    fill(&p, p.a, BLAS_GENERAL, 1);
    break;
  case BLAS_GEMV:
    p.x = doubles(n);
    p.y = doubles(n);
    fill(&p, p.a, BLAS_GENERAL, 1);
    blas_random_vector(p.x, n, 2);
    break;
  case BLAS_CHOLESKY: /* A is filled before each repetition */
    break;
  }
  return p;
}

/* Fills the matrix that kernel k overwrites, before each repetition. */
static void prepare(const struct problem *p, enum blas_kernel k) {
  if (k == BLAS_GEMM)
    fill(p, p->c, BLAS_GENERAL, 3);
  else if (k == BLAS_SYRK)
    fill(p, p->c, BLAS_SYMMETRIC, 3);
  else if (k == BLAS_CHOLESKY)
    fill(p, p->a, BLAS_SPD, 1);
}

/* The kernel: one call. */
static void run(const struct problem *p, enum blas_kernel k) {
  int n = (int)p->n;
  switch (k) {
  case BLAS_GEMM:
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, p->a,
                n, p->b, n, 1.0, p->c, n);
    break;
  case BLAS_SYRK:
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, p->a, n,
                1.0, p->c, n);
    break;
  case BLAS_GEMV:
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, p->a, n, p->x, 1, 0.0,
                p->y, 1);
    break;
  case BLAS_CHOLESKY:
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, p->a, n) != 0) {
      fprintf(stderr, "blas_lapacke: dpotrf failed\n");
      exit(1);
    }
    break;
  }
}

/* The check and sum= of kernel k's result. */
static void result(const struct problem *p, enum blas_kernel k, double *check,
                   double *sum) {
  long n = p->n;
  switch (k) {
  case BLAS_GEMM:
    *check = blas_gemm_check(p->c, 1, n, n);
    *sum = blas_block_sum(p->c, 1, n, n, n, 0);
    break;
  case BLAS_SYRK:
    *check = blas_syrk_check(p->c, 1, n, n);
    *sum = blas_block_sum(p->c, 1, n, n, n, 1);
    break;
  case BLAS_GEMV:
    *check = blas_gemv_check(p->y, n);
    *sum = blas_block_sum(p->y, 1, 0, n, 1, 0);
    break;
  case BLAS_CHOLESKY:
    *check = blas_cholesky_check(p->a, 1, n, n);
    *sum = blas_block_sum(p->a, 1, n, n, n, 1);
    break;
  }
}

static void release(struct problem *p) {
  free(p->a);
  free(p->b);
  free(p->c);
  free(p->x);
  free(p->y);
}

int main(int argc, char **argv) {
  struct suite_opts o;
  int status = suite_init(&argc, &argv, "linalg", "lapacke", blas_kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  o.b = o.n;
  enum blas_kernel k = blas_kernel_index(o.kernel);
  struct problem p = setup(k, o.n);
  struct suite_times tt = {0};
  while (suite_more(&tt, &o)) {
    prepare(&p, k);
    double t0 = suite_now();
    run(&p, k);
    suite_add(&tt, suite_now() - t0);
  }
  double check = NAN, sum = NAN;
  result(&p, k, &check, &sum);
  status = suite_report(&o, openblas_get_num_threads(), &tt, blas_flops(k, o.n),
                        "GFLOP/s", check, blas_tol(o.n), sum);
  release(&p);
  suite_finish();
  return status;
}
