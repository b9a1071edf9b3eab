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

#include "linalg_program.h"
#include "suite.h"

/* What qr needs besides the matrix: its scalar factors (n doubles) and
 * dgeqrf's best workspace (lwork doubles), one block. */
struct qr_scratch {
  lapack_int lwork;
  double tau_then_work[];
};

static void *qr_scratch(long n) {
  double size = 0.0;
  lapack_int m = (lapack_int)n;
  LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, m, NULL, m, NULL, &size, -1);
  lapack_int lwork = size > 1.0 ? (lapack_int)size : 1;
  struct qr_scratch *s =
      malloc(sizeof *s + ((size_t)n + (size_t)lwork) * sizeof(double));
  if (s)
    s->lwork = lwork;
  return s;
}

/* The timed part: one LAPACK call, through LAPACKE's _work functions (no
 * NaN scan, no allocation). */
static void run(struct factor_problem *p) {
  lapack_int info = 0, m = (lapack_int)p->n;
  struct qr_scratch *qr = p->scratch;
  switch (p->kernel) {
  case FACTOR_LU:
    info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, m, p->a, m, p->ipiv);
    break;
  case FACTOR_QR:
    info =
        LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, m, p->a, m, qr->tau_then_work,
                            qr->tau_then_work + m, qr->lwork);
    break;
  case FACTOR_SOLVE:
    info =
        LAPACKE_dgesv_work(LAPACK_COL_MAJOR, m, 1, p->a, m, p->ipiv, p->x, m);
    break;
  }
  if (info != 0)
    fprintf(stderr, "factor_lapacke: %s: info %d\n", factor_kernels[p->kernel],
            (int)info);
}

int main(int argc, char **argv) {
  return factor_main(
      argc, argv,
      &(struct factor_program){.runtime = "lapacke",
                               .scratch = qr_scratch,
                               .fill = factor_fill_problem,
                               .run = run,
                               .check = factor_check_problem,
                               .threads = openblas_get_num_threads});
}
