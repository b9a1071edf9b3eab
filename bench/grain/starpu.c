/* starpu.c — bench/grain on StarPU 1.3: a handle per slot, registered at
 * the start of each run (2 x width of them: cheap next to the tasks), and
 * one starpu_task_insert per point with
 * its dependencies' handles (STARPU_R) and its own (STARPU_W) as a data-mode
 * array. The main thread submits and runs no tasks; the threads asked for
 * are StarPU's CPU workers. The scheduler is lws unless STARPU_SCHED says
 * otherwise. */
#define _POSIX_C_SOURCE 200809L

#include "grain.h"
#include "peer_starpu.h"

#include <stdlib.h>

struct point_args {
  const struct grain_graph *g;
  int t, p;
};

/* buffers: the inputs in grain_deps order, then the output. */
static void point(void *buffers[], void *cl_arg) {
  struct point_args args;
  starpu_codelet_unpack_args(cl_arg, &args);
  const struct point_args *a = &args;
  int deps[GRAIN_MAX_DEPS];
  uint64_t in[GRAIN_MAX_DEPS];
  int n = grain_deps(a->g, a->t, a->p, deps);
  for (int i = 0; i < n; i++)
    in[i] = *(uint64_t *)STARPU_VARIABLE_GET_PTR(buffers[i]);
  *(uint64_t *)STARPU_VARIABLE_GET_PTR(buffers[n]) =
      grain_task(a->g, a->t, a->p, in, n);
}

static struct starpu_codelet point_cl = PEER_STARPU_CODELET(point, "point");

static void run(const struct grain_graph *g, struct grain_slot *slots) {
  size_t n = (size_t)2 * (size_t)g->width;
  starpu_data_handle_t *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++)
    starpu_variable_data_register(&h[i], STARPU_MAIN_RAM,
                                  (uintptr_t)&slots[i].value,
                                  sizeof slots[i].value);
  int deps[GRAIN_MAX_DEPS];
  struct starpu_data_descr descr[GRAIN_MAX_DEPS + 1];
  for (int t = 0; t < g->steps; t++)
    for (int p = 0; p < g->width; p++) {
      int k = grain_deps(g, t, p, deps);
      for (int i = 0; i < k; i++)
        descr[i] = (struct starpu_data_descr){
            h[(size_t)((t + 1) % 2) * g->width + deps[i]], STARPU_R};
      descr[k] = (struct starpu_data_descr){h[(size_t)(t % 2) * g->width + p],
                                            STARPU_W};
      struct point_args a = {g, t, p};
      peer_starpu_check(starpu_task_insert(&point_cl, STARPU_DATA_MODE_ARRAY,
                                           descr, k + 1, STARPU_VALUE, &a,
                                           sizeof a, 0),
                        "starpu_task_insert");
    }
  starpu_task_wait_for_all();
  for (size_t i = 0; i < n; i++)
    starpu_data_unregister(h[i]);
  free(h);
}

static int start(int threads, int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return peer_starpu_start("lws", threads) ? -1 : threads;
}

static void stop(void) { starpu_shutdown(); }

int main(int argc, char **argv) {
  static const struct grain_runtime rt = {"starpu", start, run, stop,
                                          NULL,     NULL,  NULL};
  return grain_main(argc, argv, &rt);
}
