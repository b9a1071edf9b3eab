/* memory.c — dag_alloc and dag_free: the distributed allocations of
 * mem/dist.c, with what the layers above must do about them. Both are
 * calls of the program, refused inside a task. dag_free waits
 * for the tasks that use the memory and makes the planner forget where its
 * blocks were valid: the memory is going, and a reused address must not
 * inherit a history.
 */
#include "api/api.h"
#include "mem/mem.h"
#include "plan/plan.h"

/* dag_alloc and dag_free are collective: every rank calls them, in the
 * same order, from the program. A task body runs on one rank only. */
static int outside_tasks(const char *call) {
  if (dag__current_task() == &dag__root_task)
    return 0;
  return dag__user_error(NULL, DAG_EINVAL,
                         "%s called from inside a task: call it from the "
                         "program, on every rank (use malloc for memory a "
                         "task keeps to itself)",
                         call);
}

void *dag_alloc(size_t bytes, struct dag_dist dist) {
  int err = dag__ensure_started();
  if (err) {
    dag__user_error(NULL, err, "dag_alloc: %s", dag__not_started_why(err));
    return NULL;
  }
  if (outside_tasks("dag_alloc"))
    return NULL;
  return dag__dist_alloc(bytes, dist);
}

int dag_free(void *p) {
  if (!p)
    return 0;
  int err = outside_tasks("dag_free");
  if (err)
    return err;
  const struct dag_allocation *a = dag__dist_allocation_at(p);
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
  enum dag_mode mode = DAG_INOUT;
  dag__core_wait_on(&all, &mode, 1);
  dag__plan_forget(a->base, a->bytes);
  return dag__dist_free(p);
}
