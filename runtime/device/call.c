/* call.c — the call record: the block of arguments of a task that the
 * device layer wraps (device.c builds it), what it says for messages, and
 * its time on a timed space's model; and the end of a run whose queued
 * work failed.
 */
#include "device/call.h"

#include <stdlib.h>
#include <unistd.h>

/* Timed mode: the seconds c's work takes on its device (on_device) or on
 * one CPU core; ends the run with a message when the model cannot say. */
double dag__call_seconds(const struct call *c, bool on_device) {
  const struct space *m = dag__devices_timed;
  struct dag_task_info task = dag__call_info(c);
  if (c->work < 0)
    dag_check(dag__user_error(&task, DAG_EINVAL,
                              "it declares no work (dag_task_info.work), so "
                              "the device model %s cannot time it on the "
                              "device",
                              dag__space_model(m)));
  double s = dag__space_work_seconds(m, c->label, on_device, c->work);
  if (s < 0)
    dag_check(dag__user_error(
        &task, DAG_EINVAL,
        "the device model %s has no rate for label "
        "'%s' on %s: add 'rate %s %s WORK/S'",
        dag__space_model(m), c->label ? c->label : "(none)",
        on_device ? "the device" : "a CPU core", on_device ? "device" : "cpu",
        c->label ? c->label : "LABEL"));
  return s;
}

/* The task a call runs, for messages. */
struct dag_task_info dag__call_info(const struct call *c) {
  return (struct dag_task_info){
      .label = c->label, .file = c->file, .line = c->line};
}

/* Its results cannot be trusted, so nothing more runs; one message, from
 * whichever thread saw a failure first (the others wait for the end). */
noreturn void dag__work_failed(const struct dag_task_info *task,
                               const char *failure) {
  static atomic_flag said = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set(&said))
    for (;;)
      pause();
  dag_check(dag__user_error(task, DAG_EDEVICE, "%s", failure));
  abort(); /* dag_check ends the run on an error */
}

struct region *dag__call_regions(struct call *c) {
  return (struct region *)(c + 1);
}

enum dag_mode *dag__call_modes(struct call *c) {
  return (enum dag_mode *)(dag__call_regions(c) + c->n);
}

/* Offsets from the start of the block, which the core's copy may place at
 * any 8-byte boundary. */
static size_t head_size(size_t n) {
  size_t head =
      sizeof(struct call) + n * (sizeof(struct region) + sizeof(enum dag_mode));
  return (head + 15) & ~(size_t)15;
}

void *dag__call_args(struct call *c) { return (char *)c + head_size(c->n); }

intptr_t *dag__call_shifts(struct call *c) {
  return (intptr_t *)((char *)dag__call_args(c) + c->args_size +
                      (-c->args_size & 7));
}

struct dag_pointers *dag__call_pointers(struct call *c) {
  return (struct dag_pointers *)(dag__call_shifts(c) + c->n);
}

struct call_variant *dag__call_variants(struct call *c) {
  return (struct call_variant *)(dag__call_pointers(c) + c->npointers);
}

size_t dag__call_size(size_t n, size_t args_size, size_t npointers,
                      size_t nvariants) {
  return head_size(n) + ((args_size + 7) & ~(size_t)7) + n * sizeof(intptr_t) +
         npointers * sizeof(struct dag_pointers) +
         nvariants * sizeof(struct call_variant);
}

struct call *dag__call_of(dag_task_fn body, void *args) {
  if (body == dag__run_on_host)
    return args;
  if (body == dag__run_chosen || body == dag__run_on_device)
    return *(struct call **)args;
  return NULL;
}
