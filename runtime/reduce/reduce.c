/* reduce.c — task reductions (DAG_REDUCTION accesses): their groups, the
 * private copies, and how the copies combine, on one rank or several.
 *
 * A group is the run of sibling tasks (top-level ones, or the children of
 * one task body) that reduce into the same region with the same operator
 * and type. Each of its tasks works on a private copy of the region, a
 * slot: its access becomes inout on the slot, and the pointers of its
 * argument block into the region move to the slot. Every rank has S
 * slots, S the fewest workers any rank has, and its tasks of the group
 * take them in turn: the tasks of a slot run one after another in
 * submission order, those of different slots in parallel, and the result
 * depends only on the order of the tasks, the ranks and S.
 *
 * Everything else is ordinary tasks, which the core orders and, under
 * MPI, the planner places and moves: a task that fills a slot with the
 * operator's identity before its first use; and, when the group ends,
 * a task on each rank that folds its slots into its first, tasks that
 * combine the ranks' first slots along a binary tree, and one that folds
 * the result into the region. The slots of top-level groups are dag_alloc
 * memory, slot (r, k) homed on rank r, so a rank commits only its own
 * slots and those it receives in the tree; they go back to a pool when
 * the group ends. Children of a task run on its rank: their slots are
 * this rank's memory, freed by a last task of the group.
 *
 * The groups of top-level tasks are the program's thread's alone (its
 * submissions, its waits, dag_free), as it alone drives the planner. Those
 * of a body's children are its thread's, in a scope that the body's
 * return ends (dag__current_task_hooked), as its taskwait does.
 */
#include "reduce/reduce.h"
#include "plan/dist.h"
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

struct slot_memory {
  char *base;
  size_t stride; /* bytes per slot: a multiple of the page size, or for
                    a body's children of a cache line */
  int ranks;     /* ranks with slots: dag__nranks, or 1 for children */
  int count;     /* slots: ranks x slots per rank */
};

struct group {
  struct region item; /* the region reduced into, on this rank */
  enum dag_mode mode; /* DAG_REDUCE(op, type) */
  struct slot_memory mem;
  uint64_t *tasks; /* per rank: the group's tasks placed there so far */
};

/* The groups open among the children of one context. */
struct scope {
  struct group *open;
  size_t nopen, cap;
  struct task *owner;  /* the task whose children these are */
  struct scope *outer; /* nested scopes: the one below on this thread */
};

static struct scope top;             /* the program's: top-level tasks */
_Atomic size_t dag__reductions_open; /* see reduce.h */
/* The scope of the innermost body on this thread that has one: bodies
 * nest on a thread (a waiting body runs others), so their scopes do. */
static DAG_THREAD_LOCAL struct scope *innermost;
static struct slot_memory *pool; /* slot memory of ended top-level groups */
static size_t npool, cap_pool;
static int slots_per_rank; /* S; 0 until the first top-level group */

/* ---------------------------------------------------------- task bodies */

struct fill_args {
  enum dag_mode mode;
  struct region slot;
};

static void fill_span(uintptr_t lo, uintptr_t hi, void *arg) {
  enum dag_mode mode = *(const enum dag_mode *)arg;
  dag__reduce_identity(dag__reduce_op_of(mode), dag__reduce_type_of(mode),
                       (void *)lo, hi - lo);
}

static void fill_body(void *p) {
  struct fill_args *a = p;
  dag__region_each_span(&a->slot, fill_span, &a->mode);
}

/* into op= each source, in order: the sources are copies of into's shape
 * at into's address plus their delta. */
struct combine_args {
  enum dag_mode mode;
  struct region into;
  int nfrom;
  ptrdiff_t from_delta[];
};

struct combine_span_arg {
  const struct combine_args *a;
  ptrdiff_t delta;
};

static void combine_span(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct combine_span_arg *c = arg;
  dag__reduce_combine(dag__reduce_op_of(c->a->mode),
                      dag__reduce_type_of(c->a->mode), (void *)lo,
                      (const void *)(lo + (uintptr_t)c->delta), hi - lo);
}

static void combine_body(void *p) {
  const struct combine_args *a = p;
  for (int i = 0; i < a->nfrom; i++)
    dag__region_each_span(&a->into, combine_span,
                          &(struct combine_span_arg){a, a->from_delta[i]});
}

/* The slots of a body's children, once the last combine has read them. */
static void free_body(void *p) { free(*(void **)p); }

static const struct dag_task_info fill_info = {.fn = fill_body,
                                               .label = "reduction identity"};
static const struct dag_task_info combine_info = {.fn = combine_body,
                                                  .label = "reduction combine"};
static const struct dag_task_info free_info = {
    .fn = free_body, .label = "reduction copies freed"};

/* ---------------------------------------------------------------- slots */

/* r moved by delta bytes. */
static struct region shifted(const struct region *r, ptrdiff_t delta) {
  struct region s = *r;
  s.lo += (uintptr_t)delta;
  s.hi += (uintptr_t)delta;
  return s;
}

/* From the item to its copy in slot k of rank r, the (k * ranks + r)-th
 * slot: dag_dist_block_cyclic deals the slots to the ranks in turn. A copy
 * starts its slot, page-aligned and at the same address on every rank (the
 * item's own address is a rank's own when it is replicated memory); a
 * body's children have one rank's slots, each on cache lines of its
 * own. */
static ptrdiff_t slot_delta(const struct group *g, int rank, int k) {
  uintptr_t slot = (uintptr_t)g->mem.base +
                   (size_t)(k * g->mem.ranks + rank) * g->mem.stride;
  return (ptrdiff_t)(slot - g->item.lo);
}

/* S: alike on every rank for top-level groups; this rank's workers for a
 * body's children, which run here. */
static int slots_per_rank_of(const struct scope *s) {
  if (s != &top)
    return dag__workers_count();
  if (!slots_per_rank) {
    int workers = dag__workers_count();
    slots_per_rank =
        dag__nranks > 1 ? (int)dag__comm_least((uint64_t)workers) : workers;
  }
  return slots_per_rank;
}

/* Slot memory of scope s for regions of `extent` bytes: for top-level
 * groups from the pool or new dag_alloc memory, else from malloc. */
static struct slot_memory take_slots(const struct scope *s, size_t extent) {
  if (s != &top) {
    size_t line = 64, stride = (extent + line - 1) / line * line;
    int count = slots_per_rank_of(s);
    void *base = aligned_alloc(line, stride * (size_t)count);
    if (!base)
      dag__out_of_memory("the private copies of a reduction");
    return (struct slot_memory){base, stride, 1, count};
  }
  size_t page = 4096;
  size_t stride = (extent + page - 1) / page * page;
  int count = slots_per_rank_of(s) * dag__nranks;
  for (size_t i = 0; i < npool; i++)
    if (pool[i].stride >= stride && pool[i].count == count) {
      struct slot_memory m = pool[i];
      pool[i] = pool[--npool];
      return m;
    }
  struct dag_dist dist = {
      .kind = DAG_DIST_BLOCK_CYCLIC, .elem = stride, .block = 1};
  void *base =
      dag__dist_alloc(stride * (size_t)count, dist, __FILE__, __LINE__);
  if (!base)
    dag__out_of_memory("the private copies of a reduction");
  return (struct slot_memory){base, stride, dag__nranks, count};
}

/* ------------------------------------------------------- the task graph */

/* A task of the reduction's own: its accesses are right by making. */
static void submit_own(const struct dag_task_info *info, const void *args,
                       size_t size, const struct region *regs,
                       const enum dag_mode *modes, size_t n) {
  dag__submit_validated(info, info->fn, args, size, regs, modes, n);
}

/* Done with the slots of an ended group of scope s: back to the pool, or
 * freed by a task after those that read them. */
static void put_slots(const struct scope *s, struct slot_memory m) {
  if (s != &top) {
    uintptr_t lo = (uintptr_t)m.base;
    struct region all = {.lo = lo,
                         .hi = lo + m.stride * (size_t)m.count,
                         .span = m.stride * (size_t)m.count};
    submit_own(&free_info, &m.base, sizeof m.base, &all,
               &(enum dag_mode){DAG_INOUT}, 1);
    return;
  }
  if (npool == cap_pool) {
    cap_pool = cap_pool ? 2 * cap_pool : 4;
    pool = realloc(pool, cap_pool * sizeof *pool);
    if (!pool)
      dag__out_of_memory("the pool of reduction copies");
  }
  pool[npool++] = m;
}

/* into op= the copies at from_delta[0..nfrom), in that order. */
static void combine(const struct group *g, const struct region *into,
                    const ptrdiff_t *from_delta, int nfrom) {
  size_t size = sizeof(struct combine_args) + (size_t)nfrom * sizeof(ptrdiff_t);
  struct combine_args *a = malloc(size);
  struct region *regs = malloc((size_t)(nfrom + 1) * sizeof *regs);
  enum dag_mode *modes = malloc((size_t)(nfrom + 1) * sizeof *modes);
  if (!a || !regs || !modes)
    dag__out_of_memory("a reduction's combining task");
  a->mode = g->mode;
  a->into = *into;
  a->nfrom = nfrom;
  regs[0] = *into;
  modes[0] = DAG_INOUT;
  for (int i = 0; i < nfrom; i++) {
    a->from_delta[i] = from_delta[i];
    regs[i + 1] = shifted(into, from_delta[i]);
    modes[i + 1] = DAG_IN;
  }
  submit_own(&combine_info, a, size, regs, modes, (size_t)nfrom + 1);
  free(a);
  free(regs);
  free(modes);
}

/* Ends group g of scope s (taken out of the open ones): the copies
 * combine into the item, each rank's first, then the ranks' along a
 * tree. */
static void end_group(const struct scope *s, struct group *g) {
  int S = slots_per_rank_of(s), nranks = g->mem.ranks;
  int *ranks = malloc((size_t)nranks * sizeof *ranks);
  ptrdiff_t *deltas = malloc((size_t)S * sizeof *deltas);
  if (!ranks || !deltas)
    dag__out_of_memory("ending a reduction");
  int m = 0;
  for (int r = 0; r < nranks; r++) {
    if (!g->tasks[r])
      continue;
    ranks[m++] = r;
    int used = g->tasks[r] < (uint64_t)S ? (int)g->tasks[r] : S;
    if (used == 1)
      continue;
    struct region first = shifted(&g->item, slot_delta(g, r, 0));
    for (int k = 1; k < used; k++)
      deltas[k - 1] = slot_delta(g, r, k) - slot_delta(g, r, 0);
    combine(g, &first, deltas, used - 1);
  }
  for (int d = 1; d < m; d *= 2)
    for (int i = 0; i + d < m; i += 2 * d) {
      struct region into = shifted(&g->item, slot_delta(g, ranks[i], 0));
      ptrdiff_t delta =
          slot_delta(g, ranks[i + d], 0) - slot_delta(g, ranks[i], 0);
      combine(g, &into, &delta, 1);
    }
  if (m) {
    ptrdiff_t delta = slot_delta(g, ranks[0], 0);
    combine(g, &g->item, &delta, 1);
  }
  free(ranks);
  free(deltas);
  free(g->tasks);
  put_slots(s, g->mem);
}

static void set_open(struct scope *s, size_t n) {
  if (s == &top)
    atomic_fetch_add_explicit(&dag__reductions_open, n - s->nopen,
                              memory_order_relaxed);
  s->nopen = n;
}

/* Ends open group i of s; the last open one takes its place, alike on
 * every rank. */
static void end_open_group(struct scope *s, size_t i) {
  struct group g = s->open[i];
  s->open[i] = s->open[s->nopen - 1];
  set_open(s, s->nopen - 1);
  end_group(s, &g);
}

static struct group *find_group(const struct scope *s, const struct region *r,
                                enum dag_mode mode) {
  for (size_t i = 0; i < s->nopen; i++)
    if (s->open[i].mode == mode && dag__region_same(&s->open[i].item, r))
      return &s->open[i];
  return NULL;
}

static struct group *open_group(struct scope *s, const struct region *r,
                                enum dag_mode mode) {
  if (s->nopen == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4;
    s->open = realloc(s->open, s->cap * sizeof *s->open);
    if (!s->open)
      dag__out_of_memory("reduction groups");
  }
  struct group *g = &s->open[s->nopen];
  *g = (struct group){*r, mode, take_slots(s, r->hi - r->lo), NULL};
  g->tasks = calloc((size_t)g->mem.ranks, sizeof *g->tasks);
  if (!g->tasks)
    dag__out_of_memory("a reduction group");
  set_open(s, s->nopen + 1);
  return g;
}

/* ------------------------------------------------------------- scopes */

/* The scope of the calling context's children, if it has one. */
static struct scope *scope_here(void) {
  struct task *t = dag__current_task();
  if (t == &dag__root_task)
    return &top;
  return innermost && innermost->owner == t ? innermost : NULL;
}

/* Ends every group of s; a body's scope goes with them. */
static void end_scope(struct scope *s) {
  while (s->nopen)
    end_open_group(s, 0);
  if (s == &top)
    return;
  innermost = s->outer;
  atomic_fetch_sub_explicit(&dag__reductions_open, 1, memory_order_relaxed);
  free(s->open);
  free(s);
}

/* A body with a scope returned (dag__current_task_hooked): the scope
 * ends. */
static void body_ended(void) {
  struct scope *s = scope_here();
  if (s)
    end_scope(s);
}

/* The scope of the calling context's children, made if it has none: a
 * body's is keyed to its lasting record, which stays current until the
 * body ends. */
static struct scope *scope_made_here(void) {
  struct scope *s = scope_here();
  if (s)
    return s;
  s = calloc(1, sizeof *s);
  if (!s)
    dag__out_of_memory("reduction groups");
  s->owner = dag__current_task_hooked(body_ended);
  s->outer = innermost;
  innermost = s;
  atomic_fetch_add_explicit(&dag__reductions_open, 1, memory_order_relaxed);
  return s;
}

/* ------------------------------------------------------------ interface */

/* Moves the listed pointers of args into r by delta. */
static void move_pointers(const struct dag_task_info *info, char *args,
                          const struct region *r, ptrdiff_t delta) {
  for (int j = 0; j < info->npointers; j++)
    for (size_t c = 0; c < info->pointers[j].count; c++) {
      char *at = args + info->pointers[j].offset + c * sizeof(uintptr_t);
      uintptr_t p;
      memcpy(&p, at, sizeof p);
      if (p >= r->lo && p < r->hi) {
        p += (uintptr_t)delta;
        memcpy(at, &p, sizeof p);
      }
    }
}

/* The rank the task runs on (its column of slots): where its other
 * accesses place it when the planner places it; a body's children and
 * the tasks of a lone rank have one column. */
static int placed_on(const struct dag_task_info *info,
                     const struct region *regs, const enum dag_mode *modes,
                     size_t n, struct region *others, enum dag_mode *modes_of) {
  if (!dag__planned())
    return 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!dag__is_reduction(modes[i])) {
      others[m] = regs[i];
      modes_of[m++] = modes[i];
    }
  return dag__plan_place(info, others, modes_of, m);
}

/* Ends the groups of s that access (r, mode) touches other than as the
 * same reduction. */
static void end_touched(struct scope *s, const struct region *r,
                        enum dag_mode mode) {
  for (size_t i = 0; i < s->nopen;) {
    const struct group *g = &s->open[i];
    bool same = mode == g->mode && dag__region_same(&g->item, r);
    if (!same && dag__region_overlap(&g->item, r))
      end_open_group(s, i);
    else
      i++;
  }
}

/* The task's accesses, each reduction on a private copy of its item. */
static void submit_on_copies(const struct dag_task_info *info, dag_task_fn body,
                             const void *args, size_t args_size,
                             const struct region *regs,
                             const enum dag_mode *modes, size_t n) {
  /* DAG_CHECK_ITEMS: the regions the core gets are not the items as
   * written (a slot stands for each reduced item), so the check's message
   * numbers them instead. */
  struct dag_task_info bare;
  if (unlikely(dag__guarding)) {
    bare = *info;
    bare.items = NULL;
    info = &bare;
  }
  struct scope *s = scope_made_here();
  struct region *tregs = malloc(n * sizeof *tregs);
  enum dag_mode *tmodes = malloc(n * sizeof *tmodes);
  char *targs = malloc(args_size ? args_size : 1);
  if (!tregs || !tmodes || !targs)
    dag__out_of_memory("a reduction task");
  memcpy(targs, args, args_size);
  int exec = placed_on(info, regs, modes, n, tregs, tmodes);
  int S = slots_per_rank_of(s);
  for (size_t i = 0; i < n; i++) {
    tregs[i] = regs[i];
    tmodes[i] = modes[i];
    if (!dag__is_reduction(modes[i]))
      continue;
    struct group *g = find_group(s, &regs[i], modes[i]);
    if (!g)
      g = open_group(s, &regs[i], modes[i]);
    uint64_t k = g->tasks[exec]++ % (uint64_t)S;
    ptrdiff_t delta = slot_delta(g, exec, (int)k);
    tregs[i] = shifted(&regs[i], delta);
    tmodes[i] = DAG_INOUT;
    if (g->tasks[exec] <= (uint64_t)S) { /* the slot's first use */
      struct fill_args fill = {g->mode, tregs[i]};
      submit_own(&fill_info, &fill, sizeof fill, &tregs[i],
                 &(enum dag_mode){DAG_OUT}, 1);
    }
    move_pointers(info, targs, &regs[i], delta);
  }
  dag__submit_validated(info, body, targs, args_size, tregs, tmodes, n);
  free(tregs);
  free(tmodes);
  free(targs);
}

void dag__reduce_submit(const struct dag_task_info *info, dag_task_fn body,
                        const void *args, size_t args_size,
                        const struct region *regs, const enum dag_mode *modes,
                        size_t n) {
  struct scope *s = scope_here();
  bool reduces = false;
  for (size_t i = 0; i < n; i++) {
    if (s)
      end_touched(s, &regs[i], modes[i]);
    reduces |= dag__is_reduction(modes[i]);
  }
  if (reduces)
    submit_on_copies(info, body, args, args_size, regs, modes, n);
  else
    dag__submit_validated(info, body, args, args_size, regs, modes, n);
}

bool dag__reduce_scope_open(void) {
  const struct scope *s = scope_here();
  return s && s->nopen;
}

void dag__reduce_end_overlapping(const struct region *regs, size_t n) {
  struct scope *s = scope_here();
  for (size_t a = 0; s && a < n; a++)
    for (size_t i = 0; i < s->nopen;)
      if (dag__region_overlap(&s->open[i].item, &regs[a]))
        end_open_group(s, i);
      else
        i++;
}

void dag__reduce_end_all(void) {
  struct scope *s = scope_here();
  if (s)
    end_scope(s);
}

void dag__reduce_release(void) {
  free(top.open);
  free(pool);
  top = (struct scope){0};
  pool = NULL;
  dag__reductions_open = 0; /* no body runs: no scope is open */
  npool = cap_pool = 0;
  slots_per_rank = 0;
}
