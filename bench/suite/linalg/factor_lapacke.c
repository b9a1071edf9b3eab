/* factor_lapacke.c — the linalg group's lu, qr and solve as one LAPACK call
 * on the whole matrix (runtime "lapacke"):
 *
 *   factor_lapacke -k lu|qr|solve [-n N] [-r REPS] [-t SECONDS]
 *
 * No task runtime: OpenBLAS's own threads (OPENBLAS_NUM_THREADS) run
 * LAPACK's blocked algorithms, dgetrf, dgeqrf and dgesv, on the n x n
 * matrix in column-major storage, LAPACK's layout, as factor_tiles.h
 * defines it; the block size is LAPACK's own (-b is ignored, and b=n is
 * reported: one block). The matrix (and b) are made again before each
 * repetition, untimed; the checks and checksums are factor_tiles.c's, the
 * same as the tiled programs'.
 */
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>

#include "factor_tiles.h"
#include "suite.h"

/* What LAPACK needs besides the matrix: lu's and solve's pivots, qr's
 * scalar factors and workspace (lwork doubles). */
struct lapack_args {
  int *ipiv;
  double *tau, *work;
  lapack_int lwork;
};

/* Allocates the arguments, asking dgeqrf for its best workspace; NULL
 * pointers in it if memory ran out. */
static struct lapack_args lapack_args(long n) {
  struct lapack_args l = {malloc((size_t)n * sizeof(int)),
                          malloc((size_t)n * sizeof(double)), NULL, 0};
  double size = 0.0;
  lapack_int m = (lapack_int)n;
  LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, m, NULL, m, NULL, &size, -1);
  l.lwork = size > 1.0 ? (lapack_int)size : 1;
  l.work = malloc((size_t)l.lwork * sizeof(double));
  return l;
}

/* The timed part: one LAPACK call, through LAPACKE's _work functions (no
 * NaN scan, no allocation). */
static void run(enum factor_kernel kernel, long n, double *a, double *x,
                const struct lapack_args *l) {
  lapack_int info = 0, m = (lapack_int)n;
  switch (kernel) {
  case FACTOR_LU:
    info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, m, a, m, l->ipiv);
    break;
  case FACTOR_QR:
    info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, m, a, m, l->tau, l->work,
                               l->lwork);
    break;
  case FACTOR_SOLVE:
    info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, m, 1, a, m, l->ipiv, x, m);
    break;
  }
  if (info != 0)
    fprintf(stderr, "factor_lapacke: %s: info %d\n", factor_kernels[kernel],
            (int)info);
}

int main(int argc, char **argv) {
  struct suite_opts o;
  int status =
      suite_init(&argc, &argv, "linalg", "lapacke", factor_kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  enum factor_kernel kernel = factor_kernel_index(o.kernel);
  long n = o.n;
  o.b = n;
  double *a = malloc((size_t)n * (size_t)n * sizeof *a);
  double *x = malloc((size_t)n * sizeof *x);
  struct lapack_args l = lapack_args(n);
  if (!a || !x || !l.ipiv || !l.tau || !l.work) {
    fprintf(stderr, "factor_lapacke: out of memory for n = %ld\n", n);
    suite_finish();
    return 1;
  }

  struct suite_times tt = {0};
  while (suite_more(&tt, &o)) {
    factor_fill(a, n, 0, 0, n, n);
    factor_rhs(x, n);
    double t0 = suite_now();
    run(kernel, n, a, x, &l);
    suite_add(&tt, suite_now() - t0);
  }
  struct factor_result c = factor_check(kernel, a, l.ipiv, x, n);
  status =
      suite_report(&o, openblas_get_num_threads(), &tt, factor_flops(kernel, n),
                   "GFLOP/s", c.resid, factor_tol(n), c.sum);
  free(a);
  free(x);
  free(l.ipiv);
  free(l.tau);
  free(l.work);
  suite_finish();
  return status;
}
