/* memory.c — the distributions (dag_dist_*, dag_grid), dag_owner, and
 * dag_alloc and dag_free: the distributed allocations of plan/dist.c, with
 * what the layers above must do about them. Both are calls of the program,
 * refused inside a task. dag_free waits
 * for the tasks that use the memory and makes the planner forget where its
 * blocks were valid: the memory is going, and a reused address must not
 * inherit a history.
 */
#include "api/api.h"
#include "plan/dist.h"
#include "plan/plan.h"

/* dag_alloc and dag_free are collective: every rank calls them, in the
 * same order, from the program. A task body runs on one rank only. */
int dag__outside_tasks(const char *call) {
  if (dag__current_task() == &dag__root_task)
    return 0;
  return dag__user_error(NULL, DAG_EINVAL,
                         "%s called from inside a task: call it from the "
                         "program, on every rank (use malloc for memory a "
                         "task keeps to itself)",
                         call);
}

void *dag_alloc_at(size_t bytes, struct dag_dist dist, const char *file,
                   int line) {
  int err = dag__ensure_started();
  if (err) {
    dag__not_running(err, NULL, "dag_alloc");
    return NULL;
  }
  if (dag__outside_tasks("dag_alloc"))
    return NULL;
  void *p = dag__dist_alloc(bytes, dist, file, line);
  if (p)
    dag__register_allocation(dag__dist_allocation_at(p));
  return p;
}

/* For a program that calls it through a pointer, or compiled against the
 * header of 0.1: no site. */
void *(dag_alloc)(size_t bytes, struct dag_dist dist) {
  return dag_alloc_at(bytes, dist, NULL, 0);
}

int dag_free(void *p) {
  if (!p)
    return 0;
  int err = dag__outside_tasks("dag_free");
  if (err)
    return err;
  const struct allocation *a = dag__dist_allocation_at(p);
  if (!a)
    return DAG_EINVAL;
  /* The ranks agree first: one that diverged may wait for a transfer that
   * never comes. */
  if (dag__planned())
    dag__plan_check("this dag_free");
  struct region all;
  const char *why;
  if (dag__region_make(&(struct dag_region){a->base, a->bytes, 0, {{0, 0}}},
                       &all, &why))
    DAG_BUG("the region of a dag_alloc allocation: %s", why);
  if (dag__reductions_to_end())
    dag__reduce_end_overlapping(&all, 1);
  enum dag_mode mode = DAG_INOUT;
  dag__core_wait_on(&all, &mode, 1);
  dag__plan_forget(a->base, a->bytes);
  dag__unregister_allocation(a);
  return dag__dist_free(p);
}

/* ------------------------------------------------------ distributions */

struct dag_dist dag_dist_block(size_t elem, size_t block) {
  struct dag_dist d = {.kind = DAG_DIST_BLOCK, .elem = elem, .block = block};
  return d;
}

struct dag_dist dag_dist_block_cyclic(size_t elem, size_t block) {
  struct dag_dist d = {
      .kind = DAG_DIST_BLOCK_CYCLIC, .elem = elem, .block = block};
  return d;
}

static struct dag_dist grid_dist(enum dag_dist_kind kind, size_t elem,
                                 size_t ld, size_t mb, size_t nb, int p,
                                 int q) {
  struct dag_dist d = {
      .kind = kind, .elem = elem, .ld = ld, .mb = mb, .nb = nb, .p = p, .q = q};
  return d;
}

struct dag_dist dag_dist_block_cyclic_2d(size_t elem, size_t ld, size_t mb,
                                         size_t nb, int p, int q) {
  return grid_dist(DAG_DIST_BLOCK_CYCLIC_2D, elem, ld, mb, nb, p, q);
}

struct dag_dist dag_dist_2d(size_t elem, size_t ld, size_t mb, size_t nb, int p,
                            int q) {
  return grid_dist(DAG_DIST_BLOCK_CYCLIC_2D, elem, ld, mb, nb, p, q);
}

struct dag_dist dag_dist_block_2d(size_t elem, size_t ld, size_t mb, size_t nb,
                                  int p, int q) {
  return grid_dist(DAG_DIST_BLOCK_2D, elem, ld, mb, nb, p, q);
}

struct dag_dist
dag_dist_owner(size_t unit, int (*owner)(size_t offset, void *ctx), void *ctx) {
  struct dag_dist d = {
      .kind = DAG_DIST_OWNER, .block = unit, .owner = owner, .ctx = ctx};
  return d;
}

int dag_grid(int nranks, int *p, int *q) {
  if (nranks < 1)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_grid: %d ranks; there must be at least 1",
                           nranks);
  if (!p || !q)
    return dag__user_error(NULL, DAG_EINVAL, "dag_grid: NULL p or q");
  int best = 1;
  for (int i = 1; (long)i * i <= nranks; i++)
    if (nranks % i == 0)
      best = i;
  *p = best;
  *q = nranks / best;
  return 0;
}

int dag_owner(const void *p) {
  const struct allocation *a = dag__dist_find(p);
  if (!a)
    return -1;
  return dag__dist_home(a, (size_t)((const char *)p - a->base));
}
