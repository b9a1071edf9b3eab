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

#include "chol_codelets.h"

#include <stdio.h>
#include <stdlib.h>

#define CHOL_STARPU_SCHED "dmdas"

/* ------------------------------------------------------------- the walk */

struct chol {
  starpu_data_handle_t *h; /* nt x nt, lower triangle registered */
  int nt;
  int error; /* first starpu_task_insert failure */
};

static starpu_data_handle_t tile(const struct chol *c, int i, int j) {
  return c->h[(size_t)i * c->nt + j];
}

/* The task's priority in the scheduler's range. */
static int prio(const struct chol *c, enum chol_kernel kernel, int i, int j,
                int k) {
  return chol_starpu_priority(kernel, i, j, k, c->nt);
}

static void check(struct chol *c, int ret, const char *what) {
  if (ret != 0 && !c->error) {
    fprintf(stderr, "chol_starpu: starpu_task_insert(%s): %d\n", what, ret);
    c->error = ret;
  }
}

static void potrf(void *ctx, int k) {
  struct chol *c = ctx;
  check(c,
        starpu_task_insert(&potrf_cl, STARPU_RW, tile(c, k, k), STARPU_PRIORITY,
                           prio(c, CHOL_POTRF, k, k, k), 0),
        "potrf");
}

static void trsm(void *ctx, int i, int k) {
  struct chol *c = ctx;
  check(c,
        starpu_task_insert(&trsm_cl, STARPU_R, tile(c, k, k), STARPU_RW,
                           tile(c, i, k), STARPU_PRIORITY,
                           prio(c, CHOL_TRSM, i, k, k), 0),
        "trsm");
}

static void syrk(void *ctx, int i, int k) {
  struct chol *c = ctx;
  check(c,
        starpu_task_insert(&syrk_cl, STARPU_R, tile(c, i, k), STARPU_RW,
                           tile(c, i, i), STARPU_PRIORITY,
                           prio(c, CHOL_SYRK, i, i, k), 0),
        "syrk");
}

static void gemm(void *ctx, int i, int j, int k) {
  struct chol *c = ctx;
  check(c,
        starpu_task_insert(&gemm_cl, STARPU_R, tile(c, i, k), STARPU_R,
                           tile(c, j, k), STARPU_RW, tile(c, i, j),
                           STARPU_PRIORITY, prio(c, CHOL_GEMM, i, j, k), 0),
        "gemm");
}

static const struct chol_ops starpu_ops = {potrf, trsm, syrk, gemm};

static int sp_start(void) {
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.sched_policy_name = CHOL_STARPU_SCHED; /* STARPU_SCHED overrides */
  conf.ncuda = 0;
  conf.nopencl = 0;
  int ret = starpu_init(&conf);
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
  tiles = (struct chol){calloc((size_t)nt * nt, sizeof *tiles.h), nt, 0};
  if (!tiles.h) {
    fprintf(stderr, "chol_starpu: out of memory\n");
    return 1;
  }
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++)
      starpu_matrix_data_register(
          &tiles.h[(size_t)i * nt + j], STARPU_MAIN_RAM,
          (uintptr_t)chol_tile(a, n, bs, i, j), (uint32_t)n,
          (uint32_t)chol_tile_dim(n, bs, j), (uint32_t)chol_tile_dim(n, bs, i),
          sizeof(double));
  return 0;
}

static int sp_factor(double *a, int n, int bs) {
  (void)a, (void)n, (void)bs; /* registered by sp_prepare */
  chol_walk(&starpu_ops, &tiles, tiles.nt);
  starpu_task_wait_for_all();
  return tiles.error != 0;
}

static void sp_release(void) {
  for (int i = 0; i < tiles.nt; i++)
    for (int j = 0; j <= i; j++)
      starpu_data_unregister(tiles.h[(size_t)i * tiles.nt + j]);
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
