/* handoff.c — handing a released task straight to a worker that waits for
 * one, and measuring how long ready tasks wait.
 *
 * When a completion releases several tasks, the worker runs one itself and
 * used to queue the others in its ring, where an idle worker found them on
 * its next look: a look every few microseconds, since an idle worker backs
 * off between looks and steals single tasks only after a while (sched.c,
 * worker.c), so that it does not pull a busy submitter's queue to pieces. In
 * narrow graphs (a stencil two tasks wide) that wait came at every step.
 *
 * Now a worker with nothing to do raises its bit in `waiting` while it
 * spins, and watches a mailbox of its own. A completion that releases a
 * task it will not run itself claims a waiting worker by clearing its bit
 * (an atomic and: of several claimants, one wins) and puts the task in its
 * mailbox; the waiting worker sees it within one pause. A worker that stops
 * waiting (it found work, or it is about to sleep) clears its own bit the
 * same way; if someone cleared it first, a task is on its way and the
 * worker takes it before it sleeps. A sleeping worker is never claimed: it
 * cleared its bit before sleeping, and gets work as before (queue and
 * futex wake-up).
 *
 * Tasks submitted by a program are not handed over: the submitter feeds idle
 * workers through its queue in batches (sched.c), which costs it less than
 * a mailbox per task.
 *
 * With timing on (DAG_STATS, DAG_TRACE), every queued or handed task is
 * stamped with when it became ready and by which worker; the worker that
 * starts it notes the wait in a histogram, reported by DAG_STATS as the
 * median hand-off latency on the same worker and on another.
 */
#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>

struct mailbox {
  _Alignas(DAG_CACHELINE) _Atomic(struct task *) task;
};

static struct mailbox *mailboxes;
static _Atomic uint64_t *waiting; /* a bit per worker */
static int nwords;

int dag__handoff_init(int nworkers) {
  nwords = (nworkers + 63) / 64;
  mailboxes =
      aligned_alloc(DAG_CACHELINE, (size_t)nworkers * sizeof *mailboxes);
  waiting = aligned_alloc(
      DAG_CACHELINE, ((size_t)nwords * sizeof *waiting + DAG_CACHELINE - 1) /
                         DAG_CACHELINE * DAG_CACHELINE);
  if (!mailboxes || !waiting) {
    free(mailboxes);
    free(waiting);
    return DAG_ENOMEM;
  }
  for (int i = 0; i < nworkers; i++)
    atomic_init(&mailboxes[i].task, NULL);
  for (int i = 0; i < nwords; i++)
    atomic_init(&waiting[i], 0);
  return 0;
}

void dag__handoff_release(void) {
  free(mailboxes);
  free((void *)waiting);
  mailboxes = NULL;
  waiting = NULL;
  nwords = 0;
}

static uint64_t bit_of(const struct worker *w) {
  return (uint64_t)1 << (w->id % 64);
}

void dag__handoff_wait(struct worker *w) {
  atomic_fetch_or_explicit(&waiting[w->id / 64], bit_of(w),
                           memory_order_seq_cst);
}

bool dag__handoff_unwait(struct worker *w) {
  uint64_t was = atomic_fetch_and_explicit(&waiting[w->id / 64], ~bit_of(w),
                                           memory_order_seq_cst);
  return was & bit_of(w);
}

bool dag__handoff_pending(struct worker *w) {
  return atomic_load_explicit(&mailboxes[w->id].task, memory_order_relaxed);
}

struct task *dag__handoff_take(struct worker *w) {
  if (!dag__handoff_pending(w))
    return NULL;
  return atomic_exchange_explicit(&mailboxes[w->id].task, NULL,
                                  memory_order_acquire);
}

struct task *dag__handoff_claimed(struct worker *w) {
  struct task *t;
  while (!(t = dag__handoff_take(w)))
    ; /* the claimant stores it right after its claim */
  return t;
}

bool dag__handoff_give(struct worker *w, struct task *t) {
  for (int k = 0; k < nwords; k++) {
    int word = (w->id / 64 + k) % nwords;
    uint64_t mask = atomic_load_explicit(&waiting[word], memory_order_relaxed);
    if (word == w->id / 64)
      mask &= ~bit_of(w);
    while (mask) {
      uint64_t bit = mask & -mask;
      uint64_t was =
          atomic_fetch_and_explicit(&waiting[word], ~bit, memory_order_acq_rel);
      if (was & bit) {
        int to = word * 64 + __builtin_ctzll(bit);
        dag__task_stamp_ready(w, t);
        atomic_store_explicit(&mailboxes[to].task, t, memory_order_release);
        return true;
      }
      mask &= ~bit; /* someone else claimed it, or it stopped waiting */
    }
  }
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
  fprintf(stderr,
          "dag: stats: ready to start, queued tasks: median %.2f us on the "
          "worker that made them ready (%llu), %.2f us on another (%llu)\n",
          m_same, (unsigned long long)same, m_other, (unsigned long long)other);
}
