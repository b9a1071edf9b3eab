/* kernels.h — the kernels of the array group, their checks and main
 * (array_main), shared by array.c (dag: one task per b x b block) and
 * array_omp.c (OpenMP: a parallel loop over rows), so that both run the
 * same code.
 *
 * Every kernel works on a block of an n x n row-major matrix, `struct
 * block`: rows x cols elements from (i0, j0). The dag program passes its
 * tasks' blocks, the OpenMP one single rows (or bands of rows for the
 * transpose). Inner loops run along rows (FOR_EACH_PIECE) and
 * vectorize; the reductions keep LANES partial sums in a fixed order, so
 * they vectorize too and still give the same bits in every build.
 *
 * Inputs and the expected results come from suite_random: X from SEED_X,
 * Y from SEED_Y; an output is first filled from SEED_Z, so an element a
 * kernel fails to write shows in the check.
 */
#ifndef BENCH_SUITE_ARRAY_KERNELS_H
#define BENCH_SUITE_ARRAY_KERNELS_H

#include <math.h>
#include <stdlib.h>

#include "suite.h"

/* ------------------------------------------------------------- kernels */

enum kernel { FILL, INC, ADD, SIN, TRANSPOSE, SUM, NORM2 };

static const char *const kernel_names[] = {"fill",      "inc", "add",   "sin",
                                           "transpose", "sum", "norm2", NULL};

/* Bytes each kernel reads and writes per element: the work of its GB/s. */
static const double kernel_bytes[] = {8, 16, 24, 16, 16, 8, 8};

/* sum and norm2 reduce X to one number; the others write a matrix Z. */
static inline int is_reduction(enum kernel k) { return k == SUM || k == NORM2; }

enum { SEED_X = 1, SEED_Y = 2, SEED_Z = 3 };

/* ------------------------------------------------------------- blocks */

struct block {
  long i0, j0, rows, cols;
};

/* Block k of an n x n matrix in bands of b rows: rows k b .. k b + b - 1,
 * whole (the last band may be shorter). The element-wise kernels and the
 * reductions stream whole rows: a core reads a row from end to end much
 * faster than it reads short stretches of rows one after the other (on the
 * 2-core test machine a sum over 2000 x 2000 blocks of an 8000 x 8000
 * matrix ran at 40% of its speed over whole rows). */
static inline struct block block_of(long n, long b, long k) {
  return (struct block){k * b, 0, suite_block_dim(n, b, k), n};
}

/* Tile k, in row-major tile order, of an n x n matrix in b x b tiles (the
 * last row and column of tiles may be smaller): the transpose's blocks. */
static inline struct block tile_of(long n, long b, long k) {
  long nb = suite_nblocks(n, b), bi = k / nb, bj = k % nb;
  return (struct block){bi * b, bj * b, suite_block_dim(n, b, bi),
                        suite_block_dim(n, b, bj)};
}

/* Rows i0 .. i0 + rows - 1, whole. */
static inline struct block rows_of(long n, long i0, long rows) {
  return (struct block){i0, 0, rows, n};
}

static inline long min_of(long a, long b) { return a < b ? a : b; }

/* Runs the statement that follows on each row of block B: row i, columns
 * j .. j + len - 1. */
#define FOR_EACH_PIECE(B, i, j, len)                                           \
  for (long i = (B).i0, j = (B).j0, len = (B).cols; i < (B).i0 + (B).rows; i++)

/* ------------------------------------------------ element-wise kernels */

/* Z = suite_random(seed, i n + j) on B. */
static inline void fill_block(long n, double (*Z)[n], struct block B,
                              uint64_t seed) {
  FOR_EACH_PIECE(B, i, j, len) {
    for (long k = j; k < j + len; k++)
      Z[i][k] = suite_random(seed, (uint64_t)(i * n + k));
  }
}

/* Z = X + 1 on B. */
static inline void inc_block(long n, double (*restrict Z)[n],
                             double (*restrict X)[n], struct block B) {
  FOR_EACH_PIECE(B, i, j, len) {
    for (long k = j; k < j + len; k++)
      Z[i][k] = X[i][k] + 1.0;
  }
}

/* Z = X + Y on B. */
static inline void add_block(long n, double (*restrict Z)[n],
                             double (*restrict X)[n], double (*restrict Y)[n],
                             struct block B) {
  FOR_EACH_PIECE(B, i, j, len) {
    for (long k = j; k < j + len; k++)
      Z[i][k] = X[i][k] + Y[i][k];
  }
}

/* Z = sin(X) on B. */
static inline void sin_block(long n, double (*restrict Z)[n],
                             double (*restrict X)[n], struct block B) {
  FOR_EACH_PIECE(B, i, j, len) {
    for (long k = j; k < j + len; k++)
      Z[i][k] = sin(X[i][k]);
  }
}

/* Side of the square tiles the transpose goes through: a tile of X and
 * one of Z (2 x 8 KiB) stay in the L1 cache while the tile is turned. */
enum { TILE = 32 };

/* Z = X^T on B: Z[i][j] = X[j][i], reading the block of X at (j0, i0) a
 * tile at a time. */
static inline void transpose_block(long n, double (*restrict Z)[n],
                                   double (*restrict X)[n], struct block B) {
  long i1 = B.i0 + B.rows, j1 = B.j0 + B.cols;
  for (long ti = B.i0; ti < i1; ti += TILE)
    for (long tj = B.j0; tj < j1; tj += TILE) {
      long ie = min_of(ti + TILE, i1), je = min_of(tj + TILE, j1);
      for (long i = ti; i < ie; i++)
        for (long j = tj; j < je; j++)
          Z[i][j] = X[j][i];
    }
}

/* ---------------------------------------------------------- reductions */

/* Partial sums kept side by side: LANES independent additions per step. */
enum { LANES = 8 };

/* The sum of X on B, or of its squares: element j of a piece goes to
 * partial j mod LANES (a piece's last len mod LANES ones, at the end of a
 * row, to a scalar), and the partials are added in order at the end. */
static inline double sum_block(long n, double (*X)[n], struct block B,
                               int squares) {
  double part[LANES] = {0}, rest = 0.0;
  FOR_EACH_PIECE(B, i, j, len) {
    const double *x = &X[i][j];
    long whole = len - len % LANES;
    if (squares)
      for (long k = 0; k < whole; k += LANES)
        for (int l = 0; l < LANES; l++)
          part[l] += x[k + l] * x[k + l];
    else
      for (long k = 0; k < whole; k += LANES)
        for (int l = 0; l < LANES; l++)
          part[l] += x[k + l];
    for (long k = whole; k < len; k++)
      rest += squares ? x[k] * x[k] : x[k];
  }
  for (int l = 0; l < LANES; l++)
    rest += part[l];
  return rest;
}

/* -------------------------------------------------------------- checks */

/* The exact value of element (i, j) of kernel k's output Z. */
static inline double exact(enum kernel k, long n, long i, long j) {
  double x = suite_random(SEED_X, (uint64_t)(i * n + j));
  switch (k) {
  case FILL:
    return x;
  case INC:
    return x + 1.0;
  case ADD:
    return x + suite_random(SEED_Y, (uint64_t)(i * n + j));
  case SIN:
    return sin(x);
  case TRANSPOSE:
    return suite_random(SEED_X, (uint64_t)(j * n + i));
  default:
    return NAN; /* sum and norm2 write no matrix */
  }
}

/* The largest |Z - exact| on B; infinity if an element is NaN. */
static inline double error_block(enum kernel k, long n, double (*Z)[n],
                                 struct block B) {
  double err = 0.0;
  for (long i = B.i0; i < B.i0 + B.rows; i++)
    for (long j = B.j0; j < B.j0 + B.cols; j++) {
      double d = fabs(Z[i][j] - exact(k, n, i, j));
      if (!(d <= err))
        err = isnan(d) ? INFINITY : d;
    }
  return err;
}

/* What sum_block should find on B of X, recomputed from suite_random in
 * another order (row by row, one element after the other); *scale = the
 * sum of the terms' magnitudes, the scale of the rounding errors. */
static inline double exact_sum_block(long n, struct block B, int squares,
                                     double *scale) {
  double s = 0.0, mag = 0.0;
  for (long i = B.i0; i < B.i0 + B.rows; i++) {
    double row = 0.0, row_mag = 0.0;
    for (long j = B.j0; j < B.j0 + B.cols; j++) {
      double x = suite_random(SEED_X, (uint64_t)(i * n + j));
      double t = squares ? x * x : x;
      row += t;
      row_mag += fabs(t);
    }
    s += row;
    mag += row_mag;
  }
  *scale = mag;
  return s;
}

/* ---------------------------------------------------------------- main */

/* What each program (array.c, array_omp.c) defines for array_main: its
 * block order (b from -b, or 0), an n x n matrix filled from seed (exits
 * without memory) and its release, the scratch of its kernels (may be
 * NULL; freed with free()), the kernel's run (the value of sum or norm2, 0
 * for the others, whose result is Z), and the checks: Z's largest error
 * (*checksum its sum), and the error of a reduction's result. */
static long block_rule(long n, long b);
static void *matrix(long n, long b, uint64_t seed);
static void release(void *m);
static double *scratch(long n, long b);
static double run_kernel(enum kernel k, long n, long b, double (*X)[n],
                         double (*Y)[n], double (*Z)[n], double *part);
static double check_matrix(enum kernel k, long n, long b, double (*Z)[n],
                           double *checksum);
static double check_reduction(enum kernel k, long n, long b, double (*X)[n],
                              double result);

/* The program's main: arguments, X for all but fill, Y for add, Z for the
 * kernels that write a matrix, the timed repetitions, the check and the
 * SUITE line. */
static inline int array_main(int argc, char **argv, const char *runtime,
                             int (*workers)(void)) {
  struct suite_opts o;
  int status = suite_init(&argc, &argv, "array", runtime, kernel_names, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  enum kernel k = (enum kernel)o.k;
  long n = o.n, b = o.b = block_rule(n, o.b);
  double(*X)[n] = k != FILL ? matrix(n, b, SEED_X) : NULL;
  double(*Y)[n] = k == ADD ? matrix(n, b, SEED_Y) : NULL;
  double(*Z)[n] = !is_reduction(k) ? matrix(n, b, SEED_Z) : NULL;
  double *part = scratch(n, b);

  struct suite_times tt = {0};
  double result = 0.0;
  while (suite_more(&tt, &o)) {
    suite_begin(&tt);
    result = run_kernel(k, n, b, X, Y, Z, part);
    suite_end(&tt);
  }

  double check, sum = result, tol = 0.0;
  if (is_reduction(k)) {
    check = check_reduction(k, n, b, X, result);
    tol = 1e-10;
  } else {
    check = check_matrix(k, n, b, Z, &sum);
  }
  status =
      suite_report(&o, workers(), &tt, kernel_bytes[k] * (double)n * (double)n,
                   "GB/s", check, tol, sum);
  free(part);
  release(X);
  release(Y);
  release(Z);
  suite_finish();
  return status;
}

#endif /* BENCH_SUITE_ARRAY_KERNELS_H */
