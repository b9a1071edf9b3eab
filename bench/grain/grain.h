/* grain.h — bench/grain: the smallest task that still pays, after Task
 * Bench (Slaughter et al., SC'20).
 *
 * A grid of `width` points by `steps` timesteps. The task of point p at
 * step t reads the outputs of its dependencies, points of step t - 1 that
 * the pattern names, and writes its own. Each point has two slots of
 * output, for even and odd steps, so a step reads one and writes the other.
 * A task runs a kernel of `iterations` (compute-bound: independent chains
 * of multiply-adds; memory-bound: reads of its point's scratch buffer),
 * then hashes its step, point and inputs into its output; after the run the
 * last two steps' outputs are compared with a serial computation, so every
 * task of the graph is checked (each output hashes in all it depends on).
 *
 * One driver (grain.c) serves every runtime: each says how it starts, runs
 * the whole graph, and stops (struct grain_runtime). The runner (run)
 * sweeps the iterations, alternating runtimes at each, and computes
 * METG(50%).
 */
#ifndef GRAIN_H
#define GRAIN_H

#include <stddef.h>
#include <stdint.h>

enum grain_pattern {
  GRAIN_TRIVIAL,
  GRAIN_NO_COMM,
  GRAIN_STENCIL_1D,
  GRAIN_STENCIL_1D_PERIODIC,
  GRAIN_NEAREST,
  GRAIN_SPREAD,
  GRAIN_FFT,
  GRAIN_TREE,
  GRAIN_ALL_TO_ALL,
  GRAIN_RANDOM_NEAREST,
  GRAIN_PATTERNS
};

enum grain_kernel { GRAIN_COMPUTE, GRAIN_MEMORY };

/* The most dependencies a task may have (all_to_all: the width). */
#define GRAIN_MAX_DEPS 256

struct grain_graph {
  enum grain_pattern pattern;
  enum grain_kernel kernel;
  int width, steps, radix;
  long iterations;
  double *scratch;      /* memory-bound: one buffer per point */
  size_t scratch_elems; /* doubles per point */
};

/* One output: a cache line of its own, so that neighbours do not share. */
struct grain_slot {
  _Alignas(64) uint64_t value;
};

/* Slot of point p for step t: slots[(t % 2) * width + p]. */
static inline struct grain_slot *grain_slot(const struct grain_graph *g,
                                            struct grain_slot *slots, int t,
                                            int p) {
  return &slots[(size_t)(t % 2) * (size_t)g->width + (size_t)p];
}

/* The points of step t - 1 that point p of step t reads, into deps (at
 * most GRAIN_MAX_DEPS, in increasing order); none at step 0. */
int grain_deps(const struct grain_graph *g, int t, int p, int *deps);

/* The task of point p at step t: runs the kernel and returns its output,
 * from the n inputs read (in the order of grain_deps). */
uint64_t grain_task(const struct grain_graph *g, int t, int p,
                    const uint64_t *in, int n);

/* A runtime, as the driver sees it. */
struct grain_runtime {
  const char *name;
  /* Starts with `threads` threads running tasks; returns how many run them,
   * or a negative number on failure. argc/argv: for MPI. */
  int (*start)(int threads, int *argc, char ***argv);
  /* Runs the whole graph on slots (2 * width of them), returning when
   * every task is done. */
  void (*run)(const struct grain_graph *g, struct grain_slot *slots);
  void (*stop)(void);
  /* The slots (NULL: the driver's own aligned_alloc), and whether this
   * process holds slot i's value after a run (NULL: all of them). For a
   * runtime that spreads the grid over ranks. */
  struct grain_slot *(*alloc)(size_t n);
  int (*holds)(size_t i);
  /* Whether this process prints (NULL: yes). */
  int (*reports)(void);
};

int grain_main(int argc, char **argv, const struct grain_runtime *rt);

#endif /* GRAIN_H */
