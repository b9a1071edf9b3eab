/* validity.c — which memory spaces of this rank hold a valid copy of each
 * byte: the host, and each open device (device.h: a set of holders per
 * byte). Bytes that only the host holds, as all memory does at first, are
 * not stored; the others are kept per chunk of the host's address space, as
 * a short sorted list of pieces (a byte range of the chunk and its
 * holders). A tile of a matrix is a piece in each chunk its rows cross, so
 * the cost of an access grows with its rows, not with the size of the
 * matrix around it.
 *
 * Called with the devices' lock held (device.c).
 */
#include "device/device_internal.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SHIFT 12
#define CHUNK ((uintptr_t)1 << CHUNK_SHIFT)

struct piece {
  uint16_t lo, hi; /* bytes [lo, hi) of the chunk; hi may be CHUNK */
  holders_t holders;
};

struct chunk {
  uintptr_t index; /* address >> CHUNK_SHIFT; 0: a free slot */
  struct piece *pieces;
  uint32_t n, cap;
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

/* The segments of chunk c (or of a chunk without pieces) into out, covering
 * the whole chunk in order; returns their number (at most 2n + 1). */
static size_t segments(const struct chunk *c, uintptr_t base,
                       struct segment *out) {
  size_t k = 0;
  uintptr_t at = 0;
  for (uint32_t i = 0; c && i < c->n; i++) {
    if (c->pieces[i].lo > at)
      out[k++] = (struct segment){base + at, base + c->pieces[i].lo, HOST};
    out[k++] = (struct segment){base + c->pieces[i].lo, base + c->pieces[i].hi,
                                c->pieces[i].holders};
    at = c->pieces[i].hi;
  }
  if (at < CHUNK)
    out[k++] = (struct segment){base + at, base + CHUNK, HOST};
  return k;
}

/* Room for the segments of one chunk (the devices' lock guards it). */
static struct segment *scratch_buf;
static size_t scratch_cap;

static struct segment *scratch(size_t n) {
  if (n > scratch_cap)
    scratch_buf = dag__grow(scratch_buf, &scratch_cap, n, sizeof *scratch_buf,
                            "the devices' validity table");
  return scratch_buf;
}

void dag__validity_each(uintptr_t lo, uintptr_t hi,
                        void (*fn)(uintptr_t lo, uintptr_t hi,
                                   holders_t holders, void *arg),
                        void *arg) {
  struct segment run = {lo, lo, 0};
  for (uintptr_t ci = lo >> CHUNK_SHIFT;
       lo < hi && ci <= (hi - 1) >> CHUNK_SHIFT; ci++) {
    const struct chunk *c = lookup(ci);
    struct segment *seg = scratch(2 * (c ? c->n : 0) + 1);
    size_t k = segments(c && c->n ? c : NULL, ci << CHUNK_SHIFT, seg);
    for (size_t i = 0; i < k; i++) {
      uintptr_t a = seg[i].lo > lo ? seg[i].lo : lo;
      uintptr_t b = seg[i].hi < hi ? seg[i].hi : hi;
      if (a >= b)
        continue;
      if (run.hi == a && run.holders == seg[i].holders) {
        run.hi = b; /* one range across pieces and chunks */
        continue;
      }
      if (run.hi > run.lo)
        fn(run.lo, run.hi, run.holders, arg);
      run = (struct segment){a, b, seg[i].holders};
    }
  }
  if (run.hi > run.lo)
    fn(run.lo, run.hi, run.holders, arg);
}

/* Bytes [a, b) of chunk c become (holders & keep) | add. */
static void update_chunk(struct chunk *c, uintptr_t a, uintptr_t b,
                         holders_t keep, holders_t add) {
  struct segment *seg = scratch(2 * c->n + 3);
  size_t k = segments(c->n ? c : NULL, 0, seg);
  struct piece *out = malloc((k + 2) * sizeof *out);
  if (!out)
    dag__out_of_memory("the devices' validity table");
  size_t n = 0;
  for (size_t i = 0; i < k; i++) {
    /* Up to three parts: before a, inside [a, b), after b. */
    uintptr_t cut[4] = {seg[i].lo, seg[i].lo > a ? seg[i].lo : a,
                        seg[i].hi < b ? seg[i].hi : b, seg[i].hi};
    if (cut[1] > cut[2])
      cut[1] = cut[2] = seg[i].hi; /* no overlap */
    for (int p = 0; p < 3; p++) {
      if (cut[p] >= cut[p + 1])
        continue;
      holders_t h = seg[i].holders;
      if (p == 1)
        h = (holders_t)((h & keep) | add);
      if (n && out[n - 1].hi == cut[p] && out[n - 1].holders == h)
        out[n - 1].hi = (uint16_t)cut[p + 1];
      else
        out[n++] = (struct piece){(uint16_t)cut[p], (uint16_t)cut[p + 1], h};
    }
  }
  /* Keep only what differs from the host alone. */
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (out[i].holders != HOST)
      out[m++] = out[i];
  bool held = c->n > 0;
  free(c->pieces);
  c->pieces = m ? out : NULL;
  c->n = c->cap = (uint32_t)m;
  if (!m)
    free(out);
  chunks_held += (size_t)(m > 0) - (size_t)held;
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
