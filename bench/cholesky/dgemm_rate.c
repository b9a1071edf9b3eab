/* dgemm_rate.c — the ceiling of run-cholesky: the rate of one dgemm on the
 * whole n x n matrix with OpenBLAS's own threads (OPENBLAS_NUM_THREADS),
 * C := C - A B^T as the Cholesky's trailing updates do, in the same run as
 * the factorizations. A tiled Cholesky spends most of its flops in dgemm
 * and cannot beat the machine's dgemm.
 *
 *   cholesky_dgemm [-n N] [-r reps]
 *
 * prints `dgemm n=N threads=T time=S gflops=G` (2 n^3 flops, best of reps).
 */
#define _POSIX_C_SOURCE 200809L

#include "harness.h"
#include "sample_util.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern void openblas_set_num_threads(int num_threads);

int main(int argc, char **argv) {
  int n = 4096, reps = 3;
  const struct bench_opt opts[] = {BENCH_OPT("-n", BENCH_INT, &n, 1, 1 << 20),
                                   BENCH_OPT("-r", BENCH_INT, &reps, 1, 1000),
                                   BENCH_OPT_END};
  int rc = bench_args(argc, argv, opts, "cholesky_dgemm [-n N] [-r reps]");
  if (rc >= 0)
    return rc;
  const char *env = getenv("OPENBLAS_NUM_THREADS");
  int threads = env && atoi(env) > 0 ? atoi(env) : 2;
  openblas_set_num_threads(threads);
  size_t elems = (size_t)n * (size_t)n;
  double *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
         *c = malloc(elems * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "%s: out of memory for n = %d\n", argv[0], n);
    return 1;
  }
  for (size_t i = 0; i < elems; i++) {
    a[i] = sample_uniform_at(i);
    b[i] = sample_uniform_at(i + elems);
    c[i] = 0;
  }
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, a, n, b,
                n, 1.0, c, n);
    double t = bench_now() - t0;
    best = t < best ? t : best;
  }
  printf("dgemm n=%d threads=%d time=%.4f gflops=%.2f\n", n, threads, best,
         2.0 * n * n * n / best * 1e-9);
  free(a);
  free(b);
  free(c);
  return 0;
}
