/* array_omp.c — the array group's kernels (see array.c) with OpenMP, the
 * way a user would write them without dag (runtime "omp"): each kernel is
 * one `parallel for` with a static schedule over the rows of plain malloc
 * matrices, calling the same block functions as array.c (kernels.h) on one
 * row at a time, or on a band of TILE rows for the transpose. sum and
 * norm2 add their rows' sums with an OpenMP reduction, in an order that
 * depends on the threads (their sum= is not compared with array's).
 *
 * The inputs, and the output before the first repetition, are filled in
 * parallel with the same schedule, so that each thread first touches the
 * rows it works on. The check is array.c's, in parallel over rows: the
 * largest |Z - exact| (tol 0) and Z's sum, or the difference of sum's and
 * norm2's result from the value recomputed from suite_random, relative to
 * the sum of the terms' magnitudes (tol 1e-10). The block order b is not
 * used and reported as 0.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"
#include "suite.h"

static void fill(long n, double (*Z)[n], uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    fill_block(n, Z, rows_of(n, i, 1), seed);
}

/* Runs kernel k once; returns the value of sum or norm2 (0 for the
 * others, whose result is Z). */
static double run_kernel(enum kernel k, long n, long b, double (*X)[n],
                         double (*Y)[n], double (*Z)[n], double *part) {
  double s = 0.0;
  switch (k) {
  case FILL:
    fill(n, Z, SEED_X);
    break;
  case INC:
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      inc_block(n, Z, X, rows_of(n, i, 1));
    break;
  case ADD:
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      add_block(n, Z, X, Y, rows_of(n, i, 1));
    break;
  case SIN:
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      sin_block(n, Z, X, rows_of(n, i, 1));
    break;
  case TRANSPOSE:
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += TILE)
      transpose_block(n, Z, X, rows_of(n, i, min_of(TILE, n - i)));
    break;
  case SUM:
  case NORM2:
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (long i = 0; i < n; i++)
      s += sum_block(n, X, rows_of(n, i, 1), k == NORM2);
    if (k == NORM2)
      s = sqrt(s);
    break;
  }
  return s;
}

/* The largest error of Z (see kernels.h's error_block); *checksum = Z's
 * sum. */
static double check_matrix(enum kernel k, long n, long b, double (*Z)[n],
                           double *checksum) {
  double worst = 0.0, sum = 0.0;
#pragma omp parallel for schedule(static) reduction(max : worst)              \
    reduction(+ : sum)
  for (long i = 0; i < n; i++) {
    worst = fmax(worst, error_block(k, n, Z, rows_of(n, i, 1)));
    sum += sum_block(n, Z, rows_of(n, i, 1), 0);
  }
  *checksum = sum;
  return worst;
}

/* The difference of sum's or norm2's result from the value recomputed
 * from suite_random, relative to the sum of the terms' magnitudes (see
 * array.c). */
static double check_reduction(enum kernel k, long n, long b, double (*X)[n],
                              double result) {
  double exact = 0.0, magnitude = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : exact, magnitude)
  for (long i = 0; i < n; i++) {
    double scale;
    exact += exact_sum_block(n, rows_of(n, i, 1), k == NORM2, &scale);
    magnitude += scale;
  }
  if (k == NORM2) {
    exact = sqrt(exact);
    magnitude = sqrt(magnitude);
  }
  return fabs(result - exact) / magnitude;
}

/* An n x n matrix filled from seed; exits if there is no memory for it. */
static void *matrix(long n, long b, uint64_t seed) {
  double(*M)[n] = malloc(sizeof(double[n][n]));
  if (!M) {
    fprintf(stderr, "array_omp: no memory for a %ld x %ld matrix\n", n, n);
    exit(1);
  }
  fill(n, M, seed);
  return M;
}

/* b is not used, and reported as 0; nor is part. */
static long block_rule(long n, long b) { return 0; }

static double *scratch(long n, long b) { return NULL; }

static void release(void *m) { free(m); }

int main(int argc, char **argv) {
  return array_main(argc, argv, "omp", omp_get_max_threads);
}
