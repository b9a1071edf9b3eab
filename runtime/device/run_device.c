/* run_device.c — the wrapped body of a device task (device.c submits it):
 * before the task starts, its data is made valid on its device, and the
 * holders of what it writes become that device alone.
 *
 * It runs on a worker: it backs the task's regions with device memory
 * (residency.c), plans copies of the bytes the device lacks (one 2-D copy
 * for a tile that moves whole), gives the body device addresses for every
 * pointer in its arguments that falls in one of its regions, and takes the
 * device's next turn, all under the devices' lock. Then, with no lock, it
 * packs its copies into staging buffers (in parallel with the other
 * workers: packing is the copies' costly host work) and, at its turn,
 * queues them and the body (copies.c). The worker goes on; the task
 * completes when the device's thread says the body's work is done
 * (dag__task_hold). The queue runs in order, so the body starts after its
 * copies without anyone waiting; a task that finds bytes valid on a device
 * queues its body after the copy that brings them.
 *
 * On a device whose kernels are host code (the emulated device), host
 * bytes that a device task writes are poisoned while it runs, and checked
 * after: a body that wrote through a host pointer instead of the device
 * address is caught.
 */
#include "device/choose.h"
#include "device/copies.h"
#include "device/writeback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans for job (device d, task c) the copies that bring to d, in window
 * w, the bytes of r that d lacks, through the host for those only another
 * device holds: a tile that moves whole is one 2-D copy. */
static void fetch(const struct copy_job *job, struct window *w,
                  const struct region *r, uint64_t turn) {
  struct device *d = job->d;
  int i = (int)(d - dag__devices);
  holders_t h;
  bool whole = dag__validity_whole(r, &h);
  if (whole && (h & d->bit)) { /* the common case: one lookup */
    uint64_t arrival = dag__validity_arrival(r, i);
    if (arrival == ARRIVAL_UNKNOWN)
      job->wait->all = true;
    else if (arrival > job->wait->turn)
      job->wait->turn = arrival;
    return;
  }
  if (whole && (h & HOST) && r->ndims <= 1 && !r->shape) {
    /* The host holds all of a run or of rows of one span (a tile's first
     * task): one copy, with no walk of its rows. A triangle takes the walk:
     * the block's other bytes may be newer on d, or written on the host
     * meanwhile by a task on the other triangle. */
    bool rows = r->ndims == 1;
    size_t stride = rows ? r->dim[0].stride : 0;
    dag__validity_update_region(r, (holders_t)~0, d->bit);
    dag__validity_arrives(r, i, turn);
    dag__copies_queue(job, &(struct space_copy){dag__window_address(w, r->lo),
                                                (const void *)r->lo,
                                                rows ? r->span : r->hi - r->lo,
                                                rows ? r->dim[0].count : 1,
                                                stride, stride});
    return;
  }
  dag__writeback_settle(r); /* before a copy back brings r to the host */
  struct ranges missing = dag__ranges_lacking(d->bit);
  dag__validity_collect(r, &missing);
  size_t lacked = 0;
  for (size_t k = 0; k < missing.n; k++)
    lacked += missing.at[k].hi - missing.at[k].lo;
  if (lacked < dag__region_bytes(r))
    job->wait->all = true; /* d holds some of r, from copies not known */
  dag__copy_back(&missing, job->task); /* what only another device holds */
  dag__validity_host_copied(&missing, r);
  dag__validity_update_region(r, (holders_t)~0, d->bit);
  dag__validity_arrives(r, i, turn);
  size_t n = dag__ranges_sort_join(missing.at, missing.n);
  dag__copies_ranges(job, w, missing.at, n);
  free(missing.at);
}

/* The device address of host byte x, if it is in one of the regions of
 * the task; else NULL. A region that holds x itself comes first: the
 * bounds of a tile's rows also hold the first bytes of the tiles beside
 * it, whose bytes another region's window maps (through the tile's own
 * window, a kernel met a granule mapped there for no one). Else a region
 * whose bounds hold x: a triangle's block starts on a byte that may not
 * be the triangle's. */
static void *device_address(struct call *c, uintptr_t x) {
  const struct region byte = {.lo = x, .hi = x + 1, .span = 1};
  int bounds = -1;
  for (uint32_t i = 0; i < c->n; i++) {
    const struct region *r = &dag__call_regions(c)[i];
    if (x < r->lo || x >= r->hi)
      continue;
    if (dag__region_overlap(r, &byte))
      return (void *)(x + (uintptr_t)dag__call_shifts(c)[i]);
    if (bounds < 0)
      bounds = (int)i;
  }
  return bounds < 0 ? NULL
                    : (void *)(x + (uintptr_t)dag__call_shifts(c)[bounds]);
}

/* Every pointer argument (the task's pointer runs) that falls in one of
 * its regions becomes the device address of that byte. Only those: any
 * other word of the block may hold an address's bits by chance (an integer,
 * or padding left over from a pointer on the submitter's stack). */
static void translate(struct call *c) {
  char *args = dag__call_args(c);
  const struct dag_pointers *runs = dag__call_pointers(c);
  for (uint32_t r = 0; r < c->npointers; r++)
    for (size_t k = 0; k < runs[r].count; k++) {
      char *at = args + runs[r].offset + k * sizeof(uintptr_t);
      uintptr_t v;
      memcpy(&v, at, sizeof v);
      void *dev = device_address(c, v);
      if (dev)
        memcpy(at, &dev, sizeof dev);
    }
}

/* The device task whose body runs on this thread. */
static DAG_THREAD_LOCAL struct call *running;

void *dag__device_ptr(const void *host) {
  if (!running)
    return (void *)host; /* a CPU body: the host's address is the one */
  return device_address(running, (uintptr_t)host);
}

/* The check of a device body on a device whose kernels are host code
 * (poisons_host): what it writes, the host copy of which is stale, is
 * poisoned in host memory while it runs and must still be so after. (A
 * GPU's kernels cannot write host memory this way.) */
#define HOST_POISON 0x5a

static void poison_span(uintptr_t lo, uintptr_t hi, void *arg) {
  (void)arg;
  memset((void *)lo, HOST_POISON, hi - lo);
}

static void check_span(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct call *c = arg;
  for (const unsigned char *b = (const void *)lo; b < (const unsigned char *)hi;
       b++)
    if (*b != HOST_POISON) {
      struct dag_task_info task = dag__call_info(c);
      dag_check(dag__user_error(
          &task, DAG_EINVAL,
          "its device body wrote host memory at %p, in data it writes: a "
          "device body must use the device's address (its argument, or "
          "dag_device_ptr)",
          (const void *)b));
    }
}

static void each_written_span(struct call *c,
                              void (*fn)(uintptr_t, uintptr_t, void *)) {
  for (uint32_t i = 0; i < c->n; i++)
    if (dag__mode_writes(dag__call_modes(c)[i]))
      dag__region_each_span(&dag__call_regions(c)[i], fn, c);
}

/* On the emulated device, kernels queued around the body's own: the host
 * bytes it writes are poisoned once its data has arrived, and checked once
 * its work is done. */
static void poison_kernel(void *p) {
  each_written_span(*(struct call **)p, poison_span);
}

static void check_kernel(void *p) {
  each_written_span(*(struct call **)p, check_span);
}

/* The body as the device runs it: on the launching worker, where it only
 * queues work on the device. */
static void device_body(void *p) {
  struct call *c = p;
  if (dag__devices_timed) { /* charged to the device whose body runs here */
    dag__space_spend(dag__devices_timed, true, dag__call_seconds(c, true));
    return;
  }
  if (c->device->poisons_host)
    dag__space_kernel(poison_kernel, &c, sizeof c);
  running = c;
  c->fn(dag__call_args(c));
  running = NULL;
  if (c->device->poisons_host)
    dag__space_kernel(check_kernel, &c, sizeof c);
}

static void device_finished(void *p, const char *failure) {
  struct call *c = p;
  struct dag_task_info task = dag__call_info(c);
  if (failure)
    dag__work_failed(&task, failure);
  struct device *d = c->device;
  /* Its own time: from when it was queued, the device finished what came
   * before, and its data arrived, whichever is last (the chooser adds the
   * copies to its estimates itself). */
  uint64_t now = dag__now_ns();
  uint64_t start = atomic_exchange(&d->last_done_ns, now);
  uint64_t arrived = atomic_load(&c->arrived_ns);
  start = c->queued_ns > start ? c->queued_ns : start;
  dag__history_note(c, c->worker, now - (arrived > start ? arrived : start));
  if (c->nvariants)
    dag__choice_done(c);
  dag__writeback_candidates(c);
  struct task *t = c->task;
  free(c);
  if (d->writeback && !pthread_mutex_trylock(&dag__devices_lock)) {
    dag__writeback_pump(d);
    pthread_mutex_unlock(&dag__devices_lock);
  }
  atomic_fetch_sub(&d->in_flight, 1);
  dag__task_release(t);
}

/* The last copy to d that the body of device task `turn` waits for, at its
 * turn (every turn before it has queued its copies). */
static uint64_t body_waits_for(struct device *d, const struct body_wait *w,
                               uint64_t turn) {
  uint64_t all = atomic_load_explicit(&d->last_copy_in, memory_order_relaxed);
  if (w->all)
    return all;
  uint64_t after = w->copy;
  if (w->turn && w->turn - 1 < turn) {
    uint64_t t = w->turn - 1;
    if (turn - t >= TURN_COPIES) /* forgotten: a later turn's is no less */
      t = turn - TURN_COPIES + 1;
    if (d->turn_copies[t % TURN_COPIES] > after)
      after = d->turn_copies[t % TURN_COPIES];
  }
  return after;
}

/* Queues c's body on d, after copy `after` (space.h). */
static void launch_body(struct device *d, struct call *c, uint64_t after) {
  c->queued_ns = dag__now_ns();
  c->worker = dag__worker_id(); /* whose thread runs the body */
  dag__space_launch(&d->space, device_body, c, after, c->priority > 0,
                    device_finished, c);
}

/* Ends the run: task c's data could not be given device memory (err). */
static noreturn void not_backed(const struct call *c, int err) {
  struct device *d = c->device;
  struct dag_task_info task = dag__call_info(c);
  char why[512];
  snprintf(why, sizeof why, "%s", dag_last_error());
  if (err == DAG_ENOMEM)
    dag_check(dag__user_error(&task, DAG_ENOMEM,
                              "its data does not fit in the memory of %s "
                              "device %d",
                              d->space.ops->name, d->space.index));
  dag__work_failed(&task, why);
}

void dag__run_on_device(void *p) {
  struct call *c = *(struct call **)p;
  struct device *d = c->device;
  struct window *stack[8], **w = c->n <= 8 ? stack : malloc(c->n * sizeof *w);
  if (!w)
    dag__out_of_memory("a device task");
  pthread_mutex_lock(&dag__devices_lock);
  uint32_t failed;
  int err = dag__residency_back_task(d, dag__call_regions(c), c->n, w, &failed);
  if (err)
    not_backed(c, err);
  for (uint32_t i = 0; i < c->n; i++)
    dag__call_shifts(c)[i] = (intptr_t)((uintptr_t)w[i]->at - w[i]->lo);
  struct copy_plan plan = {0};
  struct body_wait wait = {0, 0, false};
  struct copy_job job = {d, true, c, NULL, &c->arrived_ns, &plan, &wait};
  uint64_t turn = d->turns_taken; /* taken once its copies are planned */
  for (uint32_t i = 0; i < c->n; i++)
    if (dag__call_modes(c)[i] != DAG_OUT)
      fetch(&job, w[i], &dag__call_regions(c)[i], turn);
  for (uint32_t i = 0; i < c->n; i++)
    if (dag__mode_writes(dag__call_modes(c)[i]))
      dag__validity_update_region(&dag__call_regions(c)[i], 0, d->bit);
  for (uint32_t i = 0; d->poisons_host && i < c->n; i++)
    if (dag__mode_writes(
            dag__call_modes(c)[i])) /* poisoning writes host memory */
      dag__writeback_settle(&dag__call_regions(c)[i]);
  translate(c);
  d->tasks++;
  c->task = dag__task_hold();
  /* A task that queues no copy of its own takes no turn: its body goes as
   * soon as the turn that brings its data is done, ahead of the tasks
   * still packing or waiting for buffers (a panel task behind a step's
   * copies), and its worker is free then. Passing a turn of its own, in
   * order, kept its worker behind every copy queued before it: on the
   * timed model, all 16 workers of a Cholesky's first steps waited so
   * while the next panel's tasks were ready and no worker took them. It is
   * in flight from now, not from its launch, so that a drain (an
   * eviction), which waits for the turns taken and then for what is in
   * flight, waits for it too. */
  bool early = !plan.n && !wait.copy && !wait.all &&
               (!wait.turn || turn - (wait.turn - 1) < TURN_COPIES);
  atomic_fetch_add(&d->in_flight, 1);
  if (!early)
    d->turns_taken++;
  if (d->writeback)
    dag__writeback_pump(d);
  pthread_mutex_unlock(&dag__devices_lock);
  if (w != stack)
    free(w);
  if (early) {
    dag__turns_wait(&d->turns_done, wait.turn);
    launch_body(d, c, body_waits_for(d, &wait, turn));
    free(plan.at);
    return;
  }
  dag__copies_take_stages(d, &plan, turn);
  if (plan.n)
    dag__space_host_jitter(&d->space);
  dag__pack_plan(&plan);
  dag__turns_wait(&d->turns_done, turn); /* the tasks before, packing too */
  dag__copies_issue_planned(&job, false);
  free(plan.at);
  uint64_t after = body_waits_for(d, &wait, turn);
  d->turn_copies[turn % TURN_COPIES] =
      atomic_load_explicit(&d->last_copy_in, memory_order_relaxed);
  launch_body(d, c, after);
  dag__turns_pass(&d->turns_done, turn);
}
