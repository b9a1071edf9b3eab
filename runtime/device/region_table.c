/* region_table.c — the whole regions of validity.c: regions of host memory
 * every byte of which has the same holders, kept as one entry each, so that
 * "is this tile valid on device d" is one lookup, not a walk of its rows.
 *
 * An entry is found by its exact shape (a chained hash table), or among
 * the entries whose bytes meet a region (the slow path, when shapes
 * differ). For the second, entries are grouped by the size class of their
 * extent, 2^c to 2^(c+1) bytes, and within a class filed in cells of
 * 2^(c+1) bytes by their first byte: an entry that reaches byte x starts in
 * x's cell or the one before, so a query looks at a few cells per class
 * however many entries there are (or at the class's list, when it has
 * fewer entries than the query has cells).
 *
 * The caller (validity.c) keeps entries byte-disjoint. Called with the
 * devices' lock held.
 */
#include "device/validity.h"

#include <stdlib.h>

#define CLASSES 64

/* Every entry, by size class. */
static struct region_entry **of_class[CLASSES];
static size_t n_of_class[CLASSES], cap_of_class[CLASSES];

/* By exact shape. */
static struct region_entry **buckets;
static size_t nbuckets, nentries;

/* Cells: open addressing by key (class << 56 | cell index) + 1; a cell
 * stays once made. */
struct cell {
  uint64_t key;
  struct region_entry **at;
  size_t n, cap;
};
static struct cell *cells;
static size_t cells_size, cells_used;

/* A query's result. */
static struct region_entry **found;
static size_t found_cap;

static uint64_t mix(uint64_t x) {
  x *= 0x9e3779b97f4a7c15u;
  return x ^ (x >> 29);
}

static int class_of(const struct region *r) {
  return 63 - __builtin_clzll((unsigned long long)(r->hi - r->lo));
}

static uint64_t cell_key(int cls, uintptr_t x) {
  return ((uint64_t)cls << 56 | (x >> (cls + 1))) + 1;
}

static struct cell *cell_slot(uint64_t key) {
  for (size_t s = mix(key) & (cells_size - 1);; s = (s + 1) & (cells_size - 1))
    if (cells[s].key == key || !cells[s].key)
      return &cells[s];
}

/* The cell of key; with make, made if absent (else NULL). */
static struct cell *cell_at(uint64_t key, bool make) {
  struct cell *c = cells_size ? cell_slot(key) : NULL;
  if (c && c->key)
    return c;
  if (!make)
    return NULL;
  if (2 * (cells_used + 1) > cells_size) {
    struct cell *old = cells;
    size_t old_size = cells_size;
    cells_size = old_size ? 2 * old_size : 64;
    if (!(cells = calloc(cells_size, sizeof *cells)))
      dag__out_of_memory("the devices' validity table");
    for (size_t i = 0; i < old_size; i++)
      if (old[i].key)
        *cell_slot(old[i].key) = old[i];
    free(old);
  }
  c = cell_slot(key);
  c->key = key;
  cells_used++;
  return c;
}

struct region_entry *dag__regions_find(const struct region *r) {
  if (!nbuckets)
    return NULL;
  for (struct region_entry *e = buckets[dag__region_hash(r) & (nbuckets - 1)];
       e; e = e->chain)
    if (dag__region_same(&e->r, r))
      return e;
  return NULL;
}

static void grow_buckets(void) {
  struct region_entry **old = buckets;
  size_t old_n = nbuckets;
  nbuckets = old_n ? 2 * old_n : 64;
  if (!(buckets = calloc(nbuckets, sizeof *buckets)))
    dag__out_of_memory("the devices' validity table");
  for (size_t i = 0; i < old_n; i++)
    for (struct region_entry *e = old[i], *next; e; e = next) {
      next = e->chain;
      struct region_entry **b =
          &buckets[dag__region_hash(&e->r) & (nbuckets - 1)];
      e->chain = *b;
      *b = e;
    }
  free(old);
}

struct region_entry *dag__regions_add(const struct region *r,
                                      holders_t holders) {
  struct region_entry *e = malloc(sizeof *e);
  if (!e)
    dag__out_of_memory("the devices' validity table");
  *e = (struct region_entry){.r = *r, .holders = holders, .cls = class_of(r)};
  if (nentries + 1 > nbuckets)
    grow_buckets();
  struct region_entry **b = &buckets[dag__region_hash(r) & (nbuckets - 1)];
  e->chain = *b;
  *b = e;
  nentries++;
  int k = e->cls;
  of_class[k] = dag__grow(of_class[k], &cap_of_class[k], n_of_class[k] + 1,
                          sizeof *of_class[k], "the devices' validity table");
  e->in_class = n_of_class[k];
  of_class[k][n_of_class[k]++] = e;
  struct cell *c = cell_at(cell_key(k, r->lo), true);
  c->at = dag__grow(c->at, &c->cap, c->n + 1, sizeof *c->at,
                    "the devices' validity table");
  c->at[c->n++] = e;
  return e;
}

void dag__regions_remove(struct region_entry *e) {
  struct region_entry **b = &buckets[dag__region_hash(&e->r) & (nbuckets - 1)];
  while (*b != e)
    b = &(*b)->chain;
  *b = e->chain;
  nentries--;
  int k = e->cls;
  struct region_entry *last = of_class[k][--n_of_class[k]];
  of_class[k][e->in_class] = last;
  last->in_class = e->in_class;
  struct cell *c = cell_at(cell_key(k, e->r.lo), false);
  size_t i = 0;
  while (c->at[i] != e)
    i++;
  c->at[i] = c->at[--c->n];
  free(e);
}

/* Each entry is in one class and one cell: the query meets it once. */
static void consider(struct region_entry *e, const struct region *r,
                     size_t *n) {
  if (!dag__region_overlap(&e->r, r))
    return;
  found = dag__grow(found, &found_cap, *n + 1, sizeof *found,
                    "the devices' validity table");
  found[(*n)++] = e;
}

size_t dag__regions_meeting(const struct region *r,
                            struct region_entry ***out) {
  size_t n = 0;
  for (int k = 0; k < CLASSES && !dag__region_empty(r); k++) {
    if (!n_of_class[k])
      continue;
    uintptr_t reach = (uintptr_t)2 << k; /* more than any extent of k */
    uintptr_t first = r->lo > reach ? (r->lo - reach) >> (k + 1) : 0;
    uintptr_t last = (r->hi - 1) >> (k + 1);
    if (last - first >= n_of_class[k]) {
      for (size_t i = 0; i < n_of_class[k]; i++)
        consider(of_class[k][i], r, &n);
      continue;
    }
    for (uintptr_t x = first; x <= last; x++) {
      const struct cell *c = cell_at(((uint64_t)k << 56 | x) + 1, false);
      for (size_t i = 0; c && i < c->n; i++)
        consider(c->at[i], r, &n);
    }
  }
  *out = found;
  return n;
}

void dag__regions_each(void (*fn)(struct region_entry *e, void *arg),
                       void *arg) {
  for (int k = 0; k < CLASSES; k++)
    for (size_t i = 0; i < n_of_class[k]; i++)
      fn(of_class[k][i], arg);
}

void dag__regions_release(void) {
  for (int k = 0; k < CLASSES; k++) {
    for (size_t i = 0; i < n_of_class[k]; i++)
      free(of_class[k][i]);
    free(of_class[k]);
    of_class[k] = NULL;
    n_of_class[k] = cap_of_class[k] = 0;
  }
  for (size_t s = 0; s < cells_size; s++)
    free(cells[s].at);
  free(cells);
  free(buckets);
  free(found);
  cells = NULL;
  buckets = NULL;
  found = NULL;
  cells_size = cells_used = nbuckets = nentries = found_cap = 0;
}
