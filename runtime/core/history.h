/* history.h — the records of a dependency tracker's history (deps.c) and
 * the index that finds the ones an access may touch (history.c).
 *
 * Private to deps.c and history.c.
 */
#ifndef DAG_HISTORY_H
#define DAG_HISTORY_H

#include "core/internal.h"

#include <stddef.h>

/* One access of one task: (task, mode, region). A record is allocated only
 * as long as its region needs: a run (most regions, ndims 0) keeps lo and
 * hi alone, since its span is hi - lo; other shapes keep region.ndims
 * dimensions. Every byte here is paid per waiting access, so the mode and
 * the shape share the task pointer's low bits, and the treap priority is a
 * hash of the record's address.
 *
 * A band (SHAPE_BAND) is an index node, not an access: see history.c. */
struct record {
  uintptr_t task_kind; /* struct task * | shape | mode index */
  union {
    struct commute_lock *lock;  /* a commutative record's */
    struct record *next_reader; /* a reader's: its reader group (deps.c) */
    struct record *members;     /* a band's: the treap of its members */
  };
  struct record *left, *right;
  uintptr_t max_hi;     /* largest key end in this subtree (history.c) */
  struct region region; /* last, and cut short: see above */
};

/* The low bits of task_kind. */
#define RECORD_MODE_MASK ((uintptr_t)3)
#define RECORD_SHAPE_MASK ((uintptr_t)12)
enum record_shape {
  SHAPE_FULL = 0,   /* the whole region is kept, the record in the top tree */
  SHAPE_RUN = 4,    /* only lo and hi are kept */
  SHAPE_MEMBER = 8, /* rows of one stride, in a band's treap */
  SHAPE_BAND = 12,  /* an index node */
};
_Static_assert(_Alignof(struct task) >= 16, "task_kind takes 4 bits");

static inline struct task *record_task(const struct record *r) {
  return (struct task *)(r->task_kind &
                         ~(RECORD_MODE_MASK | RECORD_SHAPE_MASK));
}

static inline enum record_shape record_shape(const struct record *r) {
  return (enum record_shape)(r->task_kind & RECORD_SHAPE_MASK);
}

static inline bool record_is_run(const struct record *r) {
  return record_shape(r) == SHAPE_RUN;
}

/* The index of every record of one tracker. */
struct history {
  struct record *root;   /* a treap of records and bands */
  struct record **bands; /* hash table of the bands, open addressing */
  size_t band_mask;      /* slots - 1 */
  size_t nbands;
};

/* Adds r, whose region and task_kind are set: shape SHAPE_RUN for a run,
 * else any other (the index decides whether it is a band's member). */
void dag__history_insert(struct history *h, struct record *r);
/* Removes r, which is in h. */
void dag__history_erase(struct history *h, struct record *r);
/* Appends to out every record of h that may share a byte with g: all that
 * do, and few others (exact tests are the caller's). out has room for all
 * the records of h. */
void dag__history_query(const struct history *h, const struct region *g,
                        struct record **out, size_t *n);
/* Appends every record of h to out, in no particular order. */
void dag__history_collect(const struct history *h, struct record **out,
                          size_t *n);
/* Empties the index and frees what it holds; the records themselves are
 * the caller's. */
void dag__history_reset(struct history *h);

#endif
