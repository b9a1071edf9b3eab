/* validity.c — which memory spaces of this rank hold a valid copy of each
 * byte: the host, and each open device (device.h: a set of holders per
 * byte). Bytes that only the host holds, as all memory does at first, are
 * not stored. The others are kept in one of two ways:
 *
 *  - whole regions (region_table.c): a task's region whose bytes all have
 *    the same holders is one entry, so that the common questions ("does
 *    device d hold this whole tile?") and updates ("only d holds it now")
 *    take one lookup, whatever the tile's rows;
 *  - pieces, per chunk of the host's address space: a short sorted list of
 *    byte ranges of the chunk and their holders, for bytes whose holders
 *    differ within a region, and for questions about bytes rather than
 *    regions (eviction, granule by granule).
 *
 * No byte is in both: an entry's bytes have no piece, and entries share no
 * byte. An entry that a question or an update does not match exactly is
 * first written into pieces and dropped (`dissolve`), which costs a walk of
 * its rows; a region update that leaves the region's bytes alike makes it
 * an entry again. A program that asks about the same tiles it wrote pays
 * the walk once per tile.
 *
 * An entry also says, per device, which device task's copies brought its
 * bytes there (dag__validity_arrival), so that a task that reads them
 * waits for those copies and not for every copy queued before it. An entry
 * made from pieces does not know (its bytes came from anywhere).
 *
 * A chunk is 64 KiB, so that a row of a tile is mostly one piece of one
 * chunk; updates rewrite a chunk's list in place, without allocating.
 *
 * Called with the devices' lock held (device.c).
 */
#include "device/devices.h"
#include "device/writeback.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SHIFT 16
#define CHUNK ((uintptr_t)1 << CHUNK_SHIFT)

struct piece {
  uint32_t lo, hi; /* bytes [lo, hi) of the chunk; hi may be CHUNK */
  holders_t holders;
};

struct chunk {
  struct piece *pieces;
  uint32_t n;
  size_t cap;
};

/* Chunks by address, in leaves of LEAF chunks (256 MiB of addresses), so
 * that the rows of a tile, a stride apart, are chunks a few places apart in
 * memory. Leaves are found in a small open-addressing table, the last one
 * used first. A chunk whose pieces all went back to the host alone stays
 * (n == 0). */
#define LEAF_SHIFT 12
#define LEAF ((uintptr_t)1 << LEAF_SHIFT)

struct leaf {
  uintptr_t index; /* chunk index >> LEAF_SHIFT, plus one; 0: a free slot */
  struct chunk *chunks;
};

static struct leaf *leaves;
static size_t leaves_size, leaves_used;
static struct leaf *last_leaf;
static size_t chunks_held; /* chunks with a piece */

static size_t slot_of(uintptr_t index) {
  return (size_t)(index * 0x9e3779b97f4a7c15u) & (leaves_size - 1);
}

/* The leaf of key (chunk index >> LEAF_SHIFT, plus one), or its free slot
 * when it has none. */
static struct leaf *leaf_slot(uintptr_t key) {
  for (size_t s = slot_of(key);; s = (s + 1) & (leaves_size - 1))
    if (leaves[s].index == key || !leaves[s].index)
      return &leaves[s];
}

static void grow_leaves(void) {
  struct leaf *old = leaves;
  size_t old_size = leaves_size;
  leaves_size = old_size ? old_size * 2 : 64;
  leaves = calloc(leaves_size, sizeof *leaves);
  if (!leaves)
    dag__out_of_memory("the devices' validity table");
  for (size_t i = 0; i < old_size; i++)
    if (old[i].index)
      *leaf_slot(old[i].index) = old[i];
  free(old);
  last_leaf = NULL;
}

/* Chunk `index`; with make, made if absent (else NULL). */
static struct chunk *chunk_at(uintptr_t index, bool make) {
  uintptr_t key = (index >> LEAF_SHIFT) + 1;
  struct leaf *l = last_leaf;
  if (!l || l->index != key) {
    l = leaves_size ? leaf_slot(key) : NULL;
    if (!l || !l->index) {
      if (!make)
        return NULL;
      if (2 * (leaves_used + 1) > leaves_size) {
        grow_leaves();
        l = leaf_slot(key);
      }
      l->chunks = calloc(LEAF, sizeof *l->chunks);
      if (!l->chunks)
        dag__out_of_memory("the devices' validity table");
      l->index = key;
      leaves_used++;
    }
    last_leaf = l;
  }
  return &l->chunks[index & (LEAF - 1)];
}

/* A range of bytes with the same holders. */
struct segment {
  uintptr_t lo, hi;
  holders_t holders;
};

/* Calls emit(seg) for each part of [lo, hi) in order, with its holders,
 * joining neighbours that have the same. */
struct walk {
  struct segment run;
  void (*fn)(uintptr_t lo, uintptr_t hi, holders_t holders, void *arg);
  void *arg;
};

static void walk_add(struct walk *w, uintptr_t a, uintptr_t b, holders_t h) {
  if (a >= b)
    return;
  if (w->run.hi == a && w->run.holders == h) {
    w->run.hi = b; /* one range across pieces and chunks */
    return;
  }
  if (w->run.hi > w->run.lo)
    w->fn(w->run.lo, w->run.hi, w->run.holders, w->arg);
  w->run = (struct segment){a, b, h};
}

static void bytes_each(uintptr_t lo, uintptr_t hi,
                       void (*fn)(uintptr_t lo, uintptr_t hi, holders_t holders,
                                  void *arg),
                       void *arg) {
  struct walk w = {{lo, lo, 0}, fn, arg};
  for (uintptr_t ci = lo >> CHUNK_SHIFT;
       lo < hi && ci <= (hi - 1) >> CHUNK_SHIFT; ci++) {
    uintptr_t base = ci << CHUNK_SHIFT;
    uintptr_t a = lo > base ? lo : base;
    uintptr_t b = hi - base < CHUNK ? hi : base + CHUNK;
    const struct chunk *c = chunk_at(ci, false);
    uintptr_t at = a;
    for (uint32_t i = 0; c && i < c->n && at < b; i++) {
      uintptr_t p_lo = base + c->pieces[i].lo, p_hi = base + c->pieces[i].hi;
      if (p_hi <= at)
        continue;
      if (p_lo > at)
        walk_add(&w, at, p_lo < b ? p_lo : b, HOST);
      at = p_lo > at ? p_lo : at;
      walk_add(&w, at, p_hi < b ? p_hi : b, c->pieces[i].holders);
      at = p_hi;
    }
    if (at < b)
      walk_add(&w, at, b, HOST);
  }
  if (w.run.hi > w.run.lo)
    fn(w.run.lo, w.run.hi, w.run.holders, arg);
}

/* Room for a chunk's new list while it is rewritten (the devices' lock
 * guards it). */
static struct piece *scratch_buf;
static size_t scratch_cap;

/* Appends [lo, hi) with holders h to out[*n], joining an equal neighbour
 * and leaving out what the host alone holds. */
static void put(struct piece *out, size_t *n, uintptr_t lo, uintptr_t hi,
                holders_t h) {
  if (lo >= hi || h == HOST)
    return;
  if (*n && out[*n - 1].hi == lo && out[*n - 1].holders == h)
    out[*n - 1].hi = (uint32_t)hi;
  else
    out[(*n)++] = (struct piece){(uint32_t)lo, (uint32_t)hi, h};
}

/* Bytes [a, b) of chunk c become (holders & keep) | add. */
static void update_chunk(struct chunk *c, uintptr_t a, uintptr_t b,
                         holders_t keep, holders_t add) {
  /* Each old piece gives at most three new ones, and a gap one. */
  size_t room = 3 * (size_t)c->n + 2;
  if (room > scratch_cap)
    scratch_buf = dag__grow(scratch_buf, &scratch_cap, room,
                            sizeof *scratch_buf, "the devices' validity table");
  struct piece *out = scratch_buf;
  size_t n = 0;
  uintptr_t at = 0; /* bytes before `at` are done */
  holders_t inside_gap = (holders_t)((HOST & keep) | add);
  for (uint32_t i = 0; i <= c->n; i++) {
    /* The gap before piece i (the host alone), then piece i. */
    uintptr_t g_lo = at, g_hi = i < c->n ? c->pieces[i].lo : CHUNK;
    put(out, &n, g_lo > a ? g_lo : a, g_hi < b ? g_hi : b, inside_gap);
    if (i == c->n)
      break;
    const struct piece *p = &c->pieces[i];
    holders_t changed = (holders_t)((p->holders & keep) | add);
    put(out, &n, p->lo, p->hi < a ? p->hi : (a > p->lo ? a : p->lo),
        p->holders);
    put(out, &n, p->lo > a ? p->lo : a, p->hi < b ? p->hi : b, changed);
    put(out, &n, p->lo > b ? p->lo : b, p->hi, p->holders);
    at = p->hi;
  }
  bool held = c->n > 0;
  if (n > c->cap) { /* most chunks hold a piece or two: grow from 2 */
    size_t cap = 2 * c->cap > n ? 2 * c->cap : (n > 2 ? n : 2);
    struct piece *p = realloc(c->pieces, cap * sizeof *p);
    if (!p)
      dag__out_of_memory("the devices' validity table");
    c->pieces = p;
    c->cap = cap;
  }
  if (n)
    memcpy(c->pieces, out, n * sizeof *out);
  c->n = (uint32_t)n;
  chunks_held += (size_t)(n > 0) - (size_t)held;
}

/* Pieces only: entries must not meet [lo, hi). */
static void bytes_update(uintptr_t lo, uintptr_t hi, holders_t keep,
                         holders_t add) {
  /* Bytes the host alone holds and keeps need no chunk. */
  bool make = (holders_t)((HOST & keep) | add) != HOST;
  for (uintptr_t ci = lo >> CHUNK_SHIFT;
       lo < hi && ci <= (hi - 1) >> CHUNK_SHIFT; ci++) {
    uintptr_t base = ci << CHUNK_SHIFT;
    uintptr_t a = lo > base ? lo - base : 0;
    uintptr_t b = hi - base < CHUNK ? hi - base : CHUNK;
    struct chunk *c = chunk_at(ci, make);
    if (c)
      update_chunk(c, a, b, keep, add);
  }
}

/* ----------------------------------------------------- whole regions */

static size_t entries_held; /* entries not held by the host alone */

static void set_holders(struct region_entry *e, holders_t h) {
  entries_held += (size_t)(h != HOST) - (size_t)(e->holders != HOST);
  e->holders = h;
}

struct change {
  holders_t keep, add;
};

static void change_span(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct change *c = arg;
  bytes_update(lo, hi, c->keep, c->add);
}

/* Writes the entries that share a byte with r into pieces, and drops
 * them. */
static void dissolve(const struct region *r) {
  struct region_entry **e;
  size_t n = dag__regions_meeting(r, &e);
  for (size_t i = 0; i < n; i++) {
    if (e[i]->holders != HOST) /* else its bytes are as they would be */
      dag__region_each_span(&e[i]->r, change_span,
                            &(struct change){0, e[i]->holders});
    set_holders(e[i], HOST);
    dag__regions_remove(e[i]);
  }
}

/* Whether nothing is recorded for any byte of r (no entry meets it, and
 * no chunk near it holds a piece): the host alone holds it, as all memory
 * before a device touches it. A tile's first task then costs no walk of
 * its rows (2,048 of them for a tile of 2048 doubles). */
static bool untouched(const struct region *r) {
  struct region_entry **meeting;
  if (dag__regions_meeting(r, &meeting))
    return false;
  uintptr_t last = ((r->hi - 1) >> CHUNK_SHIFT >> LEAF_SHIFT) + 1;
  for (uintptr_t key = (r->lo >> CHUNK_SHIFT >> LEAF_SHIFT) + 1;
       chunks_held && key <= last; key++)
    if (leaf_slot(key)->index)
      return false;
  return true;
}

static void dissolve_bytes(uintptr_t lo, uintptr_t hi) {
  if (lo < hi)
    dissolve(&(struct region){.lo = lo, .hi = hi, .span = hi - lo});
}

void dag__validity_each(uintptr_t lo, uintptr_t hi,
                        void (*fn)(uintptr_t lo, uintptr_t hi,
                                   holders_t holders, void *arg),
                        void *arg) {
  dissolve_bytes(lo, hi);
  bytes_each(lo, hi, fn, arg);
}

void dag__validity_update(uintptr_t lo, uintptr_t hi, holders_t keep,
                          holders_t add) {
  if (keep != (holders_t)~0)
    dag__writeback_void(
        &(struct region){.lo = lo, .hi = hi, .span = hi - lo, .ndims = 0});
  dissolve_bytes(lo, hi);
  bytes_update(lo, hi, keep, add);
}

bool dag__validity_whole(const struct region *r, holders_t *holders) {
  const struct region_entry *e = dag__regions_find(r);
  if (e) {
    *holders = e->holders;
    return true;
  }
  *holders = HOST;
  return untouched(r);
}

/* Whether every byte walked so far has the same holders. */
struct alike {
  holders_t holders;
  bool any, same;
};

static void note_alike(uintptr_t lo, uintptr_t hi, holders_t h, void *arg) {
  struct alike *a = arg;
  (void)lo, (void)hi;
  a->same &= !a->any || h == a->holders;
  a->holders = h;
  a->any = true;
}

static void alike_span(uintptr_t lo, uintptr_t hi, void *arg) {
  bytes_each(lo, hi, note_alike, arg);
}

void dag__validity_update_region(const struct region *r, holders_t keep,
                                 holders_t add) {
  if (dag__region_empty(r))
    return;
  if (keep != (holders_t)~0)
    dag__writeback_void(r);
  struct region_entry *e = dag__regions_find(r);
  if (e) {
    set_holders(e, (holders_t)((e->holders & keep) | add));
    if (!keep) /* written: no copy of the old bytes counts */
      memset(e->arrival, 0, sizeof e->arrival);
    return;
  }
  if (untouched(r)) {
    holders_t h = (holders_t)((HOST & keep) | add);
    if (h != HOST)
      set_holders(dag__regions_add(r, HOST), h);
    return;
  }
  dissolve(r);
  holders_t h = add;
  if (keep) { /* the result may differ byte to byte */
    dag__region_each_span(r, change_span, &(struct change){keep, add});
    struct alike a = {0, false, true};
    dag__region_each_span(r, alike_span, &a);
    if (!a.same)
      return; /* it stays in pieces */
    h = a.holders;
  }
  dag__region_each_span(r, change_span, &(struct change){0, HOST});
  e = dag__regions_add(r, HOST);
  set_holders(e, h);
  for (int i = 0; keep && i < MAX_DEVICES; i++)
    e->arrival[i] = ARRIVAL_UNKNOWN; /* its pieces' copies are not known */
}

uint64_t dag__validity_arrival(const struct region *r, int device) {
  const struct region_entry *e = dag__regions_find(r);
  return e ? e->arrival[device] : ARRIVAL_UNKNOWN;
}

void dag__validity_arrives(const struct region *r, int device, uint64_t turn) {
  struct region_entry *e = dag__regions_find(r);
  if (e)
    e->arrival[device] = turn + 1;
}

struct whole_ranges {
  struct ranges *out;
  holders_t holders;
};

static void add_whole_span(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct whole_ranges *w = arg;
  dag__ranges_add(lo, hi, w->holders, w->out);
}

void dag__ranges_add_region(const struct region *r, holders_t holders,
                            struct ranges *out) {
  if ((holders & out->mask) == out->want)
    dag__region_each_span(r, add_whole_span,
                          &(struct whole_ranges){out, holders});
}

static void add_walked_span(uintptr_t lo, uintptr_t hi, void *ranges) {
  bytes_each(lo, hi, dag__ranges_add, ranges);
}

void dag__validity_collect(const struct region *r, struct ranges *out) {
  holders_t h;
  if (dag__validity_whole(r, &h)) {
    dag__ranges_add_region(r, h, out);
  } else {
    dissolve(r); /* once, not span by span */
    dag__region_each_span(r, add_walked_span, out);
  }
}

void dag__validity_host_copied(const struct ranges *r,
                               const struct region *within) {
  bool within_dissolved = false;
  for (size_t i = 0; i < r->n; i++) {
    if (r->at[i].holders & HOST)
      continue;
    if (!within) {
      dissolve_bytes(r->at[i].lo, r->at[i].hi);
    } else if (!within_dissolved) {
      dissolve(within);
      within_dissolved = true;
    }
    bytes_update(r->at[i].lo, r->at[i].hi, (holders_t)~0, HOST);
  }
}

static void forget_entry(struct region_entry *e, void *arg) {
  (void)arg;
  set_holders(e, HOST);
}

void dag__validity_forget_devices(void) {
  dag__regions_each(forget_entry, NULL);
  for (size_t s = 0; s < leaves_size; s++)
    for (uintptr_t k = 0; leaves[s].index && k < LEAF; k++)
      leaves[s].chunks[k].n = 0;
  chunks_held = 0;
}

/* ------------------------------------------------------------ queries */

bool dag__validity_any(void) { return chunks_held > 0 || entries_held > 0; }

struct held_entry {
  void (*whole)(const struct region *r, holders_t holders, void *arg);
  void *arg;
};

static void each_held_entry(struct region_entry *e, void *arg) {
  const struct held_entry *h = arg;
  if (e->holders != HOST)
    h->whole(&e->r, e->holders, h->arg);
}

void dag__validity_each_held(void (*whole)(const struct region *r,
                                           holders_t holders, void *arg),
                             void (*piece)(uintptr_t lo, uintptr_t hi,
                                           holders_t holders, void *arg),
                             void *arg) {
  dag__regions_each(each_held_entry, &(struct held_entry){whole, arg});
  for (size_t s = 0; s < leaves_size; s++)
    for (uintptr_t k = 0; leaves[s].index && k < LEAF; k++) {
      const struct chunk *c = &leaves[s].chunks[k];
      uintptr_t base = (((leaves[s].index - 1) << LEAF_SHIFT) + k)
                       << CHUNK_SHIFT;
      for (uint32_t i = 0; i < c->n; i++)
        piece(base + c->pieces[i].lo, base + c->pieces[i].hi,
              c->pieces[i].holders, arg);
    }
}

void dag__ranges_add(uintptr_t lo, uintptr_t hi, holders_t h, void *ranges) {
  struct ranges *r = ranges;
  if ((h & r->mask) != r->want)
    return;
  r->at =
      dag__grow(r->at, &r->cap, r->n + 1, sizeof *r->at, "device coherence");
  r->at[r->n++] = (struct range){lo, hi, h};
}

void dag__validity_release(void) {
  dag__regions_release();
  for (size_t s = 0; s < leaves_size; s++)
    for (uintptr_t k = 0; leaves[s].index && k < LEAF; k++)
      free(leaves[s].chunks[k].pieces);
  for (size_t s = 0; s < leaves_size; s++)
    free(leaves[s].chunks);
  free(leaves);
  free(scratch_buf);
  leaves = NULL;
  last_leaf = NULL;
  scratch_buf = NULL;
  leaves_size = leaves_used = chunks_held = scratch_cap = entries_held = 0;
}
