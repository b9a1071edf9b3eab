/* validity.c — which memory spaces of this rank hold a valid copy of each
 * byte: the host, and each open device (device.h: a set of holders per
 * byte). Bytes that only the host holds, as all memory does at first, are
 * not stored; the others are kept per chunk of the host's address space, as
 * a short sorted list of pieces (a byte range of the chunk and its
 * holders). A tile of a matrix is a piece in each chunk its rows cross, so
 * the cost of an access grows with its rows, not with the size of the
 * matrix around it.
 *
 * A chunk is 64 KiB, so that a row of a tile is mostly one piece of one
 * chunk; updates rewrite a chunk's list in place, without allocating.
 *
 * Called with the devices' lock held (device.c).
 */
#include "device/device_internal.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SHIFT 16
#define CHUNK ((uintptr_t)1 << CHUNK_SHIFT)

struct piece {
  uint32_t lo, hi; /* bytes [lo, hi) of the chunk; hi may be CHUNK */
  holders_t holders;
};

struct chunk {
  uintptr_t index; /* address >> CHUNK_SHIFT; 0: a free slot */
  struct piece *pieces;
  uint32_t n;
  size_t cap;
};

/* An open-addressing table of chunks; a chunk whose pieces all went back to
 * the host alone keeps its slot (n == 0), so nothing is ever deleted. */
static struct chunk *table;
static size_t table_size, table_used;
static size_t chunks_held; /* chunks with a piece */

static size_t slot_of(uintptr_t index) {
  return (size_t)(index * 0x9e3779b97f4a7c15u) & (table_size - 1);
}

static struct chunk *lookup(uintptr_t index) {
  if (!table_size)
    return NULL;
  for (size_t s = slot_of(index);; s = (s + 1) & (table_size - 1)) {
    if (table[s].index == index)
      return &table[s];
    if (!table[s].index)
      return NULL;
  }
}

static void grow_table(void) {
  struct chunk *old = table;
  size_t old_size = table_size;
  table_size = old_size ? old_size * 2 : 1024;
  table = calloc(table_size, sizeof *table);
  if (!table)
    dag__out_of_memory("the devices' validity table");
  for (size_t i = 0; i < old_size; i++)
    if (old[i].index) {
      size_t s = slot_of(old[i].index);
      while (table[s].index)
        s = (s + 1) & (table_size - 1);
      table[s] = old[i];
    }
  free(old);
}

static struct chunk *insert(uintptr_t index) {
  struct chunk *c = lookup(index);
  if (c)
    return c;
  if (2 * (table_used + 1) > table_size)
    grow_table();
  size_t s = slot_of(index);
  while (table[s].index)
    s = (s + 1) & (table_size - 1);
  table_used++;
  table[s].index = index;
  return &table[s];
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

void dag__validity_each(uintptr_t lo, uintptr_t hi,
                        void (*fn)(uintptr_t lo, uintptr_t hi,
                                   holders_t holders, void *arg),
                        void *arg) {
  struct walk w = {{lo, lo, 0}, fn, arg};
  for (uintptr_t ci = lo >> CHUNK_SHIFT;
       lo < hi && ci <= (hi - 1) >> CHUNK_SHIFT; ci++) {
    uintptr_t base = ci << CHUNK_SHIFT;
    uintptr_t a = lo > base ? lo : base;
    uintptr_t b = hi - base < CHUNK ? hi : base + CHUNK;
    const struct chunk *c = lookup(ci);
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
  if (n > c->cap)
    c->pieces = dag__grow(c->pieces, &c->cap, n, sizeof *c->pieces,
                          "the devices' validity table");
  memcpy(c->pieces, out, n * sizeof *out);
  c->n = (uint32_t)n;
  chunks_held += (size_t)(n > 0) - (size_t)held;
}

void dag__validity_update(uintptr_t lo, uintptr_t hi, holders_t keep,
                          holders_t add) {
  for (uintptr_t ci = lo >> CHUNK_SHIFT;
       lo < hi && ci <= (hi - 1) >> CHUNK_SHIFT; ci++) {
    uintptr_t base = ci << CHUNK_SHIFT;
    uintptr_t a = lo > base ? lo - base : 0;
    uintptr_t b = hi - base < CHUNK ? hi - base : CHUNK;
    struct chunk *c = (keep & HOST) && !add ? lookup(ci) : insert(ci);
    if (c)
      update_chunk(c, a, b, keep, add);
  }
}

bool dag__validity_any(void) { return chunks_held > 0; }

void dag__validity_each_held(void (*fn)(uintptr_t lo, uintptr_t hi,
                                        holders_t holders, void *arg),
                             void *arg) {
  for (size_t s = 0; s < table_size; s++) {
    const struct chunk *c = &table[s];
    uintptr_t base = c->index << CHUNK_SHIFT;
    for (uint32_t i = 0; i < c->n; i++)
      fn(base + c->pieces[i].lo, base + c->pieces[i].hi, c->pieces[i].holders,
         arg);
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

void dag__ranges_add_span(uintptr_t lo, uintptr_t hi, void *ranges) {
  dag__validity_each(lo, hi, dag__ranges_add, ranges);
}

void dag__validity_release(void) {
  for (size_t s = 0; s < table_size; s++)
    free(table[s].pieces);
  free(table);
  free(scratch_buf);
  table = NULL;
  scratch_buf = NULL;
  table_size = table_used = chunks_held = scratch_cap = 0;
}
