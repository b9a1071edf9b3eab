/* deps.c — the dependency tracker: access history -> edges.
 *
 * The history of one parent's children is a set of records, one per access
 * (task, mode, region), in an index (history.c) that finds the records a
 * new access may touch in O(log n + k). Each candidate is then tested for
 * exact byte overlap (region.c).
 *
 * A new access depends on every overlapping record except read-after-read
 * and commutative-after-commutative, which share a lock instead. Records
 * are forgotten when they can no longer order anything:
 *  - a write (out/inout) that covers an older record retires it: any later
 *    access that touches those bytes touches the write too, and the write is
 *    ordered after the record;
 *  - a record whose task is complete orders nothing. Such records are
 *    dropped when a lookup meets them, and by a sweep whenever the history
 *    has doubled since the last sweep,
 * so the history holds about one record per live access, whatever the number
 * of tasks submitted before.
 *
 * While the graph is recorded (DAG_GRAPH, DAG_REPORT), dag__deps_add_graphed
 * keeps the records of complete tasks until a write retires them: a later
 * access that meets one orders nothing, but its data came from that task,
 * and the graph gets the edge (dag__task_link_graphed records it). The same
 * code with the records dropped is dag__deps_add, which pays nothing for
 * it.
 *
 * Readers of the same region form a group: the first is in the tree, the
 * others hang off it by next_reader. A tile read by a hundred tasks is then
 * one node for every lookup to pass, and a further reader of it joins the
 * group without looking at its members.
 *
 * Locking: none. Only the thread running the parent's body uses its tracker;
 * other threads only complete tasks, which is read here atomically.
 */
#include "core/history.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const enum dag_mode record_modes[] = {DAG_IN, DAG_OUT, DAG_INOUT,
                                             DAG_COMMUTATIVE};

static uintptr_t mode_index(enum dag_mode m) {
  return m == DAG_IN ? 0 : m == DAG_OUT ? 1 : m == DAG_INOUT ? 2 : 3;
}

static enum dag_mode record_mode(const struct record *r) {
  return record_modes[r->task_kind & RECORD_MODE_MASK];
}

/* r's region: in the record, or for a run rebuilt in *run. */
static const struct region *record_region(const struct record *r,
                                          struct region *run) {
  if (!record_is_run(r))
    return &r->region;
  *run = (struct region){.lo = r->region.lo,
                         .hi = r->region.hi,
                         .span = r->region.hi - r->region.lo};
  return run;
}

/* The next member of r's reader group; only readers form groups. */
static struct record *next_in_group(const struct record *r) {
  return record_mode(r) == DAG_IN ? r->next_reader : NULL;
}

static struct commute_lock *record_lock(const struct record *r) {
  return record_mode(r) == DAG_COMMUTATIVE ? r->lock : NULL;
}

size_t dag__record_bytes(int ndims) {
  if (ndims == 0)
    return offsetof(struct record, region.span);
  return offsetof(struct record, region.dim) +
         (size_t)ndims * sizeof(((struct region *)0)->dim[0]);
}

static enum pool_id record_pool(int ndims) {
  return ndims == 0   ? POOL_RECORD_RUN
         : ndims == 1 ? POOL_RECORD_ROWS
                      : POOL_RECORD;
}

/* Scratch for the records a query returns, inside the tracker while the
 * history is short: most trackers are a task's few children, and a
 * recursive program makes one per task, so they come from a pool and take
 * no malloc. */
#define FOUND_INLINE 32

struct deps {
  struct history index;
  size_t count;
  size_t sweep_at;
  struct record **found; /* scratch: records a query returned */
  size_t found_cap;
  struct record *found_inline[FOUND_INLINE];
};

#define SWEEP_MIN 1024

void (*dag__edge_hook)(const struct task *pred, const struct task *succ);

const size_t dag__deps_size = sizeof(struct deps);

struct deps *dag__deps_new(void) {
  struct deps *d = dag__pool_get(POOL_DEPS);
  if (!d)
    dag__out_of_memory("the dependency tracker");
  memset(d, 0, offsetof(struct deps, found_inline));
  d->sweep_at = SWEEP_MIN;
  d->found = d->found_inline;
  d->found_cap = FOUND_INLINE;
  return d;
}

/* Makes d->found large enough for any query: every record at once. Its
 * content is scratch, not kept. */
static void reserve_found(struct deps *d) {
  if (d->found_cap > d->count)
    return;
  size_t cap = d->found_cap;
  while (cap <= d->count)
    cap *= 2;
  if (d->found != d->found_inline)
    free(d->found);
  d->found = malloc(cap * sizeof *d->found);
  if (!d->found)
    dag__out_of_memory("the dependency tracker");
  d->found_cap = cap;
}

/* ------------------------------------------------------------- history */

/* Releases what r holds and frees it; r is no longer in the tree. */
static void free_record(struct record *r) {
  if (record_lock(r))
    dag__lock_unref(r->lock);
  dag__task_unref(record_task(r));
  dag__pool_put(
      record_is_run(r) ? POOL_RECORD_RUN : record_pool(r->region.ndims), r);
}

/* Removes the group headed by r from the index and frees all of it. */
static void forget(struct deps *d, struct record *r) {
  dag__history_erase(&d->index, r);
  while (r) {
    struct record *next = next_in_group(r);
    d->count--;
    free_record(r);
    r = next;
  }
}

/* Frees the members of the group headed by r (in no index) whose tasks are
 * complete, the head if head_done (decided once by the caller: a task may
 * complete meanwhile). Returns the group's head afterwards, or NULL. */
static struct record *drop_complete(struct deps *d, struct record *r,
                                    bool head_done) {
  if (record_mode(r) != DAG_IN) {
    if (!head_done)
      return r;
    d->count--;
    free_record(r);
    return NULL;
  }
  struct record *head = NULL, **link = &head;
  for (struct record *m = r, *next; m; m = next) {
    next = m->next_reader;
    if (m == r ? head_done : dag__task_complete(record_task(m))) {
      d->count--;
      free_record(m);
    } else {
      *link = m;
      link = &m->next_reader;
    }
  }
  *link = NULL;
  return head;
}

/* Drops the complete members of the group headed by r, which is in the
 * index. Returns the group's head afterwards (a new one replaces r in the
 * index when r's task is complete), or NULL when none is left. */
static struct record *prune_group(struct deps *d, struct record *r) {
  bool head_done = dag__task_complete(record_task(r));
  if (!head_done && !next_in_group(r))
    return r; /* the usual case: a live record alone */
  if (head_done)
    dag__history_erase(&d->index, r);
  struct record *head = drop_complete(d, r, head_done);
  if (head_done && head)
    dag__history_insert(&d->index, head);
  return head;
}

/* Records t's access (g, mode): in the group of `readers` when given (a
 * reader group of the same region), else as a node of its own. */
static void add_record(struct deps *d, struct task *t, const struct region *g,
                       enum dag_mode mode, struct commute_lock *lock,
                       struct record *readers) {
  struct record *r = dag__pool_get(record_pool(g->ndims));
  if (!r)
    dag__out_of_memory("the dependency tracker");
  memcpy(&r->region, g,
         dag__record_bytes(g->ndims) - offsetof(struct record, region));
  r->task_kind = (uintptr_t)t | mode_index(mode) |
                 (g->ndims == 0 ? SHAPE_RUN : SHAPE_FULL);
  atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
  d->count++;
  if (readers) {
    r->next_reader = readers->next_reader;
    readers->next_reader = r;
    return;
  }
  if (mode == DAG_COMMUTATIVE)
    r->lock = lock;
  else
    r->next_reader = NULL;
  dag__history_insert(&d->index, r);
}

/* A record or an access seen as `rows` spans of `span` bytes, `stride`
 * apart: the shape of one or two dimensions. */
struct block {
  uintptr_t lo;
  size_t rows, span, stride;
};

/* Where g lies in r's rows: g's rows [*a, *b) and columns [*x, *y) of r,
 * clipped to r. False unless g sits in r's rows the same way in every row
 * (a contiguous run within one row, or rows of the same stride). */
static bool place_in_rows(const struct region *g, const struct block *r,
                          size_t *a, size_t *b, size_t *x, size_t *y) {
  size_t g_rows;
  if (g->ndims == 0)
    g_rows = 1;
  else if (g->ndims == 1 && g->dim[0].stride == r->stride)
    g_rows = g->dim[0].count;
  else
    return false;
  intptr_t offset = (intptr_t)g->lo - (intptr_t)r->lo;
  intptr_t s = (intptr_t)r->stride;
  intptr_t row = offset / s - (offset % s < 0);
  size_t col = (size_t)(offset - row * s);
  if (col + g->span > r->stride)
    return false; /* a span of g runs into the next row of r */
  intptr_t first = row < 0 ? 0 : row;
  intptr_t last = row + (intptr_t)g_rows;
  if (last > (intptr_t)r->rows)
    last = (intptr_t)r->rows;
  *a = (size_t)first;
  *b = last > first ? (size_t)last : (size_t)first;
  *x = col;
  *y = col + g->span < r->span ? col + g->span : r->span;
  return *a < *b && *x < *y;
}

static void add_piece(struct deps *d, const struct record *r, uintptr_t lo,
                      size_t rows, size_t span, size_t stride) {
  if (rows == 0 || span == 0)
    return;
  struct dag_region piece = {
      (const void *)lo, span, 1, {{rows, (ptrdiff_t)stride}}};
  struct region g;
  const char *why;
  if (dag__region_make(&piece, &g, &why))
    DAG_BUG("a piece of a valid region is invalid: %s", why);
  struct commute_lock *lock = record_lock(r);
  if (lock)
    dag__lock_ref(lock);
  add_record(d, record_task(r), &g, record_mode(r), lock, NULL);
}

/* A write g overlaps part of record r: keep only the parts of r outside g.
 * Later accesses to the bytes under g meet g, which is ordered after r;
 * without the cut, a writer of one element of a tile that many tasks read
 * whole would be linked to every one of them. Done for shapes of up to two
 * dimensions that share their stride (what tiles and their rows, columns
 * and elements are); other shapes, triangles among them, keep r whole,
 * which costs edges, never correctness. Up to four pieces: the rows above g,
 * the rows below, and left and right of g in its rows. Returns whether it cut;
 * the caller then forgets r. */
static bool cut(struct deps *d, const struct record *r,
                const struct region *g) {
  struct region run;
  const struct region *rr = record_region(r, &run);
  struct block rb;
  size_t a, b, x, y;
  if (rr->shape || g->shape)
    return false; /* a triangle's rest is no block of rows */
  if (rr->ndims == 0 && g->ndims == 0) { /* two runs: one row */
    rb = (struct block){rr->lo, 1, rr->span, rr->span};
    a = 0;
    b = 1;
    x = g->lo > rr->lo ? g->lo - rr->lo : 0;
    y = (g->hi < rr->hi ? g->hi : rr->hi) - rr->lo;
  } else if (rr->ndims == 1) {
    rb = (struct block){rr->lo, rr->dim[0].count, rr->span, rr->dim[0].stride};
    if (!place_in_rows(g, &rb, &a, &b, &x, &y))
      return false;
  } else {
    return false;
  }
  add_piece(d, r, rb.lo, a, rb.span, rb.stride);
  add_piece(d, r, rb.lo + b * rb.stride, rb.rows - b, rb.span, rb.stride);
  add_piece(d, r, rb.lo + a * rb.stride, b - a, x, rb.stride);
  add_piece(d, r, rb.lo + a * rb.stride + y, b - a, rb.span - y, rb.stride);
  return true;
}

/* Drops every record whose task is complete and indexes the others anew:
 * O(n log n) every time the history doubles, so O(log n) per access. */
void dag__deps_sweep(struct deps *d) {
  reserve_found(d);
  size_t n = 0;
  dag__history_collect(&d->index, d->found, &n);
  dag__history_reset(&d->index);
  for (size_t i = 0; i < n; i++) {
    struct record *r = d->found[i];
    struct record *head =
        drop_complete(d, r, dag__task_complete(record_task(r)));
    if (head)
      dag__history_insert(&d->index, head);
  }
  d->sweep_at = d->count * 2 > SWEEP_MIN ? d->count * 2 : SWEEP_MIN;
}

static bool writes(enum dag_mode m) { return m == DAG_OUT || m == DAG_INOUT; }

static bool same_region(const struct region *a, const struct region *b) {
  if (a->lo != b->lo || a->hi != b->hi || a->span != b->span ||
      a->ndims != b->ndims || a->shape != b->shape)
    return false;
  for (int i = 0; i < a->ndims; i++)
    if (a->dim[i].count != b->dim[i].count ||
        a->dim[i].stride != b->dim[i].stride)
      return false;
  return true;
}

/* record_meets() for shapes other than two runs. */
static bool shapes_meet(const struct record *r, const struct region *g,
                        bool *same) {
  struct region run;
  const struct region *rr = record_region(r, &run);
  *same = same_region(rr, g);
  return *same || dag__region_overlap(rr, g);
}

/* Whether r, a record that the index found for g, shares a byte with g;
 * *same tells whether it has g's very region. */
static DAG_ALWAYS_INLINE bool record_meets(const struct record *r,
                                           const struct region *g, bool *same) {
  if (record_is_run(r) && g->ndims == 0) {
    /* Two runs whose intervals meet, as the index found them: they
     * overlap. */
    *same = r->region.lo == g->lo && r->region.hi == g->hi;
    return true;
  }
  return shapes_meet(r, g, same);
}

/* Orders t's access (g, mode) after every task of the reader group r. */
static DAG_ALWAYS_INLINE void link_group(struct record *r, struct task *t,
                                         bool graphed) {
  for (; r; r = next_in_group(r))
    if (record_task(r) != t) {
      if (graphed)
        dag__task_link_graphed(record_task(r), t);
      else
        dag__task_link(record_task(r), t);
    }
}

/* Orders t's access (g, mode) after the history and records it. graphed
 * (a constant in each caller): records of complete tasks stay and are
 * linked too, which orders nothing but records the graph's edge. */
static DAG_ALWAYS_INLINE void order_access(struct deps *d, struct task *t,
                                           const struct region *g,
                                           enum dag_mode mode, bool graphed) {
  reserve_found(d);
  size_t n = 0;
  dag__history_query(&d->index, g, d->found, &n);

  struct commute_lock *lock = NULL;
  struct record *readers = NULL; /* a reader group of g itself */
  for (size_t i = 0; i < n; i++) {
    struct record *r = d->found[i];
    /* Geometry first: it reads only the record, where looking at the task
     * may cost a cache miss. The same region again is the common case: it
     * overlaps and covers. Complete records that do not overlap wait for
     * the next sweep. */
    bool same;
    if (!record_meets(r, g, &same))
      continue;
    enum dag_mode old = record_mode(r);
    if (old == DAG_IN && mode == DAG_IN) {
      if (same && !readers)
        readers = r; /* join it: no edges between readers */
      continue;
    }
    if (!graphed && !(r = prune_group(d, r)))
      continue;
    if (old == DAG_COMMUTATIVE && mode == DAG_COMMUTATIVE) {
      if (record_task(r) != t) {
        dag__task_add_lock(t, r->lock);
        if (!lock && same) {
          lock = r->lock;
          dag__lock_ref(lock);
        }
      }
    } else {
      link_group(r, t, graphed);
    }
    if (writes(mode)) {
      struct region run;
      if (same || dag__region_covers(g, record_region(r, &run))) {
        forget(d, r);
      } else {
        bool done = true;
        for (struct record *m = r; m && done; m = next_in_group(m))
          done = cut(d, m, g);
        if (done) /* every member has the same shape: all or none */
          forget(d, r);
      }
    }
  }

  if (mode == DAG_COMMUTATIVE) {
    if (!lock)
      lock = dag__lock_new();
    dag__task_add_lock(t, lock);
  }
  add_record(d, t, g, mode, lock, readers);
}

static void add_access(struct deps *d, struct task *t, const struct region *g,
                       enum dag_mode mode) {
  order_access(d, t, g, mode, false);
}

void dag__deps_add(struct deps *d, struct task *t, const struct region *regs,
                   const enum dag_mode *modes, size_t n) {
  for (size_t i = 0; i < n; i++)
    add_access(d, t, &regs[i], modes[i]);
  if (d->count >= d->sweep_at)
    dag__deps_sweep(d);
}

/* Cold: only runs that record the graph come here. */
__attribute__((cold)) void dag__deps_add_graphed(struct deps *d, struct task *t,
                                                 const struct region *regs,
                                                 const enum dag_mode *modes,
                                                 size_t n) {
  for (size_t i = 0; i < n; i++)
    order_access(d, t, &regs[i], modes[i], true);
}

static bool incomplete(void *t) { return !dag__task_complete(t); }

/* The first unfinished task in d's history that an access (g, mode) would
 * depend on, or NULL; forgets the complete records it meets. Commutative
 * accesses count earlier commutative ones too: the caller runs at once. */
static struct task *blocker(struct deps *d, const struct region *g,
                            enum dag_mode mode) {
  reserve_found(d);
  size_t n = 0;
  dag__history_query(&d->index, g, d->found, &n);
  for (size_t i = 0; i < n; i++) {
    struct record *r = d->found[i];
    bool same;
    if ((record_mode(r) == DAG_IN && mode == DAG_IN) ||
        !record_meets(r, g, &same))
      continue;
    if ((r = prune_group(d, r)))
      return record_task(r); /* pruned: the head is unfinished */
  }
  return NULL;
}

void dag__deps_wait(struct deps *d, const struct region *regs,
                    const enum dag_mode *modes, size_t n) {
  /* Helping runs other tasks, never this parent's body, so nothing else
   * touches d meanwhile; records keep their tasks alive. */
  for (size_t k = 0; k < n; k++) {
    struct task *t;
    while ((t = blocker(d, &regs[k], modes[k])))
      dag__core_help_while(incomplete, t);
  }
}

bool dag__deps_ready(struct deps *d, const struct region *regs,
                     const enum dag_mode *modes, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (blocker(d, &regs[k], modes[k]))
      return false;
  return true;
}

size_t dag__deps_records(const struct deps *d) { return d->count; }

void dag__deps_clear(struct deps *d) {
  reserve_found(d);
  size_t n = 0;
  dag__history_collect(&d->index, d->found, &n);
  for (size_t i = 0; i < n; i++)
    for (struct record *r = d->found[i], *next; r; r = next) {
      next = next_in_group(r);
      free_record(r);
    }
  dag__history_reset(&d->index);
  d->count = 0;
  d->sweep_at = SWEEP_MIN;
}

void dag__deps_free(struct deps *d) {
  if (!d)
    return;
  dag__deps_clear(d);
  if (d->found != d->found_inline)
    free(d->found);
  dag__pool_put(POOL_DEPS, d);
}
