/* writeback.c — copying back, on speculation, what a device task wrote and
 * nothing queued will write again, while the device computes on: when the
 * program waits, or a host task reads it, the host holds it already, and
 * the copies that would follow the device's last kernel were done beside
 * its work, on its copy engine back, which copies to the device never use.
 *
 * When a device task's body is done (run_device.c), each region of at least
 * COPY_ALONE_BYTES that it wrote, and that none of the tasks waiting for it
 * writes, is a candidate: it is pushed on its device's inbox, which needs
 * no lock. Under the devices' lock, a candidate whose bytes the device
 * still holds whole, and the host does not, in a window known to map them,
 * is copied to staging buffers on the copy-back queue and unpacked into the
 * program's memory by the unpacking threads (unpack.c), or, where that
 * memory is registered with the devices (registered.c), copied straight
 * into it; then the host holds it too. Write-backs hold at most a quarter of a
 * device's staging pool, so that copies to the device are never starved: a
 * candidate that finds no buffer free waits for the next pump. Pumps run when a
 * device task takes its turn, and when a body or a write-back ends if the
 * devices' lock is free.
 *
 * Speculation is never seen:
 *  - an update of validity that takes holders away from bytes (a task
 *    writes them anew, an eviction takes them) voids their write-backs: a
 *    candidate is dropped, the unpacking of a copy in flight skipped if it
 *    has not begun, and the host is not told it holds them;
 *  - whatever puts bytes into host memory or lets host code write them (a
 *    copy back, a host task, a wait; on the emulated device, the poisoning
 *    of what a device task writes) first settles their write-backs: drops
 *    candidates, waits for copies in flight, and tells validity what the
 *    host now holds.
 */
#include "device/writeback.h"
#include "device/copies.h"
#include "device/registered.h"

#include <sched.h>
#include <stdlib.h>

/* A share of a device's staging pool that write-backs may hold (and at
 * least one buffer). */
#define WRITEBACK_STAGE_SHARE 4

static size_t stage_share(const struct device *d) {
  size_t share = dag__stage_cap(d) / WRITEBACK_STAGE_SHARE;
  return share > dag__stage_max() ? share : dag__stage_max();
}

struct writeback {
  struct writeback *next;
  struct region r;
  bool issued;        /* its copies are queued */
  size_t staged;      /* bytes of staging buffers it holds */
  atomic_int left;    /* copies not unpacked yet */
  atomic_bool voided; /* its bytes changed holders since it was a candidate */
};

/* One copy of a write-back: a staging buffer's worth of its rows. */
struct writeback_copy {
  struct unpack_job unpack_job; /* once the copy is done */
  struct device *d;
  struct writeback *wb;
  struct stage *stage;
  struct space_copy unpack; /* from the buffer to the program's memory */
};

/* Pushes a candidate on d's inbox (any thread). */
static void push(struct device *d, struct writeback *wb) {
  wb->next = atomic_load_explicit(&d->writeback_inbox, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(&d->writeback_inbox, &wb->next,
                                                wb, memory_order_release,
                                                memory_order_relaxed))
    ;
}

/* Moves d's inbox to the end of its list, oldest first. Under the devices'
 * lock. */
static void take_inbox(struct device *d) {
  struct writeback *wb =
      atomic_exchange_explicit(&d->writeback_inbox, NULL, memory_order_acquire);
  struct writeback *oldest_first = NULL;
  while (wb) {
    struct writeback *next = wb->next;
    wb->next = oldest_first;
    oldest_first = wb;
    wb = next;
  }
  struct writeback **end = &d->writebacks;
  while (*end)
    end = &(*end)->next;
  *end = oldest_first;
}

/* ------------------------------------------------------ their copies */

/* The rows of r as (span, rows, stride), in pieces of at most one staging
 * buffer: a run is rows of a buffer each. */
struct copy_rows {
  uintptr_t lo;
  size_t span, rows, stride, per_copy;
};

static struct copy_rows rows_of(const struct region *r) {
  size_t max = dag__stage_max();
  if (r->ndims == 1)
    return (struct copy_rows){r->lo, r->span, r->dim[0].count, r->dim[0].stride,
                              max / r->span};
  size_t bytes = r->hi - r->lo;
  size_t span = bytes < max ? bytes : max;
  return (struct copy_rows){r->lo, span, 1, span, 1};
}

static size_t copies_of(const struct region *r) {
  if (r->ndims == 0)
    return (r->hi - r->lo + dag__stage_max() - 1) / dag__stage_max();
  struct copy_rows x = rows_of(r);
  return (x.rows + x.per_copy - 1) / x.per_copy;
}

/* Copy k of r: [lo, lo + rows * stride) in rows of span. */
static void copy_k(const struct region *r, size_t k, uintptr_t *lo,
                   size_t *span, size_t *rows, size_t *stride) {
  size_t max = dag__stage_max();
  if (r->ndims == 0) {
    *lo = r->lo + k * max;
    *span = r->hi - *lo < max ? r->hi - *lo : max;
    *rows = 1;
    *stride = *span;
    return;
  }
  struct copy_rows x = rows_of(r);
  size_t first = k * x.per_copy;
  *lo = x.lo + first * x.stride;
  *span = x.span;
  *rows = x.rows - first < x.per_copy ? x.rows - first : x.per_copy;
  *stride = x.stride;
}

/* --------------------------------------------------------- candidates */

/* Which written regions of a finished device task a task waiting for it
 * writes again (a bit each, the first 64; the rest count as written). */
struct written_again {
  struct call *c;
  uint64_t bits;
};

static void note_successor(dag_task_fn body, void *args, void *arg) {
  struct written_again *w = arg;
  struct call *s = dag__call_of(body, args);
  for (uint32_t i = 0; i < w->c->n && i < 64; i++) {
    if (!dag__mode_writes(dag__call_modes(w->c)[i]))
      continue;
    bool again = !s; /* not a task of ours: it may write anything */
    for (uint32_t j = 0; s && !again && j < s->n; j++)
      again = dag__mode_writes(dag__call_modes(s)[j]) &&
              dag__region_overlap(&dag__call_regions(w->c)[i],
                                  &dag__call_regions(s)[j]);
    if (again)
      w->bits |= (uint64_t)1 << i;
  }
}

/* Whether r can go back beside the work: a run, or rows of one span that
 * fit in a staging buffer, of COPY_ALONE_BYTES at least, whose buffers fit
 * in d's share. Not a triangle: its copies would be whole rows, and the
 * rest of each row may be the host's newer bytes (a host task writes the
 * other triangle). */
static bool worth_it(const struct device *d, const struct region *r) {
  size_t span = r->ndims ? r->span : r->hi - r->lo;
  return r->ndims <= 1 && !r->shape &&
         dag__region_bytes(r) >= COPY_ALONE_BYTES &&
         (r->ndims == 0 || span <= dag__stage_max()) &&
         copies_of(r) * dag__stage_max() <= stage_share(d);
}

void dag__writeback_candidates(struct call *c) {
  struct device *d = c->device;
  if (!d->writeback)
    return;
  struct written_again w = {c, 0};
  dag__task_each_successor(c->task, note_successor, &w);
  for (uint32_t i = 0; i < c->n && i < 64; i++) {
    const struct region *r = &dag__call_regions(c)[i];
    if (!dag__mode_writes(dag__call_modes(c)[i]) || w.bits >> i & 1 ||
        !worth_it(d, r))
      continue;
    struct writeback *wb = calloc(1, sizeof *wb);
    if (!wb)
      return; /* speculation only: the wait copies it back */
    wb->r = *r;
    push(d, wb);
  }
}

/* ------------------------------------------------------ write-backs */

/* Unpacks a copy's buffer into the program's memory (a copy straight into
 * registered memory has none), and ends it. */
static void unpack_and_end(struct unpack_job *job) {
  struct writeback_copy *wc = (struct writeback_copy *)job; /* first member */
  struct device *d = wc->d;
  struct writeback *wb = wc->wb;
  if (wc->stage && !atomic_load(&wb->voided))
    dag__pack_rows(&wc->unpack);
  if (wc->stage) {
    dag__stage_put(d, wc->stage);
    atomic_fetch_sub(&d->writeback_staged, dag__stage_bytes(wc->stage));
  }
  free(wc);
  bool last = atomic_fetch_sub(&wb->left, 1) == 1;
  if (last && !pthread_mutex_trylock(&dag__devices_lock)) {
    dag__writeback_pump(d);
    pthread_mutex_unlock(&dag__devices_lock);
  }
  atomic_fetch_sub(&d->in_flight, 1); /* last: a drain waits for the pump */
}

/* On the device's thread: the unpacking threads unpack it. */
static void copied(void *arg, const char *failure) {
  struct writeback_copy *wc = arg;
  if (failure)
    dag__work_failed(NULL, failure);
  wc->unpack_job.run = unpack_and_end;
  dag__unpack_later(&wc->unpack_job);
}

/* Takes a staging buffer for each copy of wb; false (holding none) if d
 * has none to spare. */
static bool take_buffers(struct device *d, struct writeback *wb,
                         struct stage **stages, size_t n) {
  size_t cap = stage_share(d);
  for (size_t k = 0; k < n; k++) {
    uintptr_t lo;
    size_t span, rows, stride;
    copy_k(&wb->r, k, &lo, &span, &rows, &stride);
    stages[k] =
        atomic_load(&d->writeback_staged) + wb->staged + span * rows <= cap
            ? dag__stage_try_get(d, span * rows)
            : NULL;
    if (!stages[k]) {
      while (k--)
        dag__stage_put(d, stages[k]);
      wb->staged = 0;
      return false;
    }
    wb->staged += dag__stage_bytes(stages[k]);
  }
  return true;
}

/* Whether r's bytes in host memory are registered with the devices: its
 * copy back goes straight there, with no buffer. Speculation stays unseen:
 * whatever writes those bytes on the host settles the copy first. */
static bool registered(const struct region *r) {
  bool yes;
  return dag__registered_run(r->lo, r->hi, &yes) == r->hi - r->lo && yes;
}

/* Queues wb's one copy from window w straight into registered memory. */
static void issue_straight(struct device *d, struct writeback *wb,
                           struct window *w) {
  const struct region *r = &wb->r;
  size_t span = r->ndims ? r->span : r->hi - r->lo;
  size_t rows = r->ndims ? r->dim[0].count : 1;
  size_t stride = r->ndims ? (size_t)r->dim[0].stride : span;
  struct writeback_copy *wc = malloc(sizeof *wc);
  if (!wc)
    dag__out_of_memory("a write-back");
  *wc = (struct writeback_copy){{0}, d, wb, NULL, {0}};
  wb->issued = true;
  atomic_store(&wb->left, 1);
  d->copies_out++;
  d->bytes_out += span * rows;
  atomic_fetch_add(&d->in_flight, 1);
  dag__space_copy(&d->space, false,
                  &(struct space_copy){(void *)r->lo,
                                       dag__window_address(w, r->lo), span,
                                       rows, stride, stride},
                  copied, wc);
}

/* Queues wb's copies from window w into the buffers, and their unpacking
 * after. */
static void issue(struct device *d, struct writeback *wb, struct window *w,
                  struct stage **stages, size_t n) {
  wb->issued = true;
  atomic_store(&wb->left, (int)n);
  atomic_fetch_add(&d->writeback_staged, wb->staged);
  for (size_t k = 0; k < n; k++) {
    uintptr_t lo;
    size_t span, rows, stride;
    copy_k(&wb->r, k, &lo, &span, &rows, &stride);
    struct writeback_copy *wc = malloc(sizeof *wc);
    if (!wc)
      dag__out_of_memory("a write-back");
    *wc = (struct writeback_copy){
        {0},
        d,
        wb,
        stages[k],
        {(void *)lo, stages[k]->at, span, rows, stride, span}};
    d->copies_out++;
    d->bytes_out += span * rows;
    atomic_fetch_add(&d->in_flight, 1);
    dag__space_copy(&d->space, false,
                    &(struct space_copy){stages[k]->at,
                                         dag__window_address(w, lo), span, rows,
                                         span, stride},
                    copied, wc);
  }
}

/* ------------------------------------------------------------ the list */

/* Takes wb off d's list, at *link; once its copies are done, the host
 * holds its bytes too, unless it was voided. */
static void finish(struct device *d, struct writeback **link) {
  struct writeback *wb = *link;
  *link = wb->next;
  if (wb->issued && !atomic_load(&wb->voided)) {
    dag__validity_update_region(&wb->r, (holders_t)~0, HOST);
    d->written_back++;
    d->written_back_bytes += dag__region_bytes(&wb->r);
  } else if (wb->issued) {
    d->writebacks_voided++;
  }
  free(wb);
}

static bool copies_done(const struct writeback *wb) {
  return atomic_load(&((struct writeback *)wb)->left) == 0;
}

void dag__writeback_pump(struct device *d) {
  take_inbox(d);
  for (struct writeback **link = &d->writebacks; *link;) {
    struct writeback *wb = *link;
    if (wb->issued) {
      if (copies_done(wb))
        finish(d, link);
      else
        link = &wb->next;
      continue;
    }
    holders_t h;
    struct window *w = NULL;
    if (!dag__validity_whole(&wb->r, &h) || h & HOST || !(h & d->bit) ||
        !(w = dag__residency_known(d, &wb->r))) {
      finish(d, link); /* moot: the host has it, or the device has not */
      continue;
    }
    if (registered(&wb->r)) {
      issue_straight(d, wb, w);
      link = &wb->next;
      continue;
    }
    size_t n = copies_of(&wb->r);
    struct stage *stack[8],
        **stages = n <= 8 ? stack : malloc(n * sizeof *stages);
    if (!stages)
      break;
    bool ready = take_buffers(d, wb, stages, n);
    if (ready)
      issue(d, wb, w, stages, n);
    if (stages != stack)
      free(stages);
    if (!ready)
      break; /* the next pump, when buffers come back */
    link = &wb->next;
  }
}

void dag__writeback_void(const struct region *r) {
  for (int k = 0; k < dag__ndevices; k++) {
    struct device *d = &dag__devices[k];
    if (!d->writebacks &&
        !atomic_load_explicit(&d->writeback_inbox, memory_order_relaxed))
      continue;
    take_inbox(d);
    for (struct writeback **link = &d->writebacks; *link;) {
      struct writeback *wb = *link;
      if (!dag__region_overlap(&wb->r, r)) {
        link = &wb->next;
      } else if (!wb->issued) {
        finish(d, link);
      } else {
        atomic_store(&wb->voided, true);
        link = &wb->next;
      }
    }
  }
}

void dag__writeback_settle(const struct region *r) {
  for (int k = 0; k < dag__ndevices; k++) {
    struct device *d = &dag__devices[k];
    take_inbox(d);
    for (struct writeback **link = &d->writebacks; *link;) {
      struct writeback *wb = *link;
      if (r && !dag__region_overlap(&wb->r, r)) {
        link = &wb->next;
        continue;
      }
      while (wb->issued && !copies_done(wb))
        if (!dag__unpack_help())
          sched_yield();
      finish(d, link);
    }
  }
}
