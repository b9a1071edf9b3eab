/* uniform.c — rank-uniform execution: every rank sees every top-level task
 * and decides alone, identically, where it runs and which data moves.
 *
 * Each rank keeps the same bookkeeping, per unit of data, of the set of
 * ranks that hold a valid copy:
 *   - dag_alloc memory: the units are the distribution's blocks; at first
 *     only the home holds a valid copy;
 *   - other (replicated) memory: the units are byte intervals, merged when
 *     accessed regions overlap; at first every rank holds a valid copy.
 * For a task placed on rank E, a unit it reads (or writes in part) that E
 * lacks comes from one valid holder, chosen the same way on every rank;
 * both sides add the transfer to their local graph as a task (a send that
 * reads the unit, a receive that writes it), so the local dependency
 * tracker orders it with the local tasks around it. After a write only E
 * holds a valid copy. Ranks other than E and the holders do nothing but
 * this bookkeeping for the task.
 *
 * Tags come from per-pair sequences: every rank plans the same transfers
 * in the same order, so the n-th transfer from A to B has the same tag on
 * both sides and matching never depends on timing.
 *
 * A taskwait brings every replicated unit written since back to every rank
 * and every block back to its home (unless noflush), then checks that all
 * ranks submitted the same tasks: a hash of each task's description that
 * ranks compare; on a mismatch a binary search over the recorded hashes
 * finds the first task that differs and every rank names its own.
 *
 * Everything here runs on the one thread that submits top-level tasks.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------- rank sets */

static size_t words; /* 64-bit words per rank set */

static bool set_has(const uint64_t *s, int r) {
  return s[r / 64] >> (r % 64) & 1;
}

static void set_add(uint64_t *s, int r) { s[r / 64] |= 1ull << (r % 64); }

static void set_only(uint64_t *s, int r) {
  memset(s, 0, words * sizeof *s);
  set_add(s, r);
}

static void set_all(uint64_t *s) {
  for (size_t i = 0; i < words; i++)
    s[i] = ~0ull;
}

static int set_first(const uint64_t *s) {
  for (int r = 0; r < dag__nranks; r++)
    if (set_has(s, r))
      return r;
  DAG_BUG("a unit with no valid copy");
}

static uint64_t *set_new(void) {
  uint64_t *s = calloc(words, sizeof *s);
  if (!s)
    dag__out_of_memory("rank sets");
  return s;
}

/* ------------------------------------------------------------------ units */

/* A unit of data and the ranks holding it valid. */
struct unit {
  struct region region; /* this rank's copy */
  uint64_t *valid;
  int home;   /* -1: replicated */
  bool dirty; /* written since the last taskwait */
};

/* The blocks of one dag_alloc allocation, made on first use. */
struct blocks {
  const struct dag_allocation *alloc;
  size_t nblocks;
  struct unit *unit; /* unit[i].valid == NULL: never touched */
};

static struct blocks *allocs;
static size_t nallocs;

/* Replicated units: disjoint intervals sorted by address, each allocated
 * on its own so that pointers to it (the dirty list) stay valid. */
static struct unit **reps;
static size_t nreps, cap_reps;

/* Units written since the last taskwait. */
static struct unit **dirty;
static size_t ndirty, cap_dirty;

static void mark_dirty(struct unit *u) {
  if (u->dirty)
    return;
  u->dirty = true;
  if (ndirty == cap_dirty) {
    cap_dirty = cap_dirty ? 2 * cap_dirty : 64;
    dirty = realloc(dirty, cap_dirty * sizeof *dirty);
    if (!dirty)
      dag__out_of_memory("dirty units");
  }
  dirty[ndirty++] = u;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* Geometry of the distribution's blocks. */
static size_t block_count(const struct dag_allocation *a) {
  const struct dag_dist *d = &a->dist;
  switch (d->kind) {
  case DAG_DIST_BLOCK:
    return ceil_div(a->bytes, d->elem * d->block);
  case DAG_DIST_2D: {
    size_t rows = ceil_div(a->bytes, d->elem * d->ld);
    return ceil_div(rows, d->mb) * ceil_div(d->ld, d->nb);
  }
  case DAG_DIST_OWNER:
    break;
  }
  return ceil_div(a->bytes, d->block);
}

/* The region of block i. */
static struct region block_region(const struct dag_allocation *a, size_t i) {
  const struct dag_dist *d = &a->dist;
  uintptr_t base = (uintptr_t)a->base;
  struct region r = {0};
  if (d->kind != DAG_DIST_2D) {
    size_t size = d->kind == DAG_DIST_BLOCK ? d->elem * d->block : d->block;
    size_t lo = i * size, hi = lo + size < a->bytes ? lo + size : a->bytes;
    r.lo = base + lo;
    r.hi = base + hi;
    r.span = hi - lo;
    return r;
  }
  size_t rows = ceil_div(a->bytes, d->elem * d->ld);
  size_t nbj = ceil_div(d->ld, d->nb);
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

static struct blocks *blocks_of(const struct dag_allocation *a) {
  for (size_t i = 0; i < nallocs; i++)
    if (allocs[i].alloc == a)
      return &allocs[i];
  struct blocks *grown = realloc(allocs, (nallocs + 1) * sizeof *allocs);
  if (!grown)
    dag__out_of_memory("distributed blocks");
  allocs = grown;
  struct blocks *b = &allocs[nallocs++];
  b->alloc = a;
  b->nblocks = block_count(a);
  b->unit = calloc(b->nblocks, sizeof *b->unit);
  if (!b->unit)
    dag__out_of_memory("distributed blocks");
  return b;
}

static struct unit *block_unit(struct blocks *b, size_t i) {
  struct unit *u = &b->unit[i];
  if (!u->valid) {
    u->region = block_region(b->alloc, i);
    u->home =
        dag__dist_home(b->alloc, u->region.lo - (uintptr_t)b->alloc->base);
    u->valid = set_new();
    set_add(u->valid, u->home);
  }
  return u;
}

/* Regions that lie in one block, remembered: tiled programs name the same
 * tiles again and again, and the block geometry costs divisions. */
#define TILE_CACHE 1024

static struct tile_hit {
  uintptr_t lo, hi;
  size_t span, stride; /* stride: of the outer dimension, 0 if none */
  int ndims;
  const struct dag_allocation *alloc;
  struct unit *unit;
} tile_cache[TILE_CACHE];

/* Regions with the same bounds, span, number of dimensions and outer
 * stride have the same shape for the block walk (it looks no further). */
static size_t outer_stride(const struct region *r) {
  return r->ndims ? r->dim[0].stride : 0;
}

static struct tile_hit *tile_slot(const struct region *r) {
  uintptr_t h = (r->lo >> 3) * 0x9e3779b97f4a7c15ull;
  return &tile_cache[(h >> 40) % TILE_CACHE];
}

/* The one unit fn was called on, to remember it. */
struct only_unit {
  void (*fn)(struct unit *, void *);
  void *arg;
  struct unit *unit;
  int calls;
};

static void note_unit(struct unit *u, void *p) {
  struct only_unit *o = p;
  o->unit = u;
  o->calls++;
  o->fn(u, o->arg);
}

static void walk_blocks(const struct dag_allocation *a, const struct region *r,
                        void (*fn)(struct unit *, void *), void *arg);

/* Calls fn on every block a region of allocation a may touch (its bounding
 * rows and columns: a few more than it touches for odd shapes, which only
 * moves more data). */
static void each_block(const struct dag_allocation *a, const struct region *r,
                       void (*fn)(struct unit *, void *), void *arg) {
  struct tile_hit *t = tile_slot(r);
  if (t->alloc == a && t->lo == r->lo && t->hi == r->hi && t->span == r->span &&
      t->stride == outer_stride(r) && t->ndims == r->ndims) {
    fn(t->unit, arg);
    return;
  }
  struct only_unit o = {fn, arg, NULL, 0};
  walk_blocks(a, r, note_unit, &o);
  if (o.calls == 1)
    *t = (struct tile_hit){r->lo,    r->hi, r->span, outer_stride(r),
                           r->ndims, a,     o.unit};
}

static void walk_blocks(const struct dag_allocation *a, const struct region *r,
                        void (*fn)(struct unit *, void *), void *arg) {
  struct blocks *b = blocks_of(a);
  const struct dag_dist *d = &a->dist;
  size_t lo = r->lo - (uintptr_t)a->base, hi = r->hi - (uintptr_t)a->base;
  if (d->kind != DAG_DIST_2D) {
    size_t size = d->kind == DAG_DIST_BLOCK ? d->elem * d->block : d->block;
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
  size_t nbj = ceil_div(d->ld, d->nb);
  for (size_t bi = r0 / d->mb; bi <= r1 / d->mb; bi++)
    for (size_t bj = c0 / d->nb; bj <= c1 / d->nb; bj++)
      if (bi * nbj + bj < b->nblocks)
        fn(block_unit(b, bi * nbj + bj), arg);
}

static void fetch(struct unit *u, int to);

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

/* The replicated unit for region r: an interval [lo, hi) that contains it,
 * merging the units it overlaps. So that one rank holds the whole merged
 * unit, each part is first made valid on rank `gather` (the rank that will
 * use it); the merged unit is valid where all its parts were (bytes in no
 * unit yet are valid everywhere). */
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
  struct unit *u = malloc(sizeof *u);
  if (!u)
    dag__out_of_memory("replicated units");
  *u = (struct unit){{lo, hi, hi - lo, 0, {{0, 0}}}, set_new(), -1, false};
  set_all(u->valid);
  bool was_dirty = false;
  for (size_t i = first; i < end; i++) {
    struct unit *part = reps[i];
    fetch(part, gather);
    for (size_t w = 0; w < words; w++)
      u->valid[w] &= part->valid[w];
    was_dirty |= part->dirty;
    redirect_dirty(part, part->dirty ? u : NULL);
    free(part->valid);
    free(part);
  }
  if (was_dirty)
    u->dirty = true; /* already in the dirty list, in its parts' place */
  if (nreps + 1 > cap_reps) {
    cap_reps = cap_reps ? 2 * cap_reps : 64;
    reps = realloc(reps, cap_reps * sizeof *reps);
    if (!reps)
      dag__out_of_memory("replicated units");
  }
  /* Replace reps[first, end) by u. */
  memmove(&reps[first + 1], &reps[end], (nreps - end) * sizeof *reps);
  nreps = nreps - (end - first) + 1;
  reps[first] = u;
  return u;
}

/* Forgets every replicated unit once all are valid everywhere (after a
 * flush): history that may differ between ranks (addresses reused) does
 * not outlive a taskwait. */
static void forget_replicated(void) {
  for (size_t i = 0; i < nreps; i++) {
    redirect_dirty(reps[i], NULL);
    free(reps[i]->valid);
    free(reps[i]);
  }
  nreps = 0;
}

/* Calls fn on the units region r (in allocation a, or replicated if NULL)
 * touches; replicated parts merged on the way gather on rank `gather`. */
static void each_unit(const struct dag_allocation *a, const struct region *r,
                      int gather, void (*fn)(struct unit *, void *),
                      void *arg) {
  if (a)
    each_block(a, r, fn, arg);
  else
    fn(replicated_unit(r, gather), arg);
}

/* -------------------------------------------------------------- transfers */

struct transfer {
  struct region region;
  int peer;
  uint64_t tag;
};

static uint64_t *sent, *received; /* per peer: transfers so far */

/* The access of a local task (transfer, discard) to unit u's copy. */
static struct dag_access unit_access(enum dag_mode mode, const struct unit *u) {
  struct dag_access acc = {
      mode,
      {(const void *)u->region.lo, u->region.span, u->region.ndims, {{0, 0}}}};
  for (int d = 0; d < u->region.ndims; d++)
    acc.region.dim[d] = (struct dag_dim){u->region.dim[d].count,
                                         (ptrdiff_t)u->region.dim[d].stride};
  return acc;
}

/* For DAG_STATS: what this rank ran, sent and received. */
static struct {
  uint64_t tasks, here, sends, recvs, sent_bytes, received_bytes;
} stats;

static void transfer_done(void *task) { dag__task_release(task); }

static void send_body(void *p) {
  const struct transfer *x = p;
  dag__comm_send(&x->region, x->peer, x->tag, transfer_done, dag__task_hold());
}

static void recv_body(void *p) {
  const struct transfer *x = p;
  dag__comm_recv(&x->region, x->peer, x->tag, transfer_done, dag__task_hold());
}

/* A local task for this rank's side of moving unit u from rank `from` to
 * rank `to`: the send reads u, the receive writes it. */
static void plan_transfer(const struct unit *u, int from, int to) {
  /* Transfers go first among ready tasks: other ranks wait for them. */
  static const struct dag_task_info send_info = {
      .fn = send_body, .label = "send", .priority = 1 << 30};
  static const struct dag_task_info recv_info = {
      .fn = recv_body, .label = "recv", .priority = 1 << 30};
  if (dag__rank != from && dag__rank != to)
    return;
  bool sending = dag__rank == from;
  int peer = sending ? to : from;
  if (sending) {
    stats.sends++;
    stats.sent_bytes += dag__region_bytes(&u->region);
  } else {
    stats.recvs++;
    stats.received_bytes += dag__region_bytes(&u->region);
  }
  struct transfer x = {u->region, peer,
                       sending ? sent[to]++ : received[from]++};
  struct dag_access acc = unit_access(sending ? DAG_IN : DAG_OUT, u);
  int err = dag__submit_internal(sending ? &send_info : &recv_info, &x,
                                 sizeof x, &acc, 1, TASK_NO_INLINE);
  if (err)
    DAG_BUG("cannot submit a transfer (%d)", err);
}

/* Makes u valid on rank `to`, from one holder chosen the same way on every
 * rank: its home if valid there, else the lowest valid rank. */
static void fetch(struct unit *u, int to) {
  if (set_has(u->valid, to))
    return;
  int from = u->home >= 0 && set_has(u->valid, u->home) ? u->home
                                                        : set_first(u->valid);
  plan_transfer(u, from, to);
  set_add(u->valid, to);
}

/* --------------------------------------------------------------- placing */

struct access_plan {
  const struct region *region;
  enum dag_mode mode;
  int exec;
};

static void plan_read(struct unit *u, void *arg) {
  const struct access_plan *a = arg;
  /* A write of part of a unit needs the rest of it current too. */
  if (a->mode != DAG_OUT || !dag__region_covers(a->region, &u->region))
    fetch(u, a->exec);
}

/* Span by span: the pages between the rows of a tile hold other tiles. */
static void discard_body(void *p) {
  const struct region *r = p;
  size_t rows = r->ndims ? r->dim[0].count : 1;
  for (size_t i = 0; i < rows; i++)
    dag__dist_discard((void *)(r->lo + (r->ndims ? i * r->dim[0].stride : 0)),
                      r->span);
}

/* This rank's copy of block u went stale: its pages go back to the system
 * once the local tasks that read the old copy are done (the discard writes
 * the block, so it waits for them). Homes keep theirs. */
static void discard_copy(const struct unit *u) {
  static const struct dag_task_info info = {.fn = discard_body,
                                            .label = "discard"};
  struct dag_access acc = unit_access(DAG_OUT, u);
  int err = dag__submit_internal(&info, &u->region, sizeof u->region, &acc, 1,
                                 TASK_NO_INLINE);
  if (err)
    DAG_BUG("cannot submit a page discard (%d)", err);
}

static void apply_write(struct unit *u, void *arg) {
  const struct access_plan *a = arg;
  if (u->home >= 0 && u->home != dag__rank && a->exec != dag__rank &&
      set_has(u->valid, dag__rank))
    discard_copy(u);
  set_only(u->valid, a->exec);
  mark_dirty(u);
}

/* The home of the first byte of r, or -1 for replicated memory. */
static int home_of(const struct dag_allocation *a, const struct region *r) {
  return a ? dag__dist_home(a, r->lo - (uintptr_t)a->base) : -1;
}

static uint64_t top_tasks; /* top-level tasks submitted */

/* on(rank); else the home of the first written distributed item; else of
 * the first read one; else round-robin by task number. */
static int place(const struct dag_task_info *info, const struct region *regs,
                 const enum dag_mode *modes,
                 const struct dag_allocation *const *allocs_of, size_t n) {
  if (info->flags & DAG_TASK_ON_RANK)
    return info->rank;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      bool writes = modes[i] != DAG_IN;
      if (writes == (pass == 0)) {
        int home = home_of(allocs_of[i], &regs[i]);
        if (home >= 0)
          return home;
      }
    }
  return (int)(top_tasks % (uint64_t)dag__nranks);
}

/* ----------------------------------------------------------- uniformity */

/* The hash of every task since the last check, cumulated, and what each
 * task was, to name the first one that differs between ranks. */
struct record {
  uint64_t hash; /* cumulated up to and including this task */
  const char *label, *file;
  int line;
};

static struct record *history;
static size_t nhistory, cap_history;
static uint64_t checked; /* tasks before the first of history */
static uint64_t cumulated = 14695981039346656037ull;

/* One multiply per value: only equality between ranks matters. */
static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

/* What every rank must agree on: the source line, the flags and placement,
 * and per access its mode, shape and, in dag_alloc memory, its offset
 * (addresses of replicated memory differ between ranks). */
static void record(const struct dag_task_info *info, const struct region *regs,
                   const enum dag_mode *modes,
                   const struct dag_allocation *const *allocs_of, size_t n) {
  uint64_t h = mix(cumulated, (uint64_t)info->line);
  h = mix(h, info->flags);
  h = mix(h, (uint64_t)(info->flags & DAG_TASK_ON_RANK ? info->rank : -1));
  for (size_t i = 0; i < n; i++) {
    const struct region *r = &regs[i];
    h = mix(h, (uint64_t)modes[i]);
    h = mix(h, r->span);
    for (int d = 0; d < r->ndims; d++)
      h = mix(mix(h, r->dim[d].count), r->dim[d].stride);
    const struct dag_allocation *a = allocs_of[i];
    if (a)
      h = mix(mix(h, a->bytes), r->lo - (uintptr_t)a->base);
  }
  cumulated = h;
  if (nhistory == cap_history) {
    cap_history = cap_history ? 2 * cap_history : 1024;
    history = realloc(history, cap_history * sizeof *history);
    if (!history)
      dag__out_of_memory("the uniformity record");
  }
  history[nhistory++] = (struct record){h, info->label, info->file, info->line};
}

/* Every rank's value of v; true when they are all equal. */
static bool agree(uint64_t v, uint64_t *all) {
  dag__comm_allgather(v, all);
  for (int r = 1; r < dag__nranks; r++)
    if (all[r] != all[0])
      return false;
  return true;
}

static void describe(char *buf, size_t size, size_t index) {
  if (index >= nhistory) {
    snprintf(buf, size, "no task (it submitted %llu)",
             (unsigned long long)(checked + nhistory));
    return;
  }
  const struct record *t = &history[index];
  char name[256];
  dag__task_name(name, sizeof name, t->label, t->file, t->line);
  snprintf(buf, size, "task %llu '%s' (%s:%d)",
           (unsigned long long)(checked + index + 1), name,
           t->file ? t->file : "?", t->line);
}

/* All ranks must have submitted the same tasks since the last check: on a
 * mismatch, finds the first task that differs (a binary search over the
 * recorded hashes, one collective per step) and stops the run. */
static void check_uniformity(const char *where) {
  uint64_t *all = malloc((size_t)dag__nranks * sizeof *all);
  if (!all)
    dag__out_of_memory("the uniformity check");
  if (agree(cumulated ^ nhistory, all)) {
    free(all);
    checked += nhistory;
    nhistory = 0;
    return;
  }
  size_t lo = 0, hi = nhistory; /* the first index where ranks differ */
  uint64_t longest = 0;
  dag__comm_allgather(nhistory, all);
  for (int r = 0; r < dag__nranks; r++)
    longest = all[r] > longest ? all[r] : longest;
  hi = (size_t)longest;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint64_t mine = mid < nhistory ? history[mid].hash : ~0ull - dag__rank;
    if (agree(mine, all))
      lo = mid + 1;
    else
      hi = mid;
  }
  char what[512];
  describe(what, sizeof what, lo);
  fprintf(stderr,
          "dag: error: the ranks submitted different tasks before %s: on "
          "rank %d the first that differs is %s\n",
          where, dag__rank, what);
  fflush(stderr);
  /* Every rank has said its part before any of them stops the run, and
   * mpiexec gets a moment to pass the lines on. */
  dag__comm_allgather(0, all);
  nanosleep(&(struct timespec){0, 200000000}, NULL);
  free(all);
  dag__comm_abort_all();
}

/* ------------------------------------------------------------- interface */

bool dag__uniform_active(void) {
  return dag__nranks > 1 && dag__current_task() == &dag__root_task;
}

static bool check_every_task; /* DAG_CHECK_UNIFORMITY=1 */

static void init_once(void) {
  if (words)
    return;
  const char *check = getenv("DAG_CHECK_UNIFORMITY");
  check_every_task = check && *check && strcmp(check, "0") != 0;
  words = (size_t)(dag__nranks + 63) / 64;
  sent = calloc((size_t)dag__nranks, sizeof *sent);
  received = calloc((size_t)dag__nranks, sizeof *received);
  if (!sent || !received)
    dag__out_of_memory("transfer sequences");
}

int dag__uniform_submit(const struct dag_task_info *info, dag_task_fn body,
                        const void *args, size_t args_size,
                        const struct dag_access *acc, size_t n,
                        const struct region *regs, const enum dag_mode *modes,
                        size_t kept) {
  init_once();
  /* Which allocation each access is in, looked up once. */
  const struct dag_allocation *found[16], **allocs_of = found;
  if (kept > 16 && !(allocs_of = malloc(kept * sizeof *allocs_of)))
    dag__out_of_memory("task accesses");
  for (size_t i = 0; i < kept; i++)
    allocs_of[i] = dag__dist_find((const void *)regs[i].lo);
  record(info, regs, modes, allocs_of, kept);
  int exec = place(info, regs, modes, allocs_of, kept);
  top_tasks++;
  for (size_t i = 0; i < kept; i++) {
    struct access_plan a = {&regs[i], modes[i], exec};
    each_unit(allocs_of[i], &regs[i], exec, plan_read, &a);
  }
  int err = 0;
  stats.tasks++;
  if (exec == dag__rank) {
    stats.here++;
    err = dag__submit_local(info, body, args, args_size, acc, n);
  }
  for (size_t i = 0; i < kept; i++) {
    struct access_plan a = {&regs[i], modes[i], exec};
    if (modes[i] != DAG_IN)
      each_unit(allocs_of[i], &regs[i], exec, apply_write, &a);
  }
  if (allocs_of != found)
    free(allocs_of);
  if (check_every_task)
    check_uniformity("this task");
  return err;
}

/* A taskwait's flush: replicated units back on every rank, blocks at
 * their homes. */
static void flush(void) {
  for (size_t i = 0; i < ndirty; i++) {
    struct unit *u = dirty[i];
    u->dirty = false;
    if (u->home >= 0) {
      fetch(u, u->home);
      continue;
    }
    for (int r = 0; r < dag__nranks; r++)
      fetch(u, r);
  }
  ndirty = 0;
  forget_replicated();
}

int dag__uniform_taskwait(bool flush_data) {
  init_once();
  if (flush_data)
    flush();
  /* Checked before waiting: a rank that diverged may wait for a transfer
   * that never comes. */
  check_uniformity("this taskwait");
  return dag__wait_children();
}

static void collect_unit(struct unit *u, void *arg) {
  (void)arg;
  for (int r = 0; r < dag__nranks; r++)
    fetch(u, r);
}

void dag__uniform_collect(const struct region *regs, size_t n) {
  init_once();
  for (size_t i = 0; i < n; i++)
    each_unit(dag__dist_find((const void *)regs[i].lo), &regs[i], 0,
              collect_unit, NULL);
  check_uniformity("this taskwait");
}

void dag__units_forget(const void *base, size_t bytes) {
  (void)bytes;
  memset(tile_cache, 0, sizeof tile_cache); /* it may point into the blocks */
  for (size_t i = 0; i < nallocs; i++) {
    if (allocs[i].alloc->base != base)
      continue;
    /* Dirty pointers into the blocks go first. */
    const struct unit *first = allocs[i].unit, *end = first + allocs[i].nblocks;
    size_t kept = 0;
    for (size_t d = 0; d < ndirty; d++)
      if (dirty[d] < first || dirty[d] >= end)
        dirty[kept++] = dirty[d];
    ndirty = kept;
    for (size_t k = 0; k < allocs[i].nblocks; k++)
      free(allocs[i].unit[k].valid);
    free(allocs[i].unit);
    allocs[i] = allocs[--nallocs];
    return;
  }
}

void dag__uniform_write_stats(void) {
  if (dag__nranks < 2)
    return;
  fprintf(stderr,
          "dag: stats: rank %d of %d: ran %llu of %llu tasks; sent %llu "
          "messages (%.1f MiB), received %llu (%.1f MiB)\n",
          dag__rank, dag__nranks, (unsigned long long)stats.here,
          (unsigned long long)stats.tasks, (unsigned long long)stats.sends,
          (double)stats.sent_bytes / 1048576.0, (unsigned long long)stats.recvs,
          (double)stats.received_bytes / 1048576.0);
}

void dag__uniform_release(void) {
  for (size_t i = 0; i < nallocs; i++) {
    for (size_t k = 0; k < allocs[i].nblocks; k++)
      free(allocs[i].unit[k].valid);
    free(allocs[i].unit);
  }
  free(allocs);
  allocs = NULL;
  nallocs = 0;
  forget_replicated();
  free(reps);
  reps = NULL;
  nreps = cap_reps = 0;
  free(dirty);
  dirty = NULL;
  ndirty = cap_dirty = 0;
  free(history);
  history = NULL;
  nhistory = cap_history = 0;
  checked = 0;
  free(sent);
  free(received);
  sent = received = NULL;
  words = 0;
  top_tasks = 0;
  memset(tile_cache, 0, sizeof tile_cache);
  memset(&stats, 0, sizeof stats);
  cumulated = 14695981039346656037ull;
}
