/* init.c — start-up, shut-down, DAG_NUM_THREADS and the queries about the
 * run (ranks, workers).
 *
 * The runtime starts on first use (or dag_init) and stops at dag_finalize or
 * at exit. `state` moves one way: not started -> running -> finalized;
 * start-up and shut-down hold `lifecycle`, the hot path only reads `state`.
 * Start-up goes bottom up (transport, then the core), shut-down top down.
 * A start that fails says why once; the runtime does not try again, and
 * every later call fails with the same code, quietly (dag_last_error()
 * still gives the message).
 */
#include "api/api.h"
#include "plan/dist.h"
#include "plan/plan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int state = RUN_NOT_STARTED;
static int start_error;         /* the code of the failed start, or 0 */
static char start_failure[512]; /* and its message */
static pthread_mutex_t lifecycle = PTHREAD_MUTEX_INITIALIZER;

/* DAG_NUM_THREADS, or the number of cores when unset; one under
 * DAG_CHECK_ITEMS (settings.c refuses more). */
static int workers_wanted(int ncores) {
  int n = dag__settings()->num_threads;
  if (dag__settings()->check_items)
    return 1;
  return n > 0 ? n : ncores;
}

/* At exit (main returned, or exit() was called outside any task): the
 * tasks still running finish, data comes home, and the runtime stops before
 * the C library flushes and closes stdout. What the program printed so far
 * goes out first, so that a wait that never ends does not also hide it.
 * exit() from a task body cannot wait for the tasks (its own task would
 * never finish): the process ends with them unfinished, as the body asked,
 * and says so. */
static void finalize_at_exit(void) {
  char task[512];
  if (dag__current_task_where(task, sizeof task)) {
    dag__log(DAG_LOG_WARN,
             "exit() called in %s: the process ends without waiting for "
             "the tasks still running",
             task);
    return;
  }
  fflush(NULL);
  dag_finalize();
}

/* At load: the program's MPI_Finalize finishes the runtime first, while
 * MPI still works, even if the runtime never started (its later calls then
 * say DAG_ESHUTDOWN instead of starting after MPI is gone). */
__attribute__((constructor)) static void finalize_before_mpi(void) {
  dag__comm_on_program_finalize(dag_finalize);
}

/* A child of fork() has none of the workers: the runtime is over for it
 * (its calls say DAG_ESHUTDOWN, and exit does not wait for threads that
 * are not there). The lock may have been held at the fork: make it anew. */
static void after_fork_in_child(void) {
  pthread_mutex_init(&lifecycle, NULL);
  if (atomic_load(&state) == RUN_RUNNING)
    atomic_store(&state, RUN_FINALIZED);
}

/* The settings' words, said here: settings.c says nothing itself. */
static void say_setting_problem(const char *problem) {
  dag__user_error(NULL, DAG_EINVAL, "%s", problem);
}

/* Malformed settings: DAG_EINVAL, each said. */
static int check_settings(void) {
  return dag__settings_each_problem(say_setting_problem) ? DAG_EINVAL : 0;
}

/* The start failed with err, said already: kept for the later calls. */
static int start_failed(int err) {
  start_error = err;
  snprintf(start_failure, sizeof start_failure, "%s", dag_last_error());
  return err;
}

static void say_unknown_setting(const char *name, const char *nearest) {
  if (nearest)
    dag__log(DAG_LOG_WARN, "%s is not a setting of dag (did you mean %s?)",
             name, nearest);
  else
    dag__log(DAG_LOG_WARN, "%s is not a setting of dag; ignored", name);
}

/* Once a run, from rank 0 only, once the ranks are known: a run says it
 * once. */
static pthread_once_t unknown_once = PTHREAD_ONCE_INIT;

static void warn_unknown_settings(void) {
  dag__settings_each_unknown(say_unknown_setting);
}

int dag_init(void) {
  pthread_mutex_lock(&lifecycle);
  int err = 0;
  switch (atomic_load(&state)) {
  case RUN_RUNNING:
    break;
  case RUN_FINALIZED:
    err = DAG_ESHUTDOWN;
    break;
  case RUN_NOT_STARTED: {
    if (start_error) {
      err = dag__error_note(start_error, "%s", start_failure);
      break;
    }
    err = check_settings();
    if (!err)
      err = dag__comm_start(dag__comm_backend());
    if (err) {
      start_failed(err);
      break;
    }
    if (dag__rank == 0)
      pthread_once(&unknown_once, warn_unknown_settings);
    /* The ranks of one machine share its cores, unless mpiexec bound
     * each to cores of its own already. */
    int n = workers_wanted(dag__core_cores(dag__node_rank, dag__node_ranks));
    err = dag__core_start(n);
    if (err) {
      start_failed(dag__user_error(NULL, err, "%s", dag_strerror(err)));
      dag__comm_stop();
      break;
    }
    err = dag__devices_start(dag__space_backends_by_kind(),
                             dag__space_stand_in());
    if (err) {
      start_failed(err);
      dag__devices_stop();
      dag__core_stop();
      dag__comm_stop();
      break;
    }
    static bool registered;
    if (!registered) {
      atexit(finalize_at_exit);
      pthread_atfork(NULL, NULL, after_fork_in_child);
    }
    registered = true;
    atomic_store_explicit(&state, RUN_RUNNING, memory_order_release);
    break;
  }
  }
  pthread_mutex_unlock(&lifecycle);
  return err;
}

enum run_state dag__run_state(void) {
  return (enum run_state)atomic_load_explicit(&state, memory_order_acquire);
}

bool dag__started(void) {
  return atomic_load_explicit(&state, memory_order_acquire) == RUN_RUNNING;
}

int dag__ensure_started(void) {
  int s = atomic_load_explicit(&state, memory_order_acquire);
  if (likely(s == RUN_RUNNING))
    return 0;
  if (s == RUN_FINALIZED)
    return DAG_ESHUTDOWN;
  return dag_init();
}

int dag__not_running(int err, const struct dag_task_info *task,
                     const char *call) {
  if (err != DAG_ESHUTDOWN && start_error)
    return err; /* dag_init noted the start's message */
  if (task)
    return dag__user_error(task, err, "%s", dag_strerror(err));
  return dag__user_error(NULL, err, "%s: %s", call, dag_strerror(err));
}

int dag_num_workers(void) {
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, NULL, "dag_num_workers");
  return dag__workers_count();
}

int dag_worker_id(void) {
  /* After dag_finalize, the thread that was worker 0 (if another thread
   * finalized) still points at the freed worker records. */
  if (atomic_load_explicit(&state, memory_order_acquire) != RUN_RUNNING)
    return -1;
  return dag__worker_id();
}

int dag_rank(void) {
  int err = dag__ensure_started();
  return err ? err : dag__rank;
}

int dag_nranks(void) {
  int err = dag__ensure_started();
  return err ? err : dag__nranks;
}

int dag_finalize(void) {
  if (dag__current_task() != &dag__root_task)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_finalize called from inside a task");
  if (dag__run_state() == RUN_RUNNING && dag__reductions_to_end())
    dag__reduce_end_all(); /* submits tasks: before the lock */
  pthread_mutex_lock(&lifecycle);
  if (atomic_load(&state) == RUN_RUNNING) {
    /* Every rank checks that all submitted the same tasks, then drains. */
    if (dag__planned())
      dag__plan_taskwait(false);
    dag__wait_children();
    dag__devices_stop(); /* what devices wrote back to the host */
    dag__core_stop();
    if (dag__stats)
      dag__plan_write_stats();
    /* Before the allocation records they point to. */
    dag__access_cache_forget();
    dag__plan_release();
    dag__reduce_release();
    dag__dist_release();
    dag__comm_stop();
  }
  atomic_store_explicit(&state, RUN_FINALIZED, memory_order_release);
  pthread_mutex_unlock(&lifecycle);
  return 0;
}
