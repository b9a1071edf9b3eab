/* handoff.c — handing a released task straight to a worker that waits for
 * one (when, is the policy's: policy.h, 2), and measuring how long ready
 * tasks wait.
 *
 * A worker with nothing to do marks its mailbox WAITING while it spins,
 * and watches it. A completion that releases a task to hand over looks for
 * a waiting mailbox and swaps the task in with a compare-and-swap: of several
 * claimants one wins, and the waiting worker sees the task within one pause. A
 * worker that stops waiting (it found work, or it is about to sleep) swaps
 * WAITING out the same way; if that fails, a task is there, and it takes it
 * before it sleeps. A sleeping worker is never handed a task: it left WAITING
 * before sleeping, and gets work through its queue and a futex wake-up.
 *
 * With timing on (DAG_STATS, DAG_TRACE), every queued or handed task is
 * stamped with when it became ready and by which worker; the worker that
 * starts it notes the wait in a histogram, reported by DAG_STATS as the
 * median hand-off latency on the same worker and on another.
 */
#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>

/* A worker's mailbox: NULL while it does not wait, WAITING while it waits,
 * then the task handed to it. Only its owner writes NULL or WAITING; a
 * claimant replaces WAITING with a task in one compare-and-swap, so claim
 * and delivery are one step. Each on a cache line of its own, which its
 * owner writes only when it starts or stops waiting. */
#define WAITING ((struct task *)1)

struct mailbox {
  _Alignas(DAG_CACHELINE) _Atomic(struct task *) slot;
};

static struct mailbox *mailboxes;
static int nmailboxes;

int dag__handoff_init(int nworkers) {
  mailboxes =
      aligned_alloc(DAG_CACHELINE, (size_t)nworkers * sizeof *mailboxes);
  if (!mailboxes)
    return DAG_ENOMEM;
  for (int i = 0; i < nworkers; i++)
    atomic_init(&mailboxes[i].slot, NULL);
  nmailboxes = nworkers;
  return 0;
}

void dag__handoff_release(void) {
  free(mailboxes);
  mailboxes = NULL;
  nmailboxes = 0;
}

void dag__handoff_wait(struct worker *w) {
  atomic_store_explicit(&mailboxes[w->id].slot, WAITING, memory_order_seq_cst);
}

bool dag__handoff_unwait(struct worker *w) {
  struct task *expected = WAITING;
  return atomic_compare_exchange_strong_explicit(
      &mailboxes[w->id].slot, &expected, NULL, memory_order_acq_rel,
      memory_order_acquire);
}

bool dag__handoff_pending(struct worker *w) {
  return atomic_load_explicit(&mailboxes[w->id].slot, memory_order_relaxed) >
         WAITING;
}

struct task *dag__handoff_take(struct worker *w) {
  struct task *t =
      atomic_load_explicit(&mailboxes[w->id].slot, memory_order_acquire);
  if (t <= WAITING)
    return NULL;
  atomic_store_explicit(&mailboxes[w->id].slot, NULL, memory_order_relaxed);
  return t;
}

/* Looks before it swaps, so that a busy worker's mailbox line stays in its
 * owner's cache. */
bool dag__handoff_give(struct worker *w, struct task *t) {
  dag__task_stamp_ready(w, t);
  for (int k = 1; k < nmailboxes; k++) {
    struct mailbox *m = &mailboxes[(w->id + k) % nmailboxes];
    struct task *expected = WAITING;
    if (atomic_load_explicit(&m->slot, memory_order_relaxed) == WAITING &&
        atomic_compare_exchange_strong_explicit(
            &m->slot, &expected, t, memory_order_release, memory_order_relaxed))
      return true;
  }
  t->flags &= (uint16_t)~TASK_STAMPED; /* queued instead: stamped again */
  return false;
}

/* -------------------------------------------------------------- latency */

void dag__handoff_note(struct worker *w, struct task *t) {
  t->flags &= (uint16_t)~TASK_STAMPED;
  if (!w)
    return;
  uint64_t waited = (dag__now_ns() - t->ready) & READY_TIME_MASK;
  int by = (int)(t->ready >> READY_WORKER_SHIFT) - 1;
  uint64_t bin = waited / HANDOFF_BIN_NS;
  w->stats.handoff[by != w->id][bin < HANDOFF_BINS ? bin : HANDOFF_BINS - 1]++;
}

/* The median of a histogram, in microseconds, and its count. */
static double median_us(const uint64_t *bins, uint64_t *count) {
  uint64_t n = 0, seen = 0;
  for (int i = 0; i < HANDOFF_BINS; i++)
    n += bins[i];
  *count = n;
  for (int i = 0; n && i < HANDOFF_BINS; i++) {
    if (2 * (seen + bins[i]) >= n) /* in bin i: spread evenly over it */
      return (i + ((double)n / 2 - (double)seen) / (double)bins[i]) *
             HANDOFF_BIN_NS / 1000.0;
    seen += bins[i];
  }
  return 0;
}

void dag__handoff_report(int nworkers) {
  uint64_t all[2][HANDOFF_BINS] = {{0}};
  for (int i = 0; i < nworkers; i++)
    for (int k = 0; k < 2; k++)
      for (int b = 0; b < HANDOFF_BINS; b++)
        all[k][b] += dag__worker(i)->stats.handoff[k][b];
  uint64_t same, other;
  double m_same = median_us(all[0], &same), m_other = median_us(all[1], &other);
  dag__log(DAG_LOG_REPORT,
           "stats: ready to start, queued tasks: median %.2f us on the "
           "worker that made them ready (%llu), %.2f us on another (%llu)",
           m_same, (unsigned long long)same, m_other,
           (unsigned long long)other);
}
