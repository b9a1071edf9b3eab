/* lifetime.c — the core's start and stop (core.h): pools, tracing, the
 * topology, the ready queues and the workers, in that order up and in the
 * reverse order down; at the end, DAG_STATS's summary.
 */
#include "core/internal.h"

static uint64_t start_ns;

/* DAG_STATS: a summary on stderr at the end, from the workers' counts. */
static void write_stats(void) {
  double wall = (double)(dag__now_ns() - start_ns) / 1e9;
  uint64_t tasks = 0, inlined = 0;
  char given[1024], defaults[1024];
  dag__settings_describe(given, sizeof given, defaults, sizeof defaults);
  dag__log(DAG_LOG_REPORT, "stats: settings from the environment:%s", given);
  dag__log(DAG_LOG_REPORT, "stats: settings by default:%s", defaults);
  dag__log(DAG_LOG_REPORT, "stats: %d workers, %.3f s since start",
           dag__workers_count(), wall);
  for (int i = 0; i < dag__workers_count(); i++) {
    const struct worker_stats *s = &dag__worker(i)->stats;
    tasks += s->tasks;
    inlined += s->inlined;
    dag__log(DAG_LOG_REPORT,
             "stats: worker %d: %llu tasks (%llu inline), busy %.3f s "
             "(%.0f%%), %llu steals (%llu tasks), %llu sleeps",
             i, (unsigned long long)s->tasks, (unsigned long long)s->inlined,
             (double)s->busy_ns / 1e9,
             wall > 0 ? 100.0 * (double)s->busy_ns / 1e9 / wall : 0.0,
             (unsigned long long)s->steals, (unsigned long long)s->stolen,
             (unsigned long long)s->sleeps);
  }
  size_t pooled = 0;
  for (int p = 0; p < POOL_COUNT; p++)
    pooled += dag__pool_bytes((enum pool_id)p);
  dag__log(DAG_LOG_REPORT,
           "stats: %llu tasks run (%llu inline), %.1f MiB in task pools",
           (unsigned long long)tasks, (unsigned long long)inlined,
           (double)pooled / (1024.0 * 1024.0));
  dag__handoff_report(dag__workers_count());
}

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
  start_ns = dag__now_ns();
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
  if (dag__stats)
    write_stats();
  dag__trace_finish();
  dag__workers_release();
  dag__sched_release();
  dag__topo_release();
  dag__pools_release();
  dag__guard_stop();
}
