/* execute.c — the bodies that the device layer wraps around tasks once a
 * device is in use (device.c submits them): before a task starts, its data
 * is made valid where it runs, and the holders of what it writes become
 * that space alone.
 *
 * A device task's wrapped body runs on a worker: it backs the task's
 * regions with device memory (residency.c), plans copies of the bytes the
 * device lacks (one 2-D copy for a tile that moves whole), gives the body
 * device addresses for every pointer in its arguments that falls in one of
 * its regions, and takes the device's next turn, all under the devices'
 * lock. Then, with no lock, it packs its copies into staging buffers (in
 * parallel with the other workers: packing is the copies' costly host
 * work) and, at its turn, queues them and the body. The worker goes on;
 * the task completes when the device's thread says the body's work is done
 * (dag__task_hold). The queue runs in order, so the body starts after its
 * copies without anyone waiting.
 *
 * Turns keep the queue in the order that the bookkeeping assumed: a task
 * that finds bytes valid on a device queues its body after the copy that
 * brings them, and whoever queues on a device under the lock (a copy back,
 * an eviction) first waits for the turns taken (settle), which need no
 * lock to end.
 *
 * A host task's wrapped body copies back from a device what the host lacks
 * and waits for it, then runs the body.
 *
 * On the emulated device, host bytes that a device task writes are
 * poisoned while it runs, and checked after: a body that wrote through a
 * host pointer instead of the device address is caught.
 */
#include "device/device_internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ failures */

/* The task a call runs, for messages. */
static struct dag_task_info info_of(const struct call *c);

/* Timed mode: the seconds c's work takes on its device (on_device) or on
 * one CPU core; ends the run with a message when the model cannot say. */
static double modelled_seconds(const struct call *c, bool on_device) {
  const struct space *m = dag__devices_timed;
  struct dag_task_info task = info_of(c);
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
static struct dag_task_info info_of(const struct call *c) {
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

/* ------------------------------------------------------------- copies */

void dag__pack_rows(const struct space_copy *c) {
  if (dag__devices_timed)
    dag__space_spend(
        dag__devices_timed, false,
        dag__space_pack_seconds(dag__devices_timed, c->span * c->rows));
  else
    dag__space_copy_rows(c);
}

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

/* Copies to a device planned under the devices' lock, queued at the
 * task's turn. A staged one takes its buffer once the lock is dropped
 * (take_stages_in_turn) and is packed into it before it is queued. */
struct plan {
  struct planned {
    struct space_copy copy; /* from the host's memory, as planned */
    bool staged;            /* through a staging buffer... */
    struct stage *stage;    /* ... this one, once taken */
  } * at;
  size_t n, cap;
  size_t staged; /* bytes of staging buffers it will hold */
};

/* What the body of a device task waits for (space.h): its own copies in,
 * the last one's number; the copies of the earlier turn `turn - 1` on its
 * device, which brought data it reads there (0: none); or, with all, every
 * copy queued before it. */
struct body_wait {
  uint64_t copy, turn;
  bool all;
};

/* A copy between the host and a device: where, and for which task (NULL: a
 * wait, or an eviction), counted in *pending (if not NULL) until done;
 * planned (plan not NULL) or queued at once. */
struct copy_job {
  struct device *d;
  bool to_device;
  const struct call *task;
  atomic_long *pending;
  _Atomic uint64_t *arrived; /* copies in for a device task: see copy_done */
  struct plan *plan;
  struct body_wait *wait; /* copies in for a device task: its body's */
};

/* Waits until every device task that took a turn on d has queued its
 * copies and body; with the devices' lock held, so that no turn is taken
 * meanwhile and what the caller queues comes after them. */
static void settle(struct device *d) {
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
    done->task = info_of(job->task);
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

static void plan_add(struct plan *p, const struct space_copy *copy,
                     bool staged) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 8;
    if (!(p->at = realloc(p->at, p->cap * sizeof *p->at)))
      dag__out_of_memory("a device task's copies");
  }
  p->at[p->n++] = (struct planned){*copy, staged, NULL};
  if (staged)
    p->staged += dag__stage_max();
}

/* Takes a buffer for each staged copy of p that has none, waiting for
 * buffers to come back when all are out; with none left to allocate, the
 * copy goes direct. */
static void take_stages(struct device *d, struct plan *p) {
  for (size_t i = 0; i < p->n; i++) {
    struct planned *c = &p->at[i];
    if (c->staged && !c->stage)
      c->staged = (c->stage = dag__stage_get(d, c->copy.span * c->copy.rows));
  }
}

/* take_stages once the turns before this one have taken theirs: buffers go
 * to turns in order, so a turn never waits for buffers that a later one
 * holds while that one waits for it to queue its copies. Without the
 * devices' lock: waiting for buffers (copies in flight) holds up no task
 * but the later ones that need buffers too. */
static void take_stages_in_turn(struct device *d, struct plan *p,
                                uint64_t turn) {
  dag__turns_wait(&d->stages_turn, turn);
  take_stages(d, p);
  dag__turns_pass(&d->stages_turn, turn);
}

/* Packs planned copy c into its buffer. */
static void pack_planned(const struct planned *c) {
  const struct space_copy *h = &c->copy;
  dag__pack_rows(&(struct space_copy){c->stage->at, h->src, h->span, h->rows,
                                      h->span, h->src_stride});
}

/* Packing a task's chunks on several threads: one core packs a 2048-tile
 * (4 chunks of 8 MiB) in 3.5 ms on the H200 machine we measured, five
 * times the link's time for it, and the tile's first task waits for all
 * of it. Chunks go to unpacking threads (unpack.c) that are idle; the
 * worker packs the rest. Only idle ones: when every worker packs a tile
 * of its own (a step's first tasks), handing chunks round only delays
 * each task behind the others' chunks. */
struct packing {
  pthread_mutex_t lock;
  pthread_cond_t done;
  size_t left; /* chunks handed out, not packed yet */
};

struct pack_job {
  struct unpack_job job;
  const struct planned *chunk;
  struct packing *all;
};

static void run_pack_job(struct unpack_job *job) {
  struct pack_job *p = (struct pack_job *)job;
  pack_planned(p->chunk);
  pthread_mutex_lock(&p->all->lock);
  if (!--p->all->left)
    pthread_cond_signal(&p->all->done);
  pthread_mutex_unlock(&p->all->lock);
}

/* Hands chunk c to an idle unpacking thread; false if none is idle. */
static bool offer(struct pack_job *j, const struct planned *c,
                  struct packing *all) {
  *j = (struct pack_job){{NULL, run_pack_job}, c, all};
  pthread_mutex_lock(&all->lock);
  all->left++; /* before it can run */
  pthread_mutex_unlock(&all->lock);
  if (dag__unpack_if_idle(&j->job))
    return true;
  pthread_mutex_lock(&all->lock);
  all->left--;
  pthread_mutex_unlock(&all->lock);
  return false;
}

/* Packs the copies of p that hold a staging buffer. */
static void pack_plan(const struct plan *p) {
  struct packing all = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  struct pack_job jobs[UNPACKERS];
  size_t offered = 0;
  bool kept = false; /* the worker packs the first chunk itself */
  for (size_t i = 0; i < p->n; i++) {
    const struct planned *c = &p->at[i];
    if (!c->stage)
      continue;
    if (kept && offered < UNPACKERS && offer(&jobs[offered], c, &all))
      offered++;
    else
      pack_planned(c);
    kept = true;
  }
  pthread_mutex_lock(&all.lock);
  while (all.left)
    pthread_cond_wait(&all.done, &all.lock);
  pthread_mutex_unlock(&all.lock);
  pthread_cond_destroy(&all.done);
  pthread_mutex_destroy(&all.lock);
}

/* Queues the planned copies of job, in order, packing each first if
 * `pack` (else the worker packed them, with no lock). */
static void issue_planned(const struct copy_job *job, bool pack) {
  struct plan *p = job->plan;
  struct copy_job now = *job;
  now.plan = NULL;
  for (size_t i = 0; i < p->n; i++) {
    const struct planned *c = &p->at[i];
    const struct space_copy *h = &c->copy;
    if (!c->stage) {
      issue(&now, h, NULL, NULL);
      continue;
    }
    if (pack)
      pack_planned(c);
    issue(&now,
          &(struct space_copy){h->dst, c->stage->at, h->span, h->rows,
                               h->dst_stride, h->span},
          c->stage, NULL);
  }
  p->n = p->staged = 0;
}

/* Queues c with no staging buffer: planned, or at once. */
static void issue_direct(const struct copy_job *job,
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

/* Queues c (at most dag__stage_max() bytes) through a staging buffer:
 * packed into it now (or at the task's turn, when planned), or unpacked
 * from it when the copy is done. */
static void issue_staged(const struct copy_job *job,
                         const struct space_copy *c) {
  struct plan *p = job->plan;
  if (p && p->staged + dag__stage_max() >
               dag__stage_cap(job->d) / PLAN_STAGE_SHARE) {
    settle(job->d); /* every turn before has its buffers back in flight */
    take_stages(job->d, p);
    issue_planned(job, true);
  }
  if (p) { /* to the device, at the task's turn */
    plan_add(p, c, true);
    return;
  }
  struct stage *s = dag__stage_get(job->d, c->span * c->rows);
  if (!s) {
    issue_direct(job, c);
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

/* Queues copy c of the job: through staging buffers (staging.c) in chunks
 * of whole rows, or of one row's pieces when a row is larger than a
 * buffer. */
static void queue_copy(const struct copy_job *job, const struct space_copy *c) {
  struct device *d = job->d;
  size_t bytes = c->span * c->rows;
  if (job->to_device) {
    d->copies_in++;
    d->bytes_in += bytes;
  } else {
    d->copies_out++;
    d->bytes_out += bytes;
  }
  if (!job->plan)
    settle(d);
  if (!d->staging) {
    issue_direct(job, c);
    return;
  }
  size_t max = dag__stage_max(), step = c->span <= max ? max / c->span : 0;
  for (size_t r = 0; step && r < c->rows; r += step) {
    struct space_copy part = *c;
    part.dst = (char *)c->dst + r * c->dst_stride;
    part.src = (const char *)c->src + r * c->src_stride;
    part.rows = c->rows - r < step ? c->rows - r : step;
    issue_staged(job, &part);
  }
  for (size_t r = 0; !step && r < c->rows; r++)
    for (size_t at = 0; at < c->span; at += max) {
      struct space_copy piece = {(char *)c->dst + r * c->dst_stride + at,
                                 (const char *)c->src + r * c->src_stride + at,
                                 c->span - at < max ? c->span - at : max,
                                 1,
                                 0,
                                 0};
      issue_staged(job, &piece);
    }
}

static int by_address(const void *a, const void *b) {
  const struct range *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sorts ranges by address and joins those that touch; returns how many
 * remain. */
static size_t sort_and_join(struct range *at, size_t n) {
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
static void copy_ranges(const struct copy_job *job, struct window *known,
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
    queue_copy(job, &c);
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
  settle(d);
  dag__copies_wait(&d->in_flight);
}

/* ------------------------------------------------- ranges and holders */

/* Collects the ranges whose holders lack `bit`. */
static struct ranges lacking(holders_t bit) {
  return (struct ranges){.mask = bit, .want = 0};
}

void dag__copy_back(const struct ranges *r, const struct call *task) {
  atomic_long pending = 0;
  dag__copy_back_start(r, task, &pending);
  dag__copies_wait(&pending);
}

void dag__copy_back_whole(const struct region *r, holders_t h,
                          atomic_long *pending) {
  struct device *d = dag__device_of_bit((holders_t)(h & -h));
  struct ranges spans = {.mask = 0, .want = 0};
  dag__ranges_add_region(r, h, &spans);
  size_t n = sort_and_join(spans.at, spans.n);
  copy_ranges(&(struct copy_job){d, false, NULL, pending, NULL, NULL, NULL},
              dag__residency_known(d, r), spans.at, n);
  free(spans.at);
}

void dag__copy_back_start(const struct ranges *r, const struct call *task,
                          atomic_long *pending) {
  struct range *from = malloc((r->n ? r->n : 1) * sizeof *from);
  if (!from)
    dag__out_of_memory("a copy from a device");
  for (int k = 0; k < dag__ndevices; k++) {
    /* The ranges the host lacks that device k copies: it is their first
     * holder. */
    struct device *d = &dag__devices[k];
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
      holders_t h = r->at[i].holders;
      if (!(h & HOST) && (holders_t)(h & -h) == d->bit)
        from[n++] = r->at[i];
    }
    n = sort_and_join(from, n);
    copy_ranges(&(struct copy_job){d, false, task, pending, NULL, NULL, NULL},
                NULL, from, n);
  }
  free(from);
}

/* ------------------------------------------------------------- calls */

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

/* Where each region is on the device: device address - host address. */
static intptr_t *call_shifts(struct call *c) {
  return (intptr_t *)((char *)dag__call_args(c) + c->args_size +
                      (-c->args_size & 7));
}

struct dag_pointers *dag__call_pointers(struct call *c) {
  return (struct dag_pointers *)(call_shifts(c) + c->n);
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

static bool writes(enum dag_mode m) { return m != DAG_IN; }

/* ---------------------------------------------------------- host tasks */

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
  struct ranges stale = lacking(HOST);
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
    if (writes(dag__call_modes(c)[i]))
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
    dag__space_spend(dag__devices_timed, false, modelled_seconds(c, false));
  else
    c->fn(dag__call_args(c));
  dag__history_note(c->fn, c->bytes, dag__now_ns() - t0);
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

/* -------------------------------------------------------- device tasks */

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
    queue_copy(job, &(struct space_copy){
                        dag__window_address(w, r->lo), (const void *)r->lo,
                        rows ? r->span : r->hi - r->lo,
                        rows ? r->dim[0].count : 1, stride, stride});
    return;
  }
  dag__writeback_settle(r); /* before a copy back brings r to the host */
  struct ranges missing = lacking(d->bit);
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
  size_t n = sort_and_join(missing.at, missing.n);
  copy_ranges(job, w, missing.at, n);
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
      return (void *)(x + (uintptr_t)call_shifts(c)[i]);
    if (bounds < 0)
      bounds = (int)i;
  }
  return bounds < 0 ? NULL : (void *)(x + (uintptr_t)call_shifts(c)[bounds]);
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

/* The emulated device's check of a device body: what it writes, the host
 * copy of which is stale, is poisoned in host memory while it runs and must
 * still be so after. (A real device cannot write host memory this way.) */
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
      struct dag_task_info task = info_of(c);
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
    if (writes(dag__call_modes(c)[i]))
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
    dag__space_spend(dag__devices_timed, true, modelled_seconds(c, true));
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
  struct dag_task_info task = info_of(c);
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
  dag__history_note(c->fn, c->bytes, now - (arrived > start ? arrived : start));
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
  dag__space_launch(&d->space, device_body, c, after, c->priority > 0,
                    device_finished, c);
}

/* Ends the run: task c's data could not be given device memory (err). */
static noreturn void not_backed(const struct call *c, int err) {
  struct device *d = c->device;
  struct dag_task_info task = info_of(c);
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
    call_shifts(c)[i] = (intptr_t)((uintptr_t)w[i]->at - w[i]->lo);
  struct plan plan = {0};
  struct body_wait wait = {0, 0, false};
  struct copy_job job = {d, true, c, NULL, &c->arrived_ns, &plan, &wait};
  uint64_t turn = d->turns_taken; /* taken once its copies are planned */
  for (uint32_t i = 0; i < c->n; i++)
    if (dag__call_modes(c)[i] != DAG_OUT)
      fetch(&job, w[i], &dag__call_regions(c)[i], turn);
  for (uint32_t i = 0; i < c->n; i++)
    if (writes(dag__call_modes(c)[i]))
      dag__validity_update_region(&dag__call_regions(c)[i], 0, d->bit);
  for (uint32_t i = 0; d->poisons_host && i < c->n; i++)
    if (writes(dag__call_modes(c)[i])) /* poisoning writes host memory */
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
  take_stages_in_turn(d, &plan, turn);
  if (plan.n)
    dag__space_host_jitter(&d->space);
  pack_plan(&plan);
  dag__turns_wait(&d->turns_done, turn); /* the tasks before, packing too */
  issue_planned(&job, false);
  free(plan.at);
  uint64_t after = body_waits_for(d, &wait, turn);
  d->turn_copies[turn % TURN_COPIES] =
      atomic_load_explicit(&d->last_copy_in, memory_order_relaxed);
  launch_body(d, c, after);
  dag__turns_pass(&d->turns_done, turn);
}

struct call *dag__call_of(dag_task_fn body, void *args) {
  if (body == dag__run_on_host)
    return args;
  if (body == dag__run_chosen || body == dag__run_on_device)
    return *(struct call **)args;
  return NULL;
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
