/* init.c — start-up, shut-down and the DAG_* environment.
 *
 * The runtime starts on first use (or dag_init) and stops at dag_finalize or
 * at exit. `state` moves one way: not started -> running -> finalized;
 * start-up and shut-down hold `lifecycle`, the hot path only reads `state`.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum state { NOT_STARTED, RUNNING, FINALIZED };

static atomic_int state = NOT_STARTED;
static pthread_mutex_t lifecycle = PTHREAD_MUTEX_INITIALIZER;

/* DAG_NUM_THREADS, or the number of cores when unset or invalid. */
static int workers_wanted(int ncores) {
  const char *v = getenv("DAG_NUM_THREADS");
  if (!v || !*v)
    return ncores;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || *end || n < 1 || n > 4096) {
    fprintf(stderr,
            "dag: warning: DAG_NUM_THREADS='%s' is not a number from 1 to "
            "4096; using %d\n",
            v, ncores);
    return ncores;
  }
  return (int)n;
}

static void finalize_at_exit(void) { dag_finalize(); }

/* A child of fork() has none of the workers: the runtime is over for it
 * (its calls say DAG_ESHUTDOWN, and exit does not wait for threads that
 * are not there). The lock may have been held at the fork: make it anew. */
static void after_fork_in_child(void) {
  pthread_mutex_init(&lifecycle, NULL);
  if (atomic_load(&state) == RUNNING)
    atomic_store(&state, FINALIZED);
}

int dag_init(void) {
  pthread_mutex_lock(&lifecycle);
  int err = 0;
  switch (atomic_load(&state)) {
  case RUNNING:
    break;
  case FINALIZED:
    err = DAG_ESHUTDOWN;
    break;
  case NOT_STARTED: {
    err = dag__comm_start();
    if (err)
      break;
    dag__pools_init();
    dag__trace_init();
    /* The ranks of one machine share its cores, unless mpiexec bound
     * each to cores of its own already. */
    dag__topo_init();
    int n = workers_wanted(dag__topo_share(dag__node_rank, dag__node_ranks));
    atomic_init(&dag__root_task.unfinished, 1);
    atomic_init(&dag__root_task.refs, 1);
    atomic_init(&dag__root_task.succ, NULL);
    dag__root_task.label = "main";
    err = dag__sched_init(n);
    if (!err)
      err = dag__workers_start(n);
    if (err) {
      dag__workers_release();
      dag__sched_release();
      dag__topo_release();
      dag__pools_release();
      dag__comm_stop();
      break;
    }
    static bool registered;
    if (!registered) {
      atexit(finalize_at_exit);
      pthread_atfork(NULL, NULL, after_fork_in_child);
    }
    registered = true;
    atomic_store_explicit(&state, RUNNING, memory_order_release);
    break;
  }
  }
  pthread_mutex_unlock(&lifecycle);
  return err;
}

bool dag__started(void) {
  return atomic_load_explicit(&state, memory_order_acquire) == RUNNING;
}

int dag__ensure_started(void) {
  int s = atomic_load_explicit(&state, memory_order_acquire);
  if (likely(s == RUNNING))
    return 0;
  if (s == FINALIZED)
    return DAG_ESHUTDOWN;
  return dag_init();
}

int dag_taskwait(void) {
  int s = atomic_load_explicit(&state, memory_order_acquire);
  if (s == FINALIZED)
    return dag__user_error(NULL, DAG_ESHUTDOWN,
                           "dag_taskwait: runtime already finalized");
  if (s == NOT_STARTED)
    return 0; /* nothing was submitted */
  if (dag__uniform_active())
    return dag__uniform_taskwait(true);
  return dag__wait_children();
}

int dag_taskwait_noflush(void) {
  int s = atomic_load_explicit(&state, memory_order_acquire);
  if (s == FINALIZED)
    return dag__user_error(NULL, DAG_ESHUTDOWN,
                           "dag_taskwait_noflush: runtime already finalized");
  if (s == NOT_STARTED)
    return 0;
  if (dag__uniform_active())
    return dag__uniform_taskwait(false);
  return dag__wait_children();
}

int dag_num_workers(void) {
  int err = dag__ensure_started();
  if (err)
    return dag__user_error(NULL, err, "dag_num_workers: %s", dag_strerror(err));
  return dag__workers_count();
}

int dag_worker_id(void) {
  /* After dag_finalize, the thread that was worker 0 (if another thread
   * finalized) still points at the freed worker records. */
  if (atomic_load_explicit(&state, memory_order_acquire) != RUNNING)
    return -1;
  struct worker *w = dag__self();
  return w ? w->id : -1;
}

int dag_finalize(void) {
  if (dag__current_task() != &dag__root_task)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_finalize called from inside a task");
  pthread_mutex_lock(&lifecycle);
  if (atomic_load(&state) == RUNNING) {
    /* Every rank checks that all submitted the same tasks, then drains. */
    if (dag__uniform_active())
      dag__uniform_taskwait(false);
    dag__wait_children();
    dag__deps_free(dag__root_task.children);
    dag__root_task.children = NULL;
    dag__workers_stop();
    dag__trace_finish();
    dag__workers_release();
    dag__sched_release();
    dag__topo_release();
    dag__pools_release();
    dag__uniform_release(); /* before the allocation records it points to */
    dag__dist_release();
    dag__comm_stop();
  }
  atomic_store_explicit(&state, FINALIZED, memory_order_release);
  pthread_mutex_unlock(&lifecycle);
  return 0;
}
