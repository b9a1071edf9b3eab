/* dist.c — global-view distributed memory: dag_alloc, dag_free, the
 * distributions and the home rank of every byte.
 *
 * An allocation is reserved with mmap(MAP_NORESERVE) at the same size on
 * every rank; a rank commits physical pages only for what it writes, and
 * gives back copies it no longer needs (dag__dist_discard).
 *
 * Locking: the registry is a table of the live allocations sorted by
 * address, published through an atomic pointer. Readers (dag__dist_find, on
 * the path of every task) load it and search it without a lock. dag_alloc
 * and dag_free copy it under `registry_lock`, publish the copy and keep the
 * old one (and the records of freed allocations) until dag__dist_release,
 * so a reader never sees freed memory. Each change costs a copy of the
 * table: fine for the tens or hundreds of allocations of a program.
 */
#include "plan/dist.h"
#include "comm/comm.h"
#include "core/core.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------- homes */

static atomic_bool owner_warned;

int dag__dist_home_for(const struct dag_dist *d, size_t bytes, size_t offset,
                       int nranks) {
  switch (d->kind) {
  case DAG_DIST_BLOCK: { /* block k of n on rank k * nranks / n */
    size_t b = d->elem * d->block;
    return (int)(offset / b * (size_t)nranks / dag__ceil_div(bytes, b));
  }
  case DAG_DIST_BLOCK_CYCLIC:
    return (int)((offset / (d->elem * d->block)) % (size_t)nranks);
  case DAG_DIST_BLOCK_CYCLIC_2D:
  case DAG_DIST_BLOCK_2D: {
    size_t e = offset / d->elem;
    size_t bi = e / d->ld / d->mb, bj = e % d->ld / d->nb;
    if (d->kind == DAG_DIST_BLOCK_CYCLIC_2D)
      return (int)(bi % (size_t)d->p) * d->q + (int)(bj % (size_t)d->q);
    size_t nbi, nbj;
    dag__dist_grid_of_blocks(d, bytes, &nbi, &nbj);
    return (int)(bi * (size_t)d->p / nbi) * d->q +
           (int)(bj * (size_t)d->q / nbj);
  }
  case DAG_DIST_OWNER: {
    size_t start = offset - offset % d->block;
    int r = d->owner(start, d->ctx);
    if (likely(r >= 0 && r < nranks))
      return r;
    if (!atomic_exchange_explicit(&owner_warned, true, memory_order_relaxed))
      dag__user_error(NULL, DAG_EINVAL,
                      "dag_alloc: owner function gave rank %d for the unit at "
                      "offset %zu; ranks are 0 to %d (using rank 0; reported "
                      "once)",
                      r, start, nranks - 1);
    return 0;
  }
  }
  DAG_BUG("distribution of unknown kind %d", (int)d->kind);
}

int dag__dist_home(const struct allocation *a, size_t offset) {
  return dag__dist_home_for(&a->dist, a->bytes, offset, dag__nranks);
}

void dag__dist_block(const struct allocation *a, size_t offset, size_t *begin,
                     size_t *end) {
  const struct dag_dist *d = &a->dist;
  size_t lo, hi;
  switch (d->kind) {
  case DAG_DIST_BLOCK:
  case DAG_DIST_BLOCK_CYCLIC: {
    size_t b = d->elem * d->block;
    lo = offset - offset % b;
    hi = lo + b;
    break;
  }
  case DAG_DIST_BLOCK_CYCLIC_2D:
  case DAG_DIST_BLOCK_2D: {
    size_t e = offset / d->elem;
    size_t row = e / d->ld, col = e % d->ld;
    size_t c0 = col - col % d->nb, c1 = c0 + d->nb;
    if (c1 > d->ld)
      c1 = d->ld;
    lo = (row * d->ld + c0) * d->elem;
    hi = (row * d->ld + c1) * d->elem;
    break;
  }
  case DAG_DIST_OWNER:
    lo = offset - offset % d->block;
    hi = lo + d->block;
    break;
  default:
    DAG_BUG("distribution of unknown kind %d", (int)d->kind);
  }
  /* hi can only wrap past SIZE_MAX beyond the allocation's end. */
  if (hi > a->bytes || hi < lo)
    hi = a->bytes;
  *begin = lo;
  *end = hi;
}

/* ---------------------------------------------------------- registry */

/* An allocation's bytes [lo, hi) inside the mapping [map_lo, map_hi) that
 * reserves the pages around them. */
struct entry {
  uintptr_t lo, hi, map_lo, map_hi;
  const struct allocation *a;
};

struct table {
  struct table *retired; /* older tables, kept until release */
  uintptr_t lo, hi;      /* bounds of all mappings: a quick "not ours" */
  size_t n;
  struct entry e[];
};

struct allocation_record {
  struct allocation a;
  struct allocation_record *next; /* every record ever made, until release */
};

static _Atomic(struct table *) current;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct table *retired;             /* under registry_lock */
static struct allocation_record *records; /* under registry_lock */

const void *dag__dist_version(void) {
  return atomic_load_explicit(&current, memory_order_acquire);
}

/* The entry of t whose mapping holds x, or NULL. */
static inline const struct entry *mapping_of(const struct table *t,
                                             uintptr_t x) {
  if (likely(!t || x < t->lo || x >= t->hi))
    return NULL;
  size_t lo = 0, hi = t->n; /* the entry is in [lo, hi) if anywhere */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x < t->e[mid].map_lo)
      hi = mid;
    else if (x >= t->e[mid].map_hi)
      lo = mid + 1;
    else
      return &t->e[mid];
  }
  return NULL;
}

const struct allocation *dag__dist_find(const void *p) {
  uintptr_t x = (uintptr_t)p;
  const struct entry *e =
      mapping_of(atomic_load_explicit(&current, memory_order_acquire), x);
  return e && x >= e->lo && x < e->hi ? e->a : NULL;
}

enum dist_misplaced dag__dist_misplaced(const struct region *r,
                                        const struct allocation **a) {
  struct table *t = atomic_load_explicit(&current, memory_order_acquire);
  if (likely(!t || r->hi <= t->lo || r->lo >= t->hi))
    return DIST_FITS; /* nowhere near dag_alloc memory */
  const struct entry *first = mapping_of(t, r->lo);
  if (likely(first && r->hi <= first->hi && r->lo >= first->lo))
    return DIST_FITS; /* in one allocation's bytes, the usual case */
  const struct entry *last =
      first && r->hi <= first->map_hi ? first : mapping_of(t, r->hi - 1);
  if (first && first == last) {
    *a = first->a;
    if (r->lo < first->lo)
      return r->hi <= first->lo ? DIST_BEFORE_START : DIST_ENTERS;
    return r->lo >= first->hi ? DIST_PAST_END : DIST_LEAVES;
  }
  if (first && last) {
    *a = first->a;
    return DIST_CROSSES;
  }
  if (first) {
    *a = first->a;
    return r->lo < first->hi ? DIST_LEAVES : DIST_PAST_END;
  }
  if (last) {
    *a = last->a;
    return r->hi > last->lo ? DIST_ENTERS : DIST_BEFORE_START;
  }
  size_t lo = 0, hi = t->n; /* the first mapping after r->lo: inside r? */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->e[mid].map_lo < r->lo)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < t->n && t->e[lo].map_lo < r->hi) {
    *a = t->e[lo].a;
    return DIST_HOLDS;
  }
  return DIST_FITS;
}

/* Publishes a copy of the current table with entry `add` inserted (when
 * add.a) or the entry at index `drop` removed. Under registry_lock. */
static void publish(struct entry add, size_t drop) {
  struct table *old = atomic_load_explicit(&current, memory_order_relaxed);
  size_t n = old ? old->n : 0;
  size_t m = add.a ? n + 1 : n - 1;
  struct table *t = malloc(sizeof *t + m * sizeof t->e[0]);
  if (!t)
    dag__out_of_memory("dag_alloc");
  size_t j = 0;
  bool placed = !add.a;
  for (size_t i = 0; i < n; i++) {
    if (!add.a && i == drop)
      continue;
    if (!placed && add.lo < old->e[i].lo) {
      t->e[j++] = add;
      placed = true;
    }
    t->e[j++] = old->e[i];
  }
  if (!placed)
    t->e[j++] = add;
  t->n = m;
  t->lo = m ? t->e[0].map_lo : 0;
  t->hi = m ? t->e[m - 1].map_hi : 0;
  t->retired = NULL;
  atomic_store_explicit(&current, t, memory_order_release);
  if (old) {
    old->retired = retired;
    retired = old;
  }
}

/* ------------------------------------------------------------ the API */

/* "dag_alloc (p2p.c:12)", or "dag_alloc" when the site is unknown. */
static const char *call_name(char *buf, size_t size, const char *file,
                             int line) {
  if (file)
    snprintf(buf, size, "dag_alloc (%s:%d)", file, line);
  else
    snprintf(buf, size, "dag_alloc");
  return buf;
}

static int check_dist(const char *call, const struct dag_dist *d, int nranks) {
  size_t b;
  switch (d->kind) {
  case DAG_DIST_BLOCK:
  case DAG_DIST_BLOCK_CYCLIC:
    if (!d->elem || !d->block)
      return dag__user_error(NULL, DAG_EINVAL,
                             "%s: blocks of %zu elements of %zu bytes; both "
                             "must be positive",
                             call, d->block, d->elem);
    if (__builtin_mul_overflow(d->elem, d->block, &b))
      return dag__user_error(NULL, DAG_EOVERFLOW,
                             "%s: blocks of %zu elements of %zu bytes "
                             "overflow size_t",
                             call, d->block, d->elem);
    return 0;
  case DAG_DIST_BLOCK_CYCLIC_2D:
  case DAG_DIST_BLOCK_2D:
    if (!d->elem || !d->ld || !d->mb || !d->nb)
      return dag__user_error(NULL, DAG_EINVAL,
                             "%s: 2-D distribution with elem %zu, ld %zu, mb "
                             "%zu, nb %zu; all must be positive",
                             call, d->elem, d->ld, d->mb, d->nb);
    if (__builtin_mul_overflow(d->elem, d->ld, &b))
      return dag__user_error(NULL, DAG_EOVERFLOW,
                             "%s: rows of %zu elements of %zu bytes overflow "
                             "size_t",
                             call, d->ld, d->elem);
    if (d->p < 1 || d->q < 1 || (long)d->p * d->q > nranks)
      return dag__user_error(NULL, DAG_EINVAL,
                             "%s: %d x %d grid of ranks; p and q must be "
                             "positive with p * q <= %d ranks",
                             call, d->p, d->q, nranks);
    return 0;
  case DAG_DIST_OWNER:
    if (!d->block)
      return dag__user_error(NULL, DAG_EINVAL,
                             "%s: owner distribution with units of 0 bytes",
                             call);
    if (!d->owner)
      return dag__user_error(NULL, DAG_EINVAL,
                             "%s: owner distribution without an owner "
                             "function",
                             call);
    return 0;
  }
  return dag__user_error(NULL, DAG_EINVAL,
                         "%s: distribution of unknown kind %d", call,
                         (int)d->kind);
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

void *dag__dist_alloc(size_t bytes, struct dag_dist dist, const char *file,
                      int line) {
  char call[256];
  call_name(call, sizeof call, file, line);
  if (!bytes) {
    dag__user_error(NULL, DAG_EINVAL, "%s: 0 bytes", call);
    return NULL;
  }
  if (check_dist(call, &dist, dag__nranks))
    return NULL;
  /* The bytes in whole pages, between two pages of no access. */
  size_t page = page_size(), inner = dag__ceil_div(bytes, page) * page;
  size_t mapped = inner + 2 * page;
  char *map = MAP_FAILED;
  if (inner < bytes || mapped < inner) /* past the address space */
    errno = ENOMEM;
  else
    map = mmap(NULL, mapped, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  char *base = map == MAP_FAILED ? NULL : map + page;
  if (!base || mprotect(base, inner, PROT_READ | PROT_WRITE) != 0) {
    dag__user_error(NULL, DAG_ENOMEM, "%s: cannot reserve %zu bytes: %s", call,
                    bytes, strerror(errno));
    if (map != MAP_FAILED)
      munmap(map, mapped);
    return NULL;
  }
#ifdef MADV_NOHUGEPAGE
  /* A transparent huge page would commit 2 MiB around a rank's first touch,
   * other ranks' blocks included. On one rank everything is its own, and
   * huge pages are welcome. (Best effort: a kernel without them says
   * EINVAL.) */
  if (dag__nranks > 1)
    madvise(base, inner, MADV_NOHUGEPAGE);
#endif
  struct allocation_record *r = malloc(sizeof *r);
  if (!r)
    dag__out_of_memory("dag_alloc");
  r->a = (struct allocation){base, bytes, dist, file, line, NULL};
  pthread_mutex_lock(&registry_lock);
  r->next = records;
  records = r;
  publish((struct entry){(uintptr_t)base, (uintptr_t)base + bytes,
                         (uintptr_t)map, (uintptr_t)map + mapped, &r->a},
          0);
  pthread_mutex_unlock(&registry_lock);
  dag__guard_watch(base, bytes, file, line); /* DAG_CHECK_ITEMS */
  return base;
}

void dag__dist_name(char *buf, size_t size, const struct allocation *a) {
  if (a->file)
    snprintf(buf, size, "dag_alloc memory of %zu bytes allocated at %s:%d",
             a->bytes, a->file, a->line);
  else
    snprintf(buf, size, "dag_alloc memory of %zu bytes at %p", a->bytes,
             (void *)a->base);
}

/* Index of the allocation starting at p in the current table, or -1. Under
 * registry_lock. */
static ptrdiff_t index_of(const void *p) {
  struct table *t = atomic_load_explicit(&current, memory_order_relaxed);
  size_t lo = 0, hi = t ? t->n : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)p < t->e[mid].lo)
      hi = mid;
    else if ((uintptr_t)p > t->e[mid].lo)
      lo = mid + 1;
    else
      return (ptrdiff_t)mid;
  }
  return -1;
}

const struct allocation *dag__dist_allocation_at(void *p) {
  const struct allocation *a = dag__dist_find(p);
  if (a && a->base == (char *)p)
    return a;
  if (a)
    dag__user_error(NULL, DAG_EINVAL,
                    "dag_free: %p is %zu bytes into dag_alloc memory at %p, "
                    "not its start",
                    p, (size_t)((char *)p - a->base), (void *)a->base);
  else
    dag__user_error(NULL, DAG_EINVAL,
                    "dag_free: %p is not dag_alloc memory (freed already?)", p);
  return NULL;
}

/* Unmaps the mapping of entry e. */
static void unmap(const struct entry *e) {
  munmap((void *)e->map_lo, e->map_hi - e->map_lo);
}

int dag__dist_free(void *p) {
  pthread_mutex_lock(&registry_lock);
  ptrdiff_t i = index_of(p);
  if (i < 0) { /* freed meanwhile by another thread */
    pthread_mutex_unlock(&registry_lock);
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_free: %p is not dag_alloc memory (freed "
                           "already?)",
                           p);
  }
  struct table *t = atomic_load_explicit(&current, memory_order_relaxed);
  struct entry e = t->e[i];
  publish((struct entry){0, 0, 0, 0, NULL}, (size_t)i);
  pthread_mutex_unlock(&registry_lock);
  dag__guard_unwatch(p);
  unmap(&e);
  return 0;
}

void dag__dist_discard(void *p, size_t bytes) {
  uintptr_t page = page_size();
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
  uintptr_t hi = ((uintptr_t)p + bytes) & ~(page - 1);
  if (lo < hi && madvise((void *)lo, hi - lo, MADV_DONTNEED))
    DAG_BUG("madvise(%p, %zu): %s", (void *)lo, (size_t)(hi - lo),
            strerror(errno));
}

void dag__dist_release(void) {
  pthread_mutex_lock(&registry_lock);
  struct table *t = atomic_load_explicit(&current, memory_order_relaxed);
  atomic_store_explicit(&current, NULL, memory_order_release);
  for (size_t i = 0; t && i < t->n; i++)
    unmap(&t->e[i]);
  free(t);
  while (retired) {
    t = retired;
    retired = t->retired;
    free(t);
  }
  while (records) {
    struct allocation_record *r = records;
    records = r->next;
    free(r);
  }
  atomic_store_explicit(&owner_warned, false, memory_order_relaxed);
  pthread_mutex_unlock(&registry_lock);
}
