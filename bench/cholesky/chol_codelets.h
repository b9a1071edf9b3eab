/* chol_codelets.h — the StarPU codelets of the tiled Cholesky and the
 * scaling of its priorities, shared by chol_starpu.c (one process) and
 * bench/mpi/chol_starpumpi.c (StarPU-MPI): the kernels of tiles.h, each
 * with a history-based performance model for the dm* schedulers. StarPU
 * calibrates the models during the first factorizations and keeps them
 * under $STARPU_HOME/.starpu (the runners point STARPU_HOME at a temporary
 * directory and calibrate before the timed runs). Included once per
 * program: its definitions are static.
 */
#ifndef CHOL_CODELETS_H
#define CHOL_CODELETS_H

#include "tiles.h"

#include <starpu.h>
#include <stdint.h>

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

#endif /* CHOL_CODELETS_H */
