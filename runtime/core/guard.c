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
 * Locking: `lock` guards everything but what the handler touches: the
 * protected runs (published before they are protected; the generation
 * before stays readable, for a fault that raced its disarming), the claim
 * table (compare-and-swap), the snapshot slots (an atomic counter). The
 * handler takes no lock and calls no malloc.
 */
#include "comm/comm.h"
#include "core/internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

bool dag__guarding;

/* Pages one body may dirty with a snapshot each (1 GiB of 4 KiB pages,
 * reserved, committed as used); beyond, pages are unprotected unchecked. */
#define MAX_DIRTY ((size_t)1 << 18)
#define CLAIM_SLOTS ((size_t)1 << 20) /* a power of two above 2 MAX_DIRTY */
#define MAX_RUNS ((size_t)1 << 20)
#define MAX_FRAMES 256
#define KEPT_BUCKETS 4096

/* [lo, hi): bytes, or pages when page aligned. */
struct run {
  uintptr_t lo, hi;
};

struct runs {
  struct run *at;
  size_t n, cap;
};

static size_t page;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous; /* the SIGSEGV action before ours */

/* ---------------------------------------------- what the handler reads */

static struct run *published[2]; /* two generations of protected runs */
static _Atomic size_t npublished[2];
static atomic_int live = -1;   /* the armed generation, -1: none */
static atomic_int before = -1; /* the one disarmed last */
static _Atomic uintptr_t *claims;
static uintptr_t *dirty; /* the page of each snapshot slot */
static char *snapshots;
static atomic_size_t ndirty;    /* slots taken */
static atomic_size_t unchecked; /* pages unprotected without a snapshot */
static atomic_int handling;     /* handlers running */

static size_t reserved_bytes(void) {
  return MAX_DIRTY * page + MAX_DIRTY * sizeof *dirty +
         CLAIM_SLOTS * sizeof *claims + 2 * MAX_RUNS * sizeof(struct run);
}

static const struct run *run_holding(const struct run *r, size_t n,
                                     uintptr_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a < r[mid].lo)
      hi = mid;
    else if (a >= r[mid].hi)
      lo = mid + 1;
    else
      return &r[mid];
  }
  return NULL;
}

static bool in_runs(const struct run *r, size_t n, uintptr_t a) {
  return run_holding(r, n, a) != NULL;
}

static void say_and_die(const char *what) {
  ssize_t ignored = write(2, what, strlen(what));
  (void)ignored;
  _exit(1);
}

/* Where the claim table's search for page p starts. */
static size_t claim_slot(uintptr_t p) {
  return (size_t)((p / page) * 0x9e3779b97f4a7c15ull >> 20) & (CLAIM_SLOTS - 1);
}

/* Page p, of the armed runs, is about to be written: snapshots it once and
 * makes it writable. From the handler (any thread) or transfer_begin. */
static void claim(uintptr_t p) {
  size_t h = claim_slot(p);
  bool recorded = false;
  for (size_t probe = 0; probe < CLAIM_SLOTS; probe++) {
    uintptr_t seen = 0;
    if (atomic_compare_exchange_strong(&claims[h], &seen, p)) {
      recorded = true;
      break;
    }
    if (seen == p)
      return; /* its claimant makes it writable: the write tries again */
    h = (h + 1) & (CLAIM_SLOTS - 1);
  }
  size_t slot = recorded ? atomic_fetch_add(&ndirty, 1) : MAX_DIRTY;
  if (slot < MAX_DIRTY) {
    memcpy(snapshots + slot * page, (const void *)p, page);
    dirty[slot] = p;
  } else {
    atomic_fetch_add(&unchecked, 1);
  }
  if (!mprotect((void *)p, page, PROT_READ | PROT_WRITE))
    return;
  /* Too many mappings (a protected run split page by page): the whole
   * run becomes writable, the rest of it unchecked. */
  int g = atomic_load(&live);
  const struct run *r =
      g < 0 ? NULL : run_holding(published[g], atomic_load(&npublished[g]), p);
  atomic_fetch_add(&unchecked, 1);
  if (!r || mprotect((void *)r->lo, r->hi - r->lo, PROT_READ | PROT_WRITE))
    say_and_die("dag: error: DAG_CHECK_ITEMS: cannot make a watched page "
                "writable again\n");
}

/* A fault that is not ours: as if the guard were not there. The previous
 * action comes back, and the faulting access, tried again, meets it (a
 * real crash dies of SIGSEGV, or reaches the program's or MPI's handler);
 * a SIGSEGV sent by someone is sent again. */
static void not_ours(int sig, siginfo_t *si) {
  sigaction(SIGSEGV, &previous, NULL);
  if (si->si_code <= 0)
    raise(sig);
}

/* A thread's faults in a page disarmed a moment ago, in a row: a few, while
 * the disarming goes on; many, and the page is protected by someone else. */
static DAG_THREAD_LOCAL uintptr_t stale_at;
static DAG_THREAD_LOCAL unsigned stale_count;
#define STALE_MOST 10000

static void on_fault(int sig, siginfo_t *si, void *context) {
  (void)context;
  int saved_errno = errno;
  atomic_fetch_add(&handling, 1);
  uintptr_t a = (uintptr_t)si->si_addr;
  bool ours = false;
  if (si->si_code == SEGV_ACCERR) {
    int g = atomic_load(&live), b = atomic_load(&before);
    if (g >= 0 && in_runs(published[g], atomic_load(&npublished[g]), a)) {
      claim(a & ~(uintptr_t)(page - 1));
      ours = true;
    } else if (b >= 0 &&
               in_runs(published[b], atomic_load(&npublished[b]), a)) {
      /* Protected a moment ago, writable now: try again. */
      stale_count = stale_at == a ? stale_count + 1 : 0;
      stale_at = a;
      ours = stale_count < STALE_MOST;
    }
  }
  atomic_fetch_sub(&handling, 1);
  if (!ours)
    not_ours(sig, si);
  errno = saved_errno;
}

/* ------------------------------------------------------------ intervals */

static void runs_push(struct runs *v, uintptr_t lo, uintptr_t hi) {
  if (lo >= hi)
    return;
  v->at = dag__grow(v->at, &v->cap, v->n, sizeof *v->at, "DAG_CHECK_ITEMS");
  v->at[v->n++] = (struct run){lo, hi};
}

static int by_lo(const void *a, const void *b) {
  uintptr_t x = ((const struct run *)a)->lo, y = ((const struct run *)b)->lo;
  return (x > y) - (x < y);
}

/* Sorts v and merges what overlaps or touches. */
static void runs_merge(struct runs *v) {
  if (v->n < 2)
    return;
  qsort(v->at, v->n, sizeof *v->at, by_lo);
  size_t k = 0;
  for (size_t i = 1; i < v->n; i++) {
    if (v->at[i].lo <= v->at[k].hi) {
      if (v->at[i].hi > v->at[k].hi)
        v->at[k].hi = v->at[i].hi;
    } else {
      v->at[++k] = v->at[i];
    }
  }
  v->n = k + 1;
}

/* out = a minus b (both merged). */
static void runs_subtract(const struct runs *a, const struct runs *b,
                          struct runs *out) {
  size_t j = 0;
  for (size_t i = 0; i < a->n; i++) {
    uintptr_t lo = a->at[i].lo, hi = a->at[i].hi;
    while (j < b->n && b->at[j].hi <= lo)
      j++;
    for (size_t k = j; k < b->n && b->at[k].lo < hi; k++) {
      runs_push(out, lo, b->at[k].lo);
      if (b->at[k].hi > lo)
        lo = b->at[k].hi;
    }
    runs_push(out, lo, hi);
  }
}

static uintptr_t page_down(uintptr_t a) { return a & ~(uintptr_t)(page - 1); }
static uintptr_t page_up(uintptr_t a) { return page_down(a + page - 1); }

static void push_span(uintptr_t lo, uintptr_t hi, void *v) {
  runs_push(v, lo, hi);
}

/* The pages holding r's bytes. */
static void push_pages(uintptr_t lo, uintptr_t hi, void *v) {
  runs_push(v, page_down(lo), page_up(hi));
}

/* ---------------------------------------------------------------- state */

/* A task's items, kept for the guard: its name and regions. */
struct items {
  uint64_t id, scope; /* scope: the id of the context that submitted it */
  const char *label, *file;
  int line;
  const char *const *texts; /* info->items, one per region, or NULL */
  size_t n;
  struct region *regs;
  enum dag_mode *modes;
  /* As messages name it: the planner's count for a top-level task of
   * several ranks (the same on every rank), else this rank's (the core's
   * id: children, sends and receives count too). */
  uint64_t number;
};

struct kept {
  const struct task *task;
  struct items *items;
  struct kept *next;
};

/* A body being checked (the top frame), or waiting for a child's. */
struct frame {
  const struct task *task;
  struct items *items;
  pthread_t thread;
  struct region *seen; /* receives in flight while it was armed */
  size_t nseen, cap_seen;
};

/* A noted interval of replicated memory, and who noted it. */
struct noted {
  uintptr_t lo, hi;
  uint64_t scope;
};

/* A mapping of /proc/self/maps: watched only if writable. */
struct mapping {
  uintptr_t lo, hi;
  bool writable;
};

/* Under lock: */
static struct kept *kept[KEPT_BUCKETS];
static struct frame frames[MAX_FRAMES];
static int depth;
static size_t skipped;     /* bodies not checked: another thread's, too deep */
static struct runs allocs; /* dag_alloc memory, whole pages */
/* Per entry of allocs, what messages name it by: its size and the
 * program's dag_alloc call (file NULL: unknown). */
struct alloc_name {
  size_t bytes;
  const char *file;
  int line;
};
static struct alloc_name *alloc_names;
static size_t cap_alloc_names;
static struct noted *noted;
static size_t nnoted, cap_noted;
static bool noted_changed;
static struct runs replicated;       /* declared intervals, merged */
static struct runs replicated_pages; /* their watchable whole pages */
static struct region *inflight;
static size_t ninflight, cap_inflight;
static struct runs stacks;
static struct mapping *maps;
static size_t nmaps, cap_maps;

static DAG_THREAD_LOCAL bool stack_noted;

/* ------------------------------------------------------------- mappings */

static void read_maps(void) {
  nmaps = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8] = "";
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
      continue;
    maps = dag__grow(maps, &cap_maps, nmaps, sizeof *maps, "DAG_CHECK_ITEMS");
    maps[nmaps++] =
        (struct mapping){lo, hi,
                         perms[0] == 'r' && perms[1] == 'w' &&
                             perms[2] != 'x' && !strstr(line, "[stack")};
  }
  fclose(f);
}

/* Adds to out the writable parts of [lo, hi) (pages); false if part of it
 * lies in no mapping known. */
static bool writable_parts(uintptr_t lo, uintptr_t hi, struct runs *out) {
  uintptr_t at = lo;
  for (size_t i = 0; i < nmaps && at < hi; i++) {
    if (maps[i].hi <= at)
      continue;
    if (maps[i].lo > at)
      return false;
    uintptr_t end = maps[i].hi < hi ? maps[i].hi : hi;
    if (maps[i].writable)
      runs_push(out, at, end);
    at = end;
  }
  return at >= hi;
}

/* The whole pages of the declared replicated intervals that may be
 * watched, from the noted ones. */
static void rebuild_replicated(void) {
  replicated.n = 0;
  for (size_t i = 0; i < nnoted; i++)
    runs_push(&replicated, noted[i].lo, noted[i].hi);
  runs_merge(&replicated);
  replicated_pages.n = 0;
  bool fresh = false;
  for (size_t i = 0; i < replicated.n; i++) {
    uintptr_t lo = page_up(replicated.at[i].lo);
    uintptr_t hi = page_down(replicated.at[i].hi);
    if (lo >= hi)
      continue;
    size_t mark = replicated_pages.n;
    if (!writable_parts(lo, hi, &replicated_pages) && !fresh) {
      replicated_pages.n = mark; /* a mapping made since: read them again */
      read_maps();
      fresh = true;
      writable_parts(lo, hi, &replicated_pages);
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
  runs_push(&allocs, (uintptr_t)base, page_up((uintptr_t)base + bytes));
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

static void claim_span(uintptr_t lo, uintptr_t hi, void *arg) {
  (void)arg;
  int g = atomic_load(&live);
  for (uintptr_t p = page_down(lo); g >= 0 && p < hi; p += page)
    if (in_runs(published[g], atomic_load(&npublished[g]), p))
      claim(p);
}

void dag__guard_transfer_begin(const struct region *r) {
  pthread_mutex_lock(&lock);
  inflight = dag__grow(inflight, &cap_inflight, ninflight, sizeof *inflight,
                       "DAG_CHECK_ITEMS");
  inflight[ninflight++] = *r;
  if (atomic_load(&live) >= 0) {
    frame_saw(&frames[depth - 1], r);
    dag__region_each_span(r, claim_span, NULL);
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

/* ------------------------------------------------------ arm and disarm */

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
    runs_push(&stacks, page_down((uintptr_t)addr),
              page_up((uintptr_t)addr + size));
  pthread_attr_destroy(&attr);
  runs_merge(&stacks);
}

/* Protects the watched memory for the top frame's body. */
static void arm(void) {
  note_stack();
  if (noted_changed)
    rebuild_replicated();
  struct runs watched = {0}, exclude = {0}, protect = {0};
  for (size_t i = 0; i < allocs.n; i++)
    runs_push(&watched, allocs.at[i].lo, allocs.at[i].hi);
  for (size_t i = 0; i < replicated_pages.n; i++)
    runs_push(&watched, replicated_pages.at[i].lo, replicated_pages.at[i].hi);
  runs_merge(&watched);
  for (size_t i = 0; i < stacks.n; i++)
    runs_push(&exclude, stacks.at[i].lo, stacks.at[i].hi);
  struct frame *f = &frames[depth - 1];
  for (size_t i = 0; i < ninflight; i++) {
    dag__region_each_span(&inflight[i], push_pages, &exclude);
    frame_saw(f, &inflight[i]);
  }
  runs_merge(&exclude);
  runs_subtract(&watched, &exclude, &protect);
  if (protect.n > MAX_RUNS)
    protect.n = MAX_RUNS; /* the rest unwatched */
  int g = atomic_load(&before) == 0 ? 1 : 0;
  if (protect.n)
    memcpy(published[g], protect.at, protect.n * sizeof *protect.at);
  atomic_store(&npublished[g], protect.n);
  atomic_store(&live, g);
  static bool warned;
  for (size_t i = 0; i < protect.n; i++)
    if (mprotect((void *)protect.at[i].lo, protect.at[i].hi - protect.at[i].lo,
                 PROT_READ) &&
        !warned) {
      warned = true;
      dag__log(DAG_LOG_WARN,
               "DAG_CHECK_ITEMS: cannot protect %zu bytes at %p (%s): they "
               "are not checked",
               (size_t)(protect.at[i].hi - protect.at[i].lo),
               (void *)protect.at[i].lo, strerror(errno));
    }
  free(watched.at);
  free(exclude.at);
  free(protect.at);
}

/* Makes everything writable again and forgets the snapshots. */
static void disarm(void) {
  int g = atomic_load(&live);
  if (g < 0)
    return;
  size_t n = atomic_load(&npublished[g]);
  for (size_t i = 0; i < n; i++)
    /* ENOMEM: the memory went meanwhile (a body freed it). */
    if (mprotect((void *)published[g][i].lo,
                 published[g][i].hi - published[g][i].lo,
                 PROT_READ | PROT_WRITE) &&
        errno != ENOMEM)
      DAG_BUG("mprotect: %s", strerror(errno));
  atomic_store(&before, g);
  atomic_store(&live, -1);
  while (atomic_load(&handling))
    sched_yield();
  size_t used = atomic_load(&ndirty);
  if (atomic_load(&unchecked) || used > MAX_DIRTY) {
    memset((void *)claims, 0, CLAIM_SLOTS * sizeof *claims);
  } else {
    /* Clearing breaks the probe chains of the entries left: the search
     * goes past empty slots, and in the end none is left. */
    for (size_t i = 0; i < used; i++) {
      size_t h = claim_slot(dirty[i]);
      while (atomic_load(&claims[h]) != dirty[i])
        h = (h + 1) & (CLAIM_SLOTS - 1);
      atomic_store(&claims[h], 0);
    }
  }
  atomic_store(&ndirty, 0);
  atomic_store(&unchecked, 0);
}

/* ---------------------------------------------------------- the check */

struct finding {
  struct runs bad;  /* bytes written outside the items */
  size_t bad_bytes; /* their count */
  size_t in_bytes;  /* of them, in the task's own in items */
  size_t unchecked; /* pages written that were not compared */
};

/* Adds [a, b) minus `allowed` to f->bad, counting the bytes and those in
 * `ins`; a rises from call to call. */
static void add_bad(struct finding *f, const struct runs *allowed,
                    const struct runs *ins, uintptr_t a, uintptr_t b) {
  if (f->bad.n && a < f->bad.at[f->bad.n - 1].hi)
    a = f->bad.at[f->bad.n - 1].hi; /* counted already */
  if (a >= b)
    return;
  struct runs pieces = {0};
  runs_subtract(&(struct runs){&(struct run){a, b}, 1, 1}, allowed, &pieces);
  for (size_t i = 0; i < pieces.n; i++) {
    uintptr_t lo = pieces.at[i].lo, hi = pieces.at[i].hi;
    f->bad_bytes += hi - lo;
    if (f->bad.n && f->bad.at[f->bad.n - 1].hi == lo)
      f->bad.at[f->bad.n - 1].hi = hi;
    else
      runs_push(&f->bad, lo, hi);
    struct runs outside = {0};
    runs_subtract(&(struct runs){&pieces.at[i], 1, 1}, ins, &outside);
    size_t n = 0;
    for (size_t k = 0; k < outside.n; k++)
      n += outside.at[k].hi - outside.at[k].lo;
    f->in_bytes += (hi - lo) - n;
    free(outside.at);
  }
  free(pieces.at);
}

/* A changed byte outside the items stands for the aligned word around it
 * (less what the items hold): a double whose low bytes stay zero was
 * written whole, and bytes named one by one would read as noise. */
#define WORD 8

/* The changed bytes [lo, hi): what lies outside `allowed` goes into f->bad,
 * by words. */
static void blame(struct finding *f, const struct runs *allowed,
                  const struct runs *ins, uintptr_t lo, uintptr_t hi) {
  struct runs exact = {0};
  runs_subtract(&(struct runs){&(struct run){lo, hi}, 1, 1}, allowed, &exact);
  for (size_t i = 0; i < exact.n; i++)
    add_bad(f, allowed, ins, exact.at[i].lo & ~(uintptr_t)(WORD - 1),
            (exact.at[i].hi + WORD - 1) & ~(uintptr_t)(WORD - 1));
  free(exact.at);
}

static int by_page(const void *a, const void *b) {
  uintptr_t x = dirty[*(const size_t *)a], y = dirty[*(const size_t *)b];
  return (x > y) - (x < y);
}

static bool writes(enum dag_mode m) { return dag__unshaped(m) != DAG_IN; }

/* Compares the dirty pages of the top frame's body with their snapshots. */
static void compare(struct frame *fr, struct finding *f) {
  while (atomic_load(&handling))
    sched_yield();
  size_t n = atomic_load(&ndirty);
  if (n > MAX_DIRTY)
    n = MAX_DIRTY;
  f->unchecked = atomic_load(&unchecked);
  if (!n)
    return;
  struct runs allowed = {0}, ins = {0};
  const struct items *it = fr->items;
  for (size_t i = 0; i < it->n; i++)
    dag__region_each_span(&it->regs[i], push_span,
                          writes(it->modes[i]) ? &allowed : &ins);
  for (size_t i = 0; i < fr->nseen; i++)
    dag__region_each_span(&fr->seen[i], push_span, &allowed);
  runs_merge(&allowed);
  runs_merge(&ins);
  size_t *order = malloc(n * sizeof *order);
  if (!order)
    dag__out_of_memory("DAG_CHECK_ITEMS");
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  qsort(order, n, sizeof *order, by_page);
  for (size_t k = 0; k < n; k++) {
    uintptr_t p = dirty[order[k]];
    const unsigned char *now = (const unsigned char *)p;
    const unsigned char *then =
        (const unsigned char *)snapshots + order[k] * page;
    /* A body may have freed (unmapped) what it wrote. */
    if (msync((void *)p, page, MS_ASYNC))
      continue;
    size_t i = 0;
    while (i < page) {
      if (i % 64 == 0 && i + 64 <= page && !memcmp(now + i, then + i, 64)) {
        i += 64;
        continue;
      }
      if (now[i] == then[i]) {
        i++;
        continue;
      }
      size_t j = i + 1;
      while (j < page && now[j] != then[j])
        j++;
      blame(f, &allowed, &ins, p + i, p + j);
      i = j;
    }
  }
  free(order);
  free(allowed.at);
  free(ins.at);
}

/* ------------------------------------------------------------- messages */

struct text {
  char *s;
  size_t n, size;
};

static void say(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct text *t, const char *fmt, ...) {
  if (t->n + 1 >= t->size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->n, t->size - t->n, fmt, ap);
  va_end(ap);
  if (k > 0)
    t->n = t->n + (size_t)k < t->size ? t->n + (size_t)k : t->size - 1;
}

/* The memory holding a, as messages name it: its start, its size, and
 * "dag_alloc memory" or "replicated memory". */
static void area_of(uintptr_t a, uintptr_t *base, size_t *bytes,
                    bool *distributed) {
  const struct run *r = run_holding(allocs.at, allocs.n, a);
  if (r) {
    *base = r->lo;
    *bytes = alloc_names[r - allocs.at].bytes;
    *distributed = true;
    return;
  }
  r = run_holding(replicated.at, replicated.n, a);
  *base = r ? r->lo : page_down(a);
  *bytes = r ? r->hi - r->lo : page;
  *distributed = false;
}

static void say_area(struct text *t, uintptr_t base, size_t bytes,
                     bool distributed) {
  const struct alloc_name *name =
      distributed
          ? &alloc_names[run_holding(allocs.at, allocs.n, base) - allocs.at]
          : NULL;
  if (name && name->file) /* as the planner's messages name it */
    say(t, " of the dag_alloc memory of %zu bytes allocated at %s:%d", bytes,
        name->file, name->line);
  else if (name)
    say(t, " of the dag_alloc memory at %p (%zu bytes)", (void *)base, bytes);
  else
    say(t,
        " of the replicated memory at %p (the %zu bytes tasks declare "
        "there)",
        (void *)base, bytes);
}

#define RANGES_SAID 4

static void say_bytes(struct text *t, const struct runs *bad) {
  size_t said = 0;
  for (size_t i = 0; i < bad->n;) {
    uintptr_t base;
    size_t bytes;
    bool distributed;
    area_of(bad->at[i].lo, &base, &bytes, &distributed);
    size_t end = i;
    while (end < bad->n && bad->at[end].lo >= base &&
           bad->at[end].lo <
               base + (distributed ? page_up(base + bytes) - base : bytes))
      end++;
    if (end == i)
      end = i + 1;
    say(t, "%sbytes ", i ? "; " : "");
    size_t k = i;
    for (; k < end && said < RANGES_SAID; k++, said++)
      say(t, "%s%zu..%zu", k > i ? ", " : "", (size_t)(bad->at[k].lo - base),
          (size_t)(bad->at[k].hi - 1 - base));
    if (k < end)
      say(t, " and %zu more range%s", end - k, end - k > 1 ? "s" : "");
    say_area(t, base, bytes, distributed);
    i = end;
  }
}

static const char *mode_word(enum dag_mode m) {
  switch (dag__unshaped(m) & 0xf) {
  case DAG_IN:
    return "in";
  case DAG_OUT:
    return "out";
  case DAG_INOUT:
    return "inout";
  case DAG_COMMUTATIVE:
    return "commutative";
  default:
    return "reduction";
  }
}

static void say_items(struct text *t, const struct items *it) {
  if (!it->n) {
    say(t, "; it has no items");
    return;
  }
  say(t, "; its items: ");
  for (size_t i = 0; i < it->n; i++) {
    const struct region *r = &it->regs[i];
    if (it->texts && it->texts[i])
      say(t, "%s%s(%s)", i ? ", " : "", mode_word(it->modes[i]), it->texts[i]);
    else
      say(t, "%s%s item %zu", i ? ", " : "", mode_word(it->modes[i]), i);
    uintptr_t base;
    size_t bytes;
    bool distributed;
    area_of(r->lo, &base, &bytes, &distributed);
    size_t size = dag__region_bytes(r);
    size_t rows = r->ndims ? r->dim[0].count : 1;
    say(t, " (%zu bytes", size);
    if (rows > 1)
      say(t, " in %zu rows", rows);
    if (distributed)
      say(t, " at offset %zu)", (size_t)(r->lo - base));
    else
      say(t, " at %p)", (void *)r->lo);
  }
}

/* Says what the body of the top frame wrote outside its items, and stops
 * the run. */
static noreturn void report(const struct items *it, struct finding *f) {
  char buf[2048];
  struct text t = {buf, 0, sizeof buf};
  buf[0] = 0;
  say(&t, "task %llu ", (unsigned long long)it->number);
  if (it->label && it->file)
    say(&t, "'%s' (%s:%d)", it->label, it->file, it->line);
  else if (it->file)
    say(&t, "at %s:%d", it->file, it->line);
  else
    say(&t, "'%s'", it->label ? it->label : "(unnamed)");
  if (dag__nranks > 1)
    say(&t, " on rank %d", dag__rank);
  say(&t, " wrote %zu byte%s outside its items", f->bad_bytes,
      f->bad_bytes == 1 ? "" : "s");
  if (f->in_bytes)
    say(&t, " (%zu of them in its in items, which it may only read)",
        f->in_bytes);
  say(&t, ": ");
  say_bytes(&t, &f->bad);
  say_items(&t, it);
  say(&t, "; declare every byte the body writes in an out, inout or "
          "commutative item (DAG_CHECK_ITEMS)");
  dag__log(DAG_LOG_ERROR, "%s", buf);
  /* mpiexec gets a moment to pass the line on before the run ends. */
  if (dag__nranks > 1)
    nanosleep(&(struct timespec){0, 200000000}, NULL);
  dag__comm_abort_all();
}

/* The top frame's body stopped (it returned, or a child starts): checks
 * what it wrote into *f, then makes everything writable. True if it wrote
 * outside its items: the caller reports it once it lets go of the lock
 * (the progress thread may need it to end a receive). */
static bool finish(struct finding *f) {
  struct frame *fr = &frames[depth - 1];
  compare(fr, f);
  disarm();
  if (f->unchecked) {
    static bool warned;
    if (!warned)
      dag__log(DAG_LOG_WARN,
               "DAG_CHECK_ITEMS: task %llu wrote more pages than can be "
               "checked; %zu were not",
               (unsigned long long)fr->items->number, f->unchecked);
    warned = true;
  }
  return f->bad_bytes > 0;
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
  if (depth && finish(&f)) { /* the parent's check so far */
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
  if (finish(&f)) {
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
  page = (size_t)sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, reserved_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return dag__user_error(NULL, DAG_ENOMEM,
                           "DAG_CHECK_ITEMS: cannot reserve %zu bytes for "
                           "snapshots: %s",
                           reserved_bytes(), strerror(errno));
  snapshots = m;
  m += MAX_DIRTY * page;
  dirty = (uintptr_t *)m;
  m += MAX_DIRTY * sizeof *dirty;
  claims = (_Atomic uintptr_t *)m;
  m += CLAIM_SLOTS * sizeof *claims;
  published[0] = (struct run *)m;
  published[1] = published[0] + MAX_RUNS;
  read_maps();
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_sigaction = on_fault;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGSEGV, &act, &previous)) {
    munmap(snapshots, reserved_bytes());
    return dag__user_error(NULL, DAG_EINVAL,
                           "DAG_CHECK_ITEMS: cannot catch SIGSEGV: %s",
                           strerror(errno));
  }
  dag__guarding = true;
  return 0;
}

void dag__guard_stop(void) {
  if (!dag__guarding)
    return;
  pthread_mutex_lock(&lock);
  disarm();
  dag__guarding = false;
  struct sigaction ours;
  sigaction(SIGSEGV, NULL, &ours);
  if (ours.sa_sigaction == on_fault)
    sigaction(SIGSEGV, &previous, NULL);
  atomic_store(&live, -1);
  atomic_store(&before, -1);
  munmap(snapshots, reserved_bytes());
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
  free(maps);
  allocs = replicated = replicated_pages = stacks = (struct runs){0};
  alloc_names = NULL;
  noted = NULL;
  inflight = NULL;
  maps = NULL;
  cap_alloc_names = nnoted = cap_noted = ninflight = cap_inflight = nmaps =
      cap_maps = 0;
  depth = 0;
  pthread_mutex_unlock(&lock);
}
