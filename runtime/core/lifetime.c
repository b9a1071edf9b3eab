/* lifetime.c — the core's start and stop (core.h): pools, tracing, the
 * topology, the ready queues and the workers, in that order up and in the
 * reverse order down.
 */
#include "core/internal.h"

int dag__core_cores(int part, int nparts) {
  dag__topo_init();
  return dag__topo_share(part, nparts);
}

int dag__core_start(int nworkers) {
  if (dag__settings()->check_items) {
    int err = dag__guard_start();
    if (err)
      return err;
  }
  dag__pools_init();
  dag__trace_init();
  atomic_init(&dag__root_task.unfinished, 1);
  atomic_init(&dag__root_task.refs, 1);
  atomic_init(&dag__root_task.succ, NULL);
  dag__root_task.label = "main";
  int err = dag__sched_init(nworkers);
  if (!err)
    err = dag__workers_start(nworkers);
  if (err) {
    dag__workers_release();
    dag__sched_release();
    dag__topo_release();
    dag__pools_release();
    dag__guard_stop();
  }
  return err;
}

void dag__core_stop(void) {
  dag__deps_free(dag__root_task.children);
  dag__root_task.children = NULL;
  dag__workers_stop();
  dag__trace_finish();
  dag__workers_release();
  dag__sched_release();
  dag__topo_release();
  dag__pools_release();
  dag__guard_stop();
}
