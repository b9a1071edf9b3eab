/* guard.h — what the files of DAG_CHECK_ITEMS share: guard.c (what is
 * watched, for which body, and the core's calls), guard_pages.c (the pages'
 * protection, the SIGSEGV handler and the snapshots it takes) and
 * guard_check.c (the pages written compared with their snapshots, and the
 * message that names the culprit). guard.c's opening comment tells how the
 * check works, and its locking.
 */
#ifndef DAG_CORE_GUARD_H
#define DAG_CORE_GUARD_H

#include "core/internal.h"

/* Pages one body may dirty with a snapshot each (1 GiB of 4 KiB pages,
 * reserved, committed as used); beyond, pages are unprotected unchecked. */
#define MAX_DIRTY ((size_t)1 << 18)
#define CLAIM_SLOTS ((size_t)1 << 20) /* a power of two above 2 MAX_DIRTY */
#define MAX_RUNS ((size_t)1 << 20)

/* [lo, hi): bytes, or pages when page aligned. */
struct run {
  uintptr_t lo, hi;
};

struct runs {
  struct run *at;
  size_t n, cap;
};

/* A task's items, kept for the guard: its name and regions. */
struct items {
  uint64_t id, scope; /* scope: the id of the context that submitted it */
  const char *label, *file;
  int line;
  const char *const *texts; /* info->items, one per region, or NULL */
  size_t n;
  struct region *regs;
  enum dag_mode *modes;
  /* As messages name it: the planner's count for a top-level task of
   * several ranks (the same on every rank), else this rank's (the core's
   * id: children, sends and receives count too). */
  uint64_t number;
};

/* A body being checked (the top frame), or waiting for a child's. */
struct frame {
  const struct task *task;
  struct items *items;
  pthread_t thread;
  struct region *seen; /* receives in flight while it was armed */
  size_t nseen, cap_seen;
};

/* Per entry of the dag_alloc memory watched, what messages name it by:
 * its size and the program's dag_alloc call (file NULL: unknown). */
struct alloc_name {
  size_t bytes;
  const char *file;
  int line;
};

/* ---------------------------------------------------------- guard_pages.c */

/* The page size, set at start. */
extern size_t dag__guard_page;

static inline uintptr_t page_down(uintptr_t a) {
  return a & ~(uintptr_t)(dag__guard_page - 1);
}
static inline uintptr_t page_up(uintptr_t a) {
  return page_down(a + dag__guard_page - 1);
}

/* Intervals: v gets [lo, hi) (nothing if empty); merged: sorted, and what
 * overlaps or touches made one; out = a minus b (both merged); the run of
 * r[0, n) (merged) that holds a, or NULL. */
void dag__runs_push(struct runs *v, uintptr_t lo, uintptr_t hi);
void dag__runs_merge(struct runs *v);
void dag__runs_subtract(const struct runs *a, const struct runs *b,
                        struct runs *out);
const struct run *dag__run_holding(const struct run *r, size_t n, uintptr_t a);

static inline bool in_runs(const struct run *r, size_t n, uintptr_t a) {
  return dag__run_holding(r, n, a) != NULL;
}

/* At start: the page size, and the snapshots, dirty pages, claims and
 * published runs reserved (an error, said, if they cannot be). */
int dag__guard_reserve(void);
/* At start, after dag__guard_reserve: catches SIGSEGV (an error, said, if
 * it cannot; the reservation is given back). */
int dag__guard_catch(void);
/* At stop, disarmed: gives back SIGSEGV's action, the reservation and
 * the mappings read. */
void dag__guard_release(void);

/* Reads /proc/self/maps (at start, and when a mapping is missing). */
void dag__guard_read_maps(void);
/* Adds to out the writable parts of [lo, hi) (pages), as read last; false
 * if part of it lies in no mapping known. */
bool dag__guard_writable_parts(uintptr_t lo, uintptr_t hi, struct runs *out);

/* Protects `protect` (merged, at most MAX_RUNS) for the body of the top
 * frame, published first for the handler. */
void dag__guard_protect(const struct runs *protect);
/* Makes everything writable again and forgets the snapshots. */
void dag__guard_unprotect(void);
/* Whether pages are protected now. */
bool dag__guard_armed(void);
/* The protected pages of [lo, hi) are about to be written by a receive:
 * snapshots them and makes them writable (dag__region_each_span's
 * callback). */
void dag__guard_claim_span(uintptr_t lo, uintptr_t hi, void *arg);

/* The pages written since protected: pages[i] was copied to
 * copies + i * dag__guard_page; `unchecked` more were not. */
struct snapshots {
  const uintptr_t *pages;
  const char *copies;
  size_t n, unchecked;
};
/* Once no handler runs any more: the snapshots taken. */
void dag__guard_snapshots(struct snapshots *s);

/* ---------------------------------------------------------- guard_check.c */

struct finding {
  struct runs bad;  /* bytes written outside the items */
  size_t bad_bytes; /* their count */
  size_t in_bytes;  /* of them, in the task's own in items */
  size_t unchecked; /* pages written that were not compared */
};

/* The body of the top frame fr stopped (it returned, or a child starts):
 * checks what it wrote into *f, then makes everything writable. True if it
 * wrote outside its items: the caller reports it once it lets go of the
 * lock (the progress thread may need it to end a receive). */
bool dag__guard_finish(const struct frame *fr, struct finding *f);

/* What messages name memory by: the dag_alloc memory watched (whole
 * pages) and its names, the replicated intervals declared (merged). */
struct guard_areas {
  const struct runs *allocs;
  const struct alloc_name *names;
  const struct runs *replicated;
};

/* Says what the body whose items are `it` wrote outside them, and stops
 * the run. */
noreturn void dag__guard_report(const struct items *it, struct finding *f,
                                const struct guard_areas *areas);

#endif /* DAG_CORE_GUARD_H */
