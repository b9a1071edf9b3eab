/* factor_tiles.c — the LU, QR and solve problems of the linalg group and
 * the tile kernels of their tiled programs (see factor_tiles.h).
 *
 * The kernels call LAPACK through LAPACKE's column-major _work functions,
 * which go straight to LAPACK (no copy, no NaN scan) with a workspace the
 * kernel allocates, and cblas with CblasColMajor.
 */
#include "factor_tiles.h"

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

static double entry(long n, long i, long j) {
  return suite_random(1, (uint64_t)(i * n + j));
}

void factor_fill(double *m, long n, long i0, long j0, long rows, long cols) {
  for (long j = 0; j < cols; j++)
    for (long i = 0; i < rows; i++)
      m[j * n + i] = entry(n, i0 + i, j0 + j);
}

void factor_rhs(double *b, long n) {
  for (long i = 0; i < n; i++)
    b[i] = suite_random(2, (uint64_t)i);
}

/* ax := A x and, when atax is not NULL, atax := A^T (A x), A regenerated
 * row by row; returns ||A||_F, or NaN without memory. */
static double apply_a(const double *x, double *ax, double *atax, long n) {
  double *row = malloc((size_t)n * sizeof *row);
  if (!row)
    return NAN;
  if (atax)
    memset(atax, 0, (size_t)n * sizeof *atax);
  double norm2 = 0.0;
  for (long i = 0; i < n; i++) {
    double dot = 0.0;
    for (long j = 0; j < n; j++) {
      row[j] = entry(n, i, j);
      dot += row[j] * x[j];
      norm2 += row[j] * row[j];
    }
    ax[i] = dot;
    for (long j = 0; atax && j < n; j++)
      atax[j] += dot * row[j];
  }
  free(row);
  return sqrt(norm2);
}

/* y := T x for the upper triangle of the column-major m (trans = 0), or
 * y := T^T x (trans != 0). */
static void upper_mv(const double *m, const double *x, double *y, long n,
                     int trans) {
  memset(y, 0, (size_t)n * sizeof *y);
  for (long j = 0; j < n; j++)
    for (long i = 0; i <= j; i++) {
      if (trans)
        y[j] += m[j * n + i] * x[i];
      else
        y[i] += m[j * n + i] * x[j];
    }
}

/* y := L x, L the unit lower triangle of the column-major m. */
static void unit_lower_mv(const double *m, const double *x, double *y, long n) {
  memcpy(y, x, (size_t)n * sizeof *y);
  for (long j = 0; j < n; j++)
    for (long i = j + 1; i < n; i++)
      y[i] += m[j * n + i] * x[j];
}

static double norm2(const double *x, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

static double diff_norm2(const double *x, const double *y, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++)
    s += (x[i] - y[i]) * (x[i] - y[i]);
  return sqrt(s);
}

/* The sum of the column-major matrix m, of its upper triangle only when
 * upper is non-zero. */
static double matrix_sum(const double *m, long n, int upper) {
  double s = 0.0;
  for (long j = 0; j < n; j++)
    for (long i = 0; i < (upper ? j + 1 : n); i++)
      s += m[j * n + i];
  return s;
}

/* Four vectors of n for a check: x (the probe vector) and three more. */
static double *check_vectors(long n) {
  double *v = calloc(4 * (size_t)n, sizeof *v);
  if (v)
    for (long j = 0; j < n; j++)
      v[j] = suite_random(FACTOR_PROBE_SEED, (uint64_t)j);
  return v;
}

/* lu's residual, x the probe vector followed by three to work in. */
static double lu_resid(const double *lu, const int *ipiv, double *x, long n) {
  double *ux = x + n, *lux = x + 2 * n, *pax = x + 3 * n;
  upper_mv(lu, x, ux, n, 0);
  unit_lower_mv(lu, ux, lux, n);
  double norm_a = apply_a(x, pax, NULL, n);
  solve_swap(pax, ipiv, n);
  return diff_norm2(pax, lux, n) / (norm_a * norm2(x, n));
}

/* qr's, the same way. */
static double qr_resid(const double *qr, double *x, long n) {
  double *rx = x + n, *rtrx = x + 2 * n, *atax = x + 3 * n;
  upper_mv(qr, x, rx, n, 0);
  upper_mv(qr, rx, rtrx, n, 1);
  double norm_a = apply_a(x, rx, atax, n); /* rx is scratch now */
  return diff_norm2(atax, rtrx, n) / (norm_a * norm_a * norm2(x, n));
}

static struct factor_result solve_check(const double *x, long n) {
  struct factor_result c = {NAN, 0.0};
  for (long i = 0; i < n; i++)
    c.sum += x[i];
  double *b = malloc(2 * (size_t)n * sizeof *b);
  if (!b)
    return c;
  double *ax = b + n;
  factor_rhs(b, n);
  double norm_a = apply_a(x, ax, NULL, n);
  c.resid = diff_norm2(ax, b, n) / (norm_a * norm2(x, n) + norm2(b, n));
  free(b);
  return c;
}

struct factor_result factor_check(enum factor_kernel k, const double *a,
                                  const int *ipiv, const double *x, long n) {
  if (k == FACTOR_SOLVE)
    return solve_check(x, n);
  struct factor_result c = {NAN, matrix_sum(a, n, k == FACTOR_QR)};
  double *v = check_vectors(n);
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
