/* access_cache.c — how the accesses of top-level tasks resolved, kept for
 * the next task that names the same ones (planner.h).
 *
 * A rank of a multi-rank run plans every task of the program, and most of
 * a task's planning is working out its accesses: validating each region,
 * finding its allocation and, in dag_alloc memory, the one block it lies
 * in. Programs name the same tiles and runs again and again, so the answer
 * is kept per access as written (mode, base, span and up to one dimension:
 * runs and rows of tiles), in a direct-mapped table, and stays true as
 * long as no allocation comes or goes (dag__dist_version).
 */
#include "plan/planner.h"

#include <string.h>

/* One access as written, and how it resolved. */
struct known {
  /* The key: an access with ndims 0 or 1 (count 0 and stride 0 for 0). */
  const void *base;
  size_t span, count;
  ptrdiff_t stride;
  int8_t mode; /* 0: a free slot */
  int8_t ndims;
  /* The answer; the region's lo is base. */
  int8_t region_ndims;
  uintptr_t hi;
  size_t region_span, region_count, region_stride;
  const struct allocation *alloc;
  struct unit *block;
  uint64_t hash;
};

#define KNOWN_SLOTS 8192 /* a power of two */

static struct known known[KNOWN_SLOTS];
static const void *version; /* the allocations the table is true for */

/* Whether the table keeps accesses like `a`: not shaped ones, nor
 * reductions. dag__access_known need not ask about the mode: no kept
 * access has one of theirs, so same_key tells them apart. */
static bool keyable(const struct dag_access *a) {
  return (unsigned)a->region.ndims <= 1 && (unsigned)a->mode <= DAG_COMMUTATIVE;
}

static struct known *slot(const struct dag_access *a) {
  size_t count = a->region.ndims ? a->region.dim[0].count : 0;
  uint64_t h = (uintptr_t)a->region.base ^ a->region.span << 20 ^ count << 40;
  return &known[(h * 0x9e3779b97f4a7c15ull) >> (64 - 13)];
}

static bool same_key(const struct known *k, const struct dag_access *a) {
  const struct dag_region *r = &a->region;
  return k->base == r->base && k->span == r->span && k->mode == (int)a->mode &&
         k->ndims == r->ndims &&
         (r->ndims == 0 ||
          (k->count == r->dim[0].count && k->stride == r->dim[0].stride));
}

_Static_assert(KNOWN_SLOTS == 1 << 13, "slot() takes 13 bits");

bool dag__access_known(const struct dag_access *a, struct region *g,
                       struct resolved *out) {
  if ((unsigned)a->region.ndims > 1)
    return false;
  const struct known *k = slot(a);
  if (!k->mode || !same_key(k, a))
    return false;
  g->lo = (uintptr_t)a->region.base;
  g->hi = k->hi;
  g->span = k->region_span;
  g->ndims = k->region_ndims;
  g->shape = 0; /* shaped accesses are not kept */
  g->dim[0].count = k->region_count;
  g->dim[0].stride = k->region_stride;
  out->alloc = k->alloc;
  out->block = k->block;
  out->hash = k->hash;
  return true;
}

bool dag__access_cache_valid(void) {
  const void *now = dag__dist_version();
  if (likely(now == version))
    return true;
  dag__access_cache_forget();
  version = now;
  return false;
}

void dag__access_remember(const struct dag_access *a, const struct region *g,
                          const struct resolved *r) {
  if (!keyable(a) || g->ndims > 1)
    return;
  const struct dag_region *in = &a->region;
  bool rows = in->ndims == 1;
  *slot(a) = (struct known){.base = in->base,
                            .span = in->span,
                            .count = rows ? in->dim[0].count : 0,
                            .stride = rows ? in->dim[0].stride : 0,
                            .mode = (int8_t)a->mode,
                            .ndims = (int8_t)in->ndims,
                            .region_ndims = (int8_t)g->ndims,
                            .hi = g->hi,
                            .region_span = g->span,
                            .region_count = g->ndims ? g->dim[0].count : 0,
                            .region_stride = g->ndims ? g->dim[0].stride : 0,
                            .alloc = r->alloc,
                            .block = r->block,
                            .hash = r->hash};
}

void dag__access_cache_forget(void) { memset(known, 0, sizeof known); }
