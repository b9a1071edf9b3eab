/* factor_tiles.c — the LU, QR and solve problems of the linalg group and
 * the tile kernels of their tiled programs (see factor_tiles.h).
 *
 * The kernels call LAPACK through LAPACKE's column-major _work functions,
 * which go straight to LAPACK (no copy, no NaN scan) with a workspace the
 * kernel allocates, and cblas with CblasColMajor.
 */
#include "factor_tiles.h"

#include "blas_tiles.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- problems */

const char *const factor_kernels[] = {"lu", "qr", "solve", NULL};

double factor_flops(enum factor_kernel k, long n) {
  double n3 = (double)n * (double)n * (double)n;
  switch (k) {
  case FACTOR_LU:
    return 2.0 * n3 / 3.0;
  case FACTOR_QR:
    return 4.0 * n3 / 3.0;
  case FACTOR_SOLVE:
    return 2.0 * n3 / 3.0 + 2.0 * (double)n * (double)n;
  }
  return 0.0;
}

/* ||A||_F, with ax := A x and, when atax is not NULL, atax := A^T (A x),
 * A regenerated from its formula. */
static double apply_a(const double *x, double *ax, double *atax, long n) {
  double norm_a = blas_input_times(BLAS_GENERAL, 1, n, 0, x, ax);
  if (atax)
    blas_input_times(BLAS_GENERAL, 1, n, 1, ax, atax);
  return norm_a;
}

/* y := U x, or U^T x when trans, for the upper triangle U of the
 * column-major m: the lower triangle of m seen row-major is U^T. */
static void upper_mv(const double *m, const double *x, double *y, long n,
                     int trans) {
  blas_result_times(m, n, 1, n, trans ? BLAS_LOWER : BLAS_LOWER_T, x, y);
}

/* y := L x, L the unit lower triangle of the column-major m. */
static void unit_lower_mv(const double *m, const double *x, double *y, long n) {
  memcpy(y, x, (size_t)n * sizeof *y);
  for (long j = 0; j < n; j++)
    for (long i = j + 1; i < n; i++)
      y[i] += m[j * n + i] * x[j];
}

/* lu's residual, x the probe vector followed by three to work in. */
static double lu_resid(const double *lu, const int *ipiv, double *x, long n) {
  double *ux = x + n, *lux = x + 2 * n, *pax = x + 3 * n;
  upper_mv(lu, x, ux, n, 0);
  unit_lower_mv(lu, ux, lux, n);
  double norm_a = apply_a(x, pax, NULL, n);
  solve_swap(pax, ipiv, n);
  return blas_norm_diff(pax, lux, NULL, n) / (norm_a * blas_norm(x, n));
}

/* qr's, the same way. */
static double qr_resid(const double *qr, double *x, long n) {
  double *rx = x + n, *rtrx = x + 2 * n, *atax = x + 3 * n;
  upper_mv(qr, x, rx, n, 0);
  upper_mv(qr, rx, rtrx, n, 1);
  double norm_a = apply_a(x, rx, atax, n); /* rx is scratch now */
  return blas_norm_diff(atax, rtrx, NULL, n) /
         (norm_a * norm_a * blas_norm(x, n));
}

static struct factor_result solve_check(const double *x, long n) {
  struct factor_result c = {NAN, 0.0};
  for (long i = 0; i < n; i++)
    c.sum += x[i];
  double *b = malloc(2 * (size_t)n * sizeof *b);
  if (!b)
    return c;
  double *ax = b + n;
  blas_random_vector(b, n, 2);
  double norm_a = apply_a(x, ax, NULL, n);
  c.resid = blas_norm_diff(ax, b, NULL, n) /
            (norm_a * blas_norm(x, n) + blas_norm(b, n));
  free(b);
  return c;
}

struct factor_result factor_check(enum factor_kernel k, const double *a,
                                  const int *ipiv, const double *x, long n) {
  if (k == FACTOR_SOLVE)
    return solve_check(x, n);
  struct factor_result c = {NAN, blas_block_sum(a, n, 1, n, n, k == FACTOR_QR)};
  double *v = blas_vectors(4, n, BLAS_PROBE_SEED);
  if (v)
    c.resid = k == FACTOR_QR ? qr_resid(a, v, n) : lu_resid(a, ipiv, v, n);
  free(v);
  return c;
}

/* --------------------------------------------------------- tile kernels */

static void lapack_ok(lapack_int info, const char *routine) {
  if (info < 0) {
    fprintf(stderr, "%s: argument %d rejected\n", routine, (int)-info);
    abort();
  }
}

/* A kernel's LAPACK workspace of `count` doubles. */
static double *workspace(long count) {
  double *w = malloc((size_t)count * sizeof *w);
  if (!w) {
    fprintf(stderr, "factor_tiles: out of memory for a workspace\n");
    abort();
  }
  return w;
}

void lu_panel(double *a, long m, long n, long ld, int *ipiv, long row0) {
  lapack_ok(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n,
                                a, (lapack_int)ld, ipiv),
            "dgetrf");
  for (long k = 0; k < n; k++)
    ipiv[k] += (int)row0;
}

void lu_swap(double *a, long n, long ld, const int *ipiv, long k0, long count) {
  /* dlaswp reads ipiv(k1 .. k2), 1-based: ipiv[k0 .. k0 + count). */
  lapack_ok(LAPACKE_dlaswp_work(LAPACK_COL_MAJOR, (lapack_int)n, a,
                                (lapack_int)ld, (lapack_int)(k0 + 1),
                                (lapack_int)(k0 + count), ipiv, 1),
            "dlaswp");
}

void lu_trsm(const double *l, double *b, long m, long n, long ld) {
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit,
              (int)m, (int)n, 1.0, l, (int)ld, b, (int)ld);
}

void lu_gemm(const double *a, const double *b, double *c, long m, long n,
             long k, long ld) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k,
              -1.0, a, (int)ld, b, (int)ld, 1.0, c, (int)ld);
}

void solve_swap(double *x, const int *ipiv, long n) {
  for (long k = 0; k < n; k++) {
    long p = ipiv[k] - 1;
    double t = x[k];
    x[k] = x[p];
    x[p] = t;
  }
}

void solve_trsv(const double *t, double *x, long m, long ld, int lower) {
  cblas_dtrsv(CblasColMajor, lower ? CblasLower : CblasUpper, CblasNoTrans,
              lower ? CblasUnit : CblasNonUnit, (int)m, t, (int)ld, x, 1);
}

void solve_gemv(const double *a, const double *x, double *y, long m, long n,
                long ld) {
  cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, -1.0, a, (int)ld, x,
              1, 1.0, y, 1);
}

void qr_geqrt(double *a, long m, long n, double *t, long ldt, long ld) {
  long ib = qr_ib(n);
  double *w = workspace(ib * n);
  lapack_ok(LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n,
                                (lapack_int)ib, a, (lapack_int)ld, t,
                                (lapack_int)ldt, w),
            "dgeqrt");
  free(w);
}

void qr_gemqrt(const double *v, const double *t, double *c, long k, long n,
               long ldt, long ld) {
  long ib = qr_ib(k);
  double *w = workspace(ib * n);
  lapack_ok(LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', 'T', (lapack_int)k,
                                 (lapack_int)n, (lapack_int)k, (lapack_int)ib,
                                 v, (lapack_int)ld, t, (lapack_int)ldt, c,
                                 (lapack_int)ld, w),
            "dgemqrt");
  free(w);
}

void qr_tpqrt(double *r, double *a, double *t, long m, long n, long ldt,
              long ld) {
  long ib = qr_ib(n);
  double *w = workspace(ib * n);
  lapack_ok(LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n,
                                0, (lapack_int)ib, r, (lapack_int)ld, a,
                                (lapack_int)ld, t, (lapack_int)ldt, w),
            "dtpqrt");
  free(w);
}

void qr_tpmqrt(const double *v, const double *t, double *c, double *d, long m,
               long n, long k, long ldt, long ld) {
  long ib = qr_ib(k);
  double *w = workspace(ib * n);
  lapack_ok(LAPACKE_dtpmqrt_work(
                LAPACK_COL_MAJOR, 'L', 'T', (lapack_int)m, (lapack_int)n,
                (lapack_int)k, 0, (lapack_int)ib, v, (lapack_int)ld, t,
                (lapack_int)ldt, c, (lapack_int)ld, d, (lapack_int)ld, w),
            "dtpmqrt");
  free(w);
}
