/* copies.c — copies between the host and a device, from plan to
 * completion: a device task's copies are planned under the devices' lock
 * (run_device.c), take their staging buffers and are packed with no lock,
 * and are queued at the task's turn; a copy back is queued at once. Rows
 * of one length at one stride go as one 2-D copy (a tile's), through
 * staging buffers in chunks of whole rows when the device stages copies.
 *
 * Turns keep the device's queue in the order that the bookkeeping assumed:
 * whoever queues on a device under the lock (a copy back, an eviction)
 * first waits for the turns taken (dag__copies_settle), which need no lock to
 * end.
 */
#include "device/copies.h"

#include <stdlib.h>

struct copy_done {
  struct unpack_job unpack_job; /* a copy from a device, once it is done */
  struct device *d;
  atomic_long *pending;
  struct stage *stage;       /* its staging buffer, if any */
  struct space_copy unpack;  /* from the buffer to the host, if dst is set */
  bool for_task;             /* else for a wait or an eviction */
  struct dag_task_info task; /* the task it moves data for */
  _Atomic uint64_t *arrived; /* a device task's: when its data arrived */
  size_t bytes_in;           /* a copy to the device: its bytes */
  uint64_t issued_ns;        /* ... and when it was queued */
};

/* A copy to d is done: counts the time its copy engine gave it, from when
 * it was queued or the copy before it ended, whichever is later (copies
 * in end in order), for the rate the chooser expects (choose.c). */
static void count_copy_in(struct device *d, const struct copy_done *c) {
  uint64_t now = dag__now_ns();
  uint64_t before = atomic_exchange(&d->copy_in_last_ns, now);
  uint64_t start = before > c->issued_ns ? before : c->issued_ns;
  atomic_fetch_add(&d->copy_in_bytes, c->bytes_in);
  atomic_fetch_add(&d->copy_in_ns, now > start ? now - start : 0);
}

/* A copy is complete: its buffer (unpacked, from a device) goes back and
 * whoever waits for it is told. */
static void copy_complete(struct copy_done *c) {
  if (c->stage)
    dag__stage_put(c->d, c->stage);
  atomic_fetch_sub(&c->d->in_flight, 1);
  if (c->pending)
    atomic_fetch_sub(c->pending, 1);
  if (c->arrived) /* a task's copies finish in order: the last is latest */
    atomic_store(c->arrived, dag__now_ns());
  free(c);
}

static void unpack_and_complete(struct unpack_job *job) {
  struct copy_done *c = (struct copy_done *)job; /* its first member */
  dag__pack_rows(&c->unpack);
  copy_complete(c);
}

/* On the device's thread: a buffer from the device is unpacked by the
 * unpacking threads (unpack.c), not here, one after the other. */
static void copy_finished(void *arg, const char *failure) {
  struct copy_done *c = arg;
  if (failure)
    dag__work_failed(c->for_task ? &c->task : NULL, failure);
  if (c->bytes_in)
    count_copy_in(c->d, c);
  if (c->unpack.dst) {
    c->unpack_job.run = unpack_and_complete;
    dag__unpack_later(&c->unpack_job);
  } else {
    copy_complete(c);
  }
}

void dag__copies_settle(struct device *d) {
  dag__turns_wait(&d->turns_done, d->turns_taken);
}

/* Queues c on the job's device as it is, with s its staging buffer (NULL:
 * none) and `unpack` what to do with the buffer when it is done (NULL:
 * nothing). */
static void issue(const struct copy_job *job, const struct space_copy *c,
                  struct stage *s, const struct space_copy *unpack) {
  struct device *d = job->d;
  atomic_long *pending = job->pending;
  struct copy_done *done = calloc(1, sizeof *done);
  if (!done)
    dag__out_of_memory("a device copy");
  *done = (struct copy_done){
      {0}, d, pending, s, {0}, job->task != NULL, {0}, job->arrived, 0, 0};
  if (job->task)
    done->task = dag__call_info(job->task);
  if (unpack)
    done->unpack = *unpack;
  if (job->to_device) {
    done->bytes_in = c->span * c->rows;
    done->issued_ns = dag__now_ns();
  }
  atomic_fetch_add(&d->in_flight, 1);
  if (pending)
    atomic_fetch_add(pending, 1);
  uint64_t ticket =
      dag__space_copy(&d->space, job->to_device, c, copy_finished, done);
  if (job->to_device)
    atomic_store_explicit(&d->last_copy_in, ticket, memory_order_relaxed);
  if (job->wait)
    job->wait->copy = ticket;
}

static void plan_add(struct copy_plan *p, const struct space_copy *copy,
                     bool staged) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 8;
    if (!(p->at = realloc(p->at, p->cap * sizeof *p->at)))
      dag__out_of_memory("a device task's copies");
  }
  p->at[p->n++] = (struct planned_copy){*copy, staged, NULL};
  if (staged)
    p->staged += dag__stage_max();
}

/* Takes a buffer for each staged copy of p that has none, waiting for
 * buffers to come back when all are out; with none left to allocate, the
 * copy goes direct. */
static void take_stages(struct device *d, struct copy_plan *p) {
  for (size_t i = 0; i < p->n; i++) {
    struct planned_copy *c = &p->at[i];
    if (c->staged && !c->stage)
      c->staged = (c->stage = dag__stage_get(d, c->copy.span * c->copy.rows));
  }
}

/* take_stages once the turns before this one have taken theirs: buffers go
 * to turns in order, so a turn never waits for buffers that a later one
 * holds while that one waits for it to queue its copies. Without the
 * devices' lock: waiting for buffers (copies in flight) holds up no task
 * but the later ones that need buffers too. */
void dag__copies_take_stages(struct device *d, struct copy_plan *p,
                             uint64_t turn) {
  dag__turns_wait(&d->stages_turn, turn);
  take_stages(d, p);
  dag__turns_pass(&d->stages_turn, turn);
}

/* Queues the planned copies of job, in order, packing each first if
 * `pack` (else the worker packed them, with no lock). */
void dag__copies_issue_planned(const struct copy_job *job, bool pack) {
  struct copy_plan *p = job->plan;
  struct copy_job now = *job;
  now.plan = NULL;
  for (size_t i = 0; i < p->n; i++) {
    const struct planned_copy *c = &p->at[i];
    const struct space_copy *h = &c->copy;
    if (!c->stage) {
      issue(&now, h, NULL, NULL);
      continue;
    }
    if (pack)
      dag__pack_planned(c);
    issue(&now,
          &(struct space_copy){h->dst, c->stage->at, h->span, h->rows,
                               h->dst_stride, h->span},
          c->stage, NULL);
  }
  p->n = p->staged = 0;
}

void dag__copies_direct(const struct copy_job *job,
                        const struct space_copy *c) {
  if (job->plan)
    plan_add(job->plan, c, false);
  else
    issue(job, c, NULL, NULL);
}

/* A plan's staging buffers are taken at its turn: past this share of a
 * device's pool it is queued at once, under the lock, so that it never
 * waits for buffers that it holds itself. */
#define PLAN_STAGE_SHARE 2

void dag__copies_staged(const struct copy_job *job,
                        const struct space_copy *c) {
  struct copy_plan *p = job->plan;
  if (p && p->staged + dag__stage_max() >
               dag__stage_cap(job->d) / PLAN_STAGE_SHARE) {
    dag__copies_settle(
        job->d); /* every turn before has its buffers back in flight */
    take_stages(job->d, p);
    dag__copies_issue_planned(job, true);
  }
  if (p) { /* to the device, at the task's turn */
    plan_add(p, c, true);
    return;
  }
  struct stage *s = dag__stage_get(job->d, c->span * c->rows);
  if (!s) {
    dag__copies_direct(job, c);
    return;
  }
  if (job->to_device) {
    dag__pack_rows(&(struct space_copy){s->at, c->src, c->span, c->rows,
                                        c->span, c->src_stride});
    issue(job,
          &(struct space_copy){c->dst, s->at, c->span, c->rows, c->dst_stride,
                               c->span},
          s, NULL);
  } else {
    issue(job,
          &(struct space_copy){s->at, c->src, c->span, c->rows, c->span,
                               c->src_stride},
          s,
          &(struct space_copy){c->dst, s->at, c->span, c->rows, c->dst_stride,
                               c->span});
  }
}

static int by_address(const void *a, const void *b) {
  const struct range *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sorts ranges by address and joins those that touch; returns how many
 * remain. */
size_t dag__ranges_sort_join(struct range *at, size_t n) {
  if (n < 2)
    return n;
  size_t sorted = 1; /* a region's spans come in order */
  while (sorted < n && at[sorted - 1].lo <= at[sorted].lo)
    sorted++;
  if (sorted < n)
    qsort(at, n, sizeof *at, by_address);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m && at[m - 1].hi == at[i].lo)
      at[m - 1].hi = at[i].hi;
    else
      at[m++] = at[i];
  return m;
}

/* Queues the job's copies of ranges at[0..n) (sorted, disjoint): one per
 * stretch that one window maps, and one 2-D copy for rows of one length at
 * one stride (a tile's). `known`, if not NULL, is a window that maps them
 * all. */
void dag__copies_ranges(const struct copy_job *job, struct window *known,
                        const struct range *at, size_t n) {
  struct device *d = job->d;
  bool to_device = job->to_device;
  size_t i = 0;
  uintptr_t lo = n ? at[0].lo : 0;
  while (i < n) {
    uintptr_t hi = at[i].hi;
    struct window *w = known ? known : dag__residency_mapping(d, lo, &hi);
    size_t rows = 1, stride = 0, span = hi - lo;
    if (lo == at[i].lo && hi == at[i].hi)
      for (; i + rows < n; rows++) {
        const struct range *next = &at[i + rows];
        size_t step = next->lo - next[-1].lo;
        if (next->hi - next->lo != span || (rows > 1 && step != stride) ||
            !(known || dag__residency_maps(d, w, next->lo, next->hi)))
          break;
        stride = step;
      }
    char *dev = dag__window_address(w, lo);
    struct space_copy c = {to_device ? dev : (void *)lo,
                           to_device ? (const void *)lo : dev,
                           span,
                           rows,
                           stride,
                           stride};
    dag__copies_queue(job, &c);
    if (hi < at[i].hi) {
      lo = hi; /* the rest of this range is in another window */
      continue;
    }
    i += rows;
    if (i < n)
      lo = at[i].lo;
  }
}

/* Unpacks meanwhile what the unpacking threads have not started (its own
 * copies' buffers, or others'). */
void dag__copies_wait(atomic_long *pending) {
  while (atomic_load(pending) > 0)
    if (!dag__unpack_help())
      sched_yield();
}

void dag__device_drain(struct device *d) {
  dag__copies_settle(d);
  dag__copies_wait(&d->in_flight);
}
