/* wait.c — dag_taskwait, dag_taskwait_noflush and dag_taskwait_on: with
 * several ranks the program's waits go through the planner, which moves
 * data and checks that the ranks agree; otherwise they are the local
 * core's.
 */
#include "api/api.h"
#include "plan/plan.h"

/* Whether a wait has anything to wait for: 1 when the runtime runs, 0 when
 * it never started (nothing was submitted), or DAG_ESHUTDOWN after
 * dag_finalize. */
static int runs(const char *call) {
  switch (dag__run_state()) {
  case RUN_RUNNING:
    return 1;
  case RUN_NOT_STARTED:
    return 0;
  case RUN_FINALIZED:
    break;
  }
  return dag__user_error(NULL, DAG_ESHUTDOWN, "%s: runtime already finalized",
                         call);
}

/* The program's wait: moving written data where it belongs (flush) under
 * MPI, or not (noflush). */
static int wait_all(const char *call, bool flush) {
  int r = runs(call);
  if (r <= 0)
    return r;
  if (dag__reductions_to_end())
    dag__reduce_end_all();
  int err = dag__planned() ? dag__plan_taskwait(flush) : dag__wait_children();
  if (flush && !err)
    dag__devices_flush_waited();
  return err;
}

int dag_taskwait(void) { return wait_all("dag_taskwait", true); }

int dag_taskwait_noflush(void) {
  return wait_all("dag_taskwait_noflush", false);
}

int dag_taskwait_on(const struct dag_access *acc, size_t naccesses) {
  static const struct dag_task_info info = {.label = "taskwait on"};
  if (naccesses && !acc)
    return dag__user_error(&info, DAG_EINVAL, "%zu accesses at NULL",
                           naccesses);
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, &info, NULL);
  struct validated v;
  dag__validate(&v, &info, acc, naccesses);
  if (v.kept >= 0) {
    if (dag__reductions_to_end())
      dag__reduce_end_overlapping(v.regs, (size_t)v.kept);
    /* The listed data becomes valid on every rank first (a collect). */
    if (dag__planned() && v.kept > 0)
      dag__plan_collect(v.regs, (size_t)v.kept);
    dag__core_wait_on(v.regs, v.modes, (size_t)v.kept);
    dag__devices_flush(v.regs, (size_t)v.kept);
  }
  dag__validated_release(&v);
  return v.kept < 0 ? (int)v.kept : 0;
}
