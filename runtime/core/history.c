/* history.c — the index of a tracker's records: which ones may an access
 * touch?
 *
 * Records are kept in an interval treap on the bounding interval [lo, hi)
 * of their regions, with the largest hi of each subtree, so that finding
 * the records whose intervals meet an access costs O(log n + k).
 *
 * Bounding intervals alone are a poor index for tiles: the interval of a
 * tile of a matrix spans its whole band of rows, so a lookup would meet
 * every live tile of that band. Records of rows of one stride that stay
 * within rows of that stride (tiles, their rows and columns) therefore go
 * into bands: all the records of rows [r, r + count) of stride s, numbering
 * rows from address 0 (row r is [r*s, (r+1)*s)), make one node of the top
 * treap, whose interval is those rows, and a treap of their own keyed on
 * their first row, [lo, lo + span), which is where their columns are. An
 * access of the same stride (or a run no longer than a row) finds in a band
 * exactly the members whose columns meet its own, since both are rectangles
 * of rows and columns (two, for an access that crosses from each row into
 * the next); other accesses take every member of the bands they meet. A
 * tile of a matrix whose rows do not start at a multiple of s may cross a
 * row: it stays in the top treap, at most one such per band of tiles.
 */
#include "core/history.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the treap */

/* A record's treap priority: a hash of its address, independent of the
 * regions that order the tree, as a treap wants. */
static uint64_t prio(const struct record *r) {
  uint64_t x = (uintptr_t)r;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/* The end of r's key: its interval is [region.lo, key_end). A band member
 * is keyed on its first row, where its columns are. */
static uintptr_t key_end(const struct record *r) {
  if (record_shape(r) == SHAPE_MEMBER)
    return r->region.lo + r->region.span;
  return r->region.hi;
}

static uintptr_t max_hi(const struct record *r) { return r ? r->max_hi : 0; }

static void update(struct record *r) {
  uintptr_t m = key_end(r);
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
  if (prio(l) > prio(g)) {
    l->right = merge(l->right, g);
    update(l);
    return l;
  }
  g->left = merge(l, g->left);
  update(g);
  return g;
}

static struct record *insert(struct record *t, struct record *r) {
  if (!t) {
    r->left = r->right = NULL;
    update(r);
    return r;
  }
  if (prio(r) > prio(t)) {
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

static void collect(const struct record *t, struct record **out, size_t *n) {
  for (; t; t = t->right) {
    collect(t->left, out, n);
    if (record_shape(t) == SHAPE_BAND)
      collect(t->members, out, n);
    else
      out[(*n)++] = (struct record *)t;
  }
}

/* -------------------------------------------------------------- bands */

static size_t band_stride(const struct record *b) {
  return b->region.dim[0].stride;
}

static size_t band_rows(const struct record *b) {
  return b->region.dim[0].count;
}

/* Where rows of stride s that start at lo lie in their row: the column of
 * lo, and whether span bytes from there stay in that row. */
static bool within_row(uintptr_t lo, size_t span, size_t s, size_t *column) {
  *column = lo % s;
  return *column + span <= s;
}

static size_t band_hash(uintptr_t row_lo, size_t rows, size_t s) {
  uint64_t x = row_lo ^ (s * 0x9e3779b97f4a7c15ull) ^ (rows << 40);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return (size_t)x;
}

static size_t band_slot(const struct history *h, const struct record *b) {
  return band_hash(b->region.lo, band_rows(b), band_stride(b)) & h->band_mask;
}

/* The slot of the band of `rows` rows of stride s from row_lo, or of the
 * empty slot where it would go. */
static size_t find_band(const struct history *h, uintptr_t row_lo, size_t rows,
                        size_t s) {
  size_t i = band_hash(row_lo, rows, s) & h->band_mask;
  for (;; i = (i + 1) & h->band_mask) {
    const struct record *b = h->bands[i];
    if (!b ||
        (b->region.lo == row_lo && band_rows(b) == rows && band_stride(b) == s))
      return i;
  }
}

/* Keeps the hash table at most half full. */
static void reserve_band(struct history *h) {
  size_t slots = h->bands ? h->band_mask + 1 : 0;
  if (2 * (h->nbands + 1) <= slots)
    return;
  size_t grown = slots ? 2 * slots : 64;
  struct record **old = h->bands;
  h->bands = calloc(grown, sizeof *h->bands);
  if (!h->bands)
    dag__out_of_memory("the dependency tracker");
  h->band_mask = grown - 1;
  for (size_t i = 0; i < slots; i++)
    if (old[i])
      h->bands[find_band(h, old[i]->region.lo, band_rows(old[i]),
                         band_stride(old[i]))] = old[i];
  free(old);
}

/* The band that holds member r, made if there is none. */
static struct record *band_of(struct history *h, const struct record *r,
                              size_t column, bool make) {
  size_t s = r->region.dim[0].stride, rows = r->region.dim[0].count;
  uintptr_t row_lo = r->region.lo - column;
  if (make)
    reserve_band(h);
  size_t i = find_band(h, row_lo, rows, s);
  if (h->bands[i] || !make)
    return h->bands[i];
  struct record *b = dag__pool_get(POOL_RECORD_ROWS);
  if (!b)
    dag__out_of_memory("the dependency tracker");
  b->task_kind = SHAPE_BAND;
  b->members = NULL;
  /* Field by field: the record holds one dimension, not DAG_MAX_DIMS. */
  b->region.lo = row_lo;
  b->region.hi = row_lo + rows * s;
  b->region.span = s;
  b->region.ndims = 1;
  b->region.shape = 0;
  b->region.dim[0].count = rows;
  b->region.dim[0].stride = s;
  h->root = insert(h->root, b);
  h->bands[i] = b;
  h->nbands++;
  return b;
}

/* Removes band b, now empty, from the table (moving back the entries after
 * it that its slot displaced) and from the tree, and frees it. */
static void drop_band(struct history *h, struct record *b) {
  size_t i = find_band(h, b->region.lo, band_rows(b), band_stride(b));
  for (size_t j = (i + 1) & h->band_mask; h->bands[j];
       j = (j + 1) & h->band_mask) {
    size_t home = band_slot(h, h->bands[j]);
    /* The entry at j may fill the hole at i unless its home lies in the
     * cyclic range (i, j]. */
    if (((j - home) & h->band_mask) >= ((j - i) & h->band_mask)) {
      h->bands[i] = h->bands[j];
      i = j;
    }
  }
  h->bands[i] = NULL;
  h->nbands--;
  h->root = erase(h->root, b);
  dag__pool_put(POOL_RECORD_ROWS, b);
}

/* ------------------------------------------------------------ the index */

void dag__history_insert(struct history *h, struct record *r) {
  size_t column;
  if (!record_is_run(r) && r->region.ndims == 1 &&
      within_row(r->region.lo, r->region.span, r->region.dim[0].stride,
                 &column)) {
    r->task_kind |= SHAPE_MEMBER;
    struct record *b = band_of(h, r, column, true);
    b->members = insert(b->members, r);
    return;
  }
  h->root = insert(h->root, r);
}

void dag__history_erase(struct history *h, struct record *r) {
  if (record_shape(r) != SHAPE_MEMBER) {
    h->root = erase(h->root, r);
    return;
  }
  struct record *b =
      band_of(h, r, r->region.lo % r->region.dim[0].stride, false);
  if (!b)
    DAG_BUG("record %p has no band", (const void *)r);
  b->members = erase(b->members, r);
  if (!b->members)
    drop_band(h, b);
}

/* A lookup: the keys that meet [lo, hi), for an access g. */
struct query {
  uintptr_t lo, hi;
  const struct region *g;
  struct record **out;
  size_t *n;
};

/* Appends the members of band b that may share a byte with q->g. */
static void query_band(const struct record *b, const struct query *q);

/* Appends to q->out every record under t whose key meets [q->lo, q->hi),
 * and what the bands among them hold for q->g. */
static void query(const struct record *t, const struct query *q) {
  while (t && t->max_hi > q->lo) {
    if (t->left && t->left->max_hi > q->lo)
      query(t->left, q);
    if (t->region.lo >= q->hi)
      return; /* this record and everything right of it start too late */
    if (key_end(t) > q->lo) {
      if (record_shape(t) == SHAPE_BAND)
        query_band(t, q);
      else
        q->out[(*q->n)++] = (struct record *)t;
    }
    t = t->right;
  }
}

/* Appends the members of band b whose columns meet [from, to). */
static void query_columns(const struct record *b, size_t from, size_t to,
                          const struct query *q) {
  uintptr_t lo = b->region.lo + from;
  query(b->members, &(struct query){lo, lo + (to - from), q->g, q->out, q->n});
}

static void query_band(const struct record *b, const struct query *q) {
  const struct region *g = q->g;
  size_t s = band_stride(b);
  bool rows_of_s = g->ndims == 0 || (g->ndims == 1 && g->dim[0].stride == s);
  if (!rows_of_s || g->span > s) {
    collect(b->members, q->out, q->n);
    return;
  }
  /* g and the members are rectangles of rows and columns. */
  size_t column = g->lo % s;
  if (column + g->span <= s) {
    /* Their rows meet, as their intervals do: the members whose columns
     * meet g's. */
    query_columns(b, column, column + g->span, q);
    return;
  }
  /* g crosses from each of its rows into the next: two rectangles, from
   * its column to the end of its rows, and from the start of the rows
   * below. */
  uintptr_t first = g->lo / s, band_first = b->region.lo / s;
  uintptr_t band_end = band_first + band_rows(b);
  size_t rows = g->ndims ? g->dim[0].count : 1;
  bool right = first < band_end && band_first < first + rows;
  if (right)
    query_columns(b, column, s, q);
  if (first + 1 < band_end && band_first < first + 1 + rows) {
    size_t from = *q->n;
    query_columns(b, 0, column + g->span - s, q);
    if (right) { /* a member that reaches column was found already */
      size_t kept = from;
      for (size_t i = from; i < *q->n; i++)
        if (key_end(q->out[i]) - b->region.lo <= column)
          q->out[kept++] = q->out[i];
      *q->n = kept;
    }
  }
}

void dag__history_query(const struct history *h, const struct region *g,
                        struct record **out, size_t *n) {
  query(h->root, &(struct query){g->lo, g->hi, g, out, n});
}

void dag__history_collect(const struct history *h, struct record **out,
                          size_t *n) {
  collect(h->root, out, n);
}

/* Also gives back the band table: a taskwait resets the index of its
 * parent, which must not then pay for a table as large as the most bands
 * it ever had. */
void dag__history_reset(struct history *h) {
  if (h->nbands)
    for (size_t i = 0; i <= h->band_mask; i++)
      if (h->bands[i])
        dag__pool_put(POOL_RECORD_ROWS, h->bands[i]);
  free(h->bands);
  h->bands = NULL;
  h->band_mask = 0;
  h->nbands = 0;
  h->root = NULL;
}
