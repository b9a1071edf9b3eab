/* residency.c — device memory as a cache of host memory, in the host's
 * layout: host byte x of a task's region lives at w->at + (x - w->lo) in a
 * window w, a device address range reserved over the region's extent, so a
 * body's pointer arithmetic with the host's leading dimension lands on the
 * right element. Only the granules that the region's spans touch are
 * backed, each by one granule of device memory mapped into every window
 * that needs it: a tile of a large matrix costs the granules of its rows,
 * not its bounding box, and two overlapping windows share their memory.
 *
 * When the device is full, granules that the task being prepared does not
 * use are evicted, those holding no byte that only this device has first,
 * then the least recently used; bytes only the device held are copied back
 * to the host before their memory goes. Nothing is lost, and nothing fails
 * while a single task's data fits.
 *
 * Called with the devices' lock held (device.c).
 */
#include "device/copies.h"
#include "device/writeback.h"

#include <stdlib.h>
#include <string.h>

struct granule {
  uintptr_t index; /* host address / granule; 0: a free slot */
  uint64_t mem;
  uint64_t epoch; /* when it was last used */
  /* The windows it is mapped into: one, mostly, kept in place (a malloc
   * per granule was most of backing a tile-row's first tile); more in an
   * array, once windows_cap is above 0. */
  union {
    struct window *one;
    struct window **many;
  } windows;
  size_t nwindows, windows_cap;
};

static struct window *const *windows_of(const struct granule *g) {
  return g->windows_cap ? g->windows.many : &g->windows.one;
}

static void add_window(struct granule *g, struct window *w) {
  if (!g->nwindows) {
    g->windows.one = w;
  } else {
    if (!g->windows_cap) {
      struct window *one = g->windows.one;
      g->windows.many = dag__grow(NULL, &g->windows_cap, 2,
                                  sizeof *g->windows.many, "a device granule");
      g->windows.many[0] = one;
    }
    g->windows.many =
        dag__grow(g->windows.many, &g->windows_cap, g->nwindows + 1,
                  sizeof *g->windows.many, "a device granule");
    g->windows.many[g->nwindows] = w;
  }
  g->nwindows++;
}

static void free_windows(struct granule *g) {
  if (g->windows_cap)
    free(g->windows.many);
}

/* Victims per eviction: an eighth of the device, so that the scan that
 * picks them is paid once per many granules. */
#define EVICT_SHARE 8

static size_t slot_of(const struct device *d, uintptr_t index) {
  return (size_t)(index * 0x9e3779b97f4a7c15u) & (d->granules_size - 1);
}

static struct granule *lookup(struct device *d, uintptr_t index) {
  if (!d->granules_size)
    return NULL;
  for (size_t s = slot_of(d, index);; s = (s + 1) & (d->granules_size - 1)) {
    if (d->granules[s].index == index)
      return &d->granules[s];
    if (!d->granules[s].index)
      return NULL;
  }
}

static void place(struct device *d, const struct granule *g) {
  size_t s = slot_of(d, g->index);
  while (d->granules[s].index)
    s = (s + 1) & (d->granules_size - 1);
  d->granules[s] = *g;
}

static struct granule *insert(struct device *d, uintptr_t index) {
  if (2 * (d->granules_used + 1) > d->granules_size) {
    struct granule *old = d->granules;
    size_t old_size = d->granules_size;
    d->granules_size = old_size ? 2 * old_size : 1024;
    d->granules = calloc(d->granules_size, sizeof *d->granules);
    if (!d->granules)
      dag__out_of_memory("a device's granule table");
    for (size_t i = 0; i < old_size; i++)
      if (old[i].index)
        place(d, &old[i]);
    free(old);
  }
  d->granules_used++;
  place(d, &(struct granule){.index = index});
  return lookup(d, index);
}

/* Linear probing's deletion: later members of the run move back into the
 * hole, so that lookups never stop early. */
static void erase(struct device *d, struct granule *g) {
  size_t mask = d->granules_size - 1, hole = (size_t)(g - d->granules);
  d->granules[hole].index = 0;
  d->granules_used--;
  for (size_t s = (hole + 1) & mask; d->granules[s].index; s = (s + 1) & mask) {
    size_t want = slot_of(d, d->granules[s].index);
    /* Move s into the hole unless its home lies cyclically in (hole, s]. */
    bool stays =
        hole <= s ? (want > hole && want <= s) : (want > hole || want <= s);
    if (stays)
      continue;
    d->granules[hole] = d->granules[s];
    d->granules[s].index = 0;
    hole = s;
  }
}

static uintptr_t granule_base(const struct device *d, uintptr_t index) {
  return index * d->granule;
}

struct window *dag__residency_window(struct device *d, uintptr_t lo,
                                     uintptr_t hi) {
  uintptr_t glo = lo & ~(d->granule - 1);
  uintptr_t ghi = (hi + d->granule - 1) & ~(d->granule - 1);
  for (size_t i = d->nwindows; i-- > 0;) {
    struct window *w = d->windows[i];
    if (w->lo <= glo && ghi <= w->hi)
      return w;
  }
  struct window *w = calloc(1, sizeof *w);
  size_t granules = (ghi - glo) / d->granule;
  if (!w || !(w->mapped = calloc((granules + 63) / 64, sizeof(uint64_t))))
    dag__out_of_memory("a device window");
  w->lo = glo;
  w->hi = ghi;
  w->at = dag__space_reserve(&d->space, ghi - glo);
  if (!w->at)
    dag_check(dag__user_error(NULL, DAG_ENOMEM,
                              "%s device %d: no device addresses left for "
                              "%zu bytes",
                              d->space.ops->name, d->space.index,
                              (size_t)(ghi - glo)));
  d->windows = dag__grow(d->windows, &d->windows_cap, d->nwindows + 1,
                         sizeof *d->windows, "device windows");
  d->windows[d->nwindows++] = w;
  return w;
}

/* Whether host granule `index` is mapped in w. */
static bool mapped_in(const struct device *d, const struct window *w,
                      uintptr_t index) {
  uintptr_t base = granule_base(d, index);
  if (base < w->lo || base >= w->hi)
    return false;
  size_t k = (base - w->lo) / d->granule;
  return w->mapped[k / 64] >> (k % 64) & 1;
}

bool dag__residency_maps(const struct device *d, const struct window *w,
                         uintptr_t lo, uintptr_t hi) {
  for (uintptr_t i = lo / d->granule; i <= (hi - 1) / d->granule; i++)
    if (!mapped_in(d, w, i))
      return false;
  return true;
}

struct window *dag__residency_mapping(struct device *d, uintptr_t lo,
                                      uintptr_t *hi) {
  const struct granule *g = lookup(d, lo / d->granule);
  struct window *best = NULL;
  uintptr_t best_end = lo;
  struct window *const *ws = windows_of(g);
  for (size_t i = 0; i < g->nwindows; i++) {
    uintptr_t next = lo / d->granule + 1;
    while (granule_base(d, next) < *hi && mapped_in(d, ws[i], next))
      next++;
    uintptr_t end = granule_base(d, next) < *hi ? granule_base(d, next) : *hi;
    if (end > best_end) {
      best = ws[i];
      best_end = end;
    }
  }
  *hi = best_end;
  return best;
}

/* Adds to r the ranges of granule g that only d holds: what eviction
 * writes back. */
static void only_here(struct device *d, const struct granule *g,
                      struct ranges *r) {
  uintptr_t lo = granule_base(d, g->index);
  dag__validity_each(lo, lo + d->granule, dag__ranges_add, r);
}

static struct ranges only_on(const struct device *d) {
  return (struct ranges){.mask = (holders_t)~0, .want = d->bit};
}

static bool dirty(struct device *d, const struct granule *g) {
  struct ranges r = only_on(d);
  only_here(d, g, &r);
  free(r.at);
  return r.n > 0;
}

/* Orders eviction candidates: clean before dirty, then least recently
 * used first. */
struct candidate {
  struct granule *g;
  bool dirty;
  uint64_t epoch;
};

static int by_cost(const void *a, const void *b) {
  const struct candidate *x = a, *y = b;
  if (x->dirty != y->dirty)
    return x->dirty ? 1 : -1;
  return (x->epoch > y->epoch) - (x->epoch < y->epoch);
}

static void forget(struct device *d, struct granule *g) {
  uintptr_t lo = granule_base(d, g->index);
  dag__validity_update(lo, lo + d->granule, (holders_t)~d->bit, 0);
  for (size_t i = 0; i < g->nwindows; i++) {
    struct window *w = windows_of(g)[i];
    size_t k = (lo - w->lo) / d->granule;
    dag__space_unmap(&d->space, dag__window_address(w, lo));
    w->mapped[k / 64] &= ~((uint64_t)1 << (k % 64));
  }
  free_windows(g);
  dag__space_decommit(&d->space, g->mem);
  d->committed--;
  d->evicted++;
  erase(d, g);
}

/* Whether a direct send to another rank reads g (its window is pinned). */
static bool sent_from(const struct granule *g) {
  for (size_t i = 0; i < g->nwindows; i++)
    if (atomic_load(&windows_of(g)[i]->pins))
      return true;
  return false;
}

static void touch_known(struct device *d);

/* Evicts granules not used in this epoch, nor read by a direct send; false
 * if there is none. */
static bool evict(struct device *d) {
  dag__device_drain(d);        /* nothing queued may still use a victim */
  dag__writeback_settle(NULL); /* what went back is clean */
  touch_known(d);
  struct candidate *c = malloc(d->granules_used * sizeof *c);
  if (!c)
    dag__out_of_memory("a device's eviction");
  size_t n = 0;
  for (size_t s = 0; s < d->granules_size; s++) {
    struct granule *g = &d->granules[s];
    if (g->index && g->epoch != d->epoch && !sent_from(g))
      c[n++] = (struct candidate){g, false, g->epoch};
  }
  for (size_t i = 0; i < n; i++)
    c[i].dirty = dirty(d, c[i].g);
  qsort(c, n, sizeof *c, by_cost);
  size_t victims = d->committed / EVICT_SHARE ? d->committed / EVICT_SHARE : 1;
  if (victims > n)
    victims = n;
  /* What only the device holds goes to the host before its memory goes. */
  struct ranges back = only_on(d);
  for (size_t i = 0; i < victims; i++)
    only_here(d, c[i].g, &back);
  dag__copy_back(&back, NULL);
  dag__validity_host_copied(&back, NULL);
  free(back.at);
  /* By index: erasing moves the table's entries. */
  uintptr_t *index = malloc((victims ? victims : 1) * sizeof *index);
  if (!index)
    dag__out_of_memory("a device's eviction");
  for (size_t i = 0; i < victims; i++)
    index[i] = c[i].g->index;
  for (size_t i = 0; i < victims; i++)
    forget(d, lookup(d, index[i]));
  free(index);
  free(c);
  return victims > 0;
}

/* One more granule of d's memory into *mem, within what the device gave
 * for data when it opened (its memory less the reserve of the libraries
 * that bodies call): past that, DAG_ENOMEM as when the device is full, and
 * the caller evicts, so that a body's own allocations and cuBLAS's
 * workspaces always fit. */
static int commit_for_data(struct device *d, uint64_t *mem) {
  if ((d->committed + 1) * d->granule > d->memory)
    return DAG_ENOMEM;
  return dag__space_commit(&d->space, mem);
}

/* The record of host granule `index`, backed by device memory, into *out.
 * Returns 0, DAG_ENOMEM when nothing is left to evict, or the space's
 * error. */
static int backed(struct device *d, uintptr_t index, struct granule **out) {
  struct granule *g = lookup(d, index);
  if ((*out = g))
    return 0;
  uint64_t mem;
  int err;
  while ((err = commit_for_data(d, &mem)))
    if (err != DAG_ENOMEM || !evict(d))
      return err;
  *out = g = insert(d, index);
  g->mem = mem;
  if (++d->committed > d->committed_peak)
    d->committed_peak = d->committed;
  return 0;
}

/* Granules of a window to be mapped, first to first + n - 1: they are
 * mapped in one call of the space (a tile's rows cross a granule every
 * few rows: hundreds of granules, one after the other). Indices, not
 * records, as committing may move the table's records. */
#define MAP_RUN 256
struct granule_run {
  struct window *w;
  uintptr_t first;
  size_t n;
};

static void map_run(struct device *d, struct granule_run *run) {
  if (!run->n)
    return;
  struct window *w = run->w;
  uint64_t mem[MAP_RUN];
  for (size_t i = 0; i < run->n; i++)
    mem[i] = lookup(d, run->first + i)->mem;
  if (dag__space_map(&d->space,
                     dag__window_address(w, granule_base(d, run->first)), mem,
                     run->n))
    dag_check(dag__user_error(NULL, DAG_ENOMEM,
                              "%s device %d: cannot map device memory",
                              d->space.ops->name, d->space.index));
  for (size_t i = 0; i < run->n; i++) {
    struct granule *g = lookup(d, run->first + i);
    size_t k = (granule_base(d, g->index) - w->lo) / d->granule;
    w->mapped[k / 64] |= (uint64_t)1 << (k % 64);
    add_window(g, w);
  }
  run->n = 0;
}

/* Backs every granule of [lo, hi) in run's window, evicting granules not
 * used in this epoch when the device is full (those of the run are), and
 * adds those not mapped there to the run. Returns 0; DAG_ENOMEM when even
 * that leaves no room; or the error of a device that failed to allocate. */
static int back(struct device *d, struct granule_run *run, uintptr_t lo,
                uintptr_t hi) {
  for (uintptr_t i = lo / d->granule; i <= (hi - 1) / d->granule; i++) {
    struct granule *g;
    int err = backed(d, i, &g);
    if (err)
      return err;
    g->epoch = d->epoch;
    bool in_run = run->n && i >= run->first && i < run->first + run->n;
    if (in_run || mapped_in(d, run->w, i))
      continue;
    if (run->n && (i != run->first + run->n || run->n == MAP_RUN))
      map_run(d, run);
    if (!run->n)
      run->first = i;
    run->n++;
  }
  return 0;
}

/* ---------------------------------------------------- regions known */

/* A region of a task whose granules are all backed and mapped in window w
 * (since the last eviction), last used in `epoch`: the next task on it
 * needs no granule looked up. The granules' own epochs, which eviction
 * reads, are brought up to date from these before it does. */
struct known_region {
  struct region r;
  struct window *w;
  uint64_t epoch;
  struct known_region *chain;
};

static struct known_region *known_find(const struct device *d,
                                       const struct region *r) {
  if (!d->known_size)
    return NULL;
  struct known_region *k = d->known[dag__region_hash(r) & (d->known_size - 1)];
  while (k && !dag__region_same(&k->r, r))
    k = k->chain;
  return k;
}

static void known_add(struct device *d, const struct region *r,
                      struct window *w) {
  if (d->known_used + 1 > d->known_size) {
    struct known_region **old = d->known;
    size_t old_size = d->known_size;
    d->known_size = old_size ? 2 * old_size : 64;
    if (!(d->known = calloc(d->known_size, sizeof *d->known)))
      dag__out_of_memory("a device's table of regions");
    for (size_t i = 0; i < old_size; i++)
      for (struct known_region *k = old[i], *next; k; k = next) {
        next = k->chain;
        struct known_region **b =
            &d->known[dag__region_hash(&k->r) & (d->known_size - 1)];
        k->chain = *b;
        *b = k;
      }
    free(old);
  }
  struct known_region *k = malloc(sizeof *k);
  if (!k)
    dag__out_of_memory("a device's table of regions");
  struct known_region **b =
      &d->known[dag__region_hash(r) & (d->known_size - 1)];
  *k = (struct known_region){*r, w, d->epoch, *b};
  *b = k;
  d->known_used++;
}

struct touch {
  struct device *d;
  uint64_t epoch;
};

static void touch_span(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct touch *t = arg;
  for (uintptr_t i = lo / t->d->granule; i <= (hi - 1) / t->d->granule; i++) {
    struct granule *g = lookup(t->d, i);
    if (g->epoch < t->epoch)
      g->epoch = t->epoch;
  }
}

/* Gives each granule of a known region the epoch the region was last used
 * in, and forgets them all (an eviction is about to unmap granules). */
static void touch_known(struct device *d) {
  for (size_t i = 0; i < d->known_size; i++) {
    for (struct known_region *k = d->known[i], *next; k; k = next) {
      next = k->chain;
      dag__region_each_span(&k->r, touch_span, &(struct touch){d, k->epoch});
      free(k);
    }
    d->known[i] = NULL;
  }
  d->known_used = 0;
}

struct window *dag__residency_known(const struct device *d,
                                    const struct region *r) {
  const struct known_region *k = known_find(d, r);
  return k ? k->w : NULL;
}

/* Backs r's spans; rows of a tile share granules (8 rows 256 KiB apart
 * share one of 2 MiB): a span within the last granule backed needs nothing
 * more. */
struct back_spans {
  struct device *d;
  struct granule_run run;
  int err;
  uintptr_t last_plus_one; /* the last granule backed, + 1 (0: none) */
};

static void back_span(uintptr_t lo, uintptr_t hi, void *arg) {
  struct back_spans *b = arg;
  uintptr_t first = lo / b->d->granule, last = (hi - 1) / b->d->granule;
  if (b->err || (first == last && last + 1 == b->last_plus_one))
    return;
  b->err = back(b->d, &b->run, lo, hi);
  b->last_plus_one = last + 1;
}

int dag__residency_back_task(struct device *d, const struct region *regs,
                             uint32_t n, struct window **w, uint32_t *failed) {
  d->epoch++; /* pins what this task uses against its own evictions */
  uint32_t hits = 0;
  for (uint32_t i = 0; i < n; i++) {
    struct known_region *k = known_find(d, &regs[i]);
    if (k) {
      k->epoch = d->epoch;
      w[i] = k->w;
      hits++;
    }
  }
  if (hits == n)
    return 0;
  /* Every region the slow way, so that all are pinned. */
  for (uint32_t i = 0; i < n; i++) {
    const struct region *r = &regs[i];
    w[i] = dag__residency_window(d, r->lo, r->hi);
    struct back_spans b = {d, {w[i], 0, 0}, 0, 0};
    if (r->ndims == 1 && r->dim[0].stride <= d->granule)
      back_span(r->lo, r->hi, &b); /* no granule fits between its rows */
    else
      dag__region_each_span(r, back_span, &b);
    map_run(d, &b.run);
    if (b.err) {
      *failed = i;
      return b.err;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (!dag__region_empty(&regs[i]) && !known_find(d, &regs[i]))
      known_add(d, &regs[i], w[i]);
  return 0;
}

void dag__residency_release(struct device *d) {
  touch_known(d);
  free(d->known);
  d->known = NULL;
  d->known_size = 0;
  for (size_t s = 0; s < d->granules_size; s++) {
    struct granule *g = &d->granules[s];
    if (!g->index)
      continue;
    for (size_t i = 0; i < g->nwindows; i++)
      dag__space_unmap(
          &d->space,
          dag__window_address(windows_of(g)[i], granule_base(d, g->index)));
    dag__space_decommit(&d->space, g->mem);
    free_windows(g);
  }
  free(d->granules);
  for (size_t i = 0; i < d->nwindows; i++) {
    struct window *w = d->windows[i];
    dag__space_unreserve(&d->space, w->at, w->hi - w->lo);
    free(w->mapped);
    free(w);
  }
  free(d->windows);
  d->granules = NULL;
  d->windows = NULL;
  d->granules_size = d->granules_used = d->nwindows = d->windows_cap = 0;
}
