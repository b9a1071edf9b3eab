/* device_calls.c — the calls a device body makes: the device address of a
 * host pointer (the device layer's), and a kernel on the emulated device
 * (its memory space's). The streams are api/backend.c's, which knows the
 * toolkits built. And what a timed device model charges, for benchmarks
 * that set a run beside its bound (docs/gpu.md, "Timed mode").
 */
#include "api/api.h"
#include "mem/space.h"

void *dag_device_ptr(const void *host) { return dag__device_ptr(host); }

int dag_emul_launch(void (*kernel)(void *args), const void *args, size_t size) {
  return dag__space_kernel(kernel, args, size);
}

/* The space a model times, once the runtime runs; NULL (with the reason
 * as the last error) when there is none. */
static const struct space *timed(const char *call) {
  int err = dag__ensure_started();
  if (err) {
    dag__not_running(err, NULL, call);
    return NULL;
  }
  const struct space *s = dag__devices_timed_space();
  if (!s)
    dag__error_note(DAG_ENOSYS,
                    "%s: no device is timed (DAG_DEVICES=emul "
                    "with DAG_EMUL_MODEL)",
                    call);
  return s;
}

double dag_model_seconds(const char *label, double work) {
  const struct space *s = timed("dag_model_seconds");
  if (!s)
    return DAG_ENOSYS;
  double seconds = dag__space_work_seconds(s, label, true, work);
  return seconds >= 0
             ? seconds
             : dag__error_note(DAG_EINVAL,
                               "dag_model_seconds: the device model "
                               "%s has no device rate for '%s'",
                               dag__space_model(s), label ? label : "(none)");
}

double dag_model_copy_seconds(int to_device, double bytes) {
  const struct space *s = timed("dag_model_copy_seconds");
  if (!s)
    return DAG_ENOSYS;
  if (!(bytes >= 0))
    return dag__error_note(DAG_EINVAL, "dag_model_copy_seconds: %g bytes",
                           bytes);
  return dag__space_copy_seconds(s, to_device, (size_t)bytes);
}
