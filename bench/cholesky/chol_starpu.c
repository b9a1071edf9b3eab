/* chol_starpu.c — the tiled Cholesky of samples/cholesky on StarPU 1.3.
 *
 * Same kernels, loop nest, priorities and driver (samples/cholesky/tiles.c);
 * each tile of the lower triangle is a StarPU matrix handle registered in
 * place on the full matrix (ld = n), and each kernel a codelet submitted
 * with starpu_task_insert. Registration, submission, the wait and the
 * unregistration are all timed; starpu_init is not.
 *
 * The codelets have history-based performance models for the dm* schedulers;
 * StarPU calibrates them during the first factorizations and stores them
 * under $STARPU_HOME/.starpu (the benchmark driver points STARPU_HOME at a
 * temporary directory). STARPU_SCHED picks the scheduler (default below),
 * STARPU_NCPU the worker threads; the report's config names the scheduler.
 */
#define _POSIX_C_SOURCE 200809L /* starpu.h needs pthread rwlocks */

#include "tiles.h"

#include <starpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHOL_STARPU_SCHED "dmdas"

/* ------------------------------------------------------------ codelets */

/* StarPU's matrix interface is column-major in its names: nx is the number
 * of contiguous elements (our columns), ny the number of rows. */
#define COLS(buf) ((int)STARPU_MATRIX_GET_NX(buf))
#define ROWS(buf) ((int)STARPU_MATRIX_GET_NY(buf))
#define LD(buf) ((int)STARPU_MATRIX_GET_LD(buf))
#define PTR(buf) ((double *)STARPU_MATRIX_GET_PTR(buf))

static void potrf_cpu(void *buffers[], void *cl_arg) {
  tile_potrf(PTR(buffers[0]), COLS(buffers[0]), LD(buffers[0]));
}

static void trsm_cpu(void *buffers[], void *cl_arg) {
  tile_trsm(PTR(buffers[0]), PTR(buffers[1]), ROWS(buffers[1]),
            COLS(buffers[1]), LD(buffers[1]));
}

static void syrk_cpu(void *buffers[], void *cl_arg) {
  tile_syrk(PTR(buffers[0]), PTR(buffers[1]), ROWS(buffers[1]),
            COLS(buffers[0]), LD(buffers[1]));
}

static void gemm_cpu(void *buffers[], void *cl_arg) {
  tile_gemm(PTR(buffers[0]), PTR(buffers[1]), PTR(buffers[2]), ROWS(buffers[2]),
            COLS(buffers[2]), COLS(buffers[0]), LD(buffers[2]));
}

static struct starpu_perfmodel potrf_model = {.type = STARPU_HISTORY_BASED,
                                              .symbol = "dag_chol_potrf"};
static struct starpu_perfmodel trsm_model = {.type = STARPU_HISTORY_BASED,
                                             .symbol = "dag_chol_trsm"};
static struct starpu_perfmodel syrk_model = {.type = STARPU_HISTORY_BASED,
                                             .symbol = "dag_chol_syrk"};
static struct starpu_perfmodel gemm_model = {.type = STARPU_HISTORY_BASED,
                                             .symbol = "dag_chol_gemm"};

static struct starpu_codelet potrf_cl = {.cpu_funcs = {potrf_cpu},
                                         .nbuffers = 1,
                                         .modes = {STARPU_RW},
                                         .model = &potrf_model,
                                         .name = "potrf"};
static struct starpu_codelet trsm_cl = {.cpu_funcs = {trsm_cpu},
                                        .nbuffers = 2,
                                        .modes = {STARPU_R, STARPU_RW},
                                        .model = &trsm_model,
                                        .name = "trsm"};
static struct starpu_codelet syrk_cl = {.cpu_funcs = {syrk_cpu},
                                        .nbuffers = 2,
                                        .modes = {STARPU_R, STARPU_RW},
                                        .model = &syrk_model,
                                        .name = "syrk"};
static struct starpu_codelet gemm_cl = {
    .cpu_funcs = {gemm_cpu},
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_RW},
    .model = &gemm_model,
    .name = "gemm"};

/* ------------------------------------------------------------- the walk */

struct chol {
  starpu_data_handle_t *h; /* nt x nt, lower triangle registered */
  int nt;
  int error; /* first starpu_task_insert failure */
};

static starpu_data_handle_t tile(const struct chol *c, int i, int j) {
  return c->h[(size_t)i * c->nt + j];
}

/* chol_priority scaled into the scheduler's priority range. */
static int prio(const struct chol *c, enum chol_kernel kernel, int i, int j,
                int k) {
  int64_t lo = starpu_sched_get_min_priority();
  int64_t hi = starpu_sched_get_max_priority();
  int64_t top = chol_max_priority(c->nt);
  int64_t p = chol_priority(kernel, i, j, k, c->nt);
  if (hi - lo >= top)
    return (int)(lo + p);
  return (int)(lo + p * (hi - lo) / (top > 0 ? top : 1));
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

static int sp_factor(double *a, int n, int bs) {
  int nt = chol_ntiles(n, bs);
  struct chol c = {calloc((size_t)nt * nt, sizeof *c.h), nt, 0};
  if (!c.h) {
    fprintf(stderr, "chol_starpu: out of memory\n");
    return 1;
  }
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++)
      starpu_matrix_data_register(
          &c.h[(size_t)i * nt + j], STARPU_MAIN_RAM,
          (uintptr_t)chol_tile(a, n, bs, i, j), (uint32_t)n,
          (uint32_t)chol_tile_dim(n, bs, j), (uint32_t)chol_tile_dim(n, bs, i),
          sizeof(double));
  chol_walk(&starpu_ops, &c, nt);
  starpu_task_wait_for_all();
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++)
      starpu_data_unregister(c.h[(size_t)i * nt + j]);
  free(c.h);
  return c.error != 0;
}

static void sp_stop(void) { starpu_shutdown(); }

int main(int argc, char **argv) {
  static char config[64];
  const char *sched = getenv("STARPU_SCHED");
  snprintf(config, sizeof config, "sched %s",
           sched && *sched ? sched : CHOL_STARPU_SCHED);
  struct chol_runtime rt = {"starpu", config, sp_start, sp_factor, sp_stop};
  return chol_main(argc, argv, &rt);
}
