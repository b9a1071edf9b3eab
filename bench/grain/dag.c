/* dag.c — bench/grain on dag: one dag_submit per task, reading its
 * dependencies' slots and writing its own. Under mpiexec the slots are
 * dag_alloc'd in blocks of points, so each rank owns a contiguous part of
 * the grid and runs its tasks (owner computes); the transfers between
 * ranks follow from the accesses. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "grain.h"

#include <dag.h>
#include <stdio.h>
#include <stdlib.h>

struct task_args {
  const struct grain_graph *g;
  struct grain_slot *slots;
  int t, p;
};

static void body(void *a) {
  const struct task_args *x = a;
  int deps[GRAIN_MAX_DEPS];
  uint64_t in[GRAIN_MAX_DEPS];
  int n = grain_deps(x->g, x->t, x->p, deps);
  for (int i = 0; i < n; i++)
    in[i] = grain_slot(x->g, x->slots, x->t - 1, deps[i])->value;
  grain_slot(x->g, x->slots, x->t, x->p)->value =
      grain_task(x->g, x->t, x->p, in, n);
}

static struct dag_access slot_access(enum dag_mode mode,
                                     const struct grain_slot *s) {
  return (struct dag_access){mode, dag_region_1d(s, sizeof s->value)};
}

static void run(const struct grain_graph *g, struct grain_slot *slots) {
  static const struct dag_task_info info = {.fn = body, .label = "point"};
  int deps[GRAIN_MAX_DEPS];
  struct dag_access acc[GRAIN_MAX_DEPS + 1];
  for (int t = 0; t < g->steps; t++)
    for (int p = 0; p < g->width; p++) {
      int n = grain_deps(g, t, p, deps);
      acc[0] = slot_access(DAG_OUT, grain_slot(g, slots, t, p));
      for (int i = 0; i < n; i++)
        acc[i + 1] = slot_access(DAG_IN, grain_slot(g, slots, t - 1, deps[i]));
      struct task_args a = {g, slots, t, p};
      dag_check(dag_submit(&info, &a, sizeof a, acc, (size_t)n + 1));
    }
  dag_check(dag_taskwait());
}

static int start(int threads, int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  char n[16];
  snprintf(n, sizeof n, "%d", threads);
  setenv("DAG_NUM_THREADS", n, 0);
  if (dag_init())
    return -1;
  return dag_num_workers() * dag_nranks();
}

static void stop(void) { dag_finalize(); }

/* The grid in blocks of points, the same in both rows of slots: point p
 * lives on rank p * ranks / width. */
static int grid_width;

static int point_owner(size_t offset, void *ctx) {
  (void)ctx;
  size_t p = offset / sizeof(struct grain_slot) % (size_t)grid_width;
  return (int)(p * (size_t)dag_nranks() / (size_t)grid_width);
}

static struct grain_slot *alloc(size_t n) {
  grid_width = (int)(n / 2);
  return dag_alloc(
      n * sizeof(struct grain_slot),
      dag_dist_owner(sizeof(struct grain_slot), point_owner, NULL));
}

static int holds(size_t i) {
  return point_owner(i * sizeof(struct grain_slot), NULL) == dag_rank();
}

static int reports(void) { return dag_rank() == 0; }

int main(int argc, char **argv) {
  static const struct grain_runtime rt = {"dag", start, run,    stop,
                                          alloc, holds, reports};
  return grain_main(argc, argv, &rt);
}
