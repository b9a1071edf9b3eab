/* common.h — the harness shared by every overhead_<runtime> binary.
 *
 * Each runtime file (dag.c, omp.c, starpu.c) fills one struct ovh_runtime
 * with the four task patterns (dag's and StarPU's from patterns.h, on their
 * own submit call; OpenMP's written as constructs), and its main() hands it
 * to ovh_main(). The harness parses the command line, times each
 * pattern (best of a few repetitions, wall clock from submission of the
 * first task until the wait for the last one returns), measures the peak
 * RSS growth of pattern (a), prints a line per result and appends JSON
 * records. The patterns themselves hold no timing or output code.
 */
#ifndef OVH_COMMON_H
#define OVH_COMMON_H

/* The patterns. Each call submits all its tasks and returns once every one
 * of them has run; the task bodies are empty. */
struct ovh_runtime {
  const char *name; /* "dag", "gomp", "libomp", "starpu": the JSON runtime */

  /* Starts the runtime with `nthreads` threads that run tasks. Returns 0,
   * or nonzero after printing why on stderr. May be NULL. */
  int (*init)(int nthreads);
  /* The number of threads that run tasks, as the runtime reports it. */
  int (*num_threads)(void);
  /* A note printed with the results and added to the JSON records as
   * "config" (e.g. the StarPU scheduler), or NULL. */
  const char *(*config)(void);
  /* Whether this process keeps quiet: the ranks of an MPI run but the
   * first, so that one rank reports. May be NULL (it reports). */
  int (*quiet)(void);
  /* Stops the runtime. May be NULL. */
  void (*finalize)(void);

  /* (a) `ntasks` independent tasks without accesses. */
  void (*independent)(long ntasks);
  /* (b) `ntasks` tasks, each inout on the same variable. */
  void (*chain)(long ntasks);
  /* (c) `nchains` chains of `length` tasks each, inout on a variable of its
   * own chain, submitted round-robin: for each step, for each chain. The
   * runtime provides at least OVH_MAX_CHAINS variables. */
  void (*chains)(long nchains, long length);
  /* (d) `ngroups` times: a writer (inout) then `nreaders` readers (in) of
   * one variable; then a final writer. */
  void (*fanout)(long ngroups, long nreaders);
};

/* The most chains pattern (c) asks for. */
#define OVH_MAX_CHAINS 1000

/* Runs the patterns selected on the command line with `rt`; returns the
 * process exit status. */
int ovh_main(int argc, char **argv, const struct ovh_runtime *rt);

#endif /* OVH_COMMON_H */
