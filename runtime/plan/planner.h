/* planner.h — what the files of the rank-uniform planner (plan/) share:
 * plan.c places tasks and plans what moves; the pieces with files of their
 * own are the transfers (transfers.c), sets of ranks (rankset.c), units
 * of data and the regions they cover (units.c), the check that every rank
 * submitted the same tasks (uniformity.c) and, on demand, holds the same
 * replicated data (values.c). All of it runs on the one thread that submits
 * top-level tasks, like plan.c itself.
 */
#ifndef DAG_PLANNER_H
#define DAG_PLANNER_H

#include "comm/comm.h"
#include "core/core.h"
#include "device/device.h"
#include "plan/dist.h"
#include "plan/plan.h"

/* ----------------------------------------------------------- rankset.c */

/* A set of ranks: those that hold a valid copy of a unit. After a write
 * one rank does, so that case is a number and costs no memory; a bitmap,
 * made when the set first grows past one rank and kept for reuse, holds
 * the others. Never empty. */
struct rankset {
  int one; /* the only member, or RANKSET_MANY (see bits) or RANKSET_ALL */
  uint64_t *bits;
};

enum { RANKSET_MANY = -1, RANKSET_ALL = -2 };

static inline bool dag__rankset_has(const struct rankset *s, int r) {
  if (s->one >= 0)
    return s->one == r;
  return s->one == RANKSET_ALL || (s->bits[r / 64] >> (r % 64) & 1);
}

static inline void dag__rankset_only(struct rankset *s, int r) { s->one = r; }
static inline void dag__rankset_all(struct rankset *s) { s->one = RANKSET_ALL; }

void dag__rankset_add(struct rankset *s, int r);
/* The lowest member. */
int dag__rankset_first(const struct rankset *s);
/* The lowest member above `after`, or -1. */
int dag__rankset_next(const struct rankset *s, int after);
/* s becomes s ∩ with; the two must share a member. */
void dag__rankset_intersect(struct rankset *s, const struct rankset *with);
void dag__rankset_free(struct rankset *s);

/* ------------------------------------------------------------- units.c */

/* A unit of data and the ranks that hold it valid: for dag_alloc memory,
 * one block of the distribution; for other (replicated) memory, a byte
 * interval. */
struct unit {
  struct region region; /* this rank's copy */
  struct rankset valid;
  int home;   /* -1: replicated */
  bool dirty; /* written since the last taskwait */
  /* Parts of it that ranks outside `valid` hold valid since it was last
   * written; NULL when none. Blocks: the parts they received (plan.c).
   * Replicated units: what a merge left them of the units it merged
   * (units.c). */
  struct part_copies *parts;
};

/* Parts of a unit held by ranks that lack the rest. */
enum { PART_EVERY_RANK = -1 }; /* bytes no task wrote: valid everywhere */
struct part_copy {
  int rank; /* or PART_EVERY_RANK */
  struct region region;
};

/* A unit keeps this many parts at the most; a rank needing another then
 * receives the whole unit (and the advisor says so, advice.c). */
#define PART_COPIES_MOST 256

struct part_copies {
  size_t n, cap;
  struct part_copy at[];
};

/* Notes that `rank` holds `part` of u valid; false when u has no room left
 * for it (that rank then fetches the whole of u when it needs any). */
bool dag__unit_note_part(struct unit *u, int rank, const struct region *part);

/* The one block of allocation a that holds every byte region r may touch,
 * or NULL when r spans several. Remembered per region shape: tiled programs
 * name the same tiles again and again, and block geometry costs divisions. */
struct unit *dag__units_block(const struct allocation *a,
                              const struct region *r);

/* Calls fn on every unit region r (in allocation a, or replicated memory if
 * a is NULL) may touch. Replicated units that r overlaps are merged into
 * one, whose parts are first made valid on rank `gather`. */
void dag__units_each(const struct allocation *a, const struct region *r,
                     int gather, void (*fn)(struct unit *, void *), void *arg);

/* Whether rank `rank` holds valid every unit region r (in allocation a, or
 * replicated memory if a is NULL) touches; changes nothing (no merge). */
bool dag__units_valid_on(const struct allocation *a, const struct region *r,
                         int rank);

/* Makes u valid on rank `to` (transfers.c): merging replicated units
 * needs it. */
void dag__unit_fetch(struct unit *u, int to);

/* Puts u on the list of units written since the last taskwait. */
void dag__units_mark_dirty(struct unit *u);
/* Calls fn on every unit written since the last taskwait and empties the
 * list; then forgets the replicated units (history that may differ between
 * ranks, such as reused addresses, does not outlive a taskwait). */
void dag__units_flush(void (*fn)(struct unit *));

void dag__units_release(void);

/* An access of a task, as messages about data name it: the task's number
 * from the start (0: none), its source site, and the item as written
 * (NULL: unknown). Kept past the task, so copied out of its description,
 * which may live on a caller's stack; the strings are the program's. */
struct task_site {
  uint64_t number;
  const char *label, *file, *item;
  int line;
};

/* The access of the task being planned whose region is `access` (one of
 * the task's, from struct planned; else no task), for the records that
 * outlive the task (plan.c). */
void dag__plan_site(struct task_site *out, const struct region *access);

/* Replicated unit u was last written by the access being planned. */
void dag__units_note_writer(struct unit *u, const struct region *access);

/* A replicated unit's last writer, and the access that first named it. */
const struct task_site *dag__units_writer(const struct unit *u);
const struct task_site *dag__units_maker(const struct unit *u);

/* A replicated unit's bytes on this rank, and the accesses that made it
 * and last wrote it. */
struct watched {
  uintptr_t lo, hi;
  struct task_site maker, writer;
  uint64_t made; /* the unit's rank in the order units were made */
};

/* The replicated units accessed since the last taskwait, in the order they
 * were made, which is the same on every rank (their addresses, and so the
 * order of their addresses, may differ), before a flush forgets them: a
 * malloc'd array (NULL when there are none) of *n entries. */
struct watched *dag__units_watch(size_t *n);

/* ---------------------------------------------------------- transfers.c */

/* Adds this rank's side of moving region r (a unit or part of one) from
 * rank `from` to rank `to` to its local graph: a send that reads it or a
 * receive that writes it, ordered by the local tracker like any task. */
void dag__plan_transfer(const struct region *r, int from, int to);
/* The rank that sends u when it must travel, the same on every rank: its
 * home if valid there, else the lowest valid rank. */
int dag__unit_holder(const struct unit *u);
/* Whether `rank` received a part of block u since its last write that
 * holds `part` (any part: NULL). */
bool dag__unit_has_part(const struct unit *u, int rank,
                        const struct region *part);
/* After a write of block u: the parts received of it are stale. */
static inline void dag__unit_forget_parts(struct unit *u) {
  if (u->parts)
    u->parts->n = 0;
}
/* Makes `part` of u (all of it: NULL) valid on every rank; returns the
 * number of ranks that received it. */
int dag__unit_broadcast(struct unit *u, const struct region *part);
/* The sequences of the transfers to and from each rank (start-up), this
 * rank's line of DAG_STATS with the planner's counts of tasks, and their
 * end. */
void dag__transfers_start(void);
void dag__transfers_write_stats(uint64_t tasks, uint64_t here);
void dag__transfers_release(void);

/* --------------------------------------------------------------- plan.c */

/* The accesses of the task being planned, worked out: n regions and modes,
 * as the local tracker takes them, and where each lies. */
struct planned {
  const struct region *regs;
  const enum dag_mode *modes;
  const struct resolved *where;
  size_t n;
  /* The items as written, one per access (NULL: unknown, or they do not
   * match the accesses one to one). */
  const char *const *items;
};

/* Plans a task placed on rank exec, the number-th submitted: its
 * transfers, its submission here if exec is this rank, and who holds what
 * it writes. */
void dag__plan_at(const struct dag_task_info *info, dag_task_fn body,
                  const void *args, size_t args_size, const struct planned *p,
                  int exec, uint64_t number);

/* ------------------------------------------------------ commute_group.c */

/* Whether the task, placed on rank exec, joins the group of commutative
 * tasks being gathered (which it may start), to be planned when the group
 * ends; false if it cannot: the caller ends the group and plans it. */
bool dag__commute_group_takes(const struct dag_task_info *info,
                              dag_task_fn body, const void *args,
                              size_t args_size, const struct planned *p,
                              int exec, uint64_t number);
/* Plans the group's tasks, rank by rank, and empties it. */
void dag__commute_group_end(void);
extern size_t dag__commute_group_size; /* tasks gathered */

/* Ends the group if there is one: one load in the usual case. */
static inline void dag__commute_group_close(void) {
  if (unlikely(dag__commute_group_size))
    dag__commute_group_end();
}

/* Whether a task has commutative accesses: only those may join a group. */
static inline bool dag__commutes(const struct planned *p) {
  for (size_t i = 0; i < p->n; i++)
    if (p->modes[i] == DAG_COMMUTATIVE)
      return true;
  return false;
}
void dag__commute_group_release(void);

/* -------------------------------------------------------- uniformity.c */

/* What ranks must agree on about one access, hashed: its mode, shape and,
 * in dag_alloc memory, its offset. Kept in struct resolved, so that the
 * access cache remembers it too. */
uint64_t dag__uniformity_access_hash(const struct region *r, enum dag_mode mode,
                                     const struct allocation *a);
/* Adds a task to the record ranks compare: its source line, flags and
 * placement, and the hashes of its accesses (res[i].hash). Returns the
 * number of tasks recorded since the last check. */
size_t dag__uniformity_record(const struct dag_task_info *info,
                              const struct resolved *res, size_t n);
/* All ranks must have recorded the same tasks since the last check: on a
 * mismatch every rank names its first differing task and the run stops.
 * `where` ends the message ("this taskwait"). */
void dag__uniformity_check(const char *where);
void dag__uniformity_release(void);

/* Collectives of the checks, from the submitting thread, which runs tasks
 * while it waits: whether every rank gave the same v (all: nranks entries
 * of scratch), and the end of a run whose ranks disagree, once each has
 * said why (it does not return). */
bool dag__ranks_agree(uint64_t v, uint64_t *all);
_Noreturn void dag__ranks_stop(uint64_t *all);

/* ------------------------------------------------------------ advice.c */

/* The traffic advisor: transfers that move far more than the tasks need,
 * counted by cause and by the access that caused them. Every rank plans
 * every transfer, so every rank counts the same, and rank 0 alone speaks:
 * at DAG_LOG=info when a cause first crosses its threshold, and at the end
 * of the run, once per cause. Only the planner's slow paths call it. */
enum advice_cause {
  /* An item covers part of a block, which moves whole: a write of part of
   * a block, or a read of a shape that cannot travel alone. */
  ADVICE_WHOLE_BLOCK,
  /* A read of part of a block that has as many parts as it can keep. */
  ADVICE_PART_LIMIT,
  /* Replicated memory written on several ranks and sent back to every
   * rank at each taskwait. */
  ADVICE_REPLICATED,
  /* Halos between neighbouring blocks of a block-cyclic distribution,
   * whose neighbours live on other ranks. */
  ADVICE_CYCLIC_HALO,
  ADVICE_CAUSES
};

/* What one transfer (or flush) moved and why: `moved` bytes (to every
 * rank they went to) where the access needed `needed`; for
 * ADVICE_CYCLIC_HALO, `needed` is what the matching block distribution
 * would have moved. `a` (NULL: replicated memory) and `block` (the unit)
 * describe the data; `region` and `mode` are the access's. `rank` is the
 * rank that wrote the data (ADVICE_REPLICATED) or -1. */
struct advice_note {
  enum advice_cause cause;
  const struct allocation *a;
  const struct region *block, *region;
  enum dag_mode mode;
  uint64_t moved, needed;
  int rank;
};

/* Counts a note, for the access `site`. */
void dag__advice_note(const struct task_site *site,
                      const struct advice_note *n);
/* The end of the run: says what crossed its threshold, once per cause
 * and access (rank 0; and in a simulated rank's one process). */
void dag__advice_report(void);
void dag__advice_release(void);

/* ------------------------------------------------------------ values.c */

/* DAG_CHECK_UNIFORMITY=values, at a taskwait once its flush is done: every
 * rank must hold the same bytes in the n replicated units w; else each
 * names the first differing byte and the task that last wrote it, and the
 * run stops. */
void dag__values_check(const struct watched *w, size_t n);

#endif /* DAG_PLANNER_H */
