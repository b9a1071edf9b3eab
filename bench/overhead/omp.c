/* omp.c — the overhead patterns as OpenMP tasks with `depend`.
 *
 * One source for two binaries: built by gcc it measures libgomp
 * (overhead_gomp), built by clang -fopenmp it measures LLVM's libomp
 * (overhead_libomp); OVH_RUNTIME_NAME names the result. Each pattern opens
 * a parallel region of the requested number of threads in which one thread
 * submits every task and then waits with taskwait, while the other threads
 * run tasks; the submitting thread runs tasks too while it waits, as in dag.
 */
#include "common.h"

#include <omp.h>

#ifndef OVH_RUNTIME_NAME
#error "define OVH_RUNTIME_NAME to \"gomp\" or \"libomp\""
#endif

static int nthreads;

/* The task body. Called through a volatile pointer: gcc drops a task
 * construct whose body is empty. */
static void noop(void) {}
static void (*volatile body)(void) = noop;
static int vars[OVH_MAX_CHAINS]; /* the variables the accesses name */

static int omp_init(int n) {
  nthreads = n;
  /* Start the thread pool now, so that the first repetition does not pay
   * for it and the RSS baseline includes it. */
#pragma omp parallel num_threads(nthreads)
  {}
  return 0;
}

static int omp_threads(void) {
  int n = 0;
#pragma omp parallel num_threads(nthreads)
#pragma omp single
  n = omp_get_num_threads();
  return n;
}

static const char *omp_config(void) { return "compiler " __VERSION__; }

static void independent(long ntasks) {
#pragma omp parallel num_threads(nthreads)
#pragma omp single
  {
    for (long i = 0; i < ntasks; i++) {
#pragma omp task
      body();
    }
#pragma omp taskwait
  }
}

static void chain(long ntasks) {
#pragma omp parallel num_threads(nthreads)
#pragma omp single
  {
    for (long i = 0; i < ntasks; i++) {
#pragma omp task depend(inout : vars[0])
      body();
    }
#pragma omp taskwait
  }
}

static void chains(long nchains, long length) {
#pragma omp parallel num_threads(nthreads)
#pragma omp single
  {
    for (long step = 0; step < length; step++)
      for (long c = 0; c < nchains; c++) {
#pragma omp task depend(inout : vars[c])
        body();
      }
#pragma omp taskwait
  }
}

static void fanout(long ngroups, long nreaders) {
#pragma omp parallel num_threads(nthreads)
#pragma omp single
  {
    for (long g = 0; g < ngroups; g++) {
#pragma omp task depend(inout : vars[0])
      body();
      for (long r = 0; r < nreaders; r++) {
#pragma omp task depend(in : vars[0])
        body();
      }
    }
#pragma omp task depend(inout : vars[0])
    body();
#pragma omp taskwait
  }
}

int main(int argc, char **argv) {
  static const struct ovh_runtime rt = {
      .name = OVH_RUNTIME_NAME,
      .init = omp_init,
      .num_threads = omp_threads,
      .config = omp_config,
      .independent = independent,
      .chain = chain,
      .chains = chains,
      .fanout = fanout,
  };
  return ovh_main(argc, argv, &rt);
}
