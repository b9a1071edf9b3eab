/* staging.c — page-locked host buffers through which copies between a
 * device and ordinary host memory go (DAG_DEVICE_STAGING=0 turns them off).
 *
 * A GPU copies pageable memory through a buffer of its driver's, and a copy
 * from the device into pageable memory returns only once it is done: the
 * worker that queued it would wait. Through page-locked buffers of the
 * runtime's own, every copy is queued at once: to a device, the worker packs
 * the rows into a buffer and queues the buffer's copy; from a device, the
 * copy lands in a buffer that the device's thread unpacks when it is done
 * (copies.c). Large copies go in chunks of STAGE_MAX bytes, so that packing
 * one chunk overlaps the transfer of the one before.
 *
 * Buffers are pooled per device in power-of-two size classes from STAGE_MIN
 * to STAGE_MAX bytes, at most dag__stage_cap() bytes per device (enough
 * for several workers to pack tiles at once); past that a copy
 * waits for a buffer to come back (copies finish on the device's thread,
 * which never waits for the devices' lock), idle buffers of other classes
 * being freed to make room. The pool has a lock of its own, as buffers come
 * back on the device's thread.
 */
#include "device/devices.h"

#include <stdlib.h>
#include <time.h>

#define STAGE_MIN_SHIFT 16 /* 64 KiB */
#define STAGE_MAX_SHIFT 23 /* 8 MiB */
/* A device may have a sixteenth of its memory in buffers, within these. */
#define STAGE_CAP_MIN ((size_t)16 << 20)
#define STAGE_CAP_MAX ((size_t)512 << 20)
_Static_assert(STAGE_MAX_SHIFT - STAGE_MIN_SHIFT + 1 == STAGE_CLASSES,
               "the size classes of staging.h");

static int class_of(size_t bytes) {
  int cls = 0;
  while (((size_t)1 << (STAGE_MIN_SHIFT + cls)) < bytes)
    cls++;
  return cls;
}

static size_t class_bytes(int cls) {
  return (size_t)1 << (STAGE_MIN_SHIFT + cls);
}

/* Frees d's idle buffers of every class but `keep`; with the pool's lock
 * held. */
static void free_idle(struct device *d, int keep) {
  for (int cls = 0; cls < STAGE_CLASSES; cls++)
    while (cls != keep && d->stages[cls]) {
      struct stage *s = d->stages[cls];
      d->stages[cls] = s->next;
      dag__space_host_free(&d->space, s->at, class_bytes(cls));
      d->stage_bytes -= class_bytes(cls);
      free(s);
    }
}

/* A buffer of class cls: an idle one, or a new one if d may have more.
 * NULL with *full when d has all it may (*put: the buffers that had come
 * back then), or without when no page-locked memory is left. */
static struct stage *take(struct device *d, int cls, bool *full,
                          uint64_t *put) {
  pthread_mutex_lock(&d->stage_lock);
  *put = d->stages_put;
  struct stage *s = d->stages[cls];
  if (s) {
    d->stages[cls] = s->next;
    pthread_mutex_unlock(&d->stage_lock);
    return s;
  }
  if (d->stage_bytes + class_bytes(cls) > dag__stage_cap(d))
    free_idle(d, cls);
  *full = d->stage_bytes + class_bytes(cls) > dag__stage_cap(d);
  if (!*full)
    d->stage_bytes += class_bytes(cls);
  pthread_mutex_unlock(&d->stage_lock);
  if (*full)
    return NULL;
  s = malloc(sizeof *s);
  void *at = s ? dag__space_host_alloc(&d->space, class_bytes(cls)) : NULL;
  if (at) {
    *s = (struct stage){NULL, at, cls};
    return s;
  }
  free(s);
  pthread_mutex_lock(&d->stage_lock);
  d->stage_bytes -= class_bytes(cls);
  pthread_mutex_unlock(&d->stage_lock);
  return NULL;
}

/* Sleeps until a buffer comes back after the `put`th, or for at most
 * UNPACK_LOOK_NS, after which the caller looks for unpacking to do. */
#define UNPACK_LOOK_NS 200000
static void wait_for_a_buffer(struct device *d, uint64_t put) {
  uint64_t until = dag__now_ns() + UNPACK_LOOK_NS; /* stage_back's clock */
  struct timespec t = {(time_t)(until / 1000000000u),
                       (long)(until % 1000000000u)};
  pthread_mutex_lock(&d->stage_lock);
  while (d->stages_put == put &&
         !pthread_cond_timedwait(&d->stage_back, &d->stage_lock, &t))
    ;
  pthread_mutex_unlock(&d->stage_lock);
}

struct stage *dag__stage_get(struct device *d, size_t bytes) {
  for (;;) {
    bool full;
    uint64_t put;
    struct stage *s = take(d, class_of(bytes), &full, &put);
    if (s || !full)
      return s; /* NULL: the caller copies directly */
    /* Every buffer is out: one comes back when its copy ends, and a copy
     * from the device when it is unpacked, which this thread can do.
     * Asleep meanwhile: spinning took one of the timed model's 2 cores
     * from the workers packing (perf). */
    if (!dag__unpack_help())
      wait_for_a_buffer(d, put);
  }
}

struct stage *dag__stage_try_get(struct device *d, size_t bytes) {
  bool full;
  uint64_t put;
  return take(d, class_of(bytes), &full, &put);
}

size_t dag__stage_bytes(const struct stage *s) { return class_bytes(s->cls); }

void dag__stage_put(struct device *d, struct stage *s) {
  pthread_mutex_lock(&d->stage_lock);
  s->next = d->stages[s->cls];
  d->stages[s->cls] = s;
  d->stages_put++;
  pthread_cond_broadcast(&d->stage_back);
  pthread_mutex_unlock(&d->stage_lock);
}

size_t dag__stage_max(void) { return class_bytes(STAGE_CLASSES - 1); }

size_t dag__stage_cap(const struct device *d) {
  size_t cap = d->memory / 16;
  return cap < STAGE_CAP_MIN   ? STAGE_CAP_MIN
         : cap > STAGE_CAP_MAX ? STAGE_CAP_MAX
                               : cap;
}

void dag__stage_release(struct device *d) {
  pthread_mutex_lock(&d->stage_lock);
  free_idle(d, -1);
  pthread_mutex_unlock(&d->stage_lock);
}
