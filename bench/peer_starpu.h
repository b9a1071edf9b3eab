/* peer_starpu.h — what the StarPU 1.3 peers of the benchmarks share: how
 * StarPU is started (CPU workers only, under a default scheduler that
 * STARPU_SCHED overrides), the check of a call that must not fail, and the
 * codelet of a CPU function that takes any number of buffers. The
 * functions are in peer_starpu.c, which each peer's target builds in
 * (bench_pkg_program in bench.cmake).
 */
#ifndef PEER_STARPU_H
#define PEER_STARPU_H

#include <starpu.h>

/* The initializer of a codelet that runs fn on a CPU worker, named label,
 * on as many buffers as each task lists. */
#define PEER_STARPU_CODELET(fn, label)                                         \
  {                                                                            \
    .where = STARPU_CPU, .cpu_funcs = {fn},                                    \
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = label                        \
  }

/* Starts StarPU with no CUDA or OpenCL workers, under the scheduler sched
 * (STARPU_SCHED in the environment wins), with ncpus CPU workers, or
 * StarPU's own count (STARPU_NCPU, else a core each) when ncpus < 0.
 * Returns starpu_init's code: 0, or a negative error. */
int peer_starpu_start(const char *sched, int ncpus);

/* Exits with status 1, saying which call failed and its code, unless rc is
 * 0. */
void peer_starpu_check(int rc, const char *what);

#endif /* PEER_STARPU_H */
