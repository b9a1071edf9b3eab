/* deps.c — the dependency tracker: access history -> edges.
 *
 * The history of one parent's children is a set of records, one per access
 * (task, mode, region), indexed by an interval treap on the region's
 * bounding interval [lo, hi) with the largest hi of each subtree, so that
 * finding the records a new access may touch costs O(log n + k). Each
 * candidate is then tested for exact byte overlap (region.c).
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
 * Readers of the same region form a group: the first is in the tree, the
 * others hang off it by next_reader. A tile read by a hundred tasks is then
 * one node for every lookup to pass, and a further reader of it joins the
 * group without looking at its members.
 *
 * Locking: none. Only the thread running the parent's body uses its tracker;
 * other threads only complete tasks, which is read here atomically.
 */
#include "internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A record is allocated only as long as its region's dimensions need:
 * most regions are one run or one block of rows. */
struct record {
  struct task *task;
  struct commute_lock *lock;  /* commutative records only */
  struct record *next_reader; /* reader group: see below */
  struct record *left, *right;
  uintptr_t max_hi; /* largest region.hi in this subtree */
  uint32_t prio;    /* treap heap order */
  uint8_t mode;
  struct region region; /* last: dim[] holds region.ndims entries only */
};

size_t dag__record_bytes(int ndims) {
  return offsetof(struct record, region.dim) +
         (size_t)ndims * sizeof(((struct region *)0)->dim[0]);
}

static enum pool_id record_pool(int ndims) {
  return ndims == 0   ? POOL_RECORD_RUN
         : ndims == 1 ? POOL_RECORD_ROWS
                      : POOL_RECORD;
}

struct deps {
  struct record *root;
  size_t count;
  size_t sweep_at;
  uint32_t rng;
  struct record **found; /* scratch: records a query returned */
  size_t found_cap;
};

#define SWEEP_MIN 1024

void (*dag__edge_hook)(const struct task *pred, const struct task *succ);

struct deps *dag__deps_new(void) {
  struct deps *d = calloc(1, sizeof *d);
  if (!d)
    dag__out_of_memory("the dependency tracker");
  d->sweep_at = SWEEP_MIN;
  d->rng = 0x9e3779b9u;
  return d;
}

/* ----------------------------------------------------------- the treap */

static uintptr_t max_hi(const struct record *r) { return r ? r->max_hi : 0; }

static void update(struct record *r) {
  uintptr_t m = r->region.hi;
  if (max_hi(r->left) > m)
    m = max_hi(r->left);
  if (max_hi(r->right) > m)
    m = max_hi(r->right);
  r->max_hi = m;
}

/* Records are ordered by (lo, address): a total order even for equal
 * regions. */
static bool before(const struct record *a, const struct record *b) {
  if (a->region.lo != b->region.lo)
    return a->region.lo < b->region.lo;
  return (uintptr_t)a < (uintptr_t)b;
}

/* Splits t into the records before r (*l) and the others (*g). */
static void split(struct record *t, const struct record *r, struct record **l,
                  struct record **g) {
  if (!t) {
    *l = *g = NULL;
  } else if (before(t, r)) {
    split(t->right, r, &t->right, g);
    update(t);
    *l = t;
  } else {
    split(t->left, r, l, &t->left);
    update(t);
    *g = t;
  }
}

/* Joins l and g, every record of l before every record of g. */
static struct record *merge(struct record *l, struct record *g) {
  if (!l)
    return g;
  if (!g)
    return l;
  if (l->prio > g->prio) {
    l->right = merge(l->right, g);
    update(l);
    return l;
  }
  g->left = merge(l, g->left);
  update(g);
  return g;
}

static struct record *insert(struct record *t, struct record *r) {
  if (!t)
    return r;
  if (r->prio > t->prio) {
    split(t, r, &r->left, &r->right);
    update(r);
    return r;
  }
  if (before(r, t))
    t->left = insert(t->left, r);
  else
    t->right = insert(t->right, r);
  update(t);
  return t;
}

static struct record *erase(struct record *t, const struct record *r) {
  if (t == r)
    return merge(t->left, t->right);
  if (!t)
    DAG_BUG("record %p is not in the history", (const void *)r);
  if (before(r, t))
    t->left = erase(t->left, r);
  else
    t->right = erase(t->right, r);
  update(t);
  return t;
}

/* Makes d->found large enough for any query: every record at once. */
static void reserve_found(struct deps *d) {
  if (d->found_cap > d->count)
    return;
  size_t cap = d->found_cap ? d->found_cap : 64;
  while (cap <= d->count)
    cap *= 2;
  struct record **f = realloc(d->found, cap * sizeof *f);
  if (!f)
    dag__out_of_memory("the dependency tracker");
  d->found = f;
  d->found_cap = cap;
}

/* Appends to out every record whose interval meets [lo, hi). */
static void query(const struct record *t, uintptr_t lo, uintptr_t hi,
                  struct record **out, size_t *n) {
  while (t && t->max_hi > lo) {
    query(t->left, lo, hi, out, n);
    if (t->region.lo >= hi)
      return; /* this record and everything right of it start too late */
    if (t->region.hi > lo)
      out[(*n)++] = (struct record *)t;
    t = t->right;
  }
}

/* ------------------------------------------------------------- history */

/* Releases what r holds and frees it; r is no longer in the tree. */
static void free_record(struct record *r) {
  if (r->lock)
    dag__lock_unref(r->lock);
  dag__task_unref(r->task);
  dag__pool_put(record_pool(r->region.ndims), r);
}

/* Removes the group headed by r from the tree and frees all of it. */
static void forget(struct deps *d, struct record *r) {
  d->root = erase(d->root, r);
  while (r) {
    struct record *next = r->next_reader;
    d->count--;
    free_record(r);
    r = next;
  }
}

/* Drops the complete members of the group headed by r, which is in the
 * tree. Returns the group's head afterwards (a new one replaces r in the
 * tree when r's task is complete), or NULL when none is left. */
static struct record *prune_group(struct deps *d, struct record *r) {
  struct record **link = &r->next_reader;
  while (*link) {
    struct record *m = *link;
    if (dag__task_complete(m->task)) {
      *link = m->next_reader;
      d->count--;
      free_record(m);
    } else {
      link = &m->next_reader;
    }
  }
  if (!dag__task_complete(r->task))
    return r;
  struct record *heir = r->next_reader;
  r->next_reader = NULL;
  forget(d, r);
  if (heir) {
    heir->left = heir->right = NULL;
    heir->max_hi = heir->region.hi;
    d->root = insert(d->root, heir);
  }
  return heir;
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
  r->task = t;
  r->lock = lock;
  r->mode = (uint8_t)mode;
  atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
  d->count++;
  if (readers) {
    r->next_reader = readers->next_reader;
    readers->next_reader = r;
    return;
  }
  r->next_reader = NULL;
  r->left = r->right = NULL;
  r->max_hi = g->hi;
  d->rng ^= d->rng << 13;
  d->rng ^= d->rng >> 17;
  d->rng ^= d->rng << 5;
  r->prio = d->rng;
  d->root = insert(d->root, r);
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
  if (r->lock)
    dag__lock_ref(r->lock);
  add_record(d, r->task, &g, (enum dag_mode)r->mode, r->lock, NULL);
}

/* A write g overlaps part of record r: keep only the parts of r outside g.
 * Later accesses to the bytes under g meet g, which is ordered after r;
 * without the cut, a writer of one element of a tile that many tasks read
 * whole would be linked to every one of them. Done for shapes of up to two
 * dimensions that share their stride (what tiles and their rows, columns
 * and elements are); other shapes keep r whole, which costs edges, never
 * correctness. Up to four pieces: the rows above g, the rows below, and
 * left and right of g in its rows. Returns whether it cut; the caller then
 * forgets r. */
static bool cut(struct deps *d, const struct record *r,
                const struct region *g) {
  const struct region *rr = &r->region;
  struct block rb;
  size_t a, b, x, y;
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

static void collect_all(const struct record *t, struct record **out,
                        size_t *n) {
  for (; t; t = t->right) {
    collect_all(t->left, out, n);
    out[(*n)++] = (struct record *)t;
  }
}

/* A balanced tree of the sorted records r[0..n): priorities fall with
 * depth, so it is a valid treap for the random insertions that follow. */
static struct record *build(struct record **r, size_t n, uint32_t prio) {
  if (n == 0)
    return NULL;
  size_t mid = n / 2;
  struct record *root = r[mid];
  root->prio = prio;
  root->left = build(r, mid, prio >> 1);
  root->right = build(r + mid + 1, n - mid - 1, prio >> 1);
  update(root);
  return root;
}

/* Tree order, for qsort. */
static int compare_records(const void *a, const void *b) {
  const struct record *x = *(struct record *const *)a,
                      *y = *(struct record *const *)b;
  return before(x, y) ? -1 : before(y, x) ? 1 : 0;
}

/* Drops every record whose task is complete and rebuilds the tree from the
 * others: O(n log n) every time the history doubles, so O(log n) per
 * access. */
static void sweep(struct deps *d) {
  reserve_found(d);
  size_t n = 0, kept = 0;
  collect_all(d->root, d->found, &n);
  d->root = NULL; /* prune_group's tree edits then touch nothing we keep */
  for (size_t i = 0; i < n; i++) {
    struct record *r = d->found[i];
    r->left = r->right = NULL;
    d->root = r; /* alone in the tree, so that it can be replaced */
    struct record *head = prune_group(d, r);
    if (head)
      d->found[kept++] = head;
  }
  /* An heir that replaced a head may sort differently among equal starts. */
  qsort(d->found, kept, sizeof *d->found, compare_records);
  d->root = build(d->found, kept, UINT32_MAX);
  d->sweep_at = d->count * 2 > SWEEP_MIN ? d->count * 2 : SWEEP_MIN;
}

static bool writes(enum dag_mode m) { return m == DAG_OUT || m == DAG_INOUT; }

static bool same_region(const struct region *a, const struct region *b) {
  if (a->lo != b->lo || a->hi != b->hi || a->span != b->span ||
      a->ndims != b->ndims)
    return false;
  for (int i = 0; i < a->ndims; i++)
    if (a->dim[i].count != b->dim[i].count ||
        a->dim[i].stride != b->dim[i].stride)
      return false;
  return true;
}

/* Orders t's access (g, mode) after every task of the reader group r. */
static void link_group(struct record *r, struct task *t) {
  for (; r; r = r->next_reader)
    if (r->task != t)
      dag__task_link(r->task, t);
}

/* Orders t's access (g, mode) after the history and records it. */
static void add_access(struct deps *d, struct task *t, const struct region *g,
                       enum dag_mode mode) {
  reserve_found(d);
  size_t n = 0;
  query(d->root, g->lo, g->hi, d->found, &n);

  struct commute_lock *lock = NULL;
  struct record *readers = NULL; /* a reader group of g itself */
  for (size_t i = 0; i < n; i++) {
    struct record *r = d->found[i];
    /* Geometry first: it reads only the record, where looking at the task
     * may cost a cache miss. The same region again is the common case: it
     * overlaps and covers. Complete records that do not overlap wait for
     * the next sweep. */
    bool same = same_region(&r->region, g);
    if (!same && !dag__region_overlap(&r->region, g))
      continue;
    enum dag_mode old = (enum dag_mode)r->mode;
    if (old == DAG_IN && mode == DAG_IN) {
      if (same && !readers)
        readers = r; /* join it: no edges between readers */
      continue;
    }
    if (!(r = prune_group(d, r)))
      continue;
    if (old == DAG_COMMUTATIVE && mode == DAG_COMMUTATIVE) {
      if (r->task != t) {
        dag__task_add_lock(t, r->lock);
        if (!lock && same) {
          lock = r->lock;
          dag__lock_ref(lock);
        }
      }
    } else {
      link_group(r, t);
    }
    if (writes(mode)) {
      if (same || dag__region_covers(g, &r->region)) {
        forget(d, r);
      } else {
        bool done = true;
        for (struct record *m = r; m && done; m = m->next_reader)
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

void dag__deps_add(struct deps *d, struct task *t, const struct region *regs,
                   const enum dag_mode *modes, size_t n) {
  for (size_t i = 0; i < n; i++)
    add_access(d, t, &regs[i], modes[i]);
  if (d->count >= d->sweep_at)
    sweep(d);
}

static bool incomplete(void *t) { return !dag__task_complete(t); }

/* The first unfinished task in d's history that an access (g, mode) would
 * depend on, or NULL; forgets the complete records it meets. Commutative
 * accesses count earlier commutative ones too: the caller runs at once. */
static struct task *blocker(struct deps *d, const struct region *g,
                            enum dag_mode mode) {
  reserve_found(d);
  size_t n = 0;
  query(d->root, g->lo, g->hi, d->found, &n);
  for (size_t i = 0; i < n; i++) {
    struct record *r = d->found[i];
    if ((r->mode == DAG_IN && mode == DAG_IN) ||
        !(same_region(&r->region, g) || dag__region_overlap(&r->region, g)))
      continue;
    if ((r = prune_group(d, r)))
      return r->task; /* pruned: the head is unfinished */
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
      dag__help_while(incomplete, t);
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
  collect_all(d->root, d->found, &n);
  for (size_t i = 0; i < n; i++)
    for (struct record *r = d->found[i], *next; r; r = next) {
      next = r->next_reader;
      free_record(r);
    }
  d->root = NULL;
  d->count = 0;
  d->sweep_at = SWEEP_MIN;
}

void dag__deps_free(struct deps *d) {
  if (!d)
    return;
  dag__deps_clear(d);
  free(d->found);
  free(d);
}
