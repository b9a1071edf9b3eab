/* chol_lapacke.c — the baseline: one LAPACK dpotrf on the whole matrix.
 *
 * No task runtime: OpenBLAS's own threads (OPENBLAS_NUM_THREADS, default 2)
 * run LAPACK's blocked algorithm on the n x n matrix, through the same
 * tile_potrf kernel as the tiled versions with one tile of order n. The
 * tile size argument is accepted and ignored; the driver (tiles.c) is the
 * same as everywhere else.
 */
#include "tiles.h"

#include <stdlib.h>

extern void openblas_set_num_threads(int num_threads);

static int lapacke_start(void) {
  const char *env = getenv("OPENBLAS_NUM_THREADS");
  int threads = env ? atoi(env) : 0;
  if (threads <= 0)
    threads = 2;
  openblas_set_num_threads(threads);
  return threads;
}

static int lapacke_factor(double *a, int n, int bs) {
  tile_potrf(a, n, n);
  return 0;
}

int main(int argc, char **argv) {
  static const struct chol_runtime rt = {.name = "lapacke",
                                         .config = "untiled dpotrf",
                                         .start = lapacke_start,
                                         .factor = lapacke_factor};
  return chol_main(argc, argv, &rt);
}
