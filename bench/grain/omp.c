/* omp.c — bench/grain on OpenMP tasks with `depend` (one source for gcc's
 * libgomp and LLVM's libomp): one task per point, its inputs as an
 * iterator over its dependencies, its slot as `out`. */
#include "grain.h"

#include <omp.h>
#include <stdlib.h>

#ifndef GRAIN_RUNTIME_NAME
#define GRAIN_RUNTIME_NAME "gomp"
#endif

static void point(const struct grain_graph *g, struct grain_slot *slots, int t,
                  int p) {
  int deps[GRAIN_MAX_DEPS];
  uint64_t in[GRAIN_MAX_DEPS];
  int n = grain_deps(g, t, p, deps);
  for (int i = 0; i < n; i++)
    in[i] = grain_slot(g, slots, t - 1, deps[i])->value;
  grain_slot(g, slots, t, p)->value = grain_task(g, t, p, in, n);
}

static void run(const struct grain_graph *g, struct grain_slot *slots) {
#pragma omp parallel
#pragma omp single
  for (int t = 0; t < g->steps; t++)
    for (int p = 0; p < g->width; p++) {
      int deps[GRAIN_MAX_DEPS];
      int n = grain_deps(g, t, p, deps);
      struct grain_slot *prev = slots + (size_t)((t + 1) % 2) * g->width;
      struct grain_slot *out = grain_slot(g, slots, t, p);
      (void)n; /* gcc 12 does not see their use in the iterator */
      (void)prev;
      /* clang-format would split the clauses at their colons. */
      // clang-format off
#pragma omp task depend(iterator(i = 0 : n), in : prev[deps[i]]) \
    depend(out : *out) firstprivate(t, p)
      // clang-format on
      point(g, slots, t, p);
    }
}

static int start(int threads, int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (!getenv("OMP_NUM_THREADS")) /* libgomp read it when it was loaded */
    omp_set_num_threads(threads);
  return omp_get_max_threads();
}

static void stop(void) {}

int main(int argc, char **argv) {
  static const struct grain_runtime rt = {
      GRAIN_RUNTIME_NAME, start, run, stop, NULL, NULL, NULL};
  return grain_main(argc, argv, &rt);
}
