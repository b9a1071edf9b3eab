/* idle.c — what dag's workers cost the machine when there is nothing to do:
 * after a burst of tasks, the CPU time the process uses (getrusage) while
 * the program sleeps, in the first 10 ms (workers spin, then go to sleep)
 * and over the next second (they should all sleep), per worker as a share
 * of one core; then while the program waits in a taskwait for a task that
 * sleeps a second on another worker (the waiting thread should doze too).
 *
 *   overhead_idle [--threads N]
 *
 * prints `idle workers=N first_10ms=P% after=Q% waiting=R%` (per worker,
 * of a core).
 */
#define _POSIX_C_SOURCE 200809L

#include <dag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
         (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

static void sleep_for(double seconds) {
  struct timespec ts = {(time_t)seconds,
                        (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts))
    ;
}

static void nap(void *p) {
  (void)p;
  sleep_for(1.0);
}

static void work(void *p) {
  volatile double x = *(double *)p;
  for (int i = 0; i < 1000; i++)
    x = x * 0.999 + 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--threads"))
    setenv("DAG_NUM_THREADS", argv[2], 1);
  static const struct dag_task_info info = {.fn = work, .label = "work"};
  double seed = 1;
  for (int i = 0; i < 10000; i++)
    dag_check(dag_submit(&info, &seed, sizeof seed, NULL, 0));
  dag_check(dag_taskwait());
  int workers = dag_num_workers();
  double c0 = cpu_seconds();
  sleep_for(0.010);
  double c1 = cpu_seconds();
  sleep_for(1.0);
  double c2 = cpu_seconds();
  /* The nap is stolen by another worker while this thread sleeps a
   * millisecond (an idle worker takes a single task after 4 us); then this
   * thread waits for it. */
  static const struct dag_task_info napping = {.fn = nap, .label = "nap"};
  dag_check(dag_submit(&napping, NULL, 0, NULL, 0));
  sleep_for(0.001);
  double c3 = cpu_seconds();
  dag_check(dag_taskwait());
  double c4 = cpu_seconds();
  printf("idle workers=%d first_10ms=%.1f%% after=%.2f%% waiting=%.2f%%\n",
         workers, 100.0 * (c1 - c0) / 0.010 / workers,
         100.0 * (c2 - c1) / 1.0 / workers, 100.0 * (c4 - c3) / 1.0 / workers);
  dag_finalize();
  return 0;
}
