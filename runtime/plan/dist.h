/* dist.h — the distributed allocations of dag_alloc (dist.c): where each
 * byte's home rank is, which the planner places tasks and moves data by.
 */
#ifndef DAG_DIST_H
#define DAG_DIST_H

#include "base.h"

/* -------------------------------------------------------------- dist.c */

/* One dag_alloc allocation: [base, base + bytes), homed by dist. The record
 * stays at the same address from dag_alloc until dag__dist_release (even
 * after dag_free), so a pointer to it can be kept and compared. */
struct allocation {
  char *base;
  size_t bytes;
  struct dag_dist dist;
  /* The rank-uniform layer's blocks of it (units.c), made on first use and
   * touched only by the thread that submits top-level tasks. */
  void *units;
};

/* dag_alloc's own part, on a running runtime: validates the distribution,
 * reserves the memory and registers it. NULL (with a message) on error. */
void *dag__dist_alloc(size_t bytes, struct dag_dist dist);
/* The allocation that starts at p, or NULL with a message for dag_free. */
const struct allocation *dag__dist_allocation_at(void *p);
/* dag_free's own part, once nothing uses the allocation at p any more:
 * unregisters and unmaps it. Returns 0 or DAG_EINVAL. */
int dag__dist_free(void *p);

/* The allocation holding the byte at p, or NULL: replicated memory. Takes no
 * lock (a binary search in a table published through an atomic pointer);
 * safe from any thread, concurrently with dag_alloc and dag_free. */
const struct allocation *dag__dist_find(const void *p);

/* Whether region r crosses the edge of dag_alloc memory: its first and
 * last bytes lie in different allocations, or one in an allocation and the
 * other outside any (then *first and *last say which, NULL for outside).
 * As cheap as dag__dist_find when r is nowhere near dag_alloc memory. */
bool dag__dist_crossed(const struct region *r, const struct allocation **first,
                       const struct allocation **last);

/* Changes whenever an allocation comes or goes (never repeats before
 * dag__dist_release): what dag__dist_find answered stays true while it is
 * the same. */
const void *dag__dist_version(void);

/* The home rank of the byte `offset` bytes into a, in [0, dag__nranks). */
int dag__dist_home(const struct allocation *a, size_t offset);

/* The pure function behind dag__dist_home, for any number of ranks (d must
 * be valid as dag_alloc checks it). An OWNER function that answers outside
 * [0, nranks) is a user error: reported once, and rank 0 is used instead. */
int dag__dist_home_for(const struct dag_dist *d, size_t offset, int nranks);

/* The bytes [*begin, *end) of the contiguous run of one home around
 * `offset` (< a->bytes), as offsets into a: BLOCK, the block; 2D, the
 * block's segment of the row; OWNER, the unit. Clipped to the allocation.
 * Walk a region by home with offset = *end. */
void dag__dist_block(const struct allocation *a, size_t offset, size_t *begin,
                     size_t *end);

/* Gives back the physical pages wholly inside [p, p + bytes) (dag_alloc
 * memory: a copy this rank no longer needs); they read as zero afterwards. */
void dag__dist_discard(void *p, size_t bytes);

/* At dag_finalize: unmaps every allocation and frees the registry. */
void dag__dist_release(void);

#endif /* DAG_DIST_H */
