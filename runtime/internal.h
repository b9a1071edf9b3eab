/* internal.h — types and functions shared by the runtime's source files.
 *
 * One section per source file, in the order data flows: errors, regions,
 * pools, the dependency tracker, commutative locks, tasks, the scheduler,
 * workers, topology, tracing, start-up. Internal functions that cross files
 * are named dag__*; nothing here is part of the public API.
 */
#ifndef DAG_INTERNAL_H
#define DAG_INTERNAL_H

#include "dag.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define DAG_CACHELINE 64

/* For the few functions on the path of every tiny task, where a call and
 * its prologue cost a tenth of the whole task. */
#define DAG_ALWAYS_INLINE inline __attribute__((always_inline))

/* Thread-local state on the hot path. initial-exec reaches it without a
 * call to __tls_get_addr in libdag.so (fine for a library linked at start,
 * and for dlopen within glibc's static TLS reserve). */
#define DAG_THREAD_LOCAL                                                       \
  _Thread_local __attribute__((tls_model("initial-exec")))

struct task;
struct worker;

/* ------------------------------------------------------------- error.c */

/* Formats "dag: error: <what>: <message>", prints it on stderr, keeps it for
 * dag_last_error() and returns err. `task` names the culprit: its label and
 * source line (NULL when no task is involved). */
int dag__user_error(const struct dag_task_info *task, int err, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));

/* Our own mistake: prints the message with its location and aborts. */
noreturn void dag__bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define DAG_BUG(...) dag__bug(__FILE__, __LINE__, __VA_ARGS__)

/* Memory for the runtime's own bookkeeping ran out: says where, aborts.
 * (Like malloc failing inside libuv: there is no sane way to go on.) */
noreturn void dag__out_of_memory(const char *where);

/* Grows the array `items` of `size`-byte elements, of capacity *cap, so
 * that index n fits; returns it (moved, maybe). Out of memory: says `what`
 * and aborts. */
void *dag__grow(void *items, size_t *cap, size_t n, size_t size,
                const char *what);

/* Writes "label" or "file:line" (for a task without label) into buf. */
void dag__task_name(char *buf, size_t size, const char *label, const char *file,
                    int line);

/* ------------------------------------------------------------ region.c */

/* A validated region in canonical form: dimensions of count 1 dropped,
 * dimensions that are contiguous with the one inside merged into it, so that
 * two descriptions of the same byte set of the same shape compare equal.
 * dim[0] is the outermost; every stride is at least the extent of the
 * dimensions inside it. [lo, hi) bounds every byte. */
struct region {
  uintptr_t lo, hi;
  size_t span;
  int ndims;
  struct {
    size_t count;
    size_t stride;
  } dim[DAG_MAX_DIMS];
};

/* Validates `in` and writes its canonical form. Returns 0, DAG_EINVAL,
 * DAG_EDIMS or DAG_EOVERFLOW; *why then says what is wrong. An empty region
 * (span or a count of 0) gives lo == hi. */
int dag__region_make(const struct dag_region *in, struct region *out,
                     const char **why);

static inline bool dag__region_empty(const struct region *r) {
  return r->lo == r->hi;
}

/* True when a and b share at least one byte (exact, not by bounding box). */
bool dag__region_overlap(const struct region *a, const struct region *b);

/* True only when every byte of b is in a. May answer false for some exotic
 * shapes that are covered (never true for one that is not): callers use it
 * to forget history, where a false answer only costs memory. */
bool dag__region_covers(const struct region *a, const struct region *b);

/* Number of bytes in r. */
size_t dag__region_bytes(const struct region *r);

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
  TASK_NO_INLINE = 0x400,   /* never run by its submitter at once: its body
                               may hold it past its end (dag__task_hold) */
  TASK_SMALL = 0x800,       /* from POOL_TASK_SMALL: DAG_ARGS_SMALL inline */
  TASK_ON_STACK = 0x1000,   /* the record of a task run inline, on the stack
                               of its submitter (task.c: run_inline) */
  TASK_PROMOTED = 0x2000,   /* ... whose body deferred a child: the task now
                               lives on in `promoted` */
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

/* The implicit task of the program: parent of top-level tasks. */
extern struct task dag__root_task;

static inline bool dag__task_complete(const struct task *t) {
  return atomic_load_explicit(&((struct task *)t)->succ,
                              memory_order_acquire) == DAG_SUCC_CLOSED;
}

void dag__task_unref(struct task *t);

/* Whether t is a descendant of `ancestor` (a child, a grandchild...). Both
 * must be unfinished, which keeps every task between them alive. */
bool dag__task_descends(const struct task *t, const struct task *ancestor);

/* Keeps the running task from completing when its body returns, until
 * dag__task_release: a transfer in flight. Only for tasks submitted with
 * TASK_NO_INLINE. Returns the task. */
struct task *dag__task_hold(void);
/* Ends a hold; from any thread. */
void dag__task_release(struct task *t);
/* dag_submit on this rank alone (the rank-uniform layer decided it runs
 * here); body is the chosen variant. */
void dag__submit_local(const struct dag_task_info *info, dag_task_fn body,
                       const void *args, size_t args_size,
                       const struct region *regs, const enum dag_mode *modes,
                       size_t n);
/* dag_taskwait_on on this rank only: no data moves. */
int dag__wait_on_local(const struct dag_access *acc, size_t n);
/* Validates acc into regs and modes, leaving out empty regions; returns how
 * many are kept, or a negative DAG_E* code. */
long dag__make_regions(const struct dag_task_info *info,
                       const struct dag_access *acc, size_t n,
                       struct region *regs, enum dag_mode *modes);
/* dag_submit for the runtime's own tasks (transfers, page discards), with
 * task_flag bits; not counted as the program's tasks. */
int dag__submit_internal(const struct dag_task_info *info, const void *args,
                         size_t args_size, const struct dag_access *acc,
                         size_t n, unsigned flags);

/* Links pred -> succ unless pred is complete or already linked to succ. */
void dag__task_link(struct task *pred, struct task *succ);

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

/* dag_taskwait: waits for the calling context's children, then forgets
 * their history. */
int dag__wait_children(void);

/* The task whose body the calling thread runs (&dag__root_task outside
 * any task). */
struct task *dag__current_task(void);

/* ------------------------------------------------------------- sched.c */

/* Makes a task whose predecessors are all complete runnable: onto the
 * priority queue if it has a priority, else the calling worker's queue (or
 * the shared injection queue from a thread that is not a worker). */
void dag__sched_push(struct worker *w, struct task *t);

/* Next task for w to run, or NULL when none is found right now. A patient
 * caller (idle only briefly) steals only from queues worth a batch. */
struct task *dag__sched_pop(struct worker *w, bool patient);

/* Next task for w to run, as dag__sched_pop, among the descendants of
 * `ancestor` only: for a thread that waits inside ancestor's body. */
struct task *dag__sched_pop_descendant(struct worker *w,
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

/* ------------------------------------------------------------ worker.c */

struct worker_stats {
  uint64_t tasks;
  uint64_t inlined; /* of which run by their submitter at once */
  uint64_t steals;  /* successful steals */
  uint64_t stolen;  /* tasks they took */
  uint64_t sleeps;
  uint64_t busy_ns;
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
};

/* The calling thread's worker, or NULL. */
struct worker *dag__self(void);

/* Starts workers 1..n-1; the calling thread becomes worker 0. */
int dag__workers_start(int nworkers);
/* Stops and joins the worker threads; their records stay for the stats. */
void dag__workers_stop(void);
void dag__workers_release(void);
int dag__workers_count(void);
struct worker *dag__worker(int id);

/* Runs tasks until *cond(arg) becomes false. The help loop of taskwait,
 * undeferred tasks and submission throttling. */
void dag__help_while(bool (*cond)(void *arg), void *arg);

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
void dag__topo_release(void);
/* Pins the calling thread to the core of worker `id` (wrapping around when
 * there are more workers than cores). Failure to pin is not an error. */
void dag__topo_bind_worker(int id);

/* ------------------------------------------------------------- trace.c */

struct trace_buffer;

extern bool dag__tracing;  /* DAG_TRACE set */
extern bool dag__graphing; /* DAG_GRAPH set */
extern bool dag__stats;    /* DAG_STATS set */
extern bool dag__timing;   /* tracing or stats: every task body is timed */

void dag__trace_init(void);
struct trace_buffer *dag__trace_buffer_new(void);
void dag__trace_task(struct worker *w, const struct task *t, uint64_t t0,
                     uint64_t t1);
void dag__graph_node(const struct task *t);
void dag__graph_edge(const struct task *pred, const struct task *succ);
/* Writes the trace, graph and stats outputs and frees their buffers. */
void dag__trace_finish(void);

uint64_t dag__now_ns(void);

/* -------------------------------------------------------------- dist.c */

/* One dag_alloc allocation: [base, base + bytes), homed by dist. The record
 * stays at the same address from dag_alloc until dag__dist_release (even
 * after dag_free), so a pointer to it can be kept and compared. */
struct dag_allocation {
  char *base;
  size_t bytes;
  struct dag_dist dist;
  /* The rank-uniform layer's blocks of it (units.c), made on first use and
   * touched only by the thread that submits top-level tasks. */
  void *units;
};

/* The allocation holding the byte at p, or NULL: replicated memory. Takes no
 * lock (a binary search in a table published through an atomic pointer);
 * safe from any thread, concurrently with dag_alloc and dag_free. */
const struct dag_allocation *dag__dist_find(const void *p);

/* Whether region r crosses the edge of dag_alloc memory: its first and
 * last bytes lie in different allocations, or one in an allocation and the
 * other outside any (then *first and *last say which, NULL for outside).
 * As cheap as dag__dist_find when r is nowhere near dag_alloc memory. */
bool dag__dist_crossed(const struct region *r,
                       const struct dag_allocation **first,
                       const struct dag_allocation **last);

/* Changes whenever an allocation comes or goes (never repeats before
 * dag__dist_release): what dag__dist_find answered stays true while it is
 * the same. */
const void *dag__dist_version(void);

/* The home rank of the byte `offset` bytes into a, in [0, dag__nranks). */
int dag__dist_home(const struct dag_allocation *a, size_t offset);

/* The pure function behind dag__dist_home, for any number of ranks (d must
 * be valid as dag_alloc checks it). An OWNER function that answers outside
 * [0, nranks) is a user error: reported once, and rank 0 is used instead. */
int dag__dist_home_for(const struct dag_dist *d, size_t offset, int nranks);

/* The bytes [*begin, *end) of the contiguous run of one home around
 * `offset` (< a->bytes), as offsets into a: BLOCK, the block; 2D, the
 * block's segment of the row; OWNER, the unit. Clipped to the allocation.
 * Walk a region by home with offset = *end. */
void dag__dist_block(const struct dag_allocation *a, size_t offset,
                     size_t *begin, size_t *end);

/* Gives back the physical pages wholly inside [p, p + bytes) (dag_alloc
 * memory: a copy this rank no longer needs); they read as zero afterwards. */
void dag__dist_discard(void *p, size_t bytes);

/* At dag_finalize: unmaps every allocation and frees the registry. */
void dag__dist_release(void);

/* -------------------------------------------------------------- comm.c */

/* How the ranks of a run talk: one table per transport. The core calls the
 * dag__comm_* wrappers, never a table directly; backend.c picks the table. */
/* A transfer or collective finished: called on the transport's progress
 * thread, which must not block in it. */
typedef void (*dag_comm_done_fn)(void *arg);

struct dag_comm_ops {
  const char *name;
  /* Joins the run: sets this process's rank and the number of ranks, and
   * its rank among the `node_ranks` ranks on its machine. Returns 0 or a
   * DAG_E* code (with a message). */
  int (*start)(int *rank, int *nranks, int *node_rank, int *node_ranks);
  /* Leaves the run; the transport is not used afterwards. */
  void (*stop)(void);
  /* Starts moving the bytes of `r` (this rank's copy) to rank `peer`, or
   * receiving them from it, matched by `tag`; calls done(arg) when the
   * local buffer may be reused. Never blocks. */
  void (*send)(const struct region *r, int peer, uint64_t tag,
               dag_comm_done_fn done, void *arg);
  void (*recv)(const struct region *r, int peer, uint64_t tag,
               dag_comm_done_fn done, void *arg);
  /* Collective, from the thread that submits tasks: every rank gives
   * `value`; `all` (nranks entries) gets everyone's. Blocks. */
  void (*allgather)(uint64_t value, uint64_t *all);
  /* Stops every rank of the run with status 1; does not return. */
  void (*abort_all)(void);
  /* From an idle worker: moves what is in flight along (completions call
   * their done functions) if no other thread is at it. Returns true if
   * anything started or finished. */
  bool (*poll)(void);
};

/* One process, no transport: rank 0 of 1. */
extern const struct dag_comm_ops dag__comm_self;
/* The poll of a transport whose operations finish when they start. */
bool dag__comm_nothing_to_poll(void);
/* MPI (mpi.c), when libdag was built with it. */
extern const struct dag_comm_ops dag__comm_mpi;
/* Whether this process runs under MPI (mpi.c). */
bool dag__mpi_wanted(void);
/* One rank of a larger run, played alone (simulate.c): DAG_SIMULATE_RANKS. */
extern const struct dag_comm_ops dag__comm_simulated;
bool dag__simulating(void);

/* This process's rank and the number of ranks, and its place among the
 * ranks of its machine, set by dag__comm_start. */
extern int dag__rank, dag__nranks, dag__node_rank, dag__node_ranks;

int dag__comm_start(void);
void dag__comm_stop(void);
void dag__comm_send(const struct region *r, int peer, uint64_t tag,
                    dag_comm_done_fn done, void *arg);
void dag__comm_recv(const struct region *r, int peer, uint64_t tag,
                    dag_comm_done_fn done, void *arg);
void dag__comm_allgather(uint64_t value, uint64_t *all);
_Noreturn void dag__comm_abort_all(void);
bool dag__comm_poll(void);

/* ----------------------------------------------------------- uniform.c */

/* Whether top-level tasks go through rank-uniform planning: several ranks,
 * and the caller is the program (not a task body: children run where their
 * parent runs). */
bool dag__uniform_active(void);
/* Plans a top-level task on every rank: placement, transfers, bookkeeping;
 * submits it locally (dag__submit_local) on the rank that runs it. regs and
 * modes are its n accesses acc, validated (kept of them). */
void dag__uniform_submit(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct dag_access *acc, size_t n,
                         const struct region *regs, const enum dag_mode *modes,
                         size_t kept);
/* dag__uniform_submit for a task without accesses. */
void dag__uniform_submit_plain(const struct dag_task_info *info,
                               dag_task_fn body, const void *args,
                               size_t args_size);
/* dag__uniform_submit for a task whose accesses (valid, acc as written)
 * were all seen before, without validating them again; false if one was
 * not, and nothing is done. */
bool dag__uniform_submit_known(const struct dag_task_info *info,
                               dag_task_fn body, const void *args,
                               size_t args_size, const struct dag_access *acc,
                               size_t n);
/* taskwait of the program: flushes written data (unless !flush), checks
 * that the ranks agree, waits. */
int dag__uniform_taskwait(bool flush);
/* Checks that the ranks agree on the tasks submitted so far, before a wait
 * (`where` names it in the message). */
void dag__uniform_check(const char *where);
/* taskwait on: makes the regions valid on every rank, checks agreement. */
void dag__uniform_collect(const struct region *regs, size_t n);
/* dag_free: the units of [base, base + bytes) are forgotten (units.c). */
void dag__units_forget(const void *base, size_t bytes);
/* The messages this rank has planned to send and to receive. */
void dag__uniform_messages(uint64_t *sent_messages,
                           uint64_t *received_messages);
/* DAG_STATS: this rank's share of the tasks and of the messages. */
void dag__uniform_write_stats(void);
void dag__uniform_release(void);

/* ----------------------------------------------------------- backend.c */

/* The transport for this run: the simulation when DAG_SIMULATE_RANKS is
 * set; MPI when libdag was built with it and the program runs under MPI;
 * else dag__comm_self. */
const struct dag_comm_ops *dag__comm_backend(void);

/* -------------------------------------------------------------- init.c */

/* Starts the runtime if it is not running. Returns 0 or a DAG_E* code. */
int dag__ensure_started(void);
/* Whether the runtime runs (started, not finalized). */
bool dag__started(void);

extern atomic_uint_fast64_t dag__next_task_id;

#endif /* DAG_INTERNAL_H */
