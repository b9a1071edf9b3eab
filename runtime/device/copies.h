/* copies.h — copies between the host and the devices: planned and queued
 * (copies.c), packed into staging buffers (pack.c), and back to the host
 * (copy_back.c). Under the devices' lock but for packing.
 */
#ifndef DAG_DEVICE_COPIES_H
#define DAG_DEVICE_COPIES_H

#include "device/call.h"
#include "device/residency.h"

/* Copies back to the host, from the first device holding it, every range
 * of r the host lacks, for task c (NULL: for a wait, or an eviction), and
 * waits. The caller then says so to validity (dag__validity_host_copied,
 * or an update of the regions they came from). */
void dag__copy_back(const struct ranges *r, const struct call *c);
/* The same in two steps: queues the copies, counted in *pending; ... */
void dag__copy_back_start(const struct ranges *r, const struct call *c,
                          atomic_long *pending);
/* ... waits until *pending is 0. */
void dag__copies_wait(atomic_long *pending);
/* Queues the copies of region r, held whole by devices only (holders h),
 * to the host, from the first of them: a tile is one 2-D copy. */
void dag__copy_back_whole(const struct region *r, holders_t h,
                          atomic_long *pending);
/* Waits until nothing is queued on d. */
void dag__device_drain(struct device *d);
/* Copies rows between a staging buffer and the program's memory; in timed
 * mode, where no byte moves, it takes the model's time instead. */
void dag__pack_rows(const struct space_copy *c);

/* Copies to a device planned under the devices' lock, queued at the
 * task's turn. A staged one takes its buffer once the lock is dropped
 * (take_stages_in_turn) and is packed into it before it is queued. */
struct copy_plan {
  struct planned_copy {
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
  struct copy_plan *plan;
  struct body_wait *wait; /* copies in for a device task: its body's */
};

/* Queues copy c of the job (copy_route.c): straight where its host side
 * is registered memory (or the device stages nothing), else through
 * staging buffers in chunks; planned, if the job has a plan. */
void dag__copies_queue(const struct copy_job *job, const struct space_copy *c);
/* Queues c with no staging buffer: planned, or at once. */
void dag__copies_direct(const struct copy_job *job, const struct space_copy *c);
/* Queues c (at most dag__stage_max() bytes) through a staging buffer:
 * packed into it now (or at the task's turn, when planned), or unpacked
 * from it when the copy is done. */
void dag__copies_staged(const struct copy_job *job, const struct space_copy *c);
/* Waits until every device task that took a turn on d has queued its
 * copies and body; with the devices' lock held, so that no turn is taken
 * meanwhile and what the caller queues comes after them. */
void dag__copies_settle(struct device *d);
/* At the end, where copies of d were packed: says how much, and why, at
 * DAG_LOG=info. */
void dag__copies_report_packed(const struct device *d);
/* Queues the job's copies of ranges at[0..n) (sorted, disjoint): one per
 * stretch that one window maps, and one 2-D copy for rows of one length at
 * one stride (a tile's). `known`, if not NULL, is a window that maps them
 * all. */
void dag__copies_ranges(const struct copy_job *job, struct window *known,
                        const struct range *at, size_t n);
/* Takes a buffer for each staged copy of p at turn `turn` of d, once the
 * turns before have taken theirs. */
void dag__copies_take_stages(struct device *d, struct copy_plan *p,
                             uint64_t turn);
/* Queues the planned copies of job, in order, packing each first if
 * `pack` (else they were packed already, dag__pack_plan). */
void dag__copies_issue_planned(const struct copy_job *job, bool pack);
/* Sorts ranges by address and joins those that touch; returns how many
 * remain. */
size_t dag__ranges_sort_join(struct range *at, size_t n);

/* Packs planned copy c into its buffer. */
void dag__pack_planned(const struct planned_copy *c);
/* Packs the copies of p that hold a staging buffer, on this thread and on
 * idle unpacking threads. */
void dag__pack_plan(const struct copy_plan *p);

#endif /* DAG_DEVICE_COPIES_H */
