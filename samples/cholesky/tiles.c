/* tiles.c — the tile kernels, loop nest, priorities and driver shared by
 * the dag sample and every Cholesky in bench/cholesky (see tiles.h).
 *
 * Kernels are OpenBLAS/LAPACKE calls on tiles of the full row-major matrix.
 * A row-major lower tile is, in memory, the column-major upper triangle of
 * its transpose, and A = L L^T there is A^T = U^T U with U = L^T: so potrf
 * calls LAPACK as column-major 'U' on the same bytes, which gives the
 * row-major 'L' factor without the transposed copies LAPACKE makes for
 * LAPACK_ROW_MAJOR. The cblas kernels take CblasRowMajor directly.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "tiles.h"

#include "sample_util.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ kernels */

void tile_potrf(double *akk, int k, int ld) {
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', k, akk, ld);
  if (info != 0) {
    fprintf(stderr, "cholesky: dpotrf failed on a %dx%d tile (info %d)\n", k, k,
            (int)info);
    abort();
  }
}

void tile_trsm(const double *lkk, double *aik, int m, int k, int ld) {
  cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit,
              m, k, 1.0, lkk, ld, aik, ld);
}

void tile_syrk(const double *aik, double *aii, int m, int k, int ld) {
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, m, k, -1.0, aik, ld, 1.0,
              aii, ld);
}

void tile_gemm(const double *aik, const double *ajk, double *aij, int m, int n,
               int k, int ld) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, aik, ld,
              ajk, ld, 1.0, aij, ld);
}

/* ------------------------------------------------------- the algorithm */

void chol_walk(const struct chol_ops *ops, void *ctx, int nt) {
  for (int k = 0; k < nt; k++) {
    ops->potrf(ctx, k);
    for (int i = k + 1; i < nt; i++)
      ops->trsm(ctx, i, k);
    for (int i = k + 1; i < nt; i++) {
      for (int j = k + 1; j < i; j++)
        ops->gemm(ctx, i, j, k);
      ops->syrk(ctx, i, k);
    }
  }
}

int chol_priority(enum chol_kernel kernel, int i, int j, int k, int nt) {
  switch (kernel) {
  case CHOL_POTRF:
    return 3 * (nt - k) - 1; /* writes column k */
  case CHOL_TRSM:
    return 3 * (nt - k) - 2; /* writes column k */
  case CHOL_SYRK:
    return 3 * (nt - i) - 3; /* writes column i */
  case CHOL_GEMM:
    return 3 * (nt - j) - 3; /* writes column j */
  }
  return 0;
}

int chol_max_priority(int nt) { return 3 * nt - 1; }

int chol_ntiles(int n, int bs) { return (n + bs - 1) / bs; }

int chol_tile_dim(int n, int bs, int i) {
  int rest = n - i * bs;
  return rest < bs ? rest : bs;
}

/* --------------------------------------------------- problem and report */

/* OpenBLAS has no header entry for this in every packaging. */
extern void openblas_set_num_threads(int num_threads);

/* Frobenius norm of the symmetric matrix whose lower triangle is in a. */
static double sym_norm(const double *a, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    const double *row = a + (size_t)i * n;
    double off = 0.0;
    for (int j = 0; j < i; j++)
      off += row[j] * row[j];
    sum += 2.0 * off + row[i] * row[i];
  }
  return sqrt(sum);
}

/* ||A - L L^T||_F / ||A||_F. l holds L in its lower triangle; its strict
 * upper triangle is zeroed here. a (the original matrix) is overwritten by
 * the residual, one block (I, J) at a time: A_IJ -= L_I,0:J L_J,0:J^T with
 * one dgemm (dsyrk on the diagonal), about n^3/3 flops in all. */
static double residual_full(double *a, double *l, int n) {
  enum { CB = 256 };
  double norm_a = sym_norm(a, n);
  for (int i = 0; i < n; i++)
    memset(l + (size_t)i * n + i + 1, 0, (size_t)(n - i - 1) * sizeof *l);
  for (int i0 = 0; i0 < n; i0 += CB) {
    int mi = n - i0 < CB ? n - i0 : CB;
    const double *li = l + (size_t)i0 * n;
    for (int j0 = 0; j0 < i0; j0 += CB)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, mi, CB, j0 + CB,
                  -1.0, li, n, l + (size_t)j0 * n, n, 1.0,
                  a + (size_t)i0 * n + j0, n);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, mi, i0 + mi, -1.0, li,
                n, 1.0, a + (size_t)i0 * n + i0, n);
  }
  return sym_norm(a, n) / norm_a;
}

/* ||A x - L (L^T x)||_2 / (||A||_F ||x||_2) for a random x. */
static double residual_probe(const double *a, const double *l, int n) {
  double *x = malloc(2 * (size_t)n * sizeof *x);
  if (!x)
    return NAN;
  double *y = x + n;
  for (int i = 0; i < n; i++)
    x[i] = sample_uniform_at(~(uint64_t)i);
  cblas_dsymv(CblasRowMajor, CblasLower, n, 1.0, a, n, x, 1, 0.0, y, 1);
  double norm_x = cblas_dnrm2(n, x, 1);
  cblas_dtrmv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, n, l, n, x,
              1);
  cblas_dtrmv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, l, n, x,
              1);
  cblas_daxpy(n, -1.0, x, 1, y, 1);
  double r = cblas_dnrm2(n, y, 1) / (sym_norm(a, n) * norm_x);
  free(x);
  return r;
}

static void usage(FILE *f, const char *prog) {
  fprintf(f,
          "usage: %s [-n N] [-b tile] [-r reps] [--check]\n"
          "  -n N      matrix order (default 4096)\n"
          "  -b tile   tile order (default 256)\n"
          "  -r reps   factorizations to run, the best time counts "
          "(default 1)\n"
          "  --check   full residual ||A - L L^T||_F / ||A||_F instead of "
          "a\n"
          "            random-vector probe\n",
          prog);
}

/* A positive int argument, or -1. */
static int parse_count(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0 || v > 1000000)
    return -1;
  return (int)v;
}

int chol_main(int argc, char **argv, const struct chol_runtime *rt) {
  int n = 4096, bs = 256, reps = 1, full = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    int *dst = !strcmp(arg, "-n")   ? &n
               : !strcmp(arg, "-b") ? &bs
               : !strcmp(arg, "-r") ? &reps
                                    : NULL;
    if (dst && i + 1 < argc && (*dst = parse_count(argv[i + 1])) > 0) {
      i++;
    } else if (!strcmp(arg, "--check")) {
      full = 1;
    } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      usage(stdout, argv[0]);
      return 0;
    } else {
      fprintf(stderr, "%s: bad argument '%s'\n", argv[0], arg);
      usage(stderr, argv[0]);
      return 2;
    }
  }
  if (bs > n)
    bs = n;
  if ((size_t)n * n > SIZE_MAX / 2 / sizeof(double)) {
    fprintf(stderr, "%s: n = %d is too large\n", argv[0], n);
    return 2;
  }

  /* Tasks call OpenBLAS from several threads at once: one thread each. */
  openblas_set_num_threads(1);

  size_t bytes = ((size_t)n * n * sizeof(double) + 63) / 64 * 64;
  double *orig = aligned_alloc(64, bytes);
  double *a = aligned_alloc(64, bytes);
  if (!orig || !a) {
    fprintf(stderr, "%s: out of memory for n = %d\n", argv[0], n);
    return 1;
  }
  sample_spd(orig, n, 2024);

  int workers = rt->start();
  if (workers < 0) {
    fprintf(stderr, "%s: could not start %s\n", argv[0], rt->name);
    return 1;
  }
  double best = INFINITY;
  int failed = 0;
  for (int r = 0; r < reps && !failed; r++) {
    memcpy(a, orig, (size_t)n * n * sizeof *a);
    if (rt->prepare && (failed = rt->prepare(a, n, bs)) != 0)
      break;
    double t0 = sample_now();
    failed = rt->factor(a, n, bs);
    double t = sample_now() - t0;
    if (rt->release)
      rt->release();
    if (reps > 1) /* each, as the best alone hides a first run's cost */
      fprintf(stderr, "%s: rep %d of %d: %.4f s\n", argv[0], r + 1, reps, t);
    if (t < best)
      best = t;
  }
  if (rt->stop)
    rt->stop();
  if (failed) {
    fprintf(stderr, "%s: %s factorization failed\n", argv[0], rt->name);
    return 1;
  }

  openblas_set_num_threads(2);
  double resid = full ? residual_full(orig, a, n) : residual_probe(orig, a, n);
  double tol = 100.0 * n * DBL_EPSILON;
  double gflops = (double)n * n * n / 3.0 / best * 1e-9;
  printf("cholesky runtime=%s n=%d b=%d workers=%d time=%.4f gflops=%.2f "
         "residual=%.2e check=%s%s%s\n",
         rt->name, n, bs, workers, best, gflops, resid, full ? "full" : "probe",
         rt->config ? " config=" : "", rt->config ? rt->config : "");
  free(a);
  free(orig);
  if (!(resid <= tol)) {
    fprintf(stderr, "%s: %s: residual %.3e above tolerance %.3e: WRONG\n",
            argv[0], rt->name, resid, tol);
    return 1;
  }
  return 0;
}
