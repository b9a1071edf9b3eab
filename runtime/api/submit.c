/* submit.c — dag_submit: the task's info, arguments and accesses are
 * checked once, and the task handed to the rank-uniform planner (several
 * ranks, a top-level task) or to the device layer and the local core, which
 * choose among its variants. The plain task (no accesses, a CPU body, small
 * arguments) takes a short path of its own: it is most of the tasks of
 * fine-grained programs.
 */
#include "api/api.h"
#include "plan/plan.h"

/* The CPU body of the task, fn or a variant; NULL when it has none. The
 * device layer picks among the variants once a device is in use. */
static dag_task_fn cpu_body(const struct dag_task_info *info) {
  if (info->device == DAG_DEVICE_CPU)
    return info->fn;
  for (int i = 0; i < info->nvariants; i++)
    if (info->variants[i].device == DAG_DEVICE_CPU)
      return info->variants[i].fn;
  return NULL;
}

/* Whether a variant of the task runs on a device of this rank. */
static bool device_runs_it(const struct dag_task_info *info) {
  if (!dag__devices_discover())
    return false;
  if (dag__devices_can_run(info->device) && info->device != DAG_DEVICE_CPU)
    return true;
  for (int i = 0; i < info->nvariants; i++)
    if (info->variants[i].device != DAG_DEVICE_CPU &&
        dag__devices_can_run(info->variants[i].device))
      return true;
  return false;
}

/* The pointer runs of the task lie in its argument block. */
static int check_pointers(const struct dag_task_info *info, size_t args_size) {
  if (info->npointers < 0 || (info->npointers > 0 && !info->pointers))
    return dag__user_error(info, DAG_EINVAL, "%d pointer runs at %p",
                           info->npointers, (const void *)info->pointers);
  for (int i = 0; i < info->npointers; i++) {
    const struct dag_pointers *p = &info->pointers[i];
    if (p->offset > args_size ||
        p->count > (args_size - p->offset) / sizeof(void *))
      return dag__user_error(info, DAG_EINVAL,
                             "pointer run %d (%zu pointers from byte %zu) "
                             "runs past the %zu bytes of arguments",
                             i, p->count, p->offset, args_size);
  }
  return 0;
}

/* Checks the task's variants, and the pointers a device body would get
 * translated; *body is its CPU body (NULL if it has none: then a device
 * runs it). */
static int choose_body(const struct dag_task_info *info, size_t args_size,
                       dag_task_fn *body) {
  if (likely(info->nvariants == 0 && info->device == DAG_DEVICE_CPU)) {
    *body = info->fn; /* the usual task: nothing to choose, no device */
    return 0;
  }
  int err = check_pointers(info, args_size);
  if (err)
    return err;
  if (info->nvariants < 0 || (info->nvariants > 0 && !info->variants))
    return dag__user_error(info, DAG_EINVAL, "%d variants at %p",
                           info->nvariants, (const void *)info->variants);
  if (!dag__device_kind_name(info->device))
    return dag__user_error(info, DAG_EINVAL, "unknown device %d",
                           (int)info->device);
  for (int i = 0; i < info->nvariants; i++) {
    if (!info->variants[i].fn)
      return dag__user_error(info, DAG_EINVAL, "variant %d has no function", i);
    if (!dag__device_kind_name(info->variants[i].device))
      return dag__user_error(info, DAG_EINVAL, "variant %d: unknown device %d",
                             i, (int)info->variants[i].device);
  }
  *body = cpu_body(info);
  if (device_runs_it(info) || *body)
    return 0;
  return dag__user_error(info, DAG_ENOSYS,
                         "the task runs on device %s only, and this rank has "
                         "no such device (DAG_DEVICES selects them): give it "
                         "a CPU variant (implements)",
                         dag__device_kind_name(info->device));
}

static int check_info(const struct dag_task_info *info, const void *args,
                      size_t args_size, const struct dag_access *acc, size_t n,
                      dag_task_fn *body) {
  if (!info)
    return dag__user_error(NULL, DAG_EINVAL, "dag_submit: no task info");
  if (!info->fn)
    return dag__user_error(info, DAG_EINVAL, "task has no function");
  if (args_size > UINT32_MAX)
    return dag__user_error(info, DAG_EOVERFLOW,
                           "argument block of %zu bytes is too large "
                           "(a negative size?)",
                           args_size);
  if (args_size && !args)
    return dag__user_error(info, DAG_EINVAL,
                           "argument block of %zu bytes at NULL", args_size);
  if (n && !acc)
    return dag__user_error(info, DAG_EINVAL, "%zu accesses at NULL", n);
  if ((info->flags & DAG_TASK_ON_RANK) &&
      (info->rank < 0 || info->rank >= dag__nranks))
    return dag__user_error(
        info, DAG_EINVAL, "on(%d): this run has %d rank%s, 0 to %d", info->rank,
        dag__nranks, dag__nranks > 1 ? "s" : "", dag__nranks - 1);
  return choose_body(info, args_size, body);
}

/* Whether the task is the plain kind: a CPU body, no accesses, arguments
 * that fit the inline path's stack buffer, on a running runtime. Every
 * condition check_info tests holds then, so check_info has nothing to say;
 * anything else goes to submit_checked, which names the mistake. */
static bool plain_task(const struct dag_task_info *info, const void *args,
                       size_t args_size) {
  return dag__started() && info && info->fn && info->nvariants == 0 &&
         info->device == DAG_DEVICE_CPU && !(info->flags & DAG_TASK_ON_RANK) &&
         (!args_size || (args && args_size <= DAG_CORE_PLAIN_ARGS));
}

/* Validates the accesses and submits the task: a plain one to the planner
 * (planned) or the core, one with reductions to reduce.c. */
static DAG_ALWAYS_INLINE int
submit_validated(bool planned, const struct dag_task_info *info,
                 dag_task_fn body, const void *args, size_t args_size,
                 const struct dag_access *acc, size_t n) {
  struct validated v;
  dag__validate(&v, info, acc, n);
  if (likely(!v.reductions) && v.kept >= 0) {
    if (planned)
      dag__plan_submit(info, body, args, args_size, acc, n, v.regs, v.modes,
                       (size_t)v.kept);
    else
      dag__local_submit(info, body, args, args_size, v.regs, v.modes,
                        (size_t)v.kept, 0);
  } else if (v.kept >= 0) {
    v.kept = dag__reduce_submit(info, body, args, args_size, v.regs, v.modes,
                                (size_t)v.kept);
  }
  dag__validated_release(&v);
  return v.kept < 0 ? (int)v.kept : 0;
}

/* A top-level task of a run of several ranks: every rank plans it. */
static int planned_submit(const struct dag_task_info *info, dag_task_fn body,
                          const void *args, size_t args_size,
                          const struct dag_access *acc, size_t n) {
  if (dag__plan_submit_known(info, body, args, args_size, acc, n))
    return 0;
  return submit_validated(true, info, body, args, args_size, acc, n);
}

/* A task of this rank alone. */
static DAG_ALWAYS_INLINE int local_submit(const struct dag_task_info *info,
                                          dag_task_fn body, const void *args,
                                          size_t args_size,
                                          const struct dag_access *acc,
                                          size_t n) {
  if (n == 0) {
    dag__local_submit(info, body, args, args_size, NULL, NULL, 0, 0);
    return 0;
  }
  return submit_validated(false, info, body, args, args_size, acc, n);
}

void dag__submit_regions(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct region *regs, const enum dag_mode *modes,
                         size_t n) {
  if (dag__planned())
    dag__plan_submit(info, body, args, args_size, NULL, n, regs, modes, n);
  else
    dag__local_submit(info, body, args, args_size, regs, modes, n, 0);
}

/* Any task: validated with a message for each mistake. Not inlined into
 * dag_submit, whose plain path would pay for this one's frame (a fifth of
 * an empty task). */
static __attribute__((noinline)) int
submit_checked(const struct dag_task_info *info, const void *args,
               size_t args_size, const struct dag_access *acc,
               size_t naccesses) {
  /* Started first: the checks need the number of ranks. */
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, info, NULL);
  dag_task_fn body = NULL;
  err = check_info(info, args, args_size, acc, naccesses, &body);
  if (err)
    return err;
  if (unlikely(dag__reductions_to_end()))
    dag__reduce_end_touched(acc, naccesses);
  if (dag__planned())
    return planned_submit(info, body, args, args_size, acc, naccesses);
  return local_submit(info, body, args, args_size, acc, naccesses);
}

int dag_submit(const struct dag_task_info *info, const void *args,
               size_t args_size, const struct dag_access *acc,
               size_t naccesses) {
  if (likely(naccesses == 0 && plain_task(info, args, args_size))) {
    if (likely(!dag__planned()))
      return dag__core_submit_plain(info, info->fn, args, args_size);
    dag__plan_submit_plain(info, info->fn, args, args_size);
    return 0;
  }
  return submit_checked(info, args, args_size, acc, naccesses);
}
