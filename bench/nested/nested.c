/* nested.c — the main of every nested-task kernel binary.
 *
 * Parses -n SIZE -c CUTOFF --json FILE, starts the runtime (not timed: a
 * first OpenMP parallel region, or dag_init), builds the kernel's input,
 * times one run of the kernel (wall clock, from the first task to the end of
 * the last), checks the result, and prints one line:
 *
 *   fib dag n=36 c=20 threads=2 seconds=0.0421 peak_rss_kib=6520
 *       fib(36)=14930352 ok
 *
 * With --json FILE it appends the same as one JSON object (JSON Lines):
 *
 *   {"bench":"nested","version":"dag","kernel":"fib","size":36,"cutoff":20,
 *    "threads":2,"seconds":0.421,"peak_rss_kib":9876}
 *
 * The version is what this file was compiled as: "dag" (dagcc, through
 * gcc), "dag-clang" (dagcc with DAG_CC=clang), "gomp" (gcc -fopenmp),
 * "libomp" (clang -fopenmp), "serial" (gcc) or "serial-clang". Threads come
 * from DAG_NUM_THREADS or OMP_NUM_THREADS, as the runtime reports them. Exits
 * 0, 1 when the result is wrong (no record then), 2 on a bad command line.
 */
#include "nested.h"

#include "harness.h"

#include <limits.h>
#include <stdio.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef _DAG
#include <dag.h>
#endif

static const char *version(void) {
#if defined(_DAG) && defined(__clang__)
  return "dag-clang";
#elif defined(_DAG)
  return "dag";
#elif defined(_OPENMP) && defined(__clang__)
  return "libomp";
#elif defined(_OPENMP)
  return "gomp";
#elif defined(__clang__)
  return "serial-clang";
#else
  return "serial";
#endif
}

/* Starts the runtime and returns how many threads run tasks, or 0. */
static int start_runtime(void) {
#if defined(_DAG)
  int rc = dag_init();
  if (rc) {
    fprintf(stderr, "dag_init: %s\n", dag_strerror(rc));
    return 0;
  }
  return dag_num_workers();
#elif defined(_OPENMP)
  int n = 0;
#pragma omp parallel
  {
#pragma omp single
    n = omp_get_num_threads();
  }
  return n;
#else
  return 1;
#endif
}

static void run_kernel(void) {
#if defined(_OPENMP)
#pragma omp parallel
#pragma omp single
  nested_kernel.run();
#else
  nested_kernel.run();
#if defined(_DAG)
  dag_check(dag_taskwait());
#endif
#endif
}

static void usage(FILE *f, const char *prog) {
  const struct nested_kernel *k = &nested_kernel;
  fprintf(f,
          "usage: %s [-n SIZE] [-c CUTOFF] [--json FILE]\n"
          "  -n SIZE      %s (default %ld)\n"
          "  -c CUTOFF    %s (default %ld)\n"
          "  --json FILE  append the result as one JSON object to FILE\n"
          "Threads: DAG_NUM_THREADS (dag), OMP_NUM_THREADS (OpenMP).\n",
          prog, k->size_means, k->size, k->cutoff_means, k->cutoff);
}

int main(int argc, char **argv) {
  const struct nested_kernel *k = &nested_kernel;
  long size = k->size, cutoff = k->cutoff;
  const char *json = NULL;
  const struct bench_opt opts[] = {
      BENCH_OPT("-n", BENCH_LONG, &size, 0, LONG_MAX),
      BENCH_OPT("-c", BENCH_LONG, &cutoff, 0, LONG_MAX),
      BENCH_OPT("--json", BENCH_STRING, &json, 0, 0), BENCH_OPT_END};
  int rc = bench_parse(k->name, argc, argv, opts, stderr);
  if (rc) {
    usage(rc > 0 ? stdout : stderr, argv[0]);
    return rc > 0 ? 0 : 2;
  }

  int threads = start_runtime();
  if (threads < 1)
    return 1;
  if (k->setup(size, cutoff))
    return 2;
  double t0 = bench_now();
  run_kernel();
  double seconds = bench_now() - t0;
  long rss = bench_peak_rss_kib(); /* so far: input and run, not the check */

  char what[128] = "";
  int wrong = k->check(what, sizeof what);
  printf("%s %s n=%ld c=%ld threads=%d seconds=%.4f peak_rss_kib=%ld %s %s\n",
         k->name, version(), size, cutoff, threads, seconds, rss, what,
         wrong ? "WRONG" : "ok");
  if (wrong)
    return 1;
  return bench_record(json,
                      "{\"bench\":\"nested\",\"version\":\"%s\","
                      "\"kernel\":\"%s\",\"size\":%ld,\"cutoff\":%ld,"
                      "\"threads\":%d,\"seconds\":%.6f,\"peak_rss_kib\":%ld}",
                      version(), k->name, size, cutoff, threads, seconds, rss)
             ? 1
             : 0;
}
