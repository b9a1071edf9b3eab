/* space.c — the wrappers through which the layers above use a memory
 * space (space.h): one call into the space's table each, so that no layer
 * holds a table itself.
 */
#include "mem/space.h"

#include <string.h>

int dag__space_open(struct space *s, const struct space_ops *ops, int index) {
  s->ops = ops;
  s->index = index;
  s->state = NULL;
  return ops->open(index, &s->state);
}

void dag__space_close(struct space *s) {
  s->ops->close(s->state);
  s->state = NULL;
}

size_t dag__space_granule(struct space *s) { return s->ops->granule(s->state); }

void *dag__space_reserve(struct space *s, size_t bytes) {
  return s->ops->reserve(s->state, bytes);
}

void dag__space_unreserve(struct space *s, void *at, size_t bytes) {
  s->ops->unreserve(s->state, at, bytes);
}

size_t dag__space_memory(struct space *s) { return s->ops->memory(s->state); }

int dag__space_commit(struct space *s, uint64_t *mem) {
  return s->ops->commit(s->state, mem);
}

void dag__space_decommit(struct space *s, uint64_t mem) {
  s->ops->decommit(s->state, mem);
}

int dag__space_map(struct space *s, void *at, const uint64_t *mem, size_t n) {
  return s->ops->map(s->state, at, mem, n);
}

void dag__space_unmap(struct space *s, void *at) {
  s->ops->unmap(s->state, at);
}

void dag__space_copy_rows(const struct space_copy *c) {
  if (c->rows > 1 && c->dst_stride == c->span && c->src_stride == c->span) {
    memcpy(c->dst, c->src, c->span * c->rows); /* packed on both sides */
    return;
  }
  for (size_t r = 0; r < c->rows; r++)
    memcpy((char *)c->dst + r * c->dst_stride,
           (const char *)c->src + r * c->src_stride, c->span);
}

uint64_t dag__space_copy(struct space *s, bool to_device,
                         const struct space_copy *c, space_done_fn done,
                         void *arg) {
  return s->ops->copy(s->state, to_device, c, done, arg);
}

/* The space whose body runs at launch on this thread: where
 * dag__space_kernel queues. */
static DAG_THREAD_LOCAL const struct space *launching;

void dag__space_launch(struct space *s, dag_task_fn fn, void *args,
                       uint64_t after, bool urgent, space_done_fn done,
                       void *arg) {
  const struct space *outer = launching;
  launching = s;
  s->ops->launch(s->state, fn, args, after, urgent, done, arg);
  launching = outer;
}

int dag__space_lane(struct space_lanes *l, const bool busy[SPACE_LANES],
                    uint64_t after) {
  uint64_t waits[SPACE_LANES];
  int fits = -1, least = 0;
  for (int i = 0; i < SPACE_LANES; i++) {
    waits[i] = busy[i] ? l->waits[i] : 0;
    if (waits[i] <= after && (fits < 0 || waits[i] > waits[fits]))
      fits = i;
    if (waits[i] < waits[least])
      least = i;
  }
  int chosen = fits >= 0 ? fits : least;
  l->waits[chosen] = after;
  return chosen;
}

void *dag__space_host_alloc(struct space *s, size_t bytes) {
  return s->ops->host_alloc(s->state, bytes);
}

void dag__space_host_free(struct space *s, void *p, size_t bytes) {
  s->ops->host_free(s->state, p, bytes);
}

int dag__space_host_register(struct space *s, void *p, size_t bytes) {
  return s->ops->host_register(s->state, p, bytes);
}

void dag__space_host_unregister(struct space *s, void *p) {
  s->ops->host_unregister(s->state, p);
}

bool dag__space_bus_id(struct space *s, char *buf, size_t len) {
  return s->ops->bus_id && s->ops->bus_id(s->state, buf, len);
}

void dag__space_bind(struct space *s, const cpu_set_t *cpus) {
  if (s->ops->bind)
    s->ops->bind(s->state, cpus);
}

void dag__space_host_reads(struct space *s, bool begin) {
  if (s->ops->host_reads)
    s->ops->host_reads(s->state, begin);
}

const char *dag__space_model(const struct space *s) {
  return s->ops->model ? s->ops->model(s->state) : NULL;
}

double dag__space_work_seconds(const struct space *s, const char *label,
                               bool on_device, double work) {
  return s->ops->work_seconds(s->state, label, on_device, work);
}

void dag__space_spend(const struct space *s, bool on_device, double seconds) {
  s->ops->spend(s->state, on_device, seconds);
}

double dag__space_copy_seconds(const struct space *s, bool to_device,
                               size_t bytes) {
  return s->ops->copy_seconds(s->state, to_device, bytes);
}

double dag__space_pack_seconds(const struct space *s, size_t bytes) {
  return s->ops->pack_seconds(s->state, bytes);
}

void dag__space_timing(const struct space *s, struct space_timing *t) {
  s->ops->timing(s->state, t);
}

bool dag__space_host_kernels(const struct space *s) {
  return s->ops->kernel != NULL;
}

int dag__space_kernel(void (*kernel)(void *args), const void *args,
                      size_t size) {
  const struct space *s = launching;
  if (!s || !s->ops->kernel)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_emul_launch: not in a device body running on "
                           "the emulated device");
  return s->ops->kernel(s->state, kernel, args, size);
}

void dag__space_host_jitter(const struct space *s) {
  if (s->ops->host_jitter)
    s->ops->host_jitter(s->state);
}

double dag__space_peak_flops(const struct space *s) {
  return s->ops->peak_flops ? s->ops->peak_flops(s->state) : 0;
}

bool dag__space_device_name(const struct space *s, char *buf, size_t len) {
  if (len)
    buf[0] = 0;
  return s->ops->device_name && s->ops->device_name(s->state, buf, len);
}

int dag__space_streams(const struct space *s, void **streams, int max) {
  return s->ops->streams ? s->ops->streams(s->state, streams, max) : 0;
}
