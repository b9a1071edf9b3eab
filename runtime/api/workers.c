/* workers.c — set-up on every worker before the tasks: dag_on_each_worker,
 * and dag_device_streams, the streams a per-stream library handle (cuBLAS,
 * cuSOLVER) is made for, so that no task pays for that set-up in its
 * measured time (docs/gpu.md, "Setting up a library per worker").
 */
#include "api/api.h"
#include "device/device.h"

int dag_on_each_worker(void (*fn)(void *arg), void *arg) {
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, NULL, "dag_on_each_worker");
  if (!fn)
    return dag__user_error(NULL, DAG_EINVAL, "dag_on_each_worker: fn is NULL");
  if (dag__current_task() != &dag__root_task)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_on_each_worker: called from a task body, "
                           "where its worker cannot run fn until the body "
                           "returns; call it from the program, before "
                           "submitting tasks");
  if (dag__worker_id() != 0)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_on_each_worker: called from a thread that is "
                           "not the one that started the runtime (worker 0), "
                           "which must run fn too");
  dag__workers_each(fn, arg);
  return 0;
}

int dag_device_streams(enum dag_device kind, struct dag_stream *streams,
                       int max) {
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, NULL, "dag_device_streams");
  if (kind <= DAG_DEVICE_CPU || kind >= DAG_NDEVICE_KINDS || max < 0 ||
      (max > 0 && !streams))
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_device_streams: kind %d is not a GPU's, or "
                           "max (%d) is negative, or streams is NULL",
                           (int)kind, max);
  return dag__devices_streams(kind, streams, max);
}
