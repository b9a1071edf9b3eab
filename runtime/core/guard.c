/* guard.c — DAG_CHECK_ITEMS: a debug mode that catches a task body writing
 * bytes outside its items, the commonest porting mistake (under MPI only
 * the declared bytes travel, and other ranks read stale data).
 *
 * Around each body, the watched memory is made read-only (mprotect): every
 * dag_alloc allocation (plan/dist.c registers them) and the whole pages of
 * replicated memory that tasks declare (below). A write faults; the SIGSEGV
 * handler copies the page to a snapshot, marks it dirty and makes it
 * writable, and the write goes on. When the body returns, each dirty page
 * is compared with its snapshot, byte by byte: a changed byte outside the
 * task's out, inout, commutative and reduction items (and outside the
 * receives in flight meanwhile) is reported, naming the task and the
 * bytes, and the run stops. Then all of it is writable again.
 *
 * One worker runs the bodies of a rank (settings.c), so one body is
 * watched at a time. A body that waits runs its children on its own
 * thread: before a child's body, the parent's check so far is finished;
 * after it, the parent's begins anew. Each body is checked against its own
 * items. A body that another thread starts meanwhile is not checked.
 *
 * Never watched: the stack of each thread that runs bodies (an item may be
 * a local of main), read-only mappings, and the pages of receives in
 * flight: MPI writes them from another thread, and Open MPI's single-copy
 * transport writes with a system call (process_vm_readv), which fails with
 * EFAULT on a protected page instead of faulting.
 *
 * Replicated memory: the bounding intervals of the regions that tasks
 * declare outside dag_alloc memory, noted at submission (the planner notes
 * those of top-level tasks placed on other ranks too), whole pages only: a
 * page that also holds undeclared bytes may hold another object, one a
 * system call may write. Memory is freed after a wait, and a freed page
 * reused must not be watched: the intervals noted by the program are
 * forgotten when it waits (taskwait, taskwait on, dag_free), those of a
 * body's children when that body waits or returns, except those of tasks
 * still pending.
 *
 * The runtime's own tasks (sends, receives, discards, the fills and
 * combines of reductions) are checked as any: they declare what they
 * touch. A write that leaves a byte as it was is not seen. A fault outside
 * the watched pages (a real crash) meets the action that was there before
 * ours, put back, as if the guard were not there; the guard is off from
 * then on (a program that recovers from SIGSEGV has its own check no
 * more).
 *
 * This file keeps what is watched, for which body, and answers the core;
 * guard_pages.c protects the pages and catches the faults, guard_check.c
 * compares and names the culprit (guard.h).
 *
 * Locking: `lock` guards everything but what the handler touches: the
 * protected runs (published before they are protected; the generation
 * before stays readable, for a fault that raced its disarming), the claim
 * table (compare-and-swap), the snapshot slots (an atomic counter). The
 * handler takes no lock and calls no malloc.
 */
#include "core/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dag__guarding;

#define MAX_FRAMES 256
#define KEPT_BUCKETS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- state */

struct kept {
  const struct task *task;
  struct items *items;
  struct kept *next;
};

/* A noted interval of replicated memory, and who noted it. */
struct noted {
  uintptr_t lo, hi;
  uint64_t scope;
};

/* Under lock: */
static struct kept *kept[KEPT_BUCKETS];
static struct frame frames[MAX_FRAMES];
static int depth;
static size_t skipped;     /* bodies not checked: another thread's, too deep */
static struct runs allocs; /* dag_alloc memory, whole pages */
static struct alloc_name *alloc_names; /* per entry of allocs */
static size_t cap_alloc_names;
static struct noted *noted;
static size_t nnoted, cap_noted;
static bool noted_changed;
static struct runs replicated;       /* declared intervals, merged */
static struct runs replicated_pages; /* their watchable whole pages */
static struct region *inflight;
static size_t ninflight, cap_inflight;
static struct runs stacks;

static DAG_THREAD_LOCAL bool stack_noted;

/* ---------------------------------------------------- replicated memory */

/* The whole pages of the declared replicated intervals that may be
 * watched, from the noted ones. */
static void rebuild_replicated(void) {
  replicated.n = 0;
  for (size_t i = 0; i < nnoted; i++)
    dag__runs_push(&replicated, noted[i].lo, noted[i].hi);
  dag__runs_merge(&replicated);
  replicated_pages.n = 0;
  bool fresh = false;
  for (size_t i = 0; i < replicated.n; i++) {
    uintptr_t lo = page_up(replicated.at[i].lo);
    uintptr_t hi = page_down(replicated.at[i].hi);
    if (lo >= hi)
      continue;
    size_t mark = replicated_pages.n;
    if (!dag__guard_writable_parts(lo, hi, &replicated_pages) && !fresh) {
      replicated_pages.n = mark; /* a mapping made since: read them again */
      dag__guard_read_maps();
      fresh = true;
      dag__guard_writable_parts(lo, hi, &replicated_pages);
    }
  }
  noted_changed = false;
}

/* ------------------------------------------------------------ noting */

static bool in_alloc(uintptr_t a) { return in_runs(allocs.at, allocs.n, a); }

static void note(uintptr_t lo, uintptr_t hi, uint64_t scope) {
  if (lo >= hi || in_alloc(lo))
    return;
  noted =
      dag__grow(noted, &cap_noted, nnoted, sizeof *noted, "DAG_CHECK_ITEMS");
  noted[nnoted++] = (struct noted){lo, hi, scope};
  noted_changed = true;
}

static void note_items(const struct items *it) {
  for (size_t i = 0; i < it->n; i++)
    note(it->regs[i].lo, it->regs[i].hi, it->scope);
}

/* The context `scope` waited or ended: its notes go, but for its tasks
 * still pending. */
static void forget(uint64_t scope) {
  size_t k = 0;
  for (size_t i = 0; i < nnoted; i++)
    if (noted[i].scope != scope)
      noted[k++] = noted[i];
  if (k == nnoted)
    return;
  nnoted = k;
  noted_changed = true;
  for (size_t b = 0; b < KEPT_BUCKETS; b++)
    for (struct kept *e = kept[b]; e; e = e->next)
      if (e->items->scope == scope)
        note_items(e->items);
}

/* The planner's number of the next task it submits here; 0: none. */
static uint64_t next_number;

void dag__guard_number(uint64_t number) {
  pthread_mutex_lock(&lock);
  next_number = number;
  pthread_mutex_unlock(&lock);
}

/* Under lock. */
static struct items *items_new(const struct dag_task_info *info, uint64_t id,
                               uint64_t scope, const struct region *regs,
                               const enum dag_mode *modes, size_t n) {
  struct items *it = malloc(sizeof *it);
  if (!it)
    dag__out_of_memory("DAG_CHECK_ITEMS");
  *it = (struct items){.id = id,
                       .scope = scope,
                       .label = info->label,
                       .file = info->file,
                       .line = info->line,
                       .texts = info->items,
                       .n = n,
                       .number = next_number ? next_number : id};
  next_number = 0;
  if (n) {
    it->regs = malloc(n * sizeof *regs);
    it->modes = malloc(n * sizeof *modes);
    if (!it->regs || !it->modes)
      dag__out_of_memory("DAG_CHECK_ITEMS");
    memcpy(it->regs, regs, n * sizeof *regs);
    memcpy(it->modes, modes, n * sizeof *modes);
  }
  return it;
}

static void items_free(struct items *it) {
  free(it->regs);
  free(it->modes);
  free(it);
}

static size_t bucket(const struct task *t) {
  return (size_t)(((uintptr_t)t >> 4) * 0x9e3779b97f4a7c15ull >> 40) %
         KEPT_BUCKETS;
}

void dag__guard_keep(const struct task *t, const struct dag_task_info *info,
                     const struct region *regs, const enum dag_mode *modes,
                     size_t n) {
  struct kept *e = malloc(sizeof *e);
  if (!e)
    dag__out_of_memory("DAG_CHECK_ITEMS");
  pthread_mutex_lock(&lock);
  struct items *it = items_new(info, t->id, t->parent->id, regs, modes, n);
  *e = (struct kept){t, it, kept[bucket(t)]};
  kept[bucket(t)] = e;
  note_items(it);
  pthread_mutex_unlock(&lock);
}

/* The items kept for t, taken out of the table; NULL if none. */
static struct items *take(const struct task *t) {
  for (struct kept **e = &kept[bucket(t)]; *e; e = &(*e)->next)
    if ((*e)->task == t) {
      struct kept *found = *e;
      struct items *it = found->items;
      *e = found->next;
      free(found);
      return it;
    }
  return NULL;
}

void dag__guard_note(const struct region *regs, size_t n) {
  if (!dag__guarding)
    return;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < n; i++)
    note(regs[i].lo, regs[i].hi, 0);
  pthread_mutex_unlock(&lock);
}

void dag__guard_waited(const struct task *context) {
  pthread_mutex_lock(&lock);
  forget(context->id);
  pthread_mutex_unlock(&lock);
}

/* --------------------------------------------------- dag_alloc memory */

void dag__guard_watch(const void *base, size_t bytes, const char *file,
                      int line) {
  if (!dag__guarding)
    return;
  pthread_mutex_lock(&lock);
  dag__runs_push(&allocs, (uintptr_t)base, page_up((uintptr_t)base + bytes));
  alloc_names = dag__grow(alloc_names, &cap_alloc_names, allocs.n - 1,
                          sizeof *alloc_names, "DAG_CHECK_ITEMS");
  /* Keep the sizes in the order of the runs. */
  size_t i = allocs.n - 1;
  for (; i > 0 && allocs.at[i - 1].lo > (uintptr_t)base; i--) {
    allocs.at[i] = allocs.at[i - 1];
    alloc_names[i] = alloc_names[i - 1];
  }
  allocs.at[i] =
      (struct run){(uintptr_t)base, page_up((uintptr_t)base + bytes)};
  alloc_names[i] = (struct alloc_name){bytes, file, line};
  pthread_mutex_unlock(&lock);
}

void dag__guard_unwatch(const void *base) {
  if (!dag__guarding)
    return;
  pthread_mutex_lock(&lock);
  size_t k = 0;
  for (size_t i = 0; i < allocs.n; i++)
    if (allocs.at[i].lo != (uintptr_t)base) {
      alloc_names[k] = alloc_names[i];
      allocs.at[k++] = allocs.at[i];
    }
  allocs.n = k;
  pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ transfers */

static void frame_saw(struct frame *f, const struct region *r) {
  f->seen = dag__grow(f->seen, &f->cap_seen, f->nseen, sizeof *f->seen,
                      "DAG_CHECK_ITEMS");
  f->seen[f->nseen++] = *r;
}

void dag__guard_transfer_begin(const struct region *r) {
  pthread_mutex_lock(&lock);
  inflight = dag__grow(inflight, &cap_inflight, ninflight, sizeof *inflight,
                       "DAG_CHECK_ITEMS");
  inflight[ninflight++] = *r;
  if (dag__guard_armed()) {
    frame_saw(&frames[depth - 1], r);
    dag__region_each_span(r, dag__guard_claim_span, NULL);
  }
  pthread_mutex_unlock(&lock);
}

void dag__guard_transfer_end(const struct region *r) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < ninflight; i++)
    if (dag__region_same(&inflight[i], r)) {
      inflight[i] = inflight[--ninflight];
      break;
    }
  pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------------ arm */

/* The pages holding r's bytes. */
static void push_pages(uintptr_t lo, uintptr_t hi, void *v) {
  dag__runs_push(v, page_down(lo), page_up(hi));
}

static void note_stack(void) {
  if (stack_noted)
    return;
  stack_noted = true;
  pthread_attr_t attr;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &attr))
    return;
  if (!pthread_attr_getstack(&attr, &addr, &size))
    dag__runs_push(&stacks, page_down((uintptr_t)addr),
                   page_up((uintptr_t)addr + size));
  pthread_attr_destroy(&attr);
  dag__runs_merge(&stacks);
}

/* Protects the watched memory for the top frame's body. */
static void arm(void) {
  note_stack();
  if (noted_changed)
    rebuild_replicated();
  struct runs watched = {0}, exclude = {0}, protect = {0};
  for (size_t i = 0; i < allocs.n; i++)
    dag__runs_push(&watched, allocs.at[i].lo, allocs.at[i].hi);
  for (size_t i = 0; i < replicated_pages.n; i++)
    dag__runs_push(&watched, replicated_pages.at[i].lo,
                   replicated_pages.at[i].hi);
  dag__runs_merge(&watched);
  for (size_t i = 0; i < stacks.n; i++)
    dag__runs_push(&exclude, stacks.at[i].lo, stacks.at[i].hi);
  struct frame *f = &frames[depth - 1];
  for (size_t i = 0; i < ninflight; i++) {
    dag__region_each_span(&inflight[i], push_pages, &exclude);
    frame_saw(f, &inflight[i]);
  }
  dag__runs_merge(&exclude);
  dag__runs_subtract(&watched, &exclude, &protect);
  dag__guard_protect(&protect);
  free(watched.at);
  free(exclude.at);
  free(protect.at);
}

/* Says what the body whose items are `it` wrote outside them, and stops
 * the run. */
static noreturn void report(const struct items *it, struct finding *f) {
  dag__guard_report(it, f,
                    &(struct guard_areas){&allocs, alloc_names, &replicated});
}

/* ------------------------------------------------------------ interface */

void dag__guard_enter(struct task *t, const struct dag_task_info *info,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t n) {
  pthread_mutex_lock(&lock);
  struct items *it = NULL;
  if (info) { /* run inline: its accesses are at hand */
    it = items_new(info, t->id, t->parent->id, regs, modes, n);
    note_items(it);
  } else {
    it = take(t);
  }
  pthread_t self = pthread_self();
  if (!it || depth == MAX_FRAMES ||
      (depth && !pthread_equal(frames[depth - 1].thread, self))) {
    skipped += it != NULL;
    if (it)
      items_free(it);
    pthread_mutex_unlock(&lock);
    return;
  }
  struct finding f = {0};
  /* The parent's check so far. */
  if (depth && dag__guard_finish(&frames[depth - 1], &f)) {
    pthread_mutex_unlock(&lock);
    report(frames[depth - 1].items, &f);
  }
  free(f.bad.at);
  frames[depth++] = (struct frame){t, it, self, NULL, 0, 0};
  arm();
  pthread_mutex_unlock(&lock);
}

void dag__guard_leave(const struct task *t) {
  pthread_mutex_lock(&lock);
  if (!depth || frames[depth - 1].task != t ||
      !pthread_equal(frames[depth - 1].thread, pthread_self())) {
    pthread_mutex_unlock(&lock); /* a body not watched */
    return;
  }
  struct finding f = {0};
  if (dag__guard_finish(&frames[depth - 1], &f)) {
    pthread_mutex_unlock(&lock);
    report(frames[depth - 1].items, &f);
  }
  free(f.bad.at);
  struct frame *fr = &frames[--depth];
  forget(fr->items->id); /* what its children noted */
  items_free(fr->items);
  free(fr->seen);
  if (depth)
    arm(); /* the parent's body goes on */
  pthread_mutex_unlock(&lock);
}

int dag__guard_start(void) {
  int err = dag__guard_reserve();
  if (err)
    return err;
  dag__guard_read_maps();
  err = dag__guard_catch();
  if (err)
    return err;
  dag__guarding = true;
  return 0;
}

void dag__guard_stop(void) {
  if (!dag__guarding)
    return;
  pthread_mutex_lock(&lock);
  dag__guard_unprotect();
  dag__guarding = false;
  dag__guard_release();
  for (size_t b = 0; b < KEPT_BUCKETS; b++)
    while (kept[b]) {
      struct kept *e = kept[b];
      kept[b] = e->next;
      items_free(e->items);
      free(e);
    }
  if (skipped)
    dag__log(DAG_LOG_WARN,
             "DAG_CHECK_ITEMS: %zu task bodies started while another ran "
             "were not checked",
             skipped);
  skipped = 0;
  free(allocs.at);
  free(alloc_names);
  free(noted);
  free(replicated.at);
  free(replicated_pages.at);
  free(inflight);
  free(stacks.at);
  allocs = replicated = replicated_pages = stacks = (struct runs){0};
  alloc_names = NULL;
  noted = NULL;
  inflight = NULL;
  cap_alloc_names = nnoted = cap_noted = ninflight = cap_inflight = 0;
  depth = 0;
  pthread_mutex_unlock(&lock);
}
