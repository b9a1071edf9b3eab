/* threads.c — the runtime's own threads beside its workers: a device's
 * engines or driver queues, the unpacking threads, the MPI progress
 * thread. They sleep most of the time and must not wait for a core: they
 * run on any core of the rank, never pinned to the core of the thread that
 * happened to start them. The program's thread is worker 0, pinned to its
 * core, and a thread inherits its creator's binding: started there, every
 * helper shared worker 0's core, and waited for its time slices while the
 * program submitted tasks (1-2.6 ms before an unpacking thread took a
 * job, on 2 cores with the other idle, perf sched).
 */
#include "base.h"

static cpu_set_t helper_cpus;
static bool helper_cpus_known;

void dag__helpers_run_on(const cpu_set_t *cpus) {
  helper_cpus = *cpus;
  helper_cpus_known = CPU_COUNT(cpus) > 0;
}

int dag__helper_start(pthread_t *thread, void *(*main)(void *), void *arg) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr))
    return pthread_create(thread, NULL, main, arg);
  /* Failing to set it (a container that forbids it) only costs a wait. */
  if (helper_cpus_known)
    (void)pthread_attr_setaffinity_np(&attr, sizeof helper_cpus, &helper_cpus);
  int err = pthread_create(thread, &attr, main, arg);
  if (err && helper_cpus_known) /* cpus refused: as the creator runs */
    err = pthread_create(thread, NULL, main, arg);
  pthread_attr_destroy(&attr);
  return err;
}
