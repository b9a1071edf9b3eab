/* core/internal.h — the types and functions that the core's files share
 * (core.h is what the layers above see), one section per file, in the
 * order data flows: pools, the dependency tracker, commutative locks,
 * tasks, the scheduler, workers, task sizes, topology. What they observe
 * goes down to obs/ (obs.h).
 */
#ifndef DAG_CORE_INTERNAL_H
#define DAG_CORE_INTERNAL_H

#include "core/core.h"

struct worker;

/* -------------------------------------------------------------- pool.c */

/* Fixed-size object pools: each thread keeps a free list per pool and trades
 * batches with a shared list under a mutex, so a task allocated on one
 * thread and freed on another costs no lock in the common case. Memory is
 * returned to the system only at dag_finalize. */
enum pool_id {
  POOL_TASK,       /* tasks with up to DAG_ARGS_INLINE bytes of arguments */
  POOL_TASK_SMALL, /* ... with up to DAG_ARGS_SMALL */
  POOL_EDGE,
  POOL_RECORD_RUN,  /* history records of contiguous regions */
  POOL_RECORD_ROWS, /* ... of one strided dimension */
  POOL_RECORD,      /* ... of more */
  POOL_LOCK,
  POOL_DEPS, /* the history of a task's children */
  POOL_ARGS_128,
  POOL_ARGS_512,
  POOL_ARGS_2K,
  POOL_ARGS_8K,
  POOL_COUNT
};

void dag__pools_init(void);
void dag__pools_release(void);
void *dag__pool_get(enum pool_id id);
void dag__pool_put(enum pool_id id, void *obj);
/* Bytes the pool took from the system. */
size_t dag__pool_bytes(enum pool_id id);

/* Object sizes of the pools whose types are private to their file. */
size_t dag__record_bytes(int ndims);
extern const size_t dag__lock_size;
extern const size_t dag__deps_size;

/* Argument blocks of any size: pooled up to 8 KiB, malloc beyond. */
void *dag__args_alloc(size_t size);
void dag__args_free(void *args, size_t size);

/* -------------------------------------------------------------- deps.c */

/* The access history of one task's children (or of the program's top-level
 * tasks). Only the thread running the parent's body touches it, so it takes
 * no lock; other threads only mark tasks complete, which it reads. */
struct deps;

struct deps *dag__deps_new(void);
/* Forgets all history (every task in it must be complete) and frees it. */
void dag__deps_free(struct deps *d);
/* Forgets all history; every task in it must be complete. */
void dag__deps_clear(struct deps *d);

/* Registers the accesses of task t (already validated, non-empty): adds an
 * edge from every earlier task whose access conflicts, and collects the
 * commutative locks t must hold. */
void dag__deps_add(struct deps *d, struct task *t, const struct region *regs,
                   const enum dag_mode *modes, size_t n);

/* The same while the graph is recorded: the records of complete tasks
 * stay until a write retires them, and t is linked to them too (which
 * orders nothing: dag__task_link records the graph's edge). Never mixed
 * with dag__deps_wait or dag__deps_ready, which drop them. */
void dag__deps_add_graphed(struct deps *d, struct task *t,
                           const struct region *regs,
                           const enum dag_mode *modes, size_t n);

/* Waits, running other tasks, until every task in d's history that an
 * access (regs[i], modes[i]) would depend on is complete; commutative
 * accesses wait for earlier commutative ones too. Records nothing: for a
 * task that runs right away in the submitting thread. */
void dag__deps_wait(struct deps *d, const struct region *regs,
                    const enum dag_mode *modes, size_t n);

/* Whether no task in d's history that an access (regs[i], modes[i]) would
 * depend on is unfinished: a task with these accesses could run now. */
bool dag__deps_ready(struct deps *d, const struct region *regs,
                     const enum dag_mode *modes, size_t n);

/* Drops the records of complete tasks and rebuilds the index; the tracker
 * does it by itself whenever its history has doubled (tests call it). */
void dag__deps_sweep(struct deps *d);

/* Number of access records the tracker holds (for tests and stats). */
size_t dag__deps_records(const struct deps *d);

/* Test hook: called for every edge the tracker adds, when set. */
extern void (*dag__edge_hook)(const struct task *pred, const struct task *succ);

/* ----------------------------------------------------------- commute.c */

/* Mutual exclusion of commutative tasks. A lock is shared by the records of
 * the same commutative region; a task holds every lock of the commutative
 * regions its own overlaps. Locks are reference counted. */
struct commute_lock;
struct lock_set;

struct commute_lock *dag__lock_new(void);
void dag__lock_ref(struct commute_lock *l);
void dag__lock_unref(struct commute_lock *l);

/* Adds l to t's lock set unless present. */
void dag__task_add_lock(struct task *t, struct commute_lock *l);
void dag__task_free_locks(struct task *t);

/* Tries to take all of t's locks. On failure t is parked on a busy lock and
 * will be made ready again when that lock is released: returns false. */
bool dag__task_try_lock(struct task *t);
/* Releases t's locks and makes ready the tasks parked on them. */
void dag__task_unlock(struct task *t);

/* -------------------------------------------------------------- task.c */

/* Arguments up to DAG_ARGS_INLINE bytes live in the task record itself,
 * which comes in two sizes so that tasks with few arguments (most, and
 * every task without any) take less memory while they wait. */
#define DAG_ARGS_INLINE 48
#define DAG_ARGS_SMALL 16

/* The thread running a task's body counts children into `unfinished` this
 * many at a time (see task.c: count_child). */
#define CHILD_CREDITS 64

struct edge {
  /* Atomic because dag__task_link reads the head edge of a predecessor
   * that may complete, and its edges be reused, meanwhile. */
  _Atomic(struct task *) succ;
  struct edge *next;
};

/* The successor list of a complete task: later edges are refused. */
#define DAG_SUCC_CLOSED ((struct edge *)(uintptr_t)1)

enum task_flag {
  TASK_UNDEFERRED = DAG_TASK_UNDEFERRED, /* runs in its submitter */
  TASK_ARGS_POOLED = 0x100, /* args_inline holds the address of the args */
  TASK_WAIT_ONLY = 0x200,   /* taskwait_on: waits, has no body */
  TASK_NO_INLINE = CORE_NO_INLINE, /* see core.h */
  TASK_SMALL = 0x800,      /* from POOL_TASK_SMALL: DAG_ARGS_SMALL inline */
  TASK_ON_STACK = 0x1000,  /* the record of a task run inline, on the stack
                              of its submitter (task.c: run_inline) */
  TASK_PROMOTED = 0x2000,  /* ... whose body deferred a child: the task now
                              lives on in `promoted` */
  TASK_STAMPED = 0x4000,   /* `ready` holds when and by whom it became ready
                              (handoff.c; with timing only) */
  TASK_BODY_HOOK = 0x8000, /* its body's return calls a hook (core.h:
                              dag__current_task_hooked) */
};

/* Every byte here is paid per waiting task (docs/runtime.md): fields that
 * serve different moments of a task's life share their place. */
struct task {
  _Alignas(16) dag_task_fn fn; /* 16: history records tag task pointers */
  const char *label;
  const char *file;
  struct task *parent;
  _Atomic(struct edge *) succ; /* successors; DAG_SUCC_CLOSED when done */
  union {
    struct task *link;     /* intrusive list while queued or parked, */
    struct deps *children; /* ... then the history of its children, made
                              lazily once its body runs; */
    struct task *promoted; /* with TASK_PROMOTED, the pooled record that
                              took over (children went with it) */
    uint64_t ready;        /* with TASK_STAMPED, while it waits in a ring,
                              the heap or a mailbox: see handoff.c */
  };
  struct lock_set *locks; /* commutative locks, NULL if none */
  uint64_t id;            /* global submission number, from 1 */
  int line;
  int priority;
  uint32_t args_size;
  atomic_int pending;    /* unfinished predecessors, +1 while built */
  atomic_int unfinished; /* own body + unfinished children + credits */
  atomic_int refs;       /* execution + history records */
  int credits;         /* children counted in advance: see submit; as int16_t it
                          cost 10% in bench/overhead (a), measured */
  uint16_t flags;      /* enum task_flag */
  int16_t inline_left; /* children to run inline before a new look */
  /* DAG_ARGS_INLINE or DAG_ARGS_SMALL bytes: the arguments, or with
   * TASK_ARGS_POOLED the address of the block that holds them. */
  _Alignas(8) char args_inline[];
};

static inline bool dag__task_complete(const struct task *t) {
  return atomic_load_explicit(&((struct task *)t)->succ,
                              memory_order_acquire) == DAG_SUCC_CLOSED;
}

void dag__task_unref(struct task *t);

/* Whether t is a descendant of `ancestor` (a child, a grandchild...). Both
 * must be unfinished, which keeps every task between them alive. */
bool dag__task_descends(const struct task *t, const struct task *ancestor);

/* Links pred -> succ unless pred is complete or already linked to succ. */
void dag__task_link(struct task *pred, struct task *succ);
/* The same while the graph is recorded: the graph gets the edge, also from
 * a complete pred (succ's data came from it). */
void dag__task_link_graphed(struct task *pred, struct task *succ);

/* Runs t's body on worker w (NULL: a thread that is not a worker) and, if it
 * has no unfinished children, completes it. Returns a successor released by
 * the completion that the caller should run next, or NULL. */
struct task *dag__task_run(struct worker *w, struct task *t);

/* Timing of nested frames on worker w (bodies run while another waits,
 * help loops): enter returns the enclosing frame's nested time; leave takes
 * it and the frame's own duration ns, and returns the part of ns that was
 * not nested in it. */
uint64_t dag__nested_enter(struct worker *w);
uint64_t dag__nested_leave(struct worker *w, uint64_t outer, uint64_t ns);

/* ------------------------------------------------------------- sched.c */

/* The ready queues (which one a task goes to, and in which order a worker
 * looks at them, is policy.h's). */

/* Makes a task whose predecessors are all complete runnable, in the queue
 * the policy picks, and wakes a sleeping worker for it. */
void dag__sched_push(struct worker *w, struct task *t);

/* Each of these takes a task, or returns NULL when that queue has none for
 * the caller. With `ancestor`, only a descendant of it, for a thread that
 * waits inside ancestor's body. */
/* The best task of the heap whose priority is at least min_priority. */
struct task *dag__sched_take_priority(int min_priority);
struct task *dag__sched_take_priority_descendant(const struct task *ancestor);
/* The oldest task of w's own ring; its newest, if a descendant. */
struct task *dag__sched_take_own(struct worker *w);
struct task *dag__sched_take_own_newest(struct worker *w,
                                        const struct task *ancestor);
/* The oldest task of the injection list (with ancestor: a scan). */
struct task *dag__sched_take_injected(const struct task *ancestor);
/* The older half of another worker's ring, if it holds at least `least`
 * tasks: w runs the first, its own ring keeps the rest. */
struct task *dag__sched_steal(struct worker *w, uint32_t least);
/* The oldest descendant in another worker's ring. */
struct task *dag__sched_steal_descendant(struct worker *w,
                                         const struct task *ancestor);

/* Whether a task with a positive priority is ready. */
bool dag__sched_urgent(void);

/* Ready tasks waiting in w's own queue. */
size_t dag__sched_local_size(struct worker *w);

int dag__sched_init(int nworkers);
/* The ready queue of worker id. */
struct ring *dag__sched_queue(int worker_id);
void dag__sched_release(void);

/* Sleeping and waking idle workers. */
void dag__sched_idle(struct worker *w, const atomic_bool *stop);
void dag__sched_wake_all(void);

/* A thread that waits while cond(arg) holds (help loop) and has had nothing
 * to do for a while sleeps up to `ns`, or until work is queued that no
 * sleeping worker takes, or dag__sched_nudge is called after cond changed.
 * `any_task`: it runs any ready task (else it does not look at the queues:
 * a waiter inside a task body runs only that task's descendants). */
void dag__sched_doze(uint64_t ns, bool any_task, bool (*cond)(void *),
                     void *arg);
/* Something a dozing waiter may wait for happened (a task's last child
 * completed, a collective finished): wakes the dozers, if any. A wait for
 * anything else (one given task) sees its end when its doze times out. */
void dag__sched_nudge(void);

/* ----------------------------------------------------------- handoff.c */

int dag__handoff_init(int nworkers);
void dag__handoff_release(void);
/* w has nothing to do and spins: a released task may be handed to it. */
void dag__handoff_wait(struct worker *w);
/* w stops waiting. False if a task was handed to it first: it is in the
 * mailbox already (claim and delivery are one step). */
bool dag__handoff_unwait(struct worker *w);
/* Whether a task is in w's mailbox; and that task, taken (or NULL). */
bool dag__handoff_pending(struct worker *w);
struct task *dag__handoff_take(struct worker *w);
/* Hands t, released by a completion on w, to a waiting worker; false if
 * none waits. */
bool dag__handoff_give(struct worker *w, struct task *t);
/* With timing: notes the wait of t, stamped, which w (NULL: not a worker)
 * starts now; and writes the medians (DAG_STATS). */
void dag__handoff_note(struct worker *w, struct task *t);
void dag__handoff_report(int nworkers);

/* `ready`: the low 48 bits of dag__now_ns(), then the worker id + 1. */
#define READY_TIME_MASK (((uint64_t)1 << 48) - 1)
#define READY_WORKER_SHIFT 48
/* The histograms of waits: 25 ns bins up to 20 us (the last: beyond). */
#define HANDOFF_BIN_NS 25
#define HANDOFF_BINS 800

/* ------------------------------------------------------------ worker.c */

struct worker_stats {
  uint64_t tasks;
  uint64_t inlined; /* of which run by their submitter at once */
  uint64_t steals;  /* successful steals */
  uint64_t stolen;  /* tasks they took */
  uint64_t sleeps;
  uint64_t busy_ns;
  uint64_t handoff[2][HANDOFF_BINS]; /* waits: on the same worker, another */
};

struct worker {
  int id;
  struct ring *queue;
  uint32_t rng;
  struct worker_stats stats;
  /* With timing: the time of the bodies and help loops nested in the body
   * (or help loop) running now, which its own busy time leaves out. */
  uint64_t nested_ns;
  struct trace_buffer *trace;
  unsigned each_seen; /* the last dag__workers_each it ran (worker.c) */
};

/* The calling thread's worker, or NULL. */
struct worker *dag__self(void);

/* Starts workers 1..n-1; the calling thread becomes worker 0. */
int dag__workers_start(int nworkers);
/* Stops and joins the worker threads; their records stay for the stats. */
void dag__workers_stop(void);
void dag__workers_release(void);
struct worker *dag__worker(int id);

/* ------------------------------------------------------------- grain.c */

/* One body of fn took ns nanoseconds. */
void dag__grain_note(dag_task_fn fn, uint64_t ns);
/* Whether bodies of fn are known to be too short to be worth deferring. */
bool dag__grain_tiny(dag_task_fn fn);

/* -------------------------------------------------------------- topo.c */

/* Discovers the cores of the process's cpuset. Returns how many. */
int dag__topo_init(void);
/* Keeps part `part` of `nparts` of the cores (ranks on one machine share
 * it), when there are at least nparts cores; returns how many remain. */
int dag__topo_share(int part, int nparts);
/* The cores kept (at least 1). */
int dag__topo_cores(void);
void dag__topo_release(void);
/* Pins the calling thread to the core of worker `id` (wrapping around when
 * there are more workers than cores). Failure to pin is not an error. */
void dag__topo_bind_worker(int id);

/* ------------------------------------------------------------- guard.c */

/* Starts the guard (DAG_CHECK_ITEMS): reserves the snapshots, catches
 * SIGSEGV. Returns 0 or a DAG_E* code. */
int dag__guard_start(void);
void dag__guard_stop(void);
/* Deferred task t will run the body of `info` with these accesses: a copy
 * is kept for its body (t's parent, id and name set). */
void dag__guard_keep(const struct task *t, const struct dag_task_info *info,
                     const struct region *regs, const enum dag_mode *modes,
                     size_t n);
/* t's body starts on the calling thread: with info, a task run inline
 * with these accesses; else a deferred one, kept. It is watched unless
 * another thread's body is (or its items are unknown). */
void dag__guard_enter(struct task *t, const struct dag_task_info *info,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t n);
/* t's body returned: if it was watched, checks what it wrote (a write
 * outside its items stops the run). */
void dag__guard_leave(const struct task *t);
/* The body (or program) whose task is `context` waited for its children:
 * the replicated memory they declared may be freed now. */
void dag__guard_waited(const struct task *context);

/* With timing, stamps t, made ready by w (NULL: not a worker), as it goes
 * to a queue (handoff.c). */
static inline void dag__task_stamp_ready(struct worker *w, struct task *t) {
  if (unlikely(dag__timing)) {
    t->ready = (dag__now_ns() & READY_TIME_MASK) | (uint64_t)(w ? w->id + 1 : 0)
                                                       << READY_WORKER_SHIFT;
    t->flags |= TASK_STAMPED;
  }
}

#endif /* DAG_CORE_INTERNAL_H */
