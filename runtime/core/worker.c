/* worker.c — worker threads and the help loop.
 *
 * Worker 0 is the thread that started the runtime (usually main): it runs
 * tasks whenever it waits in taskwait, in an undeferred task or when it
 * submits faster than tasks run. Workers 1..n-1 are threads of our own, each
 * pinned to its core, that run tasks until dag_finalize stops them.
 *
 * When a worker looks for work, where, and when it sleeps is the policy's
 * (policy.h); the loops here follow it.
 *
 * dag__workers_each (dag_on_each_worker) has each worker run a function
 * once: worker 0 runs it at once, the others when they next look for work
 * (a generation number each compares with the last it ran), woken again
 * and again until every one has.
 */
#include "core/policy.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct idleness {
  uint64_t since; /* when the worker last ran a task; 0: it just did */
  unsigned backoff;
  bool waiting; /* for a hand-off */
};

static struct worker *workers;
static pthread_t *threads;
static int nworkers;
static atomic_bool stopping;
uint64_t dag__idle_sleep_ns = IDLE_SLEEP_NS; /* set at start: policy.h */

/* Workers started so far (bound to their cores, named): dag__workers_start
 * returns once all are, so that the runtime is whole when dag_init returns.
 * A fork just after it then finds no worker half-way through hwloc's
 * binding, whose allocation, reachable only from that thread, LeakSanitizer
 * reported as leaked in the child. */
static atomic_int workers_up;
static DAG_THREAD_LOCAL struct worker *self;

struct worker *dag__self(void) {
  return self;
}
int dag__worker_id(void) { return self ? self->id : -1; }
int dag__workers_count(void) { return nworkers; }
struct worker *dag__worker(int id) {
  return &workers[id];
}

/* dag__workers_each's request: what to run, its generation, and how many
 * workers have yet to run it. One at a time: from worker 0. */
static struct {
  void (*fn)(void *arg);
  void *arg;
  _Atomic unsigned generation;
  atomic_int left;
} each;

/* w runs the request of dag__workers_each if it has not yet. */
static inline void run_each(struct worker *w) {
  unsigned g = atomic_load_explicit(&each.generation, memory_order_acquire);
  if (likely(w->each_seen == g))
    return;
  w->each_seen = g;
  each.fn(each.arg);
  atomic_fetch_sub_explicit(&each.left, 1, memory_order_release);
}

/* How often sleeping workers are woken while some have yet to run it. */
#define EACH_WAKE_NS 100000

void dag__workers_each(void (*fn)(void *arg), void *arg) {
  each.fn = fn;
  each.arg = arg;
  atomic_store_explicit(&each.left, nworkers - 1, memory_order_relaxed);
  self->each_seen =
      atomic_fetch_add_explicit(&each.generation, 1, memory_order_release) + 1;
  fn(arg);
  while (atomic_load_explicit(&each.left, memory_order_acquire) > 0) {
    dag__sched_wake_all(); /* one may have gone to sleep meanwhile */
    struct timespec t = {0, EACH_WAKE_NS};
    nanosleep(&t, NULL);
  }
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Runs t and then every successor its completion hands back. */
static void run_chain(struct worker *w, struct task *t) {
  while (t)
    t = dag__task_run(w, t);
}

/* The worker found nothing: pause a little longer each time, unless a task
 * is handed to it. Returns the time it has been idle, in ns. */
static uint64_t idle_round(struct worker *w, struct idleness *idle) {
  uint64_t now = dag__now_ns();
  if (!idle->since) {
    idle->since = now;
    idle->backoff = 1;
  }
  for (unsigned i = 0; i < idle->backoff && !(w && dag__handoff_pending(w));
       i++)
    cpu_relax();
  idle->backoff = policy_backoff(idle->backoff);
  return now - idle->since;
}

static void start_waiting(struct worker *w, struct idleness *idle) {
  if (!idle->waiting) {
    dag__handoff_wait(w);
    idle->waiting = true;
  }
}

/* w stops waiting for a hand-off; one that was on its way goes to its
 * queue. */
static void stop_waiting(struct worker *w, struct idleness *idle) {
  if (idle->waiting && !dag__handoff_unwait(w))
    dag__sched_push(w, dag__handoff_take(w));
  idle->waiting = false;
}

/* Next task for w: one handed to it, else one from the queues (`ancestor`
 * not NULL: only its descendants, and no hand-offs, which could be
 * anything), in the policy's order. */
static struct task *next_task(struct worker *w, struct idleness *idle,
                              const struct task *ancestor) {
  struct task *t;
  if (!ancestor && (t = dag__handoff_take(w))) {
    idle->waiting = false; /* whoever handed it lowered the flag */
    return t;
  }
  t = ancestor ? policy_next_descendant(w, ancestor)
               : policy_next_task(w, policy_patient(idle->since));
  if (t)
    stop_waiting(w, idle);
  return t;
}

/* Makes the calling thread worker w: its record, its core, its name in
 * messages. */
static void become(struct worker *w) {
  self = w;
  dag__topo_bind_worker(w->id);
  char name[16];
  snprintf(name, sizeof name, "w%d", w->id);
  dag__log_thread(name);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  become(w);
  atomic_fetch_add_explicit(&workers_up, 1, memory_order_release);
  struct idleness idle = {0, 1, false};
  while (!atomic_load_explicit(&stopping, memory_order_acquire)) {
    run_each(w);
    struct task *t = next_task(w, &idle, NULL);
    if (t) {
      run_chain(w, t);
      idle.since = 0;
    } else if (dag__comm_poll()) {
      idle.since = 0; /* a transfer finished: its task may be ready */
    } else {
      start_waiting(w, &idle);
      if (policy_may_sleep(idle_round(w, &idle))) {
        stop_waiting(w, &idle);
        dag__sched_idle(w, &stopping);
        /* Woken for work: impatient at once. */
        idle.since = dag__now_ns() - STEAL_PATIENCE_NS;
      }
    }
  }
  stop_waiting(w, &idle);
  return NULL;
}

static void worker_init(struct worker *w, int id) {
  w->id = id;
  w->each_seen = atomic_load(&each.generation);
  w->queue = dag__sched_queue(id);
  w->rng = 0x2545f491u * (uint32_t)(id + 1);
  w->trace = dag__tracing ? dag__trace_buffer_new(id) : NULL;
}

int dag__workers_start(int n) {
  workers = calloc((size_t)n, sizeof *workers);
  threads = calloc((size_t)n, sizeof *threads);
  if (!workers || !threads) {
    free(workers);
    free(threads);
    return DAG_ENOMEM;
  }
  nworkers = n;
  dag__idle_sleep_ns =
      n > dag__topo_cores() ? IDLE_SLEEP_THROTTLED_NS : IDLE_SLEEP_NS;
  atomic_store(&stopping, false);
  atomic_store(&workers_up, 0);
  for (int i = 0; i < n; i++)
    worker_init(&workers[i], i);
  become(&workers[0]);
  for (int i = 1; i < n; i++) {
    if (pthread_create(&threads[i], NULL, worker_main, &workers[i])) {
      nworkers = i; /* stop the ones that did start */
      dag__workers_stop();
      return DAG_ETHREAD;
    }
  }
  while (atomic_load_explicit(&workers_up, memory_order_acquire) < n - 1)
    sched_yield();
  return 0;
}

void dag__workers_stop(void) {
  atomic_store_explicit(&stopping, true, memory_order_release);
  dag__sched_wake_all();
  for (int i = 1; i < nworkers; i++)
    pthread_join(threads[i], NULL);
  self = NULL;
}

void dag__workers_release(void) {
  free(workers);
  free(threads);
  workers = NULL;
  threads = NULL;
  nworkers = 0;
}

void dag__core_nudge(void) { dag__sched_nudge(); }

void dag__core_help_while(bool (*cond)(void *arg), void *arg) {
  struct worker *w = self;
  struct task *waiting = dag__current_task();
  const struct task *ancestor = waiting == &dag__root_task ? NULL : waiting;
  bool timed = w && dag__timing;
  uint64_t outer = 0, t0 = 0;
  if (timed) { /* help time is not the waiting body's busy time */
    outer = dag__nested_enter(w);
    t0 = dag__now_ns();
  }
  /* Inside a task body (ancestor not NULL) it runs only descendants of it,
   * so that the bodies stacked on this thread stay as few as the program's
   * own nesting (a successor of a descendant is one: edges join siblings
   * only); at the top it waits for hand-offs as a worker does. */
  struct idleness idle = {0, 1, false};
  struct task *t;
  uint64_t doze = DOZE_FIRST_NS;
  while (cond(arg)) {
    if (w && (t = next_task(w, &idle, ancestor))) {
      run_chain(w, t);
      idle.since = 0;
      doze = DOZE_FIRST_NS;
    } else if (dag__comm_poll()) {
      idle.since = 0;
      doze = DOZE_FIRST_NS;
    } else {
      if (w && !ancestor)
        start_waiting(w, &idle);
      if (policy_may_sleep(idle_round(w, &idle))) {
        if (w)
          stop_waiting(w, &idle); /* no hand-off while it sleeps */
        dag__sched_doze(doze, w && !ancestor, cond, arg);
        doze = policy_next_doze(doze);
      }
    }
  }
  if (w)
    stop_waiting(w, &idle);
  if (timed)
    dag__nested_leave(w, outer, dag__now_ns() - t0);
}
