/* array.c — element-wise and reducing operations on n x n matrices of
 * doubles, one task per band of b rows (group "array", runtime "dag", or
 * "serial" built with plain cc):
 *
 *   fill       Z = random numbers           8 bytes per element
 *   inc        Z = X + 1                   16
 *   add        Z = X + Y                   24
 *   sin        Z = sin(X)                  16
 *   transpose  Z = X^T                     16
 *   sum        s = sum of X                 8
 *   norm2      s = sqrt(sum of X^2)         8
 *
 * The rate is those bytes per second (GB/s). The block kernels are plain
 * functions of kernels.h, shared with the OpenMP version array_omp.c.
 *
 * Distribution. X, Y and Z come from suite_bands: built with dagcc,
 * dag_alloc memory in the tasks' bands of b whole rows, each rank homing a
 * contiguous run of bands. A task runs at the home of the band it writes,
 * where the band it reads lives too, except for the transpose, which goes
 * by b x b tiles: tile (i, j) of Z reads tile (j, i) of X, whose band the
 * runtime brings from its home (once: the copy stays valid). Bands rather
 * than b x b blocks because the kernels stream whole rows (kernels.h).
 * The inputs are filled once, by a task per band at its
 * home, before the timed repetitions; so is Z (with other values), so that
 * no repetition pays for first touching its pages.
 *
 * Reductions. A task per block writes the block's partial sum into
 * part[k], ordinary (replicated) memory; the taskwait gives every rank all
 * of them and each adds them in block order: the same bits on any number
 * of ranks and workers, and with plain cc.
 *
 * Check, by a task per block at its home (the matrix is never gathered):
 * for the matrix kernels the largest |Z - exact| with exact recomputed
 * from suite_random (tol 0: each element is one correctly rounded
 * operation, or the same sin), and the block's sum for the checksum; for
 * sum and norm2, the blocks' sums recomputed from suite_random one element
 * after the other, added in block order, and their difference from the
 * result relative to the sum of the terms' magnitudes (tol 1e-10: far
 * above the rounding of either order, under 1e-15 at n = 10000, and far
 * below what one wrong element changes, over 1e-8 there). The checksum
 * (sum=) is the sum of Z's block sums in block order, or the result of sum
 * or norm2 itself.
 *
 * Band: -b rows, else about 8 bands per worker of all ranks,
 * b = ceil(n / (8 ranks workers)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"
#include "suite.h"

static long default_block(long n) {
  long bands = 8L * suite_nranks() * suite_dag_workers();
  return n > bands ? (n + bands - 1) / bands : 1;
}

static long block_count(long n, long b) { return suite_nblocks(n, b); }

/* count doubles of ordinary memory, zero; exits if there is none. */
static double *zeros(long count) {
  double *v = calloc((size_t)count, sizeof *v);
  if (!v) {
    fprintf(stderr, "array: no memory for %ld doubles\n", count);
    exit(1);
  }
  return v;
}

/* The sum of v[0 .. count - 1] in index order, or its square root. */
static double add_in_order(const double *v, long count, int root) {
  double s = 0.0;
  for (long k = 0; k < count; k++)
    s += v[k];
  return root ? sqrt(s) : s;
}

/* ------------------------------------------------------------- kernels */

/* Each function submits a task per block; the caller waits. */

static void fill(long n, long b, double (*Z)[n], uint64_t seed) {
  for (long k = 0; k < block_count(n, b); k++) {
    struct block B = block_of(n, b, k);
#pragma dag task out(Z[B.i0:B.rows][B.j0:B.cols]) label("fill")
    fill_block(n, Z, B, seed);
  }
}

static void inc(long n, long b, double (*Z)[n], double (*X)[n]) {
  for (long k = 0; k < block_count(n, b); k++) {
    struct block B = block_of(n, b, k);
#pragma dag task out(Z[B.i0:B.rows][B.j0:B.cols])                             \
    in(X[B.i0:B.rows][B.j0:B.cols]) label("inc")
    inc_block(n, Z, X, B);
  }
}

static void add(long n, long b, double (*Z)[n], double (*X)[n],
                double (*Y)[n]) {
  for (long k = 0; k < block_count(n, b); k++) {
    struct block B = block_of(n, b, k);
#pragma dag task out(Z[B.i0:B.rows][B.j0:B.cols])                             \
    in(X[B.i0:B.rows][B.j0:B.cols], Y[B.i0:B.rows][B.j0:B.cols]) label("add")
    add_block(n, Z, X, Y, B);
  }
}

static void sine(long n, long b, double (*Z)[n], double (*X)[n]) {
  for (long k = 0; k < block_count(n, b); k++) {
    struct block B = block_of(n, b, k);
#pragma dag task out(Z[B.i0:B.rows][B.j0:B.cols])                             \
    in(X[B.i0:B.rows][B.j0:B.cols]) label("sin")
    sin_block(n, Z, X, B);
  }
}

/* Tile (i, j) of Z from tile (j, i) of X, in b x b tiles. */
static void transpose(long n, long b, double (*Z)[n], double (*X)[n]) {
  long tiles = suite_nblocks(n, b) * suite_nblocks(n, b);
  for (long k = 0; k < tiles; k++) {
    struct block B = tile_of(n, b, k);
#pragma dag task out(Z[B.i0:B.rows][B.j0:B.cols])                             \
    in(X[B.j0:B.cols][B.i0:B.rows]) label("transpose")
    transpose_block(n, Z, X, B);
  }
}

/* part[k] = the sum of block k of X, or of its squares. part is ordinary
 * memory, so each task runs at the home of the block it reads. */
static void partial_sums(long n, long b, double (*X)[n], double *part,
                         int squares) {
  for (long k = 0; k < block_count(n, b); k++) {
    struct block B = block_of(n, b, k);
#pragma dag task in(X[B.i0:B.rows][B.j0:B.cols]) out(part[k])                 \
    label("partial")
    part[k] = sum_block(n, X, B, squares);
  }
}

/* Runs kernel k once, to the end of its tasks. Returns the value of sum or
 * norm2 (0 for the others, whose result is Z). */
static double run_kernel(enum kernel k, long n, long b, double (*X)[n],
                         double (*Y)[n], double (*Z)[n], double *part) {
  switch (k) {
  case FILL:
    fill(n, b, Z, SEED_X);
    break;
  case INC:
    inc(n, b, Z, X);
    break;
  case ADD:
    add(n, b, Z, X, Y);
    break;
  case SIN:
    sine(n, b, Z, X);
    break;
  case TRANSPOSE:
    transpose(n, b, Z, X);
    break;
  case SUM:
  case NORM2:
    partial_sums(n, b, X, part, k == NORM2);
    break;
  }
#pragma dag taskwait
  if (!is_reduction(k))
    return 0.0;
  return add_in_order(part, block_count(n, b), k == NORM2);
}

/* -------------------------------------------------------------- checks */

/* The largest error of Z (see kernels.h's error_block); *checksum = the
 * sum of Z's block sums in block order. */
static double check_matrix(enum kernel k, long n, long b, double (*Z)[n],
                           double *checksum) {
  long count = block_count(n, b);
  double *err = zeros(count), *sums = zeros(count);
  for (long i = 0; i < count; i++) {
    struct block B = block_of(n, b, i);
#pragma dag task in(Z[B.i0:B.rows][B.j0:B.cols]) out(err[i], sums[i])         \
    label("check")
    {
      err[i] = error_block(k, n, Z, B);
      sums[i] = sum_block(n, Z, B, 0);
    }
  }
#pragma dag taskwait
  double worst = 0.0;
  for (long i = 0; i < count; i++)
    worst = fmax(worst, err[i]);
  *checksum = add_in_order(sums, count, 0);
  free(err);
  free(sums);
  return worst;
}

/* The difference of sum's or norm2's result from the same reduction of
 * block sums recomputed from suite_random, relative to the sum of the
 * magnitudes of the terms (for norm2, of the squares), under the root for
 * norm2. Each block's is computed at the block's home (on()), though it
 * reads nothing there. */
static double check_reduction(enum kernel k, long n, long b, double (*X)[n],
                              double result) {
  long count = block_count(n, b);
  double *ref = zeros(count), *scale = zeros(count);
  for (long i = 0; i < count; i++) {
    struct block B = block_of(n, b, i);
#pragma dag task out(ref[i], scale[i]) on(dag_owner(&X[B.i0][B.j0]))           \
    label("reference")
    ref[i] = exact_sum_block(n, B, k == NORM2, &scale[i]);
  }
#pragma dag taskwait
  double exact = add_in_order(ref, count, k == NORM2);
  double magnitude = add_in_order(scale, count, k == NORM2);
  free(ref);
  free(scale);
  return fabs(result - exact) / magnitude;
}

/* ---------------------------------------------------------------- main */

/* An n x n matrix in bands of b rows filled from seed; exits if there is
 * no memory for it. */
static void *matrix(long n, long b, uint64_t seed) {
  double(*M)[n] = suite_bands((size_t)n, (size_t)n, (size_t)b, (size_t)b);
  if (!M) {
    fprintf(stderr, "array: no memory for a %ld x %ld matrix\n", n, n);
    exit(1);
  }
  fill(n, b, M, seed);
#pragma dag taskwait
  return M;
}

static void release(void *m) {
  if (m)
    suite_free_matrix(m);
}

static long block_rule(long n, long b) { return b ? b : default_block(n); }

/* One part of the reductions per block. */
static double *scratch(long n, long b) { return zeros(block_count(n, b)); }

int main(int argc, char **argv) {
  return array_main(argc, argv, SUITE_DAG_RUNTIME, suite_dag_workers);
}
