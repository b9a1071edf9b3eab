/* blas_tiles.c — the problems and tile kernels of the GEMM, SYRK, GEMV and
 * Cholesky programs (see blas_tiles.h).
 *
 * The checks regenerate the inputs entry by entry from their formulas, so
 * they need no copy of the original matrices: each is a few products of a
 * matrix with a vector, O(n^2), in plain C.
 */
#include "blas_tiles.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- problems */

const char *const blas_kernels[] = {"gemm", "syrk", "gemv", "cholesky", NULL};

double blas_flops(enum blas_kernel k, long n) {
  double d = (double)n;
  switch (k) {
  case BLAS_GEMM:
    return 2.0 * d * d * d;
  case BLAS_SYRK:
    return d * d * d;
  case BLAS_GEMV:
    return 2.0 * d * d;
  case BLAS_CHOLESKY:
    return d * d * d / 3.0;
  }
  return 0.0;
}

void blas_fill(double *m, long rs, long cs, enum blas_shape shape,
               uint64_t seed, long n, long i0, long j0, long rows, long cols) {
  for (long i = 0; i < rows; i++)
    for (long j = 0; j < cols; j++)
      m[i * rs + j * cs] = blas_entry(shape, seed, n, i0 + i, j0 + j);
}

void blas_random_vector(double *x, long n, uint64_t seed) {
  for (long j = 0; j < n; j++)
    x[j] = suite_random(seed, (uint64_t)j);
}

double blas_block_sum(const double *m, long rs, long cs, long rows, long cols,
                      int lower) {
  double sum = 0.0;
  for (long i = 0; i < rows; i++) {
    long end = lower && i + 1 < cols ? i + 1 : cols;
    for (long j = 0; j < end; j++)
      sum += m[i * rs + j * cs];
  }
  return sum;
}

/* ---------------------------------------------------------------- checks */

double blas_input_times(enum blas_shape shape, uint64_t seed, long n, int trans,
                        const double *x, double *y) {
  double norm2 = 0.0;
  memset(y, 0, (size_t)n * sizeof *y);
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      double v = blas_entry(shape, seed, n, i, j);
      norm2 += v * v;
      if (trans)
        y[j] += v * x[i];
      else
        y[i] += v * x[j];
    }
  return sqrt(norm2);
}

void blas_result_times(const double *m, long rs, long cs, long n,
                       enum blas_part part, const double *x, double *y) {
  memset(y, 0, (size_t)n * sizeof *y);
  for (long i = 0; i < n; i++) {
    long end = part == BLAS_FULL ? n : i + 1;
    for (long j = 0; j < end; j++) {
      double v = m[i * rs + j * cs];
      if (part != BLAS_LOWER_T)
        y[i] += v * x[j];
      if (part == BLAS_LOWER_T || (part == BLAS_SYMM_PART && j < i))
        y[j] += v * x[i];
    }
  }
}

double blas_norm(const double *v, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}

double blas_norm_diff(const double *a, const double *b, const double *c,
                      long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) {
    double d = a[i] - b[i] - (c ? c[i] : 0.0);
    s += d * d;
  }
  return sqrt(s);
}

double *blas_vectors(long count, long n, uint64_t seed) {
  double *v = calloc((size_t)count * (size_t)n, sizeof *v);
  if (v)
    blas_random_vector(v, n, seed);
  return v;
}

/* ||C x - C0 x - A (B x)|| / ((||C0|| + ||A|| ||B||) ||x||), GEMM's check;
 * for SYRK (syrk set) B = A^T and C and C0 are symmetric. */
static double update_check(const double *c, long rs, long cs, long n,
                           int syrk) {
  double *x = blas_vectors(5, n, BLAS_PROBE_SEED);
  if (!x)
    return NAN;
  double *cx = x + n, *c0x = x + 2 * n, *bx = x + 3 * n, *abx = x + 4 * n;
  blas_result_times(c, rs, cs, n, syrk ? BLAS_SYMM_PART : BLAS_FULL, x, cx);
  double norm_c0 =
      blas_input_times(syrk ? BLAS_SYMMETRIC : BLAS_GENERAL, 3, n, 0, x, c0x);
  double norm_b = blas_input_times(BLAS_GENERAL, syrk ? 1 : 2, n, syrk, x, bx);
  double norm_a = blas_input_times(BLAS_GENERAL, 1, n, 0, bx, abx);
  double r = blas_norm_diff(cx, c0x, abx, n) /
             ((norm_c0 + norm_a * (syrk ? norm_a : norm_b)) * blas_norm(x, n));
  free(x);
  return r;
}

double blas_gemm_check(const double *c, long rs, long cs, long n) {
  return update_check(c, rs, cs, n, 0);
}

double blas_syrk_check(const double *c, long rs, long cs, long n) {
  return update_check(c, rs, cs, n, 1);
}

double blas_gemv_check(const double *y, long n) {
  double *x = blas_vectors(2, n, 2); /* gemv's own x */
  if (!x)
    return NAN;
  double *ax = x + n;
  double norm_a = blas_input_times(BLAS_GENERAL, 1, n, 0, x, ax);
  double r = blas_norm_diff(y, ax, NULL, n) / (norm_a * blas_norm(x, n));
  free(x);
  return r;
}

double blas_cholesky_check(const double *l, long rs, long cs, long n) {
  double *x = blas_vectors(5, n, BLAS_PROBE_SEED);
  if (!x)
    return NAN;
  double *ax = x + n, *ltx = x + 2 * n, *lltx = x + 3 * n;
  double norm_a = blas_input_times(BLAS_SPD, 1, n, 0, x, ax);
  blas_result_times(l, rs, cs, n, BLAS_LOWER_T, x, ltx);
  blas_result_times(l, rs, cs, n, BLAS_LOWER, ltx, lltx);
  double r = blas_norm_diff(ax, lltx, NULL, n) / (norm_a * blas_norm(x, n));
  free(x);
  return r;
}

/* --------------------------------------------------------- tile kernels */

void blas_tile_gemm(const double *a, const double *b, double *c, long m, long n,
                    long k, long ld) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, ld, b,
              ld, 1.0, c, ld);
}

void blas_tile_gemm_nt(const double *a, const double *b, double *c, long m,
                       long n, long k, long ld) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, a, ld, b,
              ld, 1.0, c, ld);
}

void blas_tile_syrk(const double *a, double *c, long m, long k, long ld) {
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, m, k, 1.0, a, ld, 1.0, c,
              ld);
}

void blas_tile_gemv(const double *a, const double *x, double *y, long m, long n,
                    long ld) {
  cblas_dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, a, ld, x, 1, 0.0, y, 1);
}
