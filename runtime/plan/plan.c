/* plan.c — the rank-uniform planner: every rank sees every top-level task
 * and decides alone, identically, where it runs and which data moves.
 *
 * Each rank keeps the same bookkeeping, per unit of data (units.c), of the
 * set of ranks that hold a valid copy. For a task placed on rank E, a unit
 * it reads (or writes in part) that E lacks comes from one valid holder,
 * chosen the same way on every rank; both sides add the transfer to their
 * local graph as a task (a send that reads the unit, a receive that writes
 * it), so the local dependency tracker orders it with the local tasks
 * around it. After a write only E holds a valid copy. Ranks other than E
 * and the holders do nothing but this bookkeeping for the task. Where each
 * access lies (allocation, block) goes back to the caller, whose cache
 * (api/validate.c) hands it in again with the access's region for the next
 * task that names the same access: programs name the same tiles again and
 * again.
 *
 * The transfers themselves, and who holds what, are transfers.c's.
 *
 * A taskwait brings every replicated unit written since back to every rank
 * and every block back to its home (unless noflush), then checks that all
 * ranks submitted the same tasks (uniformity.c).
 *
 * Everything here runs on the one thread that submits top-level tasks.
 */
#include "plan/planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* For DAG_STATS: the top-level tasks, and those this rank ran. */
static struct { uint64_t tasks, here; } stats;
static bool started; /* init_once ran */

/* --------------------------------------------------------------- placing */

/* Access i of the task being planned, and the rank that runs the task. */
struct access_plan {
  const struct region *region;
  enum dag_mode mode;
  const struct resolved *where;
  int exec;
};

/* The task being planned, for what outlives it: who last wrote
 * replicated data, and the advisor. */
static struct {
  const struct dag_task_info *info;
  const struct planned *p;
  uint64_t number;
} planning;

void dag__plan_site(struct task_site *out, const struct region *access) {
  const struct planned *p = planning.p;
  /* Integers: access may point into another array (a taskwait's). */
  size_t i = p ? ((uintptr_t)access - (uintptr_t)p->regs) / sizeof *access : 0;
  if (!p || (uintptr_t)access < (uintptr_t)p->regs || i >= p->n) {
    *out = (struct task_site){0}; /* a taskwait's, not a task's */
    return;
  }
  const struct dag_task_info *info = planning.info;
  *out = (struct task_site){planning.number, info->label, info->file,
                            p->items ? p->items[i] : NULL, info->line};
}

/* Calls fn on the units of access i of p, which runs on rank exec. */
static void each_unit(const struct planned *p, size_t i, int exec,
                      void (*fn)(struct unit *, void *)) {
  struct access_plan a = {&p->regs[i], p->modes[i], &p->where[i], exec};
  if (a.where->block)
    fn(a.where->block, &a);
  else
    dag__units_each(a.where->alloc, a.region, exec, fn, &a);
}

/* Whether r takes all of u, as a tile's access takes its tile: its bounds
 * hold u's and its rows are as wide (r reads all of u, or is an odd
 * shape), so that u travels whole; not a triangle of it, nor a column
 * strip across it, which travel alone. */
static inline bool takes_whole(const struct region *r, const struct region *u) {
  return r->lo <= u->lo && r->hi >= u->hi && !r->shape && r->span >= u->span;
}

/* Tells the advisor what access a's fetch of block u moved, and why. */
static void advise(enum advice_cause cause, const struct unit *u,
                   const struct access_plan *a, uint64_t moved,
                   uint64_t needed) {
  struct task_site site;
  dag__plan_site(&site, a->region);
  dag__advice_note(&site, &(struct advice_note){cause, a->where->alloc,
                                                &u->region, a->region, a->mode,
                                                moved, needed, -1});
}

/* The distribution that deals the same blocks to the ranks in runs, where
 * d deals them in turn. */
static bool runs_instead(const struct dag_dist *d, struct dag_dist *runs) {
  *runs = *d;
  if (d->kind == DAG_DIST_BLOCK_CYCLIC)
    runs->kind = DAG_DIST_BLOCK;
  else if (d->kind == DAG_DIST_BLOCK_CYCLIC_2D)
    runs->kind = DAG_DIST_BLOCK_2D;
  return runs->kind != d->kind;
}

/* The index of the block of allocation a holding byte `offset`: its row
 * and column of blocks (one row for 1-D distributions). */
static void block_at(const struct allocation *a, size_t offset, size_t *bi,
                     size_t *bj) {
  const struct dag_dist *d = &a->dist;
  if (dag__dist_is_2d(d)) {
    size_t e = offset / d->elem;
    *bi = e / d->ld / d->mb;
    *bj = e % d->ld / d->nb;
  } else {
    *bi = 0;
    *bj = offset / dag__dist_unit_bytes(d);
  }
}

/* The access that placed the task being planned (as place() does): the
 * first written item in dag_alloc memory, else the first read one; -1 if
 * none (or on(rank)). */
static long placing_access(void) {
  const struct planned *p = planning.p;
  if (planning.info->flags & DAG_TASK_ON_RANK)
    return -1;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < p->n; i++)
      if ((p->modes[i] != DAG_IN) == (pass == 0) && p->where[i].alloc)
        return (long)i;
  return -1;
}

/* Whether allocations a and b are cut into the same blocks. */
static bool same_blocks(const struct allocation *a,
                        const struct allocation *b) {
  const struct dag_dist *x = &a->dist, *y = &b->dist;
  return a->bytes == b->bytes && x->elem == y->elem &&
         dag__dist_is_2d(x) == dag__dist_is_2d(y) &&
         (dag__dist_is_2d(x)
              ? x->ld == y->ld && x->mb == y->mb && x->nb == y->nb &&
                    x->p == y->p && x->q == y->q
              : dag__dist_unit_bytes(x) == dag__dist_unit_bytes(y));
}

/* The home of byte `offset` of a if a dealt its blocks in runs. */
static int home_in_runs(const struct allocation *a, size_t offset) {
  struct dag_dist runs;
  runs_instead(&a->dist, &runs);
  return dag__dist_home_for(&runs, a->bytes, offset, dag__nranks);
}

/* A part of block u of a block-cyclic distribution travelled for access
 * a: a halo when u neighbours the block that placed the task (of the same
 * allocation, or of one cut into the same blocks, as a stencil's two
 * arrays are). The advisor weighs it against the same distribution in
 * runs, under which the two blocks may share a rank and the part would
 * not move. */
static void advise_halo(const struct unit *u, const struct access_plan *a,
                        uint64_t bytes) {
  const struct allocation *alloc = a->where->alloc;
  struct dag_dist runs;
  if (!runs_instead(&alloc->dist, &runs))
    return;
  long placed = placing_access();
  const struct allocation *by =
      placed >= 0 ? planning.p->where[placed].alloc : NULL;
  uint64_t under_runs = bytes;
  if (by && same_blocks(by, alloc)) {
    size_t at = u->region.lo - (uintptr_t)alloc->base;
    size_t from = planning.p->regs[placed].lo - (uintptr_t)by->base;
    size_t bi, bj, fi, fj;
    block_at(alloc, at, &bi, &bj);
    block_at(by, from, &fi, &fj);
    size_t di = bi > fi ? bi - fi : fi - bi, dj = bj > fj ? bj - fj : fj - bj;
    if (di + dj == 1 && home_in_runs(alloc, at) == home_in_runs(by, from))
      under_runs = 0;
  }
  advise(ADVICE_CYCLIC_HALO, u, a, bytes, under_runs);
}

/* Brings rank a->exec the bytes `part` of block u, which it lacks, and
 * only those (a halo, a row), where it can keep track of them: false if
 * it cannot (u keeps as many parts as it can), and the caller fetches the
 * block. */
static bool fetch_part(struct unit *u, const struct region *part,
                       const struct access_plan *a) {
  int to = a->exec;
  if (dag__unit_has_part(u, to, part))
    return true;
  if (!dag__unit_note_part(u, to, part))
    return false;
  if (to == dag__rank || dag__rankset_has(&u->valid, dag__rank))
    dag__plan_transfer(part, dag__unit_holder(u), to);
  advise_halo(u, a, dag__region_bytes(part));
  return true;
}

/* Out of plan_read, whose usual case moves nothing, or a whole block:
 * inlined there, its frame cost every read a third more (callgrind). A
 * read of part of a block another rank holds receives that part only (a
 * halo row receives the row); the block is not valid there then, and a
 * read of the rest receives the rest. Else the block travels whole, which
 * the advisor hears of when the access needed little of it. */
static __attribute__((noinline)) void
fetch_for_read(struct unit *u, const struct access_plan *a) {
  struct region part;
  if (u->home < 0) { /* replicated memory: a unit merged around the item */
    dag__unit_fetch(u, a->exec);
    return;
  }
  size_t whole = dag__region_bytes(&u->region);
  bool within = dag__region_within(a->region, &u->region, &part);
  size_t needed = within ? dag__region_bytes(&part) : whole;
  enum advice_cause cause = ADVICE_WHOLE_BLOCK;
  if (a->mode == DAG_IN && within && needed < whole) {
    if (fetch_part(u, &part, a))
      return;
    cause = ADVICE_PART_LIMIT;
  }
  dag__unit_fetch(u, a->exec);
  advise(cause, u, a, whole, needed);
}

static void plan_read(struct unit *u, void *arg) {
  const struct access_plan *a = arg;
  /* A write of part of a unit needs the rest of it current too. */
  if ((a->mode != DAG_OUT || !dag__region_covers(a->region, &u->region)) &&
      !dag__rankset_has(&u->valid, a->exec)) { /* the usual case, inline */
    if (takes_whole(a->region, &u->region))
      dag__unit_fetch(u, a->exec);
    else
      fetch_for_read(u, a);
  }
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
  enum dag_mode mode = DAG_OUT;
  dag__local_submit(&info, info.fn, &u->region, sizeof u->region, &u->region,
                    &mode, 1, CORE_NO_INLINE);
}

static bool check_values; /* DAG_CHECK_UNIFORMITY=values */
static bool check_items;  /* DAG_CHECK_ITEMS */

/* Inlined where a task writes one block, the usual case. */
static DAG_ALWAYS_INLINE void apply_write(struct unit *u, void *arg) {
  const struct access_plan *a = arg;
  if (u->home >= 0 && u->home != dag__rank && a->exec != dag__rank &&
      (dag__rankset_has(&u->valid, dag__rank) ||
       unlikely(dag__unit_has_part(u, dag__rank, NULL))))
    discard_copy(u);
  if (unlikely(u->parts != NULL))
    dag__unit_forget_parts(u);
  dag__rankset_only(&u->valid, a->exec);
  dag__units_mark_dirty(u);
  if (u->home < 0)
    dag__units_note_writer(u, a->region);
}

/* The home of the first byte of access i of p, or -1 for replicated
 * memory. */
static int home_of(const struct planned *p, size_t i) {
  const struct resolved *a = &p->where[i];
  if (a->block)
    return a->block->home;
  return a->alloc ? dag__dist_home(a->alloc,
                                   p->regs[i].lo - (uintptr_t)a->alloc->base)
                  : -1;
}

/* The rank of the next task placed round-robin: the number of top-level
 * tasks submitted, modulo the ranks (kept as such: a division per task
 * costs more than the rest of placing it). */
static int round_robin;

/* on(rank); else the home of the first written distributed item; else of
 * the first read one; else round-robin by task number. */
static DAG_ALWAYS_INLINE int place(const struct dag_task_info *info,
                                   const struct planned *p) {
  if (info->flags & DAG_TASK_ON_RANK)
    return info->rank;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < p->n; i++) {
      bool writes = p->modes[i] != DAG_IN;
      if (writes == (pass == 0)) {
        int home = home_of(p, i);
        if (home >= 0)
          return home;
      }
    }
  return round_robin;
}

/* ------------------------------------------------------------- interface */

static bool check_every_task; /* DAG_CHECK_UNIFORMITY=1 */
static size_t check_period;   /* DAG_CHECK_EVERY */
static char check_period_text[64];

static void init_once(void) {
  if (started)
    return;
  started = true;
  check_every_task = dag__settings()->check_every_task;
  check_values = dag__settings()->check_values;
  check_items = dag__settings()->check_items;
  check_period = (size_t)dag__settings()->check_period;
  snprintf(check_period_text, sizeof check_period_text,
           "the check every %zu tasks", check_period);
  dag__transfers_start();
}

/* Tasks with more accesses than this plan them in memory from malloc. */
#define FEW_ACCESSES 16

/* The task planned runs on this rank. */
static void submit_here(const struct dag_task_info *info, dag_task_fn body,
                        const void *args, size_t args_size,
                        const struct region *regs, const enum dag_mode *modes,
                        size_t n) {
  if (n == 0 && args_size <= DAG_CORE_PLAIN_ARGS && info->nvariants == 0 &&
      info->device == DAG_DEVICE_CPU)
    dag__core_submit_plain(info, body, args, args_size);
  else
    dag__local_submit(info, body, args, args_size, regs, modes, n, 0);
}

/* DAG_CHECK_ITEMS watches the replicated memory a task declares on every
 * rank (this rank's core sees those of its own tasks), and names a task by
 * its number, the same on every rank. */
static __attribute__((noinline)) void note_items(const struct planned *p,
                                                 int exec, uint64_t number) {
  if (exec != dag__rank)
    dag__guard_note(p->regs, p->n);
  else
    dag__guard_number(number);
}

static DAG_ALWAYS_INLINE void plan_placed(const struct dag_task_info *info,
                                          dag_task_fn body, const void *args,
                                          size_t args_size,
                                          const struct planned *p, int exec,
                                          uint64_t number) {
  size_t n = p->n; /* in a local: the calls below could change *p */
  planning.info = info;
  planning.p = p;
  planning.number = number;
  for (size_t i = 0; i < n; i++)
    each_unit(p, i, exec, plan_read);
  if (unlikely(check_items))
    note_items(p, exec, number);
  if (exec == dag__rank) {
    stats.here++;
    submit_here(info, body, args, args_size, p->regs, p->modes, n);
  }
  for (size_t i = 0; i < n; i++)
    if (p->modes[i] != DAG_IN)
      each_unit(p, i, exec, apply_write);
  planning.p = NULL; /* it lives in the caller's frame */
}

void dag__plan_at(const struct dag_task_info *info, dag_task_fn body,
                  const void *args, size_t args_size, const struct planned *p,
                  int exec, uint64_t number) {
  plan_placed(info, body, args, args_size, p, exec, number);
}

/* Plans a task whose accesses are worked out, now or, if it joins a group
 * of commutative tasks (commute_group.c), when the group ends; submits it
 * here if it runs here. */
static void plan(const struct dag_task_info *info, dag_task_fn body,
                 const void *args, size_t args_size, const struct planned *p) {
  size_t unchecked = dag__uniformity_record(info, p->where, p->n);
  int exec = place(info, p);
  if (++round_robin == dag__nranks)
    round_robin = 0;
  uint64_t number = ++stats.tasks;
  if (likely(!dag__commutes(p)) ||
      !dag__commute_group_takes(info, body, args, args_size, p, exec, number)) {
    dag__commute_group_close();
    plan_placed(info, body, args, args_size, p, exec, number);
  }
  if (check_every_task)
    dag__uniformity_check("this task");
  else if (unchecked == check_period)
    dag__uniformity_check(check_period_text);
}

/* Not inlined into dag_submit, whose path for one rank would pay for this
 * one's frame. */
__attribute__((noinline)) void
dag__plan_submit_plain(const struct dag_task_info *info, dag_task_fn body,
                       const void *args, size_t args_size) {
  init_once();
  plan(info, body, args, args_size,
       &(struct planned){NULL, NULL, NULL, 0, NULL});
}

void dag__plan_submit_resolved(const struct dag_task_info *info,
                               dag_task_fn body, const void *args,
                               size_t args_size, const struct region *regs,
                               const enum dag_mode *modes,
                               const struct resolved *where, size_t n) {
  init_once();
  plan(info, body, args, args_size,
       &(struct planned){regs, modes, where, n, info->items});
}

/* Where access r lies: its allocation and block, and its hash for the
 * uniformity check. */
static struct resolved resolve(const struct region *r, enum dag_mode mode) {
  const struct allocation *a = dag__dist_find((const void *)r->lo);
  return (struct resolved){a, a ? dag__units_block(a, r) : NULL,
                           dag__uniformity_access_hash(r, mode, a)};
}

void dag__plan_submit(const struct dag_task_info *info, dag_task_fn body,
                      const void *args, size_t args_size,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t n, struct resolved *where) {
  init_once();
  struct resolved few[FEW_ACCESSES], *own = NULL;
  if (!where)
    where = n <= FEW_ACCESSES ? few : (own = malloc(n * sizeof *where));
  if (!where)
    dag__out_of_memory("task accesses");
  for (size_t i = 0; i < n; i++)
    where[i] = resolve(&regs[i], modes[i]);
  plan(info, body, args, args_size,
       &(struct planned){regs, modes, where, n, info->items});
  if (own)
    free(own);
}

int dag__plan_place(const struct dag_task_info *info, const struct region *regs,
                    const enum dag_mode *modes, size_t n) {
  init_once();
  struct resolved few[FEW_ACCESSES], *where = few;
  if (n > FEW_ACCESSES && !(where = malloc(n * sizeof *where)))
    dag__out_of_memory("task accesses");
  for (size_t i = 0; i < n; i++)
    where[i] = resolve(&regs[i], modes[i]);
  int rank = place(info, &(struct planned){regs, modes, where, n, NULL});
  if (where != few)
    free(where);
  return rank;
}

/* A taskwait's flush: replicated units back on every rank (the advisor
 * hears what it cost), blocks at their homes. */
static void flush_unit(struct unit *u) {
  if (u->home >= 0) {
    dag__unit_fetch(u, u->home);
    return;
  }
  int writer = dag__rankset_first(&u->valid);
  int receivers = dag__unit_broadcast(u, NULL);
  if (receivers)
    dag__advice_note(
        dag__units_writer(u),
        &(struct advice_note){
            ADVICE_REPLICATED, NULL, &u->region, &u->region, DAG_OUT,
            (uint64_t)receivers * dag__region_bytes(&u->region), 0, writer});
}

int dag__plan_taskwait(bool flush_data) {
  init_once();
  dag__commute_group_close();
  size_t nwatched = 0;
  struct watched *watched =
      check_values && flush_data ? dag__units_watch(&nwatched) : NULL;
  if (flush_data)
    dag__units_flush(flush_unit);
  /* Checked before waiting: a rank that diverged may wait for a transfer
   * that never comes. */
  dag__uniformity_check("this taskwait");
  int err = dag__wait_children();
  if (check_values && flush_data) /* once the flush brought every copy */
    dag__values_check(watched, nwatched);
  free(watched);
  return err;
}

void dag__plan_check(const char *where) {
  init_once();
  dag__commute_group_close();
  dag__uniformity_check(where);
}

/* taskwait on(r) of a block: what r holds of the block travels, where it
 * has a shape that can (one element, a row, a tile's column), else the
 * whole block. */
static void collect_unit(struct unit *u, void *arg) {
  const struct region *r = arg;
  struct region part;
  if (u->home >= 0 && !takes_whole(r, &u->region) &&
      dag__region_within(r, &u->region, &part) &&
      dag__region_bytes(&part) < dag__region_bytes(&u->region))
    dag__unit_broadcast(u, &part);
  else
    dag__unit_broadcast(u, NULL);
}

void dag__plan_collect(const struct region *regs, size_t n) {
  init_once();
  dag__commute_group_close();
  for (size_t i = 0; i < n; i++)
    dag__units_each(dag__dist_find((const void *)regs[i].lo), &regs[i], 0,
                    collect_unit, (void *)&regs[i]);
  dag__uniformity_check("this taskwait");
}

void dag__plan_write_stats(void) {
  if (dag__nranks > 1)
    dag__transfers_write_stats(stats.tasks, stats.here);
}

void dag__plan_release(void) {
  dag__advice_report();
  dag__advice_release();
  dag__commute_group_release();
  dag__units_release();
  dag__uniformity_release();
  dag__transfers_release();
  started = false;
  round_robin = 0;
  memset(&stats, 0, sizeof stats);
}
