/* blas_tiles.h — what the GEMM, SYRK, GEMV and Cholesky programs of the
 * linalg group share: the problems (their matrices, work and checks) and the
 * tile kernels of the tiled programs.
 *
 * Three programs solve the same four problems: blas.c (dag, serial with
 * plain cc, and OpenMP tasks with depend as blas_omptask) and
 * blas_lapacke.c (one threaded OpenBLAS/LAPACKE call on the whole matrix).
 * The tiled ones run the same tile kernels (below, and
 * samples/cholesky/tiles.c for the Cholesky) in the same order on each
 * tile, so they compute the same bits.
 *
 * The problems, on n x n matrices whose entry (i, j) (0-based) is drawn
 * from suite_random by the global row-major index i*n + j:
 *
 *   gemm      C = C + A B            A: seed 1, B: seed 2, C: seed 3
 *   syrk      C = C + A A^T, the lower triangle of C only; A: seed 1,
 *             C symmetric: C(i,j) = suite_random(3, max(i,j)*n + min(i,j))
 *   gemv      y = A x                A: seed 1, x(j) = suite_random(2, j)
 *   cholesky  A = L L^T, L lower     A(i,j) = suite_random(1, max(i,j)*n +
 *                                    min(i,j)) + (i == j ? n : 0), SPD
 *
 * A stored matrix is seen through two strides: entry (i, j) of m is
 * m[i*rs + j*cs]. Row-major with leading dimension ld (the tiled programs)
 * is rs = ld, cs = 1; column-major (LAPACK's layout) is rs = 1, cs = ld.
 */
#ifndef BLAS_TILES_H
#define BLAS_TILES_H

#include <float.h>
#include <stdint.h>

#include "suite.h"

/* ------------------------------------------------------------- problems */

/* The kernels, in the order of enum blas_kernel; NULL-terminated for
 * suite_init. */
enum blas_kernel { BLAS_GEMM, BLAS_SYRK, BLAS_GEMV, BLAS_CHOLESKY };
extern const char *const blas_kernels[];

/* The flops of each kernel, by definition (not what a program executes):
 * 2 n^3, n^3, 2 n^2, n^3 / 3. GEMV is memory-bound (2 flops per 8-byte
 * entry of A): its GFLOP/s is a quarter of the GB/s it reaches. */
double blas_flops(enum blas_kernel k, long n);

/* The tolerance of every check: 100 n eps. */
static inline double blas_tol(long n) {
  return 100.0 * (double)n * DBL_EPSILON;
}

/* How entry (i, j) of an input matrix is made from suite_random(seed, .). */
enum blas_shape {
  BLAS_GENERAL,   /* by i*n + j */
  BLAS_SYMMETRIC, /* by max(i,j)*n + min(i,j) */
  BLAS_SPD        /* symmetric, plus n on the diagonal */
};

static inline double blas_entry(enum blas_shape shape, uint64_t seed, long n,
                                long i, long j) {
  long hi = i, lo = j;
  if (shape != BLAS_GENERAL && j > i) {
    hi = j;
    lo = i;
  }
  double v = suite_random(seed, (uint64_t)hi * (uint64_t)n + (uint64_t)lo);
  return shape == BLAS_SPD && i == j ? v + (double)n : v;
}

/* Fills the rows x cols block of an input matrix whose top-left entry is
 * global (i0, j0) into m, block entry (i, j) at m[i*rs + j*cs]. */
void blas_fill(double *m, long rs, long cs, enum blas_shape shape,
               uint64_t seed, long n, long i0, long j0, long rows, long cols);

/* x(j) = suite_random(seed, j) for j < n: gemv's x (seed 2), the checks'
 * probe vector (BLAS_PROBE_SEED). */
void blas_random_vector(double *x, long n, uint64_t seed);

/* The sum of the entries of the rows x cols block m (strides rs, cs), row
 * by row; of its lower triangle (j <= i) only when lower is non-zero. */
double blas_block_sum(const double *m, long rs, long cs, long rows, long cols,
                      int lower);

/* The checks: scale-free residuals, O(n^2), computed from the result (an
 * n x n matrix with strides rs, cs; only its lower triangle is read for
 * syrk and cholesky) and the inputs regenerated from their formulas. x is
 * the fixed probe vector x(j) = suite_random(BLAS_PROBE_SEED, j), except
 * in gemv, whose own x is used.
 *
 *   gemm      ||C x - C0 x - A (B x)|| / ((||C0||_F + ||A||_F ||B||_F) ||x||)
 *   syrk      ||C x - C0 x - A (A^T x)|| / ((||C0||_F + ||A||_F^2) ||x||),
 *             C and C0 symmetric, C read from its lower triangle
 *   gemv      ||y - A x|| / (||A||_F ||x||)
 *   cholesky  ||A x - L (L^T x)|| / (||A||_F ||x||)
 *
 * Norms are 2-norms of vectors and Frobenius norms of whole matrices. Each
 * returns NaN if it cannot get memory. */
#define BLAS_PROBE_SEED 7
double blas_gemm_check(const double *c, long rs, long cs, long n);
double blas_syrk_check(const double *c, long rs, long cs, long n);
double blas_gemv_check(const double *y, long n);
double blas_cholesky_check(const double *l, long rs, long cs, long n);

/* The pieces of the checks, factor_tiles.c's too. */

/* y := M x, or M^T x when trans, for the generated input matrix M (shape,
 * seed, order n); returns ||M||_F. */
double blas_input_times(enum blas_shape shape, uint64_t seed, long n, int trans,
                        const double *x, double *y);

/* Which part of a stored result a product uses. */
enum blas_part {
  BLAS_FULL,      /* the whole matrix */
  BLAS_SYMM_PART, /* the symmetric matrix whose lower triangle is stored */
  BLAS_LOWER,     /* the lower triangle */
  BLAS_LOWER_T    /* the transpose of the lower triangle */
};

/* y := M x for `part` of the stored n x n matrix m (strides rs, cs). */
void blas_result_times(const double *m, long rs, long cs, long n,
                       enum blas_part part, const double *x, double *y);

/* ||v||, and ||a - b - c|| for vectors of n (c may be NULL). */
double blas_norm(const double *v, long n);
double blas_norm_diff(const double *a, const double *b, const double *c,
                      long n);

/* count vectors of n, one after the other: the first one x(j) =
 * suite_random(seed, j), the others zero, to work in. NULL without
 * memory. */
double *blas_vectors(long count, long n, uint64_t seed);

/* --------------------------------------------------------- tile kernels */

/* Single-threaded OpenBLAS calls (OPENBLAS_NUM_THREADS=1: tasks run them
 * in parallel) on tiles of a row-major matrix with leading dimension ld,
 * addressed in place. m, n, k are the tile dimensions. The Cholesky's
 * kernels are samples/cholesky/tiles.h's tile_potrf, tile_trsm, tile_syrk
 * and tile_gemm. */

/* C := C + A B (C m x n, A m x k, B k x n). */
void blas_tile_gemm(const double *a, const double *b, double *c, long m, long n,
                    long k, long ld);

/* C := C + A B^T (C m x n, A m x k, B n x k). */
void blas_tile_gemm_nt(const double *a, const double *b, double *c, long m,
                       long n, long k, long ld);

/* C := C + A A^T on the lower triangle of the m x m tile C (A m x k). */
void blas_tile_syrk(const double *a, double *c, long m, long k, long ld);

/* y := A x (A m x n, y and x contiguous). */
void blas_tile_gemv(const double *a, const double *x, double *y, long m, long n,
                    long ld);

#endif /* BLAS_TILES_H */
