/* sparse.h — what the sparse group's programs share (the dag program,
 * sparse.c, and its PETSc peer): their kernels and the check of -n, the
 * matrix, the CG run's length and tolerance, and the work they count.
 *
 * The matrix is the 5-point Laplacian on an n x n grid. Row r = i n + j
 * is grid point (i, j), 0 <= i, j < n, so there are N = n^2 rows. Row r
 * holds 4 on the diagonal and -1 in the columns of the point's neighbours
 * north (i - 1, j), west (i, j - 1), east (i, j + 1) and south (i + 1, j);
 * a neighbour outside the grid is dropped (Dirichlet boundary). In
 * increasing column order a row is: north, west, centre, east, south. The
 * matrix is symmetric positive definite.
 *
 * Column indices are ints: the programs accept n up to SPARSE_MAX_N, where
 * 5 N still fits in an int.
 */
#ifndef BENCH_SUITE_SPARSE_H
#define BENCH_SUITE_SPARSE_H

#include <stdio.h>

#include "suite.h"

#define SPARSE_MAX_N 20000L
#define LAPLACE_ROW_MAX 5

/* The kernels of a program that has them all (the PETSc variants of CG
 * have only cg). */
static const char *const sparse_kernels[] = {"spmv", "cg", "cg_unfused", NULL};

/* suite_init for a sparse program of this runtime and these kernels, which
 * also refuses an n above SPARSE_MAX_N (status 2); returns what suite_init
 * does. */
static inline int sparse_init(int *argc, char ***argv, const char *runtime,
                              const char *const *kernels,
                              struct suite_opts *o) {
  int status = suite_init(argc, argv, "sparse", runtime, kernels, o);
  if (status < 0 && o->n > SPARSE_MAX_N) {
    if (suite_rank() == 0)
      fprintf(stderr, "%s: -n at most %ld\n", (*argv)[0], SPARSE_MAX_N);
    status = 2;
  }
  return status;
}

/* Nonzeros of the matrix: 5 per row, less the 4 n neighbours that the
 * points of the grid's four sides lack. */
static inline long laplace_nnz(long n) { return 5 * n * n - 4 * n; }

/* Writes row r's column indices and values, in increasing column order, to
 * cols and vals (room for LAPLACE_ROW_MAX each); returns how many (3 to
 * 5). */
static inline int laplace_row(long n, long r, int *cols, double *vals) {
  long i = r / n, j = r % n;
  long at[LAPLACE_ROW_MAX];
  int k = 0;
  if (i > 0)
    at[k++] = r - n;
  if (j > 0)
    at[k++] = r - 1;
  at[k++] = r;
  if (j < n - 1)
    at[k++] = r + 1;
  if (i < n - 1)
    at[k++] = r + n;
  for (int e = 0; e < k; e++) {
    cols[e] = (int)at[e];
    vals[e] = at[e] == r ? 4.0 : -1.0;
  }
  return k;
}

/* (A x)(r) from the stencil: 4 x(i, j) less the grid neighbours' values,
 * with x(m) at x[m - x0]. The terms are added from 0 in increasing column
 * order, as a CSR row product adds them, so a right CSR product gives the
 * same bits. */
static inline double laplace_apply(long n, long r, const double *x, long x0) {
  long i = r / n, j = r % n;
  double s = 0.0;
  if (i > 0)
    s -= x[r - n - x0];
  if (j > 0)
    s -= x[r - 1 - x0];
  s += 4.0 * x[r - x0];
  if (j < n - 1)
    s -= x[r + 1 - x0];
  if (i < n - 1)
    s -= x[r + n - x0];
  return s;
}

/* CG runs exactly this many iterations from x0 = 0. */
#define CG_ITERATIONS 50

/* The largest |true - recurrence| / ||b|| accepted after the iterations,
 * between the true residual ||b - A x|| and the one CG's recurrence
 * carries. Rounding parts them by about iterations x eps x ||A|| ||x|| /
 * ||b||: with ||A|| <= 8 and ||x|| about 6 ||b|| after 50 iterations at
 * n = 300 and n = 1000, some 3e-13 (measured: below 1e-15). ||x|| grows
 * with n, hence the margin; a wrong step or a lost block parts them by far
 * more. */
#define CG_TOL 1e-8

/* The work counted, in flops: 2 per nonzero for the product; per CG
 * iteration the product, two dot products (4 N) and the updates of x, r
 * and p (6 N). */
static inline double spmv_flops(long n) { return 2.0 * (double)laplace_nnz(n); }

static inline double cg_flops(long n) {
  return CG_ITERATIONS * (spmv_flops(n) + 10.0 * (double)n * (double)n);
}

#endif /* BENCH_SUITE_SPARSE_H */
