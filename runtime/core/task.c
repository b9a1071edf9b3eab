/* task.c — task records: submission, edges, running, completion, taskwait.
 *
 * A task counts its unfinished predecessors (`pending`, plus one while it
 * is being built) and its unfinished work (`unfinished`: its own body plus
 * its children). Its successors hang off a lock-free stack that completion
 * closes; a predecessor found complete while linking is simply skipped.
 * Where the successors a completion releases go, and when a submitter
 * runs a task itself, is the policy's (policy.h).
 *
 * References: one for the execution, one per history record. The record of
 * the last reference goes back to the pool.
 */
#include "core/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct task dag__root_task;
atomic_uint_fast64_t dag__next_task_id = 1;

static DAG_THREAD_LOCAL struct task *current;

struct task *dag__current_task(void) {
  return current ? current : &dag__root_task;
}

/* The hook of dag__current_task_hooked: one for every task (it is the api
 * layer's), stored by each call, alike. */
static _Atomic(void (*)(void)) body_end_hook_fn;

/* The record of a task that lasts past its submitter's frame: t itself,
 * unless t runs inline on the stack (run_inline), which is then promoted to
 * a pooled record first, and so are the inline tasks it runs inside. */
static struct task *lasting(struct task *t);

struct task *dag__current_task_hooked(void (*at_body_end)(void)) {
  atomic_store_explicit(&body_end_hook_fn, at_body_end, memory_order_relaxed);
  struct task *t = lasting(current);
  t->flags |= TASK_BODY_HOOK;
  return t;
}

/* t's body returned and asked for the hook: it runs with t current, so
 * that what it submits are t's children. */
static void body_end_hook(struct task *t) {
  struct task *saved = current;
  current = t;
  t->flags &= (uint16_t)~TASK_BODY_HOOK;
  atomic_load_explicit(&body_end_hook_fn, memory_order_relaxed)();
  current = saved;
}

bool dag__current_task_where(char *buf, size_t size) {
  if (!current || current == &dag__root_task)
    return false;
  dag__task_where(buf, size, current->label, current->file, current->line);
  return true;
}

void dag__core_graph_transfer(bool send, int peer, uint64_t tag,
                              uint64_t bytes) {
  if (dag__graphing)
    dag__graph_transfer(dag__current_task()->id, send, peer, tag, bytes);
}

/* t's node in the graph (obs/graph.c). */
static void graph_node(const struct task *t) {
  dag__graph_node(t->id, t->parent->id, t->label, t->file, t->line);
}

bool dag__task_descends(const struct task *t, const struct task *ancestor) {
  for (const struct task *p = t->parent; p; p = p->parent)
    if (p == ancestor)
      return true;
  return false;
}

void dag__task_unref(struct task *t) {
  if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
    return;
  dag__task_free_locks(t); /* the arguments went when the body ended */
  dag__pool_put(t->flags & TASK_SMALL ? POOL_TASK_SMALL : POOL_TASK, t);
}

/* Whether pred's newest edge leads to succ: then succ is linked already,
 * through another access. Only the thread submitting succ pushes edges onto
 * its predecessors now (siblings come from one thread), so no other edge
 * can have come on top of it. If pred completes meanwhile and the edge is
 * reused, its new successor cannot be succ, which nothing else knows yet. */
static bool linked_already(struct edge *head, struct task *succ) {
  return head && head != DAG_SUCC_CLOSED &&
         atomic_load_explicit(&head->succ, memory_order_relaxed) == succ;
}

static DAG_ALWAYS_INLINE void link(struct task *pred, struct task *succ) {
  struct edge *head = atomic_load_explicit(&pred->succ, memory_order_acquire);
  if (linked_already(head, succ))
    return;
  struct edge *e = dag__pool_get(POOL_EDGE);
  if (!e)
    dag__out_of_memory("task edges");
  atomic_store_explicit(&e->succ, succ, memory_order_relaxed);
  atomic_fetch_add_explicit(&succ->pending, 1, memory_order_relaxed);
  do {
    if (head == DAG_SUCC_CLOSED) {
      /* pred completed meanwhile: nothing to wait for. */
      atomic_fetch_sub_explicit(&succ->pending, 1, memory_order_relaxed);
      dag__pool_put(POOL_EDGE, e);
      return;
    }
    e->next = head;
  } while (!atomic_compare_exchange_weak_explicit(
      &pred->succ, &head, e, memory_order_release, memory_order_acquire));
  if (unlikely(dag__edge_hook))
    dag__edge_hook(pred, succ);
}

void dag__task_link(struct task *pred, struct task *succ) { link(pred, succ); }

void dag__task_link_graphed(struct task *pred, struct task *succ) {
  dag__graph_edge(pred->id, succ->id); /* duplicates go when it is written */
  link(pred, succ);
}

/* Drops one predecessor of t; the last one gone makes t ready: the worker
 * keeps it to run next (*next), hands it to a waiting one, or queues it. */
static void drop_pending(struct worker *w, struct task *t, struct task **next) {
  if (atomic_fetch_sub_explicit(&t->pending, 1, memory_order_acq_rel) != 1)
    return;
  if (policy_keeps_released(t, *next))
    *next = t;
  else if (!(policy_hands_off(w, t) && dag__handoff_give(w, t)))
    dag__sched_push(w, t);
}

/* t's body and all its children are done: release its successors, forget
 * its children's history, and complete its parent if t was the last thing
 * it waited for. Returns a released successor to run next, or NULL. */
static struct task *complete(struct worker *w, struct task *t) {
  struct task *next = NULL;
  for (;;) {
    if (t->children) {
      dag__deps_free(t->children);
      t->children = NULL;
    }
    /* Commutative exclusion lasts until the children are done too. */
    if (t->locks)
      dag__task_unlock(t);
    struct edge *e = atomic_exchange_explicit(&t->succ, DAG_SUCC_CLOSED,
                                              memory_order_acq_rel);
    while (e) {
      struct edge *following = e->next;
      drop_pending(w, atomic_load_explicit(&e->succ, memory_order_relaxed),
                   &next);
      dag__pool_put(POOL_EDGE, e);
      e = following;
    }
    struct task *parent = t->parent;
    dag__task_unref(t);
    if (policy_yields_to_urgent(next)) {
      dag__sched_push(w, next);
      next = NULL;
    }
    int left =
        atomic_fetch_sub_explicit(&parent->unfinished, 1, memory_order_acq_rel);
    if (left <= 2) /* no child left, or the parent done: a waiter's end */
      dag__sched_nudge();
    if (left != 1)
      return next;
    t = parent; /* its body ended earlier; t was its last child */
  }
}

/* Where t's arguments are (see struct task). */
static void *task_args(struct task *t) {
  if (!(t->flags & TASK_ARGS_POOLED))
    return t->args_inline;
  void *block;
  memcpy(&block, t->args_inline, sizeof block);
  return block;
}

/* Edges are pushed at the head, each built before it is published, and
 * go back to the pool only when t completes; a successor is built whole
 * before its first edge is pushed, and does not run before t completes. */
void dag__task_each_successor(struct task *t,
                              void (*fn)(dag_task_fn body, void *args,
                                         void *arg),
                              void *arg) {
  struct edge *e = atomic_load_explicit(&t->succ, memory_order_acquire);
  for (; e && e != DAG_SUCC_CLOSED; e = e->next) {
    struct task *s = atomic_load_explicit(&e->succ, memory_order_relaxed);
    fn(s->fn, task_args(s), arg);
  }
}

/* Ends t's own part: if no child is left, t is complete. */
static struct task *finish_body(struct worker *w, struct task *t) {
  if (t->flags & TASK_ARGS_POOLED) {
    dag__args_free(task_args(t), t->args_size);
    t->flags &= (uint16_t)~TASK_ARGS_POOLED;
  }
  int mine = 1 + t->credits;
  t->credits = 0;
  if (atomic_fetch_sub_explicit(&t->unfinished, mine, memory_order_acq_rel) !=
      mine)
    return NULL;
  return complete(w, t);
}

/* Timing (stats, traces): a body's busy time leaves out the bodies and
 * help loops nested in it, which count for themselves, so that a waiting
 * body is not busy twice. Returns the nested time of the caller's frame. */
uint64_t dag__nested_enter(struct worker *w) {
  uint64_t outer = w->nested_ns;
  w->nested_ns = 0;
  return outer;
}

uint64_t dag__nested_leave(struct worker *w, uint64_t outer, uint64_t ns) {
  uint64_t own = ns - w->nested_ns;
  w->nested_ns = outer + ns;
  return own;
}

/* A task to run now, in the submitting thread, and its accesses. */
struct submission {
  const struct dag_task_info *info;
  dag_task_fn fn; /* the body chosen among fn and the variants */
  const void *args;
  size_t args_size;
  const struct region *regs;
  const enum dag_mode *modes;
  size_t n;
  unsigned flags;
};

/* Runs t's body; s: its submission, when it runs inline (else NULL).
 * DAG_CHECK_ITEMS watches it on the timed path, which it turns on: no
 * test of its own here. */
static DAG_ALWAYS_INLINE void run_body(struct worker *w, struct task *t,
                                       void *args, const struct submission *s) {
  bool sampled = policy_samples(w);
  bool timed = sampled || (w && dag__timing);
  uint64_t t0 = 0, outer = 0;
  if (unlikely(timed)) {
    outer = dag__nested_enter(w);
    if (dag__guarding) {
      if (s)
        dag__guard_enter(t, s->info, s->regs, s->modes, s->n);
      else
        dag__guard_enter(t, NULL, NULL, NULL, 0);
    }
    t0 = dag__now_ns();
  }
  struct task *saved = current;
  current = t;
  t->fn(args);
  current = saved;
  if (w)
    w->stats.tasks++;
  if (unlikely(timed)) {
    uint64_t t1 = dag__now_ns();
    if (dag__guarding)
      dag__guard_leave(t);
    uint64_t own = dag__nested_leave(w, outer, t1 - t0);
    w->stats.busy_ns += own;
    if (sampled)
      dag__grain_note(t->fn, t1 - t0);
    if (dag__tracing)
      dag__trace_task(w->trace,
                      &(struct trace_event){t0, t1, own, t->id, t->label,
                                            t->file, t->line});
  }
}

struct task *dag__task_run(struct worker *w, struct task *t) {
  if (unlikely(t->flags & TASK_STAMPED))
    dag__handoff_note(w, t);
  if (t->locks && !dag__task_try_lock(t))
    return NULL;      /* parked until a commutative sibling finishes */
  t->children = NULL; /* no longer a link: see struct task */
  run_body(w, t, task_args(t), NULL);
  if (unlikely(t->flags & TASK_BODY_HOOK))
    body_end_hook(t);
  return finish_body(w, t);
}

/* ------------------------------------------------------------ submission */

/* Inlined: defer() is its hot caller. */
static DAG_ALWAYS_INLINE struct task *new_task(const struct dag_task_info *info,
                                               dag_task_fn fn, const void *args,
                                               size_t args_size) {
  bool small = args_size <= DAG_ARGS_SMALL;
  struct task *t = dag__pool_get(small ? POOL_TASK_SMALL : POOL_TASK);
  if (!t)
    dag__out_of_memory("task records");
  t->fn = fn;
  t->label = info->label;
  t->file = info->file;
  t->line = info->line;
  t->priority = info->priority;
  t->flags = small ? TASK_SMALL : 0;
  t->args_size = (uint32_t)args_size;
  void *copy = t->args_inline;
  if (args_size > DAG_ARGS_INLINE) {
    copy = dag__args_alloc(args_size);
    if (!copy)
      dag__out_of_memory("task arguments");
    memcpy(t->args_inline, &copy, sizeof copy);
    t->flags |= TASK_ARGS_POOLED;
  }
  if (args_size)
    memcpy(copy, args, args_size);
  atomic_init(&t->succ, NULL);
  atomic_init(&t->pending, 1);
  atomic_init(&t->unfinished, 1);
  t->credits = 0;
  t->inline_left = 0;
  atomic_init(&t->refs, 1);
  t->link = NULL;
  t->locks = NULL;
  t->id =
      atomic_fetch_add_explicit(&dag__next_task_id, 1, memory_order_relaxed);
  return t;
}

/* Counts a new child of parent in `unfinished`. The thread running the
 * parent's body takes credits for CHILD_CREDITS children at once, so that
 * it does not write the counter that completing children decrement on other
 * cores once per task; unused credits go back when the body ends or waits. */
static void count_child(struct task *parent) {
  if (parent->credits == 0) {
    int before = atomic_fetch_add_explicit(&parent->unfinished, CHILD_CREDITS,
                                           memory_order_relaxed);
    parent->credits = CHILD_CREDITS;
    /* The count comes for free here: look whether we are far ahead. */
    if (policy_far_ahead(before - 1))
      parent->inline_left = CHILD_CREDITS;
  }
  parent->credits--;
}

static bool has_children(void *t) {
  return atomic_load_explicit(&((struct task *)t)->unfinished,
                              memory_order_acquire) > 1;
}

/* Waits, running other tasks, until t (whose body the caller runs) has no
 * unfinished child. */
static DAG_ALWAYS_INLINE void wait_for_children(struct task *t) {
  if (!t->credits && !has_children(t))
    return;
  if (t->credits) {
    /* The body still runs, so this never brings the count to zero. */
    atomic_fetch_sub_explicit(&t->unfinished, t->credits, memory_order_relaxed);
    t->credits = 0;
  }
  dag__core_help_while(has_children, t);
}

int dag__wait_children(void) {
  struct task *t = dag__current_task();
  wait_for_children(t);
  t->inline_left = 0; /* no child is left to be ahead of */
  if (t->children)
    dag__deps_clear(t->children);
  /* The history is gone: the graph says that every later child comes after
   * every earlier one. */
  if (unlikely(dag__graphing))
    dag__graph_wait(
        t->id,
        atomic_fetch_add_explicit(&dag__next_task_id, 1, memory_order_relaxed),
        false);
  if (unlikely(dag__guarding))
    dag__guard_waited(t);
  return 0;
}

/* Argument blocks up to this size are copied on the stack to run inline. */
#define INLINE_ARGS_MAX DAG_CORE_PLAIN_ARGS

/* s, an inline task on the stack, is about to defer a child, which will
 * outlive s's frame: a pooled record takes s's place from now on, counted
 * as a child of s's parent, so that s's submitter need not wait for its
 * children (run_inline). */
static void promote(struct task *s) {
  struct task *parent = lasting(s->parent);
  struct task *p = dag__pool_get(POOL_TASK_SMALL);
  if (!p)
    dag__out_of_memory("task records");
  p->fn = s->fn;
  p->parent = parent;
  p->children = NULL; /* s has none: only defer() makes a history */
  p->locks = NULL;
  if (dag__naming) {
    p->label = s->label;
    p->file = s->file;
    p->line = s->line;
    p->id = s->id;
  } else {
    p->label = p->file = NULL;
    p->line = 0;
    p->id = 0;
  }
  p->priority = 0;
  p->flags = TASK_SMALL;
  p->args_size = 0; /* s's body runs with the arguments it has */
  atomic_init(&p->succ, NULL);
  atomic_init(&p->pending, 1); /* never scheduled: it runs already */
  atomic_init(&p->unfinished, 1);
  atomic_init(&p->refs, 1);
  p->credits = 0;
  p->inline_left = 0;
  count_child(parent);
  s->flags |= TASK_PROMOTED;
  s->promoted = p;
  if (current == s)
    current = p;
}

static struct task *lasting(struct task *t) {
  if (likely(!(t->flags & TASK_ON_STACK)))
    return t;
  if (!(t->flags & TASK_PROMOTED))
    promote(t);
  return t->promoted;
}

/* The body of p, a promoted inline task, has returned while children of it
 * run on: later siblings must wait for p as for any task, so p's accesses
 * join its parent's history now, as if p had been deferred (nothing was
 * submitted in between, and what p depends on is complete). Commutative
 * accesses go in as inout, since p holds no commutative lock. */
static void register_promoted(struct task *p, const struct submission *s) {
  struct task *parent = p->parent;
  if (!parent->children)
    parent->children = dag__deps_new();
  for (size_t i = 0; i < s->n; i++) {
    enum dag_mode mode =
        s->modes[i] == DAG_COMMUTATIVE ? DAG_INOUT : s->modes[i];
    dag__deps_add(parent->children, p, &s->regs[i], &mode, 1);
  }
}

/* Ends the body of t, run inline: a promoted t completes when its last
 * child does, without its submitter waiting. */
static void finish_inline(struct worker *w, struct task *t,
                          const struct submission *s) {
  struct task *p = t->promoted;
  if (unlikely(p->flags & TASK_BODY_HOOK))
    body_end_hook(p); /* first: it may submit children */
  /* The body's share still keeps p from completing meanwhile. */
  bool children_left =
      atomic_load_explicit(&p->unfinished, memory_order_acquire) >
      1 + p->credits;
  if (children_left && s->n > 0)
    register_promoted(p, s);
  struct task *next = finish_body(w, p);
  if (next)
    dag__sched_push(w, next);
}

/* Runs s in the calling thread: once the earlier tasks it depends on are
 * complete (running other tasks meanwhile), and before returning. Unless
 * its body defers a child, it is complete when later siblings come, so it
 * needs no record, no edge and no pool memory: the path of undeferred
 * tasks, of taskwait on a list, and of a submitter that is far ahead of the
 * workers. Commutative accesses wait for earlier commutative siblings like
 * inout does, which excludes them. */
static DAG_ALWAYS_INLINE void run_inline(struct worker *w, struct task *parent,
                                         const struct submission *s) {
  if (s->n > 0 && parent->children)
    dag__deps_wait(parent->children, s->regs, s->modes, s->n);
  if (s->flags & TASK_WAIT_ONLY)
    return;

  _Alignas(16) char small_args[INLINE_ARGS_MAX];
  /* Only what a running body and its children use: this path is hot for
   * tiny tasks, and zeroing the whole record would cost a third of it.
   * Nothing links to t (it is complete before any sibling comes, or
   * promoted), so its successor list, pending count, references and
   * priority stay unset; its names and id only serve traces and graphs. */
  struct task t;
  t.fn = s->fn;
  t.parent = parent;
  t.children = NULL;
  t.locks = NULL;
  t.flags = TASK_ON_STACK;
  t.credits = 0;
  t.inline_left = 0;
  atomic_init(&t.unfinished, 1);
  if (unlikely(dag__naming)) {
    t.label = s->info->label;
    t.file = s->info->file;
    t.line = s->info->line;
    t.id =
        atomic_fetch_add_explicit(&dag__next_task_id, 1, memory_order_relaxed);
    if (dag__graphing)
      graph_node(&t);
  }
  void *args = small_args;
  if (s->args_size) {
    if (s->args_size > sizeof small_args &&
        !(args = dag__args_alloc(s->args_size)))
      dag__out_of_memory("task arguments");
    memcpy(args, s->args, s->args_size);
  }

  run_body(w, &t, args, s);
  if (w)
    w->stats.inlined++;
  /* Had the body of t promoted its parent, this frame goes on as the
   * parent's body: it is the promoted record now. */
  if (unlikely(parent->flags & TASK_PROMOTED))
    current = parent->promoted;
  if (unlikely(t.flags & TASK_PROMOTED))
    finish_inline(w, &t, s);
  if (args != small_args)
    dag__args_free(args, s->args_size);
}

/* t's accesses in its parent's history: t, a child of parent, depends on
 * the earlier children its accesses overlap. */
static inline void add_accesses(struct task *parent, struct task *t,
                                const struct submission *s) {
  if (!parent->children)
    parent->children = dag__deps_new();
  dag__deps_add(parent->children, t, s->regs, s->modes, s->n);
}

/* t's node and its accesses, t a child of parent, while the graph is
 * recorded: linked to complete tasks too, for the graph's edges. */
static __attribute__((noinline)) void
graph_child(struct task *parent, struct task *t, const struct submission *s) {
  if (s->flags & TASK_WAIT_ONLY)
    dag__graph_wait(parent->id, t->id, true);
  else
    graph_node(t);
  if (s->n == 0)
    return;
  if (!parent->children)
    parent->children = dag__deps_new();
  dag__deps_add_graphed(parent->children, t, s->regs, s->modes, s->n);
}

/* t, deferred, while the graph is recorded (graph_child) or its items are
 * kept for its body (DAG_CHECK_ITEMS): both, or the usual accesses. */
static __attribute__((noinline)) void
note_deferred(struct task *parent, struct task *t, const struct submission *s) {
  if (dag__guarding)
    dag__guard_keep(t, s->info, s->regs, s->modes, s->n);
  if (dag__graphing)
    graph_child(parent, t, s);
  else if (s->n > 0)
    add_accesses(parent, t, s);
}

/* Submits s as a task of its own: it runs on some worker once the tasks it
 * depends on complete. */
static void defer(struct worker *w, struct task *parent,
                  const struct submission *s) {
  parent = lasting(parent);
  struct task *t = new_task(s->info, s->fn, s->args, s->args_size);
  t->parent = parent;
  count_child(parent);
  if (unlikely(dag__noting_deferred))
    note_deferred(parent, t, s);
  else if (s->n > 0)
    add_accesses(parent, t, s);
  if (atomic_fetch_sub_explicit(&t->pending, 1, memory_order_acq_rel) == 1)
    dag__sched_push(w, t);
}

static bool has_predecessors(void *t) {
  return atomic_load_explicit(&((struct task *)t)->pending,
                              memory_order_acquire) > 1;
}

/* run_inline while the graph is recorded: an undeferred task (or a
 * taskwait on a list, which runs nothing) leaves no record there, so
 * neither its edges nor its successors' would be in the graph. Here it is
 * a task record in its parent's history, as if deferred, and runs in the
 * submitting thread once its predecessors are complete, as run_inline
 * runs it. Commutative accesses go in as inout: it holds no lock, and
 * waits for earlier commutative siblings instead. */
static __attribute__((noinline)) void
run_graphed(struct worker *w, struct task *parent, const struct submission *s) {
  parent = lasting(parent);
  struct task *t = new_task(s->info, s->fn, s->args, s->args_size);
  t->parent = parent;
  count_child(parent);
  enum dag_mode few[16], *modes = few;
  if (s->n > 16 && !(modes = malloc(s->n * sizeof *modes)))
    dag__out_of_memory("task accesses");
  for (size_t i = 0; i < s->n; i++)
    modes[i] = s->modes[i] == DAG_COMMUTATIVE ? DAG_INOUT : s->modes[i];
  note_deferred(parent, t,
                &(struct submission){s->info, s->fn, s->args, s->args_size,
                                     s->regs, modes, s->n, s->flags});
  if (modes != few)
    free(modes);
  /* Its pending count keeps the one of its building: nothing queues it. */
  dag__core_help_while(has_predecessors, t);
  struct task *next =
      s->flags & TASK_WAIT_ONLY ? finish_body(w, t) : dag__task_run(w, t);
  if (next)
    dag__sched_push(w, next);
}

/* Submits a task whose accesses are validated (regs and modes, n of them).
 * Inlined into its few callers: the calls cost a sixth of a tiny task. */
static DAG_ALWAYS_INLINE void
submit_validated(const struct dag_task_info *info, dag_task_fn fn,
                 const void *args, size_t args_size, const struct region *regs,
                 const enum dag_mode *modes, size_t n, unsigned flags) {
  struct submission s = {
      info, fn,    args, args_size,
      regs, modes, n,    flags | (info->flags & DAG_TASK_UNDEFERRED)};
  struct worker *w = dag__self();
  struct task *parent = dag__current_task();
  if (unlikely(s.flags & TASK_UNDEFERRED) && unlikely(dag__graphing)) {
    struct submission graphed = s;
    run_graphed(w, parent, &graphed);
  } else if ((s.flags & TASK_UNDEFERRED) ||
             (!(s.flags & TASK_NO_INLINE) &&
              policy_runs_inline(w, parent, fn, args_size <= INLINE_ARGS_MAX,
                                 regs, modes, n))) {
    run_inline(w, parent, &s);
  } else {
    /* A copy for defer(), which is not inlined: s itself then stays in
     * registers on the inline path. */
    struct submission deferred = s;
    defer(w, parent, &deferred);
  }
}

void dag__core_submit(const struct dag_task_info *info, dag_task_fn body,
                      const void *args, size_t args_size,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t n, unsigned flags) {
  submit_validated(info, body, args, args_size, regs, modes, n, flags);
}

/* The plain task, in a function of its own: the general path's frame (its
 * regions on the stack, all six saved registers) cost an empty task about
 * a sixth of its instructions. Telling the compiler that the arguments fit
 * the stack buffer drops the heap-argument code from the path. */
__attribute__((noinline)) int
dag__core_submit_plain(const struct dag_task_info *info, dag_task_fn body,
                       const void *args, size_t args_size) {
  if (args_size > INLINE_ARGS_MAX)
    __builtin_unreachable();
  submit_validated(info, body, args, args_size, NULL, NULL, 0, 0);
  return 0;
}

struct task *dag__task_hold(void) {
  /* An undeferred task runs inline on its submitter's stack: held, it
   * outlives that frame, so it is promoted as when it defers a child, and
   * its later siblings wait for it through its parent's history. */
  struct task *t = lasting(current);
  atomic_fetch_add_explicit(&t->unfinished, 1, memory_order_relaxed);
  return t;
}

void dag__task_release(struct task *t) {
  if (atomic_fetch_sub_explicit(&t->unfinished, 1, memory_order_acq_rel) != 1)
    return;
  struct task *next = complete(NULL, t);
  if (next)
    dag__sched_push(NULL, next);
}

static const struct dag_task_info wait_info = {.label = "taskwait on"};

void dag__core_wait_on(const struct region *regs, const enum dag_mode *modes,
                       size_t n) {
  submit_validated(&wait_info, NULL, NULL, 0, regs, modes, n,
                   TASK_UNDEFERRED | TASK_WAIT_ONLY);
  if (unlikely(dag__guarding))
    dag__guard_waited(dag__current_task());
}
