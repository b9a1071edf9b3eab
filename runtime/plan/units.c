/* units.c — the units of data the rank-uniform layer keeps its bookkeeping
 * on, and which of them a region touches.
 *
 *   - dag_alloc memory: the units are the distribution's blocks, made on
 *     first use; at first only the home holds a valid copy. Which block a
 *     region lies in costs divisions, so each allocation remembers it per
 *     region shape in a small hash table.
 *   - other (replicated) memory: the units are disjoint byte intervals,
 *     merged when an accessed region overlaps several; bytes in no unit yet
 *     are valid on every rank.
 *
 * It also keeps the list of units written since the last taskwait.
 */
#include "plan/planner.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- block geometry */

static size_t block_count(const struct allocation *a) {
  const struct dag_dist *d = &a->dist;
  if (!dag__dist_is_2d(d))
    return dag__ceil_div(a->bytes, dag__dist_unit_bytes(d));
  size_t nbi, nbj;
  dag__dist_grid_of_blocks(d, a->bytes, &nbi, &nbj);
  return nbi * nbj;
}

/* The region of block i. */
static struct region block_region(const struct allocation *a, size_t i) {
  const struct dag_dist *d = &a->dist;
  uintptr_t base = (uintptr_t)a->base;
  struct region r = {0};
  if (!dag__dist_is_2d(d)) {
    size_t size = dag__dist_unit_bytes(d);
    size_t lo = i * size, hi = lo + size < a->bytes ? lo + size : a->bytes;
    r.lo = base + lo;
    r.hi = base + hi;
    r.span = hi - lo;
    return r;
  }
  size_t rows = dag__ceil_div(a->bytes, d->elem * d->ld);
  size_t nbj = dag__ceil_div(d->ld, d->nb);
  size_t row0 = i / nbj * d->mb, col0 = i % nbj * d->nb;
  size_t nrows = row0 + d->mb < rows ? d->mb : rows - row0;
  size_t ncols = col0 + d->nb < d->ld ? d->nb : d->ld - col0;
  size_t row_bytes = d->ld * d->elem;
  r.lo = base + row0 * row_bytes + col0 * d->elem;
  r.span = ncols * d->elem;
  if (nrows > 1 && ncols < d->ld) {
    r.ndims = 1;
    r.dim[0].count = nrows;
    r.dim[0].stride = row_bytes;
    r.hi = r.lo + (nrows - 1) * row_bytes + r.span;
  } else {
    r.span *= nrows; /* whole rows: one contiguous span */
    r.hi = r.lo + r.span;
  }
  if (r.hi > base + a->bytes) /* a last, partial row */
    r.hi = base + a->bytes;
  return r;
}

/* ------------------------------------------------------------ blocks */

/* A region shape and the block it lies in (SEVERAL: it spans more). */
struct shape {
  uintptr_t lo, hi;
  size_t span, stride; /* stride: of the outer dimension, 0 if none */
  int ndims;
  struct unit *unit; /* NULL: a free slot */
};

/* The table of shapes of one allocation stays under MAX_SHAPES entries:
 * when full it starts over (it only remembers what can be computed). */
#define MAX_SHAPES (1u << 16)

/* The blocks of one dag_alloc allocation (its `units`). */
struct blocks {
  const struct allocation *alloc;
  size_t nblocks;
  struct unit *unit; /* unit[i].home < 0: never touched */
  struct shape *shapes;
  size_t nshapes, shape_slots; /* slots: a power of two, or 0 */
};

static struct unit several; /* what a shape spanning several blocks maps to */

/* Every allocation with blocks, to release them. */
static struct blocks **every;
static size_t nevery, cap_every;

static struct blocks *blocks_of(const struct allocation *a) {
  if (likely(a->units != NULL))
    return a->units;
  struct blocks *b = calloc(1, sizeof *b);
  if (!b)
    dag__out_of_memory("distributed blocks");
  b->alloc = a;
  b->nblocks = block_count(a);
  b->unit = malloc(b->nblocks * sizeof *b->unit);
  if (!b->unit)
    dag__out_of_memory("distributed blocks");
  for (size_t i = 0; i < b->nblocks; i++)
    b->unit[i].home = -1;
  every =
      dag__grow(every, &cap_every, nevery, sizeof *every, "distributed blocks");
  every[nevery++] = b;
  ((struct allocation *)a)->units = b;
  return b;
}

static struct unit *block_unit(struct blocks *b, size_t i) {
  struct unit *u = &b->unit[i];
  if (u->home < 0) {
    u->region = block_region(b->alloc, i);
    u->home =
        dag__dist_home(b->alloc, u->region.lo - (uintptr_t)b->alloc->base);
    u->valid = (struct rankset){u->home, NULL};
    u->dirty = false;
    u->parts = NULL;
  }
  return u;
}

static void free_blocks(struct blocks *b) {
  for (size_t i = 0; i < b->nblocks; i++)
    if (b->unit[i].home >= 0) {
      dag__rankset_free(&b->unit[i].valid);
      free(b->unit[i].parts);
    }
  free(b->unit);
  free(b->shapes);
  ((struct allocation *)b->alloc)->units = NULL;
  free(b);
}

/* Calls fn on every block a region of allocation a may touch: its bounding
 * rows and columns, a few more than it touches for odd shapes (which only
 * moves more data). */
static void walk_blocks(struct blocks *b, const struct region *r,
                        void (*fn)(struct unit *, void *), void *arg) {
  const struct allocation *a = b->alloc;
  const struct dag_dist *d = &a->dist;
  size_t lo = r->lo - (uintptr_t)a->base, hi = r->hi - (uintptr_t)a->base;
  if (!dag__dist_is_2d(d)) {
    size_t size = dag__dist_unit_bytes(d);
    for (size_t i = lo / size; i <= (hi - 1) / size && i < b->nblocks; i++)
      fn(block_unit(b, i), arg);
    return;
  }
  size_t row_bytes = d->ld * d->elem;
  size_t r0 = lo / row_bytes, r1 = (hi - 1) / row_bytes;
  size_t c0 = 0, c1 = d->ld - 1;
  if (r->ndims == 1 && r->dim[0].stride == row_bytes &&
      lo % row_bytes + r->span <= row_bytes) {
    c0 = lo % row_bytes / d->elem; /* a tile: its own columns */
    c1 = (lo % row_bytes + r->span - 1) / d->elem;
  } else if (r->ndims == 0 && r0 == r1) {
    c0 = lo % row_bytes / d->elem; /* part of one row */
    c1 = (hi - 1) % row_bytes / d->elem;
  }
  size_t nbj = dag__ceil_div(d->ld, d->nb);
  for (size_t bi = r0 / d->mb; bi <= r1 / d->mb; bi++)
    for (size_t bj = c0 / d->nb; bj <= c1 / d->nb; bj++)
      if (bi * nbj + bj < b->nblocks)
        fn(block_unit(b, bi * nbj + bj), arg);
}

/* ------------------------------------------------------------ shapes */

/* Regions with the same bounds, span, number of dimensions and outer
 * stride touch the same blocks: the walk looks no further. */
static size_t outer_stride(const struct region *r) {
  return r->ndims ? r->dim[0].stride : 0;
}

static bool same_shape(const struct shape *s, const struct region *r) {
  return s->lo == r->lo && s->hi == r->hi && s->span == r->span &&
         s->stride == outer_stride(r) && s->ndims == r->ndims;
}

/* The slot of r's shape in b's table: its entry, or the free slot it would
 * take. The table must have slots. */
static struct shape *shape_slot(const struct blocks *b,
                                const struct region *r) {
  size_t mask = b->shape_slots - 1;
  size_t i = (size_t)((r->lo * 0x9e3779b97f4a7c15ull) >> 32) & mask;
  while (b->shapes[i].unit && !same_shape(&b->shapes[i], r))
    i = (i + 1) & mask;
  return &b->shapes[i];
}

/* Makes room for one more shape: doubles the table, or empties it once it
 * has MAX_SHAPES slots. */
static void shapes_room(struct blocks *b) {
  if (2 * (b->nshapes + 1) <= b->shape_slots)
    return;
  struct shape *old = b->shapes;
  size_t old_slots = b->shape_slots;
  size_t slots = old_slots ? 2 * old_slots : 64;
  if (slots > MAX_SHAPES)
    slots = MAX_SHAPES;
  b->shapes = calloc(slots, sizeof *b->shapes);
  if (!b->shapes)
    dag__out_of_memory("distributed block shapes");
  b->shape_slots = slots;
  b->nshapes = 0;
  if (slots > old_slots) /* grown: keep what it knew */
    for (size_t i = 0; i < old_slots; i++)
      if (old[i].unit) {
        struct region key = {.lo = old[i].lo,
                             .hi = old[i].hi,
                             .span = old[i].span,
                             .ndims = old[i].ndims};
        key.dim[0].stride = old[i].stride;
        *shape_slot(b, &key) = old[i];
        b->nshapes++;
      }
  free(old);
}

/* The one block the walk finds, or &several. */
static void count_block(struct unit *u, void *arg) {
  struct unit **found = arg;
  *found = *found ? &several : u;
}

struct unit *dag__units_block(const struct allocation *a,
                              const struct region *r) {
  struct blocks *b = blocks_of(a);
  if (likely(b->shape_slots)) {
    struct shape *s = shape_slot(b, r);
    if (likely(s->unit))
      return s->unit == &several ? NULL : s->unit;
  }
  struct unit *found = NULL;
  walk_blocks(b, r, count_block, &found);
  if (!found)
    return NULL; /* past the end: nothing to remember */
  shapes_room(b);
  *shape_slot(b, r) =
      (struct shape){r->lo, r->hi, r->span, outer_stride(r), r->ndims, found};
  b->nshapes++;
  return found == &several ? NULL : found;
}

/* ----------------------------------------------------- replicated units */

/* Disjoint intervals sorted by address, each allocated on its own so that
 * pointers to it (the dirty list) stay valid. */
static struct unit **reps;
static size_t nreps, cap_reps;

/* Units written since the last taskwait. */
static struct unit **dirty;
static size_t ndirty, cap_dirty;

void dag__units_mark_dirty(struct unit *u) {
  if (u->dirty)
    return;
  u->dirty = true;
  dirty = dag__grow(dirty, &cap_dirty, ndirty, sizeof *dirty, "dirty units");
  dirty[ndirty++] = u;
}

/* Replaces `old` by `by` (NULL: drops it) in the dirty list. */
static void redirect_dirty(const struct unit *old, struct unit *by) {
  size_t kept = 0;
  bool seen = false;
  for (size_t i = 0; i < ndirty; i++) {
    struct unit *u = dirty[i] == old ? by : dirty[i];
    if (!u || (u == by && seen))
      continue;
    seen |= u == by;
    dirty[kept++] = u;
  }
  ndirty = kept;
}

/* A replicated unit, with the access that first named it, the last that
 * declared writing it, and when it was made: every rank makes the same
 * units in the same order (the same task stream), while their addresses,
 * and so their order in reps, may differ between ranks. */
struct replicated {
  struct unit unit; /* first: a struct unit * of home -1 points here */
  struct task_site maker, writer;
  uint64_t made;
};

/* How many replicated units were made so far: the next one's `made`. */
static uint64_t nmade;

static struct replicated *replicated_of(struct unit *u) {
  return (struct replicated *)u;
}

static void free_replicated(struct unit *u) {
  dag__rankset_free(&u->valid);
  free(u->parts);
  free(replicated_of(u));
}

/* Notes that `rank` holds bytes [lo, hi) of u valid. */
static void note_interval(struct unit *u, int rank, uintptr_t lo,
                          uintptr_t hi) {
  dag__unit_note_part(u, rank,
                      &(struct region){.lo = lo, .hi = hi, .span = hi - lo});
}

/* What the ranks outside merged unit u's valid set still hold of it, so
 * that each later receives only the rest (plan.c's fetch_rest): the parts
 * reps[first, end) valid there, the part copies those kept, and the bytes
 * between them, which no task wrote since the last taskwait and so are
 * valid on every rank. As many as u has room for; a rank whose parts find
 * none receives the whole unit, as before merges kept any. */
static void keep_part_copies(struct unit *u, size_t first, size_t end) {
  if (u->valid.one == RANKSET_ALL)
    return;
  uintptr_t at = u->region.lo;
  for (size_t i = first; i < end; i++) {
    const struct unit *part = reps[i];
    if (part->region.lo > at)
      note_interval(u, PART_EVERY_RANK, at, part->region.lo);
    at = part->region.hi;
    if (part->valid.one == RANKSET_ALL)
      dag__unit_note_part(u, PART_EVERY_RANK, &part->region);
    else
      for (int r = dag__rankset_first(&part->valid); r >= 0;
           r = dag__rankset_next(&part->valid, r))
        if (!dag__rankset_has(&u->valid, r))
          dag__unit_note_part(u, r, &part->region);
    for (size_t k = 0; part->parts && k < part->parts->n; k++) {
      const struct part_copy *c = &part->parts->at[k];
      if (c->rank == PART_EVERY_RANK || !dag__rankset_has(&u->valid, c->rank))
        dag__unit_note_part(u, c->rank, &c->region);
    }
  }
  if (u->region.hi > at)
    note_interval(u, PART_EVERY_RANK, at, u->region.hi);
}

/* The replicated unit for region r: an interval [lo, hi) that contains it,
 * merging the units it overlaps. So that one rank holds the whole merged
 * unit, each part is first made valid on rank `gather` (the rank that will
 * use it); the merged unit is valid where all its parts were, and the
 * other ranks keep what they held of it (keep_part_copies). */
static struct unit *replicated_unit(const struct region *r, int gather) {
  uintptr_t lo = r->lo, hi = r->hi;
  size_t first = 0, end;
  while (first < nreps && reps[first]->region.hi <= lo)
    first++;
  for (end = first; end < nreps && reps[end]->region.lo < hi; end++) {
    if (reps[end]->region.lo < lo)
      lo = reps[end]->region.lo;
    if (reps[end]->region.hi > hi)
      hi = reps[end]->region.hi;
  }
  if (end - first == 1 && reps[first]->region.lo == lo &&
      reps[first]->region.hi == hi)
    return reps[first];
  struct replicated *merged = malloc(sizeof *merged);
  if (!merged)
    dag__out_of_memory("replicated units");
  struct unit *u = &merged->unit;
  *merged = (struct replicated){
      {{lo, hi, hi - lo, 0, 0, {{0, 0}}}, {RANKSET_ALL, NULL}, -1, false, NULL},
      {0},
      {0},
      nmade++};
  dag__plan_site(&merged->maker, r);
  uint64_t oldest = UINT64_MAX; /* the name the program gave it first */
  for (size_t i = first; i < end; i++) {
    struct unit *part = reps[i];
    if (replicated_of(part)->writer.number > merged->writer.number)
      merged->writer = replicated_of(part)->writer;
    if (replicated_of(part)->made < oldest) {
      oldest = replicated_of(part)->made;
      merged->maker = replicated_of(part)->maker;
    }
    dag__unit_fetch(part, gather);
    dag__rankset_intersect(&u->valid, &part->valid);
  }
  keep_part_copies(u, first, end);
  bool was_dirty = false;
  for (size_t i = first; i < end; i++) {
    struct unit *part = reps[i];
    was_dirty |= part->dirty;
    redirect_dirty(part, part->dirty ? u : NULL);
    free_replicated(part);
  }
  if (was_dirty)
    u->dirty = true; /* already in the dirty list, in its parts' place */
  reps = dag__grow(reps, &cap_reps, nreps, sizeof *reps, "replicated units");
  /* Replace reps[first, end) by u. */
  memmove(&reps[first + 1], &reps[end], (nreps - end) * sizeof *reps);
  nreps = nreps - (end - first) + 1;
  reps[first] = u;
  return u;
}

static void forget_replicated(void) {
  for (size_t i = 0; i < nreps; i++) {
    redirect_dirty(reps[i], NULL);
    free_replicated(reps[i]);
  }
  nreps = 0;
}

/* ------------------------------------------------------------ interface */

void dag__units_each(const struct allocation *a, const struct region *r,
                     int gather, void (*fn)(struct unit *, void *), void *arg) {
  if (!a) {
    fn(replicated_unit(r, gather), arg);
    return;
  }
  struct unit *u = dag__units_block(a, r);
  if (u)
    fn(u, arg);
  else
    walk_blocks(blocks_of(a), r, fn, arg);
}

/* What dag__units_valid_on asks each unit. */
struct valid_on {
  int rank;
  bool all;
};

static void note_valid_on(struct unit *u, void *arg) {
  struct valid_on *v = arg;
  v->all &= dag__rankset_has(&u->valid, v->rank);
}

bool dag__units_valid_on(const struct allocation *a, const struct region *r,
                         int rank) {
  struct valid_on v = {rank, true};
  if (a) {
    walk_blocks(blocks_of(a), r, note_valid_on, &v);
    return v.all;
  }
  for (size_t i = 0; i < nreps && reps[i]->region.lo < r->hi; i++)
    if (reps[i]->region.hi > r->lo)
      note_valid_on(reps[i], &v);
  return v.all; /* bytes in no unit yet are valid everywhere */
}

void dag__units_flush(void (*fn)(struct unit *)) {
  for (size_t i = 0; i < ndirty; i++) {
    dirty[i]->dirty = false;
    fn(dirty[i]);
  }
  ndirty = 0;
  forget_replicated();
}

void dag__units_note_writer(struct unit *u, const struct region *access) {
  dag__plan_site(&replicated_of(u)->writer, access);
}

const struct task_site *dag__units_writer(const struct unit *u) {
  return &((const struct replicated *)u)->writer;
}

const struct task_site *dag__units_maker(const struct unit *u) {
  return &((const struct replicated *)u)->maker;
}

static int by_making(const void *a, const void *b) {
  uint64_t x = ((const struct watched *)a)->made;
  uint64_t y = ((const struct watched *)b)->made;
  return (x > y) - (x < y);
}

struct watched *dag__units_watch(size_t *n) {
  *n = nreps;
  if (!nreps)
    return NULL;
  struct watched *w = malloc(nreps * sizeof *w);
  if (!w)
    dag__out_of_memory("the values check");
  for (size_t i = 0; i < nreps; i++)
    w[i] = (struct watched){
        reps[i]->region.lo, reps[i]->region.hi, replicated_of(reps[i])->maker,
        replicated_of(reps[i])->writer, replicated_of(reps[i])->made};
  qsort(w, nreps, sizeof *w, by_making);
  return w;
}

void dag__plan_forget(const void *base, size_t bytes) {
  (void)bytes;
  for (size_t i = 0; i < nevery; i++) {
    struct blocks *b = every[i];
    if (b->alloc->base != base)
      continue;
    /* Dirty pointers into the blocks go first. */
    const struct unit *first = b->unit, *end = first + b->nblocks;
    size_t kept = 0;
    for (size_t d = 0; d < ndirty; d++)
      if (dirty[d] < first || dirty[d] >= end)
        dirty[kept++] = dirty[d];
    ndirty = kept;
    free_blocks(b);
    every[i] = every[--nevery];
    return;
  }
}

void dag__units_release(void) {
  for (size_t i = 0; i < nevery; i++)
    free_blocks(every[i]);
  free(every);
  every = NULL;
  nevery = cap_every = 0;
  forget_replicated();
  free(reps);
  reps = NULL;
  nreps = cap_reps = 0;
  free(dirty);
  dirty = NULL;
  ndirty = cap_dirty = 0;
}
