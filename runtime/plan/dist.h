/* dist.h — the distributed allocations of dag_alloc (dist.c): where each
 * byte's home rank is, which the planner places tasks and moves data by.
 */
#ifndef DAG_DIST_H
#define DAG_DIST_H

#include "base.h"

/* -------------------------------------------------------------- dist.c */

static inline size_t dag__ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}

/* Whether d cuts a row-major matrix into 2-D blocks (else its blocks, or
 * OWNER's units, are runs of dag__dist_unit_bytes bytes). */
static inline bool dag__dist_is_2d(const struct dag_dist *d) {
  return d->kind == DAG_DIST_BLOCK_CYCLIC_2D || d->kind == DAG_DIST_BLOCK_2D;
}

static inline size_t dag__dist_unit_bytes(const struct dag_dist *d) {
  return d->kind == DAG_DIST_OWNER ? d->block : d->elem * d->block;
}

/* The blocks of a 2-D distribution over `bytes`: *nbi rows of *nbj. */
static inline void dag__dist_grid_of_blocks(const struct dag_dist *d,
                                            size_t bytes, size_t *nbi,
                                            size_t *nbj) {
  *nbi = dag__ceil_div(dag__ceil_div(bytes, d->elem * d->ld), d->mb);
  *nbj = dag__ceil_div(d->ld, d->nb);
}

/* One dag_alloc allocation: [base, base + bytes), homed by dist. The record
 * stays at the same address from dag_alloc until dag__dist_release (even
 * after dag_free), so a pointer to it can be kept and compared. */
struct allocation {
  char *base;
  size_t bytes;
  struct dag_dist dist;
  const char *file; /* where the program called dag_alloc; NULL: unknown */
  int line;
  /* The rank-uniform layer's blocks of it (units.c), made on first use and
   * touched only by the thread that submits top-level tasks. */
  void *units;
};

/* dag_alloc's own part, on a running runtime: validates the distribution,
 * reserves the memory and registers it. NULL (with a message) on error.
 * file and line: the program's call, for messages (file may be NULL). */
void *dag__dist_alloc(size_t bytes, struct dag_dist dist, const char *file,
                      int line);
/* "dag_alloc memory of 800 bytes allocated at p2p.c:12", for messages. */
void dag__dist_name(char *buf, size_t size, const struct allocation *a);
/* The allocation that starts at p, or NULL with a message for dag_free. */
const struct allocation *dag__dist_allocation_at(void *p);
/* dag_free's own part, once nothing uses the allocation at p any more:
 * unregisters and unmaps it. Returns 0 or DAG_EINVAL. */
int dag__dist_free(void *p);

/* The allocation holding the byte at p, or NULL: replicated memory. Takes no
 * lock (a binary search in a table published through an atomic pointer);
 * safe from any thread, concurrently with dag_alloc and dag_free. */
const struct allocation *dag__dist_find(const void *p);

/* How a region lies wrong against dag_alloc memory. Each allocation is
 * mapped with a page of no access before and after it, and whole pages,
 * so the bytes just outside it are reserved: no item may touch them. */
enum dist_misplaced {
  DIST_FITS,         /* in one allocation's bytes, or in none at all */
  DIST_CROSSES,      /* from one allocation's bytes into another's */
  DIST_LEAVES,       /* from an allocation's bytes into other memory */
  DIST_ENTERS,       /* from other memory into an allocation's bytes */
  DIST_BEFORE_START, /* in the reserved bytes before an allocation */
  DIST_PAST_END,     /* in the reserved bytes after an allocation */
  DIST_HOLDS         /* around a whole allocation */
};

/* Where region r lies against dag_alloc memory; *a is the allocation
 * concerned when it is not DIST_FITS. As cheap as dag__dist_find when r is
 * nowhere near dag_alloc memory. */
enum dist_misplaced dag__dist_misplaced(const struct region *r,
                                        const struct allocation **a);

/* Changes whenever an allocation comes or goes (never repeats before
 * dag__dist_release): what dag__dist_find answered stays true while it is
 * the same. */
const void *dag__dist_version(void);

/* The home rank of the byte `offset` bytes into a, in [0, dag__nranks). */
int dag__dist_home(const struct allocation *a, size_t offset);

/* The pure function behind dag__dist_home, for an allocation of `bytes`
 * over any number of ranks (d must be valid as dag_alloc checks it). An
 * OWNER function that answers outside [0, nranks) is a user error:
 * reported once, and rank 0 is used instead. */
int dag__dist_home_for(const struct dag_dist *d, size_t bytes, size_t offset,
                       int nranks);

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
