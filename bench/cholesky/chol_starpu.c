/* chol_starpu.c — the tiled Cholesky of samples/cholesky on StarPU 1.3.
 *
 * Same kernels, loop nest, priorities and driver (samples/cholesky/tiles.c);
 * each tile of the lower triangle is a StarPU matrix handle registered in
 * place on the full matrix (ld = n), and each kernel a codelet
 * (chol_codelets.h) submitted with starpu_task_insert. Submission and the
 * wait are timed; starpu_init, the registration before each factorization
 * and the unregistration after are not, as in StarPU's own benchmarks.
 * STARPU_SCHED picks the scheduler (default below), STARPU_NCPU the worker
 * threads; the report's config names the scheduler.
 */
#define _POSIX_C_SOURCE 200809L /* starpu.h needs pthread rwlocks */

#include "peer_starpu.h"

#include <stdio.h>
#include <stdlib.h>

#define CHOL_STARPU_INSERT(...) starpu_task_insert(__VA_ARGS__)
#include "chol_codelets.h"

#define CHOL_STARPU_SCHED "dmdas"

static int sp_start(void) {
  int ret = peer_starpu_start(CHOL_STARPU_SCHED, -1);
  if (ret != 0) {
    fprintf(stderr, "chol_starpu: starpu_init: %d\n", ret);
    return -1;
  }
  return (int)starpu_cpu_worker_get_count();
}

/* The tiles of the matrix being factored, registered (untimed). */
static struct chol tiles;

static int sp_prepare(double *a, int n, int bs) {
  int nt = chol_ntiles(n, bs);
  tiles = (struct chol){calloc((size_t)nt * nt, sizeof *tiles.h), nt, 0,
                        "chol_starpu: starpu_task_insert"};
  if (!tiles.h) {
    fprintf(stderr, "chol_starpu: out of memory\n");
    return 1;
  }
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++)
      chol_register(&tiles, i, j, chol_tile(a, n, bs, i, j), n,
                    chol_tile_dim(n, bs, i), chol_tile_dim(n, bs, j));
  return 0;
}

static int sp_factor(double *a, int n, int bs) {
  (void)a, (void)n, (void)bs; /* registered by sp_prepare */
  chol_walk(&chol_starpu_ops, &tiles, tiles.nt);
  starpu_task_wait_for_all();
  return tiles.error != 0;
}

static void sp_release(void) {
  chol_unregister(&tiles);
  free(tiles.h);
}

static void sp_stop(void) { starpu_shutdown(); }

int main(int argc, char **argv) {
  static char config[64];
  const char *sched = getenv("STARPU_SCHED");
  snprintf(config, sizeof config, "sched %s",
           sched && *sched ? sched : CHOL_STARPU_SCHED);
  struct chol_runtime rt = {.name = "starpu",
                            .config = config,
                            .start = sp_start,
                            .factor = sp_factor,
                            .stop = sp_stop,
                            .prepare = sp_prepare,
                            .release = sp_release};
  return chol_main(argc, argv, &rt);
}
