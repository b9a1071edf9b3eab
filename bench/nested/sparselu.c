/* sparselu.c — LU factorization of a sparse blocked matrix, tasks ordered
 * by their data.
 *
 * The matrix has nb x nb blocks of bs x bs doubles; a block is NULL where
 * the matrix is zero there, in the pattern of BOTS' sparselu (every other
 * block row and column, and fewer further from the diagonal; the diagonal
 * and its two neighbours are full). For each step kk: lu0 factors the
 * diagonal block, fwd and bdiv update the non-NULL blocks of row and column
 * kk, and bmod updates each block (ii, jj) whose two factors (ii, kk) and
 * (kk, jj) are non-NULL, allocating it first (zeroed) if it was NULL: the
 * fill-in. Every kernel is a task that names the blocks it reads and
 * writes (OpenMP: depend), all submitted by one thread with one taskwait at
 * the end, so the steps overlap. No pivoting: the matrix is diagonally
 * dominant. Checked with Freivalds' test: L (U x) against A x.
 */
#include "nested.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nb, bs;
static double **blocks, **orig; /* nb x nb block pointers, row-major */

static double *block(double **m, int i, int j) {
  return m[(size_t)i * (size_t)nb + (size_t)j];
}

/* In place: d = L U, L unit lower, U upper. */
static void lu0(double *d, int n) {
  for (int k = 0; k < n; k++)
    for (int i = k + 1; i < n; i++) {
      double l = d[i * n + k] /= d[k * n + k];
      for (int j = k + 1; j < n; j++)
        d[i * n + j] -= l * d[k * n + j];
    }
}

/* u = L^-1 u, L the unit lower factor in d. */
static void fwd(const double *d, double *u, int n) {
  for (int k = 0; k < n; k++)
    for (int i = k + 1; i < n; i++) {
      double l = d[i * n + k];
      for (int j = 0; j < n; j++)
        u[i * n + j] -= l * u[k * n + j];
    }
}

/* l = l U^-1, U the upper factor in d. */
static void bdiv(const double *d, double *l, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      double v = l[i * n + k] /= d[k * n + k];
      for (int j = k + 1; j < n; j++)
        l[i * n + j] -= v * d[k * n + j];
    }
}

/* c = c - l u. */
static void bmod(const double *l, const double *u, double *c, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      double v = l[i * n + k];
      for (int j = 0; j < n; j++)
        c[i * n + j] -= v * u[k * n + j];
    }
}

static double *new_block(void) {
  double *b = calloc((size_t)bs * (size_t)bs, sizeof *b);
  if (!b) {
    fprintf(stderr, "sparselu: out of memory\n");
    exit(1);
  }
  return b;
}

static void sparselu(void) {
  int n = bs, n2 = bs * bs;
  (void)n2; /* only the pragmas use it */
  for (int kk = 0; kk < nb; kk++) {
    double *d = block(blocks, kk, kk);
#pragma omp task depend(inout : d[0:n2])
#pragma dag task inout(d[0:n2])
    lu0(d, n);
    for (int x = kk + 1; x < nb; x++) {
      double *u = block(blocks, kk, x), *l = block(blocks, x, kk);
      if (u) {
#pragma omp task depend(in : d[0:n2]) depend(inout : u[0:n2])
#pragma dag task in(d[0:n2]) inout(u[0:n2])
        fwd(d, u, n);
      }
      if (l) {
#pragma omp task depend(in : d[0:n2]) depend(inout : l[0:n2])
#pragma dag task in(d[0:n2]) inout(l[0:n2])
        bdiv(d, l, n);
      }
    }
    for (int ii = kk + 1; ii < nb; ii++) {
      double *l = block(blocks, ii, kk);
      if (!l)
        continue;
      for (int jj = kk + 1; jj < nb; jj++) {
        double *u = block(blocks, kk, jj);
        if (!u)
          continue;
        double **cp = &blocks[(size_t)ii * (size_t)nb + (size_t)jj];
        if (!*cp)
          *cp = new_block();
        double *c = *cp;
#pragma omp task depend(in : l[0:n2], u[0:n2]) depend(inout : c[0:n2])
#pragma dag task in(l[0:n2], u[0:n2]) inout(c[0:n2])
        bmod(l, u, c, n);
      }
    }
  }
#pragma omp taskwait
#pragma dag taskwait
}

/* Whether block (i, j) starts NULL: the pattern of BOTS' sparselu. */
static int null_block(int i, int j) {
  if (i == j || i == j - 1 || i == j + 1)
    return 0;
  return (i < j && i % 3) || (i > j && j % 3) || i % 2 || j % 2;
}

static int setup(long n, long c) {
  if (n < 1 || n > 10000 || c < 1 || c > 4096) {
    fprintf(stderr,
            "sparselu: nb = %ld, bs = %ld: expected 1 to 10000 "
            "blocks of 1 to 4096\n",
            n, c);
    return 1;
  }
  nb = (int)n;
  bs = (int)c;
  size_t nblocks = (size_t)nb * (size_t)nb, n2 = (size_t)bs * (size_t)bs;
  blocks = calloc(nblocks, sizeof *blocks);
  orig = calloc(nblocks, sizeof *orig);
  if (!blocks || !orig) {
    fprintf(stderr, "sparselu: out of memory\n");
    return 1;
  }
  double dominance = (double)nb * bs; /* > the sum of a row's other |a| */
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) {
      if (null_block(i, j))
        continue;
      double *b = new_block(), *o = new_block();
      uint64_t seed = ((uint64_t)i * (uint64_t)nb + (uint64_t)j) * n2;
      for (size_t x = 0; x < n2; x++)
        b[x] = 2 * nested_unit(seed + x) - 1;
      if (i == j)
        for (int x = 0; x < bs; x++)
          b[x * bs + x] += dominance;
      memcpy(o, b, n2 * sizeof *b);
      blocks[(size_t)i * (size_t)nb + (size_t)j] = b;
      orig[(size_t)i * (size_t)nb + (size_t)j] = o;
    }
  return 0;
}

static void run(void) { sparselu(); }

/* y += M x for one block (x and y of bs elements); with part 'l' only the
 * strict lower triangle, with 'u' only the upper one with the diagonal. */
static void block_mv(const double *m, const double *x, double *y, char part) {
  for (int i = 0; i < bs; i++) {
    int lo = part == 'u' ? i : 0, hi = part == 'l' ? i : bs;
    double s = 0;
    for (int j = lo; j < hi; j++)
      s += m[i * bs + j] * x[j];
    y[i] += s;
  }
}

static int check(char *what, size_t len) {
  size_t n = (size_t)nb * (size_t)bs;
  double *x = calloc(4 * n, sizeof *x), *ax = x + n, *ux = ax + n,
         *lux = ux + n;
  if (!x)
    return 1;
  for (size_t i = 0; i < n; i++)
    x[i] = 2 * nested_unit(~(uint64_t)i) - 1;
  long fill = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) {
      const double *o = block(orig, i, j), *f = block(blocks, i, j);
      size_t ri = (size_t)i * bs, rj = (size_t)j * bs;
      fill += f && !o;
      if (o)
        block_mv(o, x + rj, ax + ri, 'a');
      if (f && i <= j) /* U x */
        block_mv(f, x + rj, ux + ri, i == j ? 'u' : 'a');
    }
  for (int i = 0; i < nb; i++) {
    size_t ri = (size_t)i * bs;
    memcpy(lux + ri, ux + ri, (size_t)bs * sizeof *x); /* L's unit diagonal */
    for (int j = 0; j <= i; j++) {
      const double *f = block(blocks, i, j);
      if (f)
        block_mv(f, ux + (size_t)j * bs, lux + ri, i == j ? 'l' : 'a');
    }
  }
  double err = 0, norm = 0;
  for (size_t i = 0; i < n; i++) {
    err = fmax(err, fabs(lux[i] - ax[i]));
    norm = fmax(norm, fabs(ax[i]));
  }
  free(x);
  for (size_t i = 0; i < (size_t)nb * (size_t)nb; i++) {
    free(blocks[i]);
    free(orig[i]);
  }
  free(blocks);
  free(orig);
  double rel = err / (norm > 0 ? norm : 1);
  snprintf(what, len, "fill_in=%ld freivalds=%.1e", fill, rel);
  if (!(rel < 1e-12)) {
    fprintf(stderr, "sparselu: |LUx - Ax| / |Ax| = %g, expected < 1e-12\n",
            rel);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "sparselu",
    .size = 32,
    .cutoff = 64,
    .size_means = "nb, the matrix's order in blocks",
    .cutoff_means = "bs, the order of a block (the tasks' grain)",
    .setup = setup,
    .run = run,
    .check = check,
};
