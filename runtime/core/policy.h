/* core/policy.h — the scheduler's policy: every decision about which task
 * runs where and when, and why.
 *
 * The mechanisms live elsewhere and decide nothing: the ready queues and
 * sleeping (sched.c), the mailboxes of the hand-off (handoff.c), the table
 * of task sizes (grain.c), the worker and help loops (worker.c), the task
 * records (task.c). They ask the functions here. The policy is fixed at
 * compile time, in static inline functions and constants: no indirect call
 * on the path of a task. To try another, change this file and compare with
 * bench/overhead (instructions per task) and bench/grain (METG).
 *
 * 1. Where a ready task goes (policy_queue_for). A task with a priority
 *    goes to one shared heap, ordered by priority then submission; any
 *    other to the ready ring of the worker that made it ready (the data it
 *    reads is likely in that core's cache), or, from a thread that is not a
 *    worker, to the shared injection list.
 *
 * 2. What runs after a completion (policy_keeps_released,
 *    policy_hands_off, policy_yields_to_urgent). The worker runs the first
 *    successor it releases itself, before looking at any queue: it probably
 *    reads what was just written, and a chain of dependent tasks stays on
 *    one core. The next ones it hands to a worker that spins waiting for
 *    work (handoff.c), which sees it within one pause: queued, it would be
 *    found only at that worker's next look, every few microseconds, and in
 *    a narrow graph (a stencil two tasks wide) at every step. Only while
 *    the releaser's own ring is empty: with tasks queued already, a thief
 *    takes them in a batch, which costs less per task than a mailbox each
 *    (11% of a 1 us task's time in a graph 8 wide, measured). Tasks that a
 *    program submits are not handed over, for the same reason. A ready task
 *    with a positive priority goes before the successor kept.
 *
 * 3. When to steal, and how much (policy_patient, policy_steal_least). A
 *    thief takes the older half of a victim's ring in one go, so that a
 *    producer feeding an idle worker pays one exchange of cache lines per
 *    batch, not per task. For its first STEAL_PATIENCE_NS of idleness a
 *    thief leaves victims with fewer than STEAL_PATIENT_LEAST tasks alone:
 *    a producer feeding it one task at a time would pay an exchange per
 *    task where a moment later it pays one per batch. A worker woken from
 *    sleep for work is impatient at once. Victims are tried from a random
 *    one on, so that thieves spread out.
 *
 * 4. What a worker runs next (policy_next_task). A task handed to it
 *    (worker.c looks at its mailbox first), then: a positive priority, its
 *    own ring (oldest first, in the order they became ready), the
 *    injection list, a steal, and last a negative priority, which runs
 *    only when nothing else is ready.
 *
 *    A thread that waits inside a task body (taskwait, an undeferred task)
 *    runs only descendants of that task (policy_next_descendant), so that
 *    the bodies piled on its stack never outnumber the program's own
 *    nesting (OpenMP's task scheduling constraint). It takes the newest
 *    task of its own ring, which descends from the waiting task whenever
 *    anything there does (all that the thread pushed since the body started
 *    does, and nothing older can); failing that, the heap, the injection
 *    list and the other rings for the oldest descendant (the largest piece
 *    of work, likely).
 *
 * 5. When a task is tiny (policy_samples, policy_tiny). Deferring a task
 *    costs a few hundred nanoseconds of queueing and cache traffic; a body
 *    shorter than GRAIN_TINY_NS on average is cheaper run by its submitter
 *    (granularity control, as Cilk's coarsening or the libgomp throttle do
 *    by other means). Workers time one body in GRAIN_SAMPLE_EVERY; a
 *    function is judged after GRAIN_MIN_SAMPLES samples.
 *
 * 6. When the submitter runs a task itself (policy_runs_inline). A task
 *    that is ready at submission runs at once in the submitting thread,
 *    with no record, no edge and no queue, when deferring it would not pay:
 *    its function is known to be tiny (5), or the submitter is far ahead of
 *    the workers, as libgomp and libomp judge it: its parent has more than
 *    CHILDREN_AHEAD_PER_WORKER unfinished children per worker (looked at
 *    once per batch of child credits, where the count is at hand), or its
 *    own ring holds THROTTLE_READY tasks, enough to keep every thief busy
 *    (below the ring's capacity, so that it rarely spills). Only a ready
 *    task, so the submitter never stops to wait and the graph's lookahead
 *    stays whole. The task graph (DAG_GRAPH) wants every edge, so it turns
 *    this off, as DAG_INLINE=0 does (to compare with runtimes that defer
 *    every task); an undeferred task always runs inline.
 *
 * 7. When an idle thread pauses, sleeps or dozes (policy_backoff,
 *    policy_may_sleep, policy_next_doze). An idle worker looks for work in
 *    rounds (each tries every queue once) with pauses between them that
 *    grow from 1 to IDLE_BACKOFF_MAX spin-waits: a thief polling a busy
 *    producer's ring without pause would pull its cache lines away on every
 *    task. While it spins it waits for a hand-off (2). After IDLE_SLEEP_NS
 *    (far less when the workers outnumber the cores: below) it sleeps
 *    until a task is queued (which wakes one sleeper), unless a transfer
 *    is in flight: the data a task here waits for may be landing, and with
 *    every worker asleep only the progress thread would see it, after its
 *    nap (up to 1 ms: a distributed CG lost 0.8 ms per reduction so); it
 *    goes on polling, yielding its core to any thread that wants it (ranks
 *    sharing cores). A thread waiting in a help loop (taskwait, a
 *    collective, a task it depends on) dozes instead: for DOZE_FIRST_NS,
 *    doubling up to DOZE_MAX_NS, woken at once by new work that no
 *    sleeping worker takes and by what it waits for.
 */
#ifndef DAG_CORE_POLICY_H
#define DAG_CORE_POLICY_H

#include "comm/comm.h"
#include "core/internal.h"

#include <limits.h>
#include <sched.h>

/* ------------------------------------------------ 1. where a task goes */

enum ready_queue { QUEUE_PRIORITY, QUEUE_INJECTION, QUEUE_OWN_RING };

static inline enum ready_queue policy_queue_for(const struct worker *w,
                                                const struct task *t) {
  if (t->priority != 0)
    return QUEUE_PRIORITY;
  return w ? QUEUE_OWN_RING : QUEUE_INJECTION;
}

/* ---------------------------------------- 2. after a completion */

/* Whether the completing worker keeps t, just released, to run next, when
 * it keeps `next` so far. */
static inline bool policy_keeps_released(const struct task *t,
                                         const struct task *next) {
  return !next && t->priority == 0;
}

/* Whether t, released on w and not kept, is offered to a waiting worker. */
static inline bool policy_hands_off(struct worker *w, const struct task *t) {
  return t->priority == 0 && w && dag__sched_local_size(w) == 0;
}

/* Whether the successor kept goes back to the queues, for a prioritised
 * task to run first. */
static inline bool policy_yields_to_urgent(const struct task *next) {
  return next && dag__sched_urgent();
}

/* ---------------------------------------------------- 3. stealing */

#define STEAL_PATIENCE_NS 4000
#define STEAL_PATIENT_LEAST 4

/* Whether a thread idle since `idle_since` (0: it just ran a task) is
 * still patient. */
static inline bool policy_patient(uint64_t idle_since) {
  return !idle_since || dag__now_ns() - idle_since < STEAL_PATIENCE_NS;
}

/* The fewest tasks a victim must hold to be stolen from. */
static inline uint32_t policy_steal_least(bool patient) {
  return patient ? STEAL_PATIENT_LEAST : 1;
}

/* ----------------------------------------------- 4. the next task */

static inline struct task *policy_next_task(struct worker *w, bool patient) {
  struct task *t;
  if ((t = dag__sched_take_priority(1)) || (t = dag__sched_take_own(w)) ||
      (t = dag__sched_take_injected(NULL)) ||
      (t = dag__sched_steal(w, policy_steal_least(patient))) ||
      (t = dag__sched_take_priority(INT_MIN)))
    return t;
  return NULL;
}

static inline struct task *policy_next_descendant(struct worker *w,
                                                  const struct task *ancestor) {
  struct task *t;
  if ((t = dag__sched_take_own_newest(w, ancestor)) ||
      (t = dag__sched_take_priority_descendant(ancestor)) ||
      (t = dag__sched_take_injected(ancestor)) ||
      (t = dag__sched_steal_descendant(w, ancestor)))
    return t;
  return NULL;
}

/* ------------------------------------------------ 5. task sizes */

#define GRAIN_SAMPLE_EVERY 16
#define GRAIN_MIN_SAMPLES 8
#define GRAIN_TINY_NS 300

/* Whether w times the body it starts now, to learn its function's size. */
static inline bool policy_samples(const struct worker *w) {
  return w && w->stats.tasks % GRAIN_SAMPLE_EVERY == 0;
}

/* Whether a function whose bodies took avg_ns on average over `samples`
 * is tiny. */
static inline bool policy_tiny(unsigned avg_ns, unsigned samples) {
  return samples >= GRAIN_MIN_SAMPLES && avg_ns < GRAIN_TINY_NS;
}

/* ------------------------------------------------- 6. running inline */

#define CHILDREN_AHEAD_PER_WORKER 64
#define THROTTLE_READY 192

/* Whether a parent with this many unfinished children is far ahead. */
static inline bool policy_far_ahead(int unfinished_children) {
  return unfinished_children > CHILDREN_AHEAD_PER_WORKER * dag__workers_count();
}

/* Whether w, running parent's body, runs the task of fn it submits now
 * itself, its accesses (regs, modes, n of them) all ready. Its arguments
 * fit the inline path's buffer (args_fit). */
static DAG_ALWAYS_INLINE bool
policy_runs_inline(struct worker *w, struct task *parent, dag_task_fn fn,
                   bool args_fit, const struct region *regs,
                   const enum dag_mode *modes, size_t n) {
  if (!w || dag__deferring_all || !args_fit)
    return false;
  bool ahead = false;
  if (parent->inline_left > 0) {
    ahead = true;
    if (--parent->inline_left == 0) {
      int children =
          atomic_load_explicit(&parent->unfinished, memory_order_relaxed) -
          parent->credits - 1;
      if (policy_far_ahead(children))
        parent->inline_left = CHILD_CREDITS;
    }
  }
  /* The ready ring last: reading its head may cost a cache miss. */
  if (!ahead && !dag__grain_tiny(fn) &&
      dag__sched_local_size(w) < THROTTLE_READY)
    return false;
  return n == 0 || !parent->children ||
         dag__deps_ready(parent->children, regs, modes, n);
}

/* -------------------------------------------------- 7. idleness */

#define IDLE_BACKOFF_MAX 64
#define IDLE_SLEEP_NS 200000
#define IDLE_SLEEP_THROTTLED_NS 2000
/* How long an idle worker looks for work before it sleeps: IDLE_SLEEP_NS,
 * or IDLE_SLEEP_THROTTLED_NS when the workers outnumber the cores they
 * are pinned to (dag__workers_start). There a spinning worker takes the
 * core of one with work to do (a lock's holder, a thread whose turn has
 * come): on the timed device model, 16 workers on 2 cores spent 36% of
 * the CPU samples spinning (perf). libgomp throttles its spin count
 * (GOMP_SPINCOUNT) likewise when its threads outnumber the CPUs. */
extern uint64_t dag__idle_sleep_ns;
#define DOZE_FIRST_NS 50000
#define DOZE_MAX_NS 1000000

/* The pause after the one of `spins` spin-waits, in spin-waits. */
static inline unsigned policy_backoff(unsigned spins) {
  return spins < IDLE_BACKOFF_MAX ? 2 * spins : spins;
}

/* Whether a thread idle for idle_ns may sleep (or doze) now; if it may
 * not for a transfer in flight, it yields its core. */
static inline bool policy_may_sleep(uint64_t idle_ns) {
  if (idle_ns <= dag__idle_sleep_ns)
    return false;
  if (!dag__comm_in_flight())
    return true;
  sched_yield();
  return false;
}

/* The doze after one of `ns`. */
static inline uint64_t policy_next_doze(uint64_t ns) {
  return ns < DOZE_MAX_NS ? 2 * ns : DOZE_MAX_NS;
}

#endif /* DAG_CORE_POLICY_H */
