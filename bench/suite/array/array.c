/* array.c — element-wise and reducing operations on an n x n matrix of
 * doubles, one task per b x b block (seed: fill and X + 1; the helper adds
 * the rest). */
#include <math.h>
#include <stdio.h>

#include "suite.h"

static const char *const kernels[] = {"fill", "inc", NULL};

static void fill_block(long n, double (*X)[n], long i0, long j0, long rows,
                       long cols, uint64_t seed) {
  for (long i = i0; i < i0 + rows; i++)
    for (long j = j0; j < j0 + cols; j++)
      X[i][j] = suite_random(seed, (uint64_t)(i * n + j));
}

static void fill(long n, long b, double (*X)[n], uint64_t seed) {
  long nb = suite_nblocks(n, b);
  for (long bi = 0; bi < nb; bi++)
    for (long bj = 0; bj < nb; bj++) {
      long i0 = bi * b, j0 = bj * b;
      long rows = suite_block_dim(n, b, bi), cols = suite_block_dim(n, b, bj);
#pragma dag task out(X[i0:rows][j0:cols]) label("fill")
      fill_block(n, X, i0, j0, rows, cols, seed);
    }
#pragma dag taskwait
}

int main(int argc, char **argv) {
  struct suite_opts o;
  int status = suite_init(&argc, &argv, "array", SUITE_DAG_RUNTIME, kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  long n = o.n;
  if (!o.b)
    o.b = n < 1000 ? n : 1000;
  double(*X)[n] = suite_matrix(n, n, o.b, o.b);
  struct suite_times tt = {0};
  while (suite_more(&tt, &o)) {
    suite_barrier();
    double t0 = suite_now();
    fill(n, o.b, X, 1);
    suite_add(&tt, suite_now() - t0);
  }
  double *sums = calloc(1, sizeof *sums);
#pragma dag task in(X[0:n][0:n]) out(sums[0:1]) on(0)
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      sums[0] += X[i][j];
#pragma dag taskwait
  status = suite_report(&o, suite_dag_workers(), &tt, 8.0 * n * n, "GB/s", 0.0,
                        0.0, sums[0]);
  suite_free_matrix(X);
  suite_finish();
  return status;
}
