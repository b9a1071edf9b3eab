/* submit.c — dag_submit: the task's info and arguments are checked, then
 * its accesses by validate.c, which hands the task down. The plain task
 * (no accesses, a CPU body, small arguments) takes a short path of its
 * own to the planner (several ranks, a top-level task) or the local core:
 * it is most of the tasks of fine-grained programs.
 */
#include "api/api.h"

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
 * translated: a task without a CPU body needs a device to run it. */
static int check_bodies(const struct dag_task_info *info, size_t args_size) {
  if (likely(info->nvariants == 0 && info->device == DAG_DEVICE_CPU))
    return 0; /* the usual task: nothing to choose, no device */
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
  if (device_runs_it(info) || cpu_body(info))
    return 0;
  return dag__user_error(info, DAG_ENOSYS,
                         "the task runs on device %s only, and this rank has "
                         "no such device (DAG_DEVICES selects them): give it "
                         "a CPU variant (implements)",
                         dag__device_kind_name(info->device));
}

static int check_info(const struct dag_task_info *info, const void *args,
                      size_t args_size, const struct dag_access *acc,
                      size_t n) {
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
  return check_bodies(info, args_size);
}

/* Whether the task is the usual kind: a CPU body, arguments that fit the
 * inline path's stack buffer, on a running runtime (a plain task is one
 * of them without accesses). Every condition
 * check_info tests holds then, but for accesses at NULL, so check_info has
 * nothing to say; anything else goes to submit_checked, which names the
 * mistake. */
static bool usual_task(const struct dag_task_info *info, const void *args,
                       size_t args_size) {
  return dag__started() && info && info->fn && info->nvariants == 0 &&
         info->device == DAG_DEVICE_CPU && !(info->flags & DAG_TASK_ON_RANK) &&
         (!args_size || (args && args_size <= DAG_CORE_PLAIN_ARGS));
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
  err = check_info(info, args, args_size, acc, naccesses);
  if (err)
    return err;
  return dag__validate_submit(info, cpu_body(info), args, args_size, acc,
                              naccesses);
}

int dag_submit(const struct dag_task_info *info, const void *args,
               size_t args_size, const struct dag_access *acc,
               size_t naccesses) {
  if (likely(usual_task(info, args, args_size))) {
    if (naccesses == 0) {
      if (likely(!dag__planned()))
        return dag__core_submit_plain(info, info->fn, args, args_size);
      dag__plan_submit_plain(info, info->fn, args, args_size);
      return 0;
    }
    /* A tail call, which submit_checked's frame would cost every task. */
    if (likely(acc))
      return dag__validate_submit(info, info->fn, args, args_size, acc,
                                  naccesses);
  }
  return submit_checked(info, args, args_size, acc, naccesses);
}
