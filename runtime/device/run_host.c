/* run_host.c — the wrapped body of a host task once a device is in use
 * (device.c submits it): it copies back from a device what the host lacks
 * and waits for it, makes the host the only holder of what the task
 * writes, then runs the body (in timed mode, sleeps the model's time for
 * it). A send that may read its region in place on a device leaves it
 * there, pinned (dag__devices_direct_begin). Also the body of a task with
 * a choice, which chooses where it runs once it is ready.
 */
#include "device/choose.h"
#include "device/copies.h"
#include "device/writeback.h"

#include <stdlib.h>

/* Memory a direct send holds on a device until it is done: its window's
 * granules are not evicted. */
struct direct_pin {
  struct device *d;
  struct window *w;
  size_t bytes; /* of the granules it spans */
};

/* Direct sends in flight hold at most this share of a device's memory, so
 * that a task whose data fits in the rest never waits for another rank. */
#define DIRECT_SHARE 4

/* The memory of a device that holds every byte of r, when the host lacks
 * some and one window maps them all, pinned: where a send may read r in
 * place. NULL when r must come back to the host first. */
static struct direct_pin *left_on_device(const struct region *r) {
  struct ranges held = {.mask = 0, .want = 0}; /* every range */
  dag__validity_collect(r, &held);
  holders_t all = (holders_t)~0;
  bool host_lacks = false;
  for (size_t i = 0; i < held.n; i++) {
    all &= held.at[i].holders;
    host_lacks |= !(held.at[i].holders & HOST);
  }
  holders_t devices = (holders_t)(all & ~HOST);
  struct direct_pin *pin = NULL;
  if (host_lacks && devices) {
    struct device *d = dag__device_of_bit((holders_t)(devices & -devices));
    uintptr_t hi = r->hi;
    struct window *w = dag__residency_mapping(d, r->lo, &hi);
    for (size_t i = 0; w && i < held.n; i++)
      if (!dag__residency_maps(d, w, held.at[i].lo, held.at[i].hi))
        w = NULL;
    size_t bytes =
        ((r->hi - 1) / d->granule - r->lo / d->granule + 1) * d->granule;
    if (w &&
        atomic_load(&d->direct_pinned) + bytes <= d->memory / DIRECT_SHARE &&
        (pin = malloc(sizeof *pin))) {
      *pin = (struct direct_pin){d, w, bytes};
      atomic_fetch_add(&w->pins, 1);
      atomic_fetch_add(&d->direct_pinned, bytes);
      atomic_fetch_add(&d->direct_sends, 1);
      atomic_fetch_add(&d->direct_bytes, dag__region_bytes(r));
    }
  }
  free(held.at);
  return pin;
}

/* Makes the host hold every byte the task reads, and the host alone those
 * it writes; a send that may read its region in place on a device leaves
 * it there. */
static void prepare_host(struct call *c) {
  if (c->read_in_place && (c->direct = left_on_device(dag__call_regions(c))))
    return; /* a send: it writes nothing */
  for (uint32_t i = 0; i < c->n; i++)
    dag__writeback_settle(&dag__call_regions(c)[i]);
  struct ranges stale = dag__ranges_lacking(HOST);
  for (uint32_t i = 0; i < c->n; i++)
    if (dag__call_modes(c)[i] != DAG_OUT)
      dag__validity_collect(&dag__call_regions(c)[i], &stale);
  if (stale.n) {
    dag__copy_back(&stale, c);
    for (uint32_t i = 0; i < c->n; i++) /* kept whole again, if it can be */
      if (dag__call_modes(c)[i] != DAG_OUT)
        dag__validity_update_region(&dag__call_regions(c)[i], (holders_t)~0,
                                    HOST);
  }
  free(stale.at);
  for (uint32_t i = 0; i < c->n; i++)
    if (dag__mode_writes(dag__call_modes(c)[i]))
      dag__validity_update_region(&dag__call_regions(c)[i], 0, HOST);
}

/* The host task whose body runs on this thread (bodies nest: a wait runs
 * others). */
static DAG_THREAD_LOCAL struct call *running_on_host;

void dag__run_on_host(void *p) {
  struct call *c = p;
  pthread_mutex_lock(&dag__devices_lock);
  if (dag__validity_any())
    prepare_host(c);
  pthread_mutex_unlock(&dag__devices_lock);
  struct call *outer = running_on_host;
  running_on_host = c;
  uint64_t t0 = dag__now_ns();
  if (dag__devices_timed && c->work >= 0)
    dag__space_spend(dag__devices_timed, false, dag__call_seconds(c, false));
  else
    c->fn(dag__call_args(c));
  dag__history_note(c, dag__worker_id(), dag__now_ns() - t0);
  running_on_host = outer;
}

void *dag__devices_direct_begin(struct region *r) {
  struct direct_pin *pin = running_on_host ? running_on_host->direct : NULL;
  if (pin) {
    dag__space_host_reads(&pin->d->space, true);
    uintptr_t shift = (uintptr_t)pin->w->at - pin->w->lo;
    r->lo += shift;
    r->hi += shift;
    running_on_host->direct = NULL; /* the caller ends the pin */
  }
  return pin;
}

void dag__devices_direct_end(void *pinned) {
  struct direct_pin *pin = pinned;
  dag__space_host_reads(&pin->d->space, false);
  atomic_fetch_sub(&pin->w->pins, 1);
  atomic_fetch_sub(&pin->d->direct_pinned, pin->bytes);
  free(pin);
}

void dag__devices_flush_waited(void) {
  if (!atomic_load_explicit(&dag__devices_on, memory_order_relaxed))
    return;
  if (dag__current_task() == &dag__root_task)
    dag__devices_flush(NULL, 0);
  else if (running_on_host)
    dag__devices_flush(dag__call_regions(running_on_host), running_on_host->n);
}

void dag__run_chosen(void *p) {
  struct call *c = *(struct call **)p;
  dag__choose(c);
  if (c->device) {
    dag__run_on_device(p);
    return;
  }
  dag__run_on_host(c);
  dag__choice_done(c);
  free(c);
}
