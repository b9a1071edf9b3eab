/* chol_codelets.h — the StarPU side of the tiled Cholesky, shared by
 * chol_starpu.c (one process) and bench/mpi/chol_starpumpi.c (StarPU-MPI):
 * the kernels of tiles.h as codelets, each with a history-based performance
 * model for the dm* schedulers, the scaling of their priorities, the tiles'
 * handles, and the walk (struct chol_ops) that inserts a task per kernel.
 * StarPU calibrates the models during the first factorizations and keeps
 * them under $STARPU_HOME/.starpu (the runners point STARPU_HOME at a
 * temporary directory and calibrate before the timed runs).
 *
 * Included once per program: its definitions are static. The program
 * defines CHOL_STARPU_INSERT(codelet, args...) first, the call that inserts
 * a task (starpu_task_insert, or starpu_mpi_task_insert on a communicator):
 * the calls are variadic, so the walk takes its call as a macro.
 */
#ifndef CHOL_CODELETS_H
#define CHOL_CODELETS_H

#include "tiles.h"

#include <starpu.h>
#include <stdint.h>
#include <stdio.h>

#ifndef CHOL_STARPU_INSERT
#error "define CHOL_STARPU_INSERT(codelet, args...) before chol_codelets.h"
#endif

/* StarPU's matrix interface is column-major in its names: nx is the number
 * of contiguous elements (our columns), ny the number of rows. */
#define COLS(buf) ((int)STARPU_MATRIX_GET_NX(buf))
#define ROWS(buf) ((int)STARPU_MATRIX_GET_NY(buf))
#define LD(buf) ((int)STARPU_MATRIX_GET_LD(buf))
#define PTR(buf) ((double *)STARPU_MATRIX_GET_PTR(buf))

static void potrf_cpu(void *buffers[], void *cl_arg) {
  (void)cl_arg;
  tile_potrf(PTR(buffers[0]), COLS(buffers[0]), LD(buffers[0]));
}

static void trsm_cpu(void *buffers[], void *cl_arg) {
  (void)cl_arg;
  tile_trsm(PTR(buffers[0]), PTR(buffers[1]), ROWS(buffers[1]),
            COLS(buffers[1]), LD(buffers[1]));
}

static void syrk_cpu(void *buffers[], void *cl_arg) {
  (void)cl_arg;
  tile_syrk(PTR(buffers[0]), PTR(buffers[1]), ROWS(buffers[1]),
            COLS(buffers[0]), LD(buffers[1]));
}

static void gemm_cpu(void *buffers[], void *cl_arg) {
  (void)cl_arg;
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

/* The codelet of each kernel. */
static struct starpu_codelet *const chol_codelet[] = {[CHOL_POTRF] = &potrf_cl,
                                                      [CHOL_TRSM] = &trsm_cl,
                                                      [CHOL_SYRK] = &syrk_cl,
                                                      [CHOL_GEMM] = &gemm_cl};

/* chol_priority of a task of an nt x nt tiling, scaled into the
 * scheduler's priority range. */
static inline int chol_starpu_priority(enum chol_kernel kernel, int i, int j,
                                       int k, int nt) {
  int64_t lo = starpu_sched_get_min_priority();
  int64_t hi = starpu_sched_get_max_priority();
  int64_t top = chol_max_priority(nt);
  int64_t p = chol_priority(kernel, i, j, k, nt);
  if (hi - lo >= top)
    return (int)(lo + p);
  return (int)(lo + p * (hi - lo) / (top > 0 ? top : 1));
}

/* ------------------------------------------------------------- the walk */

struct chol {
  starpu_data_handle_t *h; /* nt x nt, lower triangle registered */
  int nt;
  int error;          /* first CHOL_STARPU_INSERT failure */
  const char *insert; /* who inserts with what, for its message */
};

static starpu_data_handle_t tile(const struct chol *c, int i, int j) {
  return c->h[(size_t)i * c->nt + j];
}

/* Registers tile (i, j) of c: rows x cols doubles at t, row-major with
 * leading dimension ld; t NULL, a tile with no home (StarPU allocates a
 * copy when one arrives). Returns its handle. */
static starpu_data_handle_t chol_register(struct chol *c, int i, int j,
                                          double *t, int ld, int rows,
                                          int cols) {
  starpu_data_handle_t *h = &c->h[(size_t)i * c->nt + j];
  starpu_matrix_data_register(h, t ? STARPU_MAIN_RAM : -1, (uintptr_t)t,
                              (uint32_t)ld, (uint32_t)cols, (uint32_t)rows,
                              sizeof(double));
  return *h;
}

/* Unregisters the tiles of the lower triangle. */
static void chol_unregister(struct chol *c) {
  for (int i = 0; i < c->nt; i++)
    for (int j = 0; j <= i; j++)
      starpu_data_unregister(tile(c, i, j));
}

/* Keeps the first failure of an insertion, ret. */
static void inserted(struct chol *c, enum chol_kernel kernel, int ret) {
  if (ret != 0 && !c->error) {
    fprintf(stderr, "%s(%s): %d\n", c->insert, chol_codelet[kernel]->name, ret);
    c->error = ret;
  }
}

/* Inserts the task of kernel on (i, j) at step k with the buffers that
 * follow (mode, handle, ...), at its priority in the scheduler's range. */
#define CHOL_INSERT(c, kernel, i, j, k, ...)                                   \
  inserted(                                                                    \
      c, kernel,                                                               \
      CHOL_STARPU_INSERT(chol_codelet[kernel], __VA_ARGS__, STARPU_PRIORITY,   \
                         chol_starpu_priority(kernel, i, j, k, (c)->nt), 0))

static void potrf(void *ctx, int k) {
  CHOL_INSERT((struct chol *)ctx, CHOL_POTRF, k, k, k, STARPU_RW,
              tile(ctx, k, k));
}

static void trsm(void *ctx, int i, int k) {
  CHOL_INSERT((struct chol *)ctx, CHOL_TRSM, i, k, k, STARPU_R, tile(ctx, k, k),
              STARPU_RW, tile(ctx, i, k));
}

static void syrk(void *ctx, int i, int k) {
  CHOL_INSERT((struct chol *)ctx, CHOL_SYRK, i, i, k, STARPU_R, tile(ctx, i, k),
              STARPU_RW, tile(ctx, i, i));
}

static void gemm(void *ctx, int i, int j, int k) {
  CHOL_INSERT((struct chol *)ctx, CHOL_GEMM, i, j, k, STARPU_R, tile(ctx, i, k),
              STARPU_R, tile(ctx, j, k), STARPU_RW, tile(ctx, i, j));
}

static const struct chol_ops chol_starpu_ops = {potrf, trsm, syrk, gemm};

#endif /* CHOL_CODELETS_H */
