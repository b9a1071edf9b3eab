/* ceilings.c — what the machine itself can do, the ceilings the suite's
 * other rates are read against (group "ceilings", runtime "machine"):
 *
 *   triad  STREAM's triad a = b + s c over three arrays of n x n doubles,
 *          an OpenMP parallel loop with a static schedule (the arrays are
 *          first touched by the same schedule, so each thread's pages lie
 *          near it); 24 bytes per element (two loads, one store), GB/s:
 *          the memory bandwidth every GB/s kernel is bounded by.
 *   dgemm  one cblas_dgemm C += A B of order n on OpenBLAS's own threads,
 *          GFLOP/s (2 n^3 flops): the rate no GFLOP/s kernel beats.
 *   tiles  the same product as single-threaded cblas_dgemm calls on b x b
 *          tiles (b from -b, else suite_tile_rule, as the linalg
 *          programs), C(i, j) += A(i, k) B(k, j) with k outermost, the C
 *          tiles of each k shared out by an OpenMP static loop: the tile
 *          kernel's rate with every core busy and no scheduling at all,
 *          the reference of a tiled GEMM of that tile (a runtime running
 *          the tiles in a luckier order passes it by a few percent). SYRK
 *          and the factorizations, with slower kernels on their diagonal
 *          and a critical path to wait on, stay below it.
 *
 * All use every thread they are given: OMP_NUM_THREADS for triad and
 * tiles, OPENBLAS_NUM_THREADS for dgemm (the runner sets both to all
 * cores), and report it as the workers.
 *
 * Checks: triad's inputs are multiples of 2^-30 in [-1, 1), so b + 3 c is
 * exact in any rounding and the result must equal it to the bit (check is
 * the largest difference, tol 0). dgemm's C starts at zero before each
 * repetition; it is probed with a random vector x: check is
 * |C x - A (B x)| / (|A| |B| |x|) in the infinity norms, against
 * 2 n epsilon, the bound of both products' rounding errors; tiles' the
 * same way.
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

static const char *const kernels[] = {"triad", "dgemm", "tiles", NULL};

static double *alloc_doubles(size_t count) {
  double *p = malloc(count * sizeof *p);
  if (!p) {
    fprintf(stderr, "ceilings: out of memory for %zu doubles\n", count);
    exit(1);
  }
  return p;
}

/* ---------------------------------------------------------------- triad */

static const double triad_scalar = 3.0;

/* suite_random rounded to a multiple of 2^-30: sums and small multiples of
 * such numbers are exact in double precision. */
static double coarse_random(uint64_t seed, uint64_t i) {
  return (double)(int64_t)(suite_random(seed, i) * 0x1p30) * 0x1p-30;
}

static void triad_fill(size_t count, double *a, double *b, double *c) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < count; i++) {
    a[i] = 0.0;
    b[i] = coarse_random(1, i);
    c[i] = coarse_random(2, i);
  }
}

static void triad(size_t count, double *restrict a, const double *restrict b,
                  const double *restrict c, double s) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < count; i++)
    a[i] = b[i] + s * c[i];
}

static int run_triad(struct suite_opts *o) {
  size_t count = (size_t)o->n * (size_t)o->n;
  double *a = alloc_doubles(count), *b = alloc_doubles(count),
         *c = alloc_doubles(count);
  triad_fill(count, a, b, c);
  struct suite_times tt = {0};
  while (suite_more(&tt, o)) {
    suite_begin(&tt);
    triad(count, a, b, c, triad_scalar);
    suite_end(&tt);
  }
  double err = 0.0, sum = 0.0; /* in index order: the same sum every run */
  for (size_t i = 0; i < count; i++) {
    err = fmax(err, fabs(a[i] - (b[i] + triad_scalar * c[i])));
    sum += a[i];
  }
  int status = suite_report(o, omp_get_max_threads(), &tt, 24.0 * count, "GB/s",
                            err, 0.0, sum);
  free(a);
  free(b);
  free(c);
  return status;
}

/* ---------------------------------------------------------------- dgemm */

static void fill_random(size_t count, double *x, uint64_t seed) {
  for (size_t i = 0; i < count; i++)
    x[i] = suite_random(seed, i);
}

/* The infinity norm (largest row sum of magnitudes) of an m x n matrix. */
static double norm_inf(long m, long n, const double *a) {
  double best = 0.0;
  for (long i = 0; i < m; i++) {
    double row = 0.0;
    for (long j = 0; j < n; j++)
      row += fabs(a[i * n + j]);
    best = fmax(best, row);
  }
  return best;
}

/* y = M x for an n x n matrix M. */
static void matvec(long n, const double *m, const double *x, double *y) {
  cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)n, (int)n, 1.0, m, (int)n, x, 1,
              0.0, y, 1);
}

/* |C x - A (B x)| / (|A| |B| |x|) for a random x. */
static double probe(long n, const double *a, const double *b, const double *c) {
  double *x = alloc_doubles((size_t)n), *bx = alloc_doubles((size_t)n),
         *abx = alloc_doubles((size_t)n), *cx = alloc_doubles((size_t)n);
  fill_random((size_t)n, x, 4);
  matvec(n, b, x, bx);
  matvec(n, a, bx, abx);
  matvec(n, c, x, cx);
  double diff = 0.0, xmax = 0.0;
  for (long i = 0; i < n; i++) {
    diff = fmax(diff, fabs(cx[i] - abx[i]));
    xmax = fmax(xmax, fabs(x[i]));
  }
  double scale = norm_inf(n, n, a) * norm_inf(n, n, b) * xmax;
  free(x);
  free(bx);
  free(abx);
  free(cx);
  return scale > 0.0 ? diff / scale : diff;
}

/* C(rows r0.., cols c0..) += A(r0.., k0..) B(k0.., c0..), rows x cols x
 * depth, in the n x n row-major matrices a, b, c. */
static void gemm_part(long n, const double *a, const double *b, double *c,
                      long r0, long c0, long k0, long rows, long cols,
                      long depth) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)cols,
              (int)depth, 1.0, a + r0 * n + k0, (int)n, b + k0 * n + c0, (int)n,
              1.0, c + r0 * n + c0, (int)n);
}

/* C += A B in b x b tiles, in the linalg programs' order: k outermost, so
 * a thread's run of C tiles along a row reuses A(i, k) from its cache; an
 * OpenMP static loop over the C tiles for each k. */
static void gemm_tiles(long n, long b, const double *a, const double *bm,
                       double *c) {
  long nt = suite_nblocks(n, b);
#pragma omp parallel
  for (long k = 0; k < nt; k++) {
#pragma omp for schedule(static) collapse(2)
    for (long i = 0; i < nt; i++)
      for (long j = 0; j < nt; j++)
        gemm_part(n, a, bm, c, i * b, j * b, k * b, suite_block_dim(n, b, i),
                  suite_block_dim(n, b, j), suite_block_dim(n, b, k));
  }
}

/* dgemm as one call on OpenBLAS's threads, or (tiled) in b x b tiles on
 * OpenMP's threads, OpenBLAS's own set to one. */
static int run_dgemm(struct suite_opts *o, int tiled) {
  long n = o->n;
  if (tiled && !o->b)
    o->b = suite_tile_rule(n);
  long b = o->b;
  size_t count = (size_t)n * (size_t)n;
  double *a = alloc_doubles(count), *bm = alloc_doubles(count),
         *c = alloc_doubles(count);
  fill_random(count, a, 1);
  fill_random(count, bm, 2);
  int threads = openblas_get_num_threads();
  if (tiled) {
    threads = omp_get_max_threads();
    openblas_set_num_threads(1);
  }
  struct suite_times tt = {0};
  while (suite_more(&tt, o)) {
    memset(c, 0, count * sizeof *c);
    suite_begin(&tt);
    if (tiled)
      gemm_tiles(n, b, a, bm, c);
    else
      gemm_part(n, a, bm, c, 0, 0, 0, n, n, n);
    suite_end(&tt);
  }
  double sum = 0.0;
  for (size_t i = 0; i < count; i++)
    sum += c[i];
  int status = suite_report(o, threads, &tt, 2.0 * n * n * n, "GFLOP/s",
                            probe(n, a, bm, c), 2.0 * n * DBL_EPSILON, sum);
  free(a);
  free(bm);
  free(c);
  return status;
}

int main(int argc, char **argv) {
  struct suite_opts o;
  int status = suite_init(&argc, &argv, "ceilings", "machine", kernels, &o);
  if (status < 0)
    status = !strcmp(o.kernel, "triad")
                 ? run_triad(&o)
                 : run_dgemm(&o, !strcmp(o.kernel, "tiles"));
  suite_finish();
  return status;
}
