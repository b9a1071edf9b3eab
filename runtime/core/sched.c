/* sched.c — ready queues and idle workers: the mechanisms; which queue a
 * task goes to and which one a worker looks at next is the policy's
 * (policy.h).
 *
 * Each worker owns a bounded ring of ready tasks (after Go's run queues):
 * only the owner appends, at the tail; the owner and thieves consume at the
 * head with a compare-and-swap. A thief moves the older half of a victim's
 * ring into its own in one go. A full ring spills half of its tasks to the
 * shared injection list, through which threads that are not workers hand
 * tasks over too. Tasks with a priority wait in one shared heap.
 *
 * Idle workers sleep on a futex word `epoch`. A producer publishes its
 * task, then (after a full fence) wakes a sleeper if the sleeper count is
 * non-zero; a sleeper raises the count, then (after a full fence) looks for
 * work once more before sleeping on the epoch it read. One of the two
 * always sees the other, so no wake-up is lost.
 */
#include "core/policy.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ----------------------------------------------------------------- ring */

#define RING_SIZE 256 /* a power of two */
_Static_assert(THROTTLE_READY < RING_SIZE,
               "a submitter runs tasks inline before its ring spills");

/* The head word: the position of the oldest task in its low 32 bits, then a
 * lock bit, then a version. Consumers take from the head with a
 * compare-and-swap of the whole word. A thread that must look at a task
 * before deciding to take it (the owner at its tail, a waiting thread
 * peeking at a victim's head, see ring_pop_oldest_descendant) sets the lock
 * bit, which makes every other consumer's exchange fail, and clears it with a
 * new version: a consumer that read the slots before the lock cannot then
 * take what changed under it. */
#define HEAD_POS(h) ((uint32_t)(h))
#define HEAD_LOCKED ((uint64_t)1 << 32)
#define HEAD_VERSION ((uint64_t)1 << 33)

struct ring {
  /* Positions count up and wrap at 2^32; the ring size divides that. */
  _Alignas(DAG_CACHELINE) _Atomic uint64_t head; /* consumers */
  _Alignas(DAG_CACHELINE) _Atomic uint32_t tail; /* the owner */
  _Alignas(DAG_CACHELINE) _Atomic(struct task *) slot[RING_SIZE];
};

/* The head word moved on by n tasks, unlocked. */
static uint64_t head_advance(uint64_t h, uint32_t n) {
  return (h & ~(HEAD_LOCKED | UINT32_MAX)) | (uint32_t)(HEAD_POS(h) + n);
}

static uint32_t ring_size(struct ring *r) {
  uint32_t h = HEAD_POS(atomic_load_explicit(&r->head, memory_order_acquire));
  uint32_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
  return t - h;
}

/* Owner only. Returns false when the ring is full. */
static bool ring_push(struct ring *r, struct task *t) {
  uint32_t h = HEAD_POS(atomic_load_explicit(&r->head, memory_order_acquire));
  uint32_t tl = atomic_load_explicit(&r->tail, memory_order_relaxed);
  if (tl - h >= RING_SIZE)
    return false;
  atomic_store_explicit(&r->slot[tl % RING_SIZE], t, memory_order_relaxed);
  atomic_store_explicit(&r->tail, tl + 1, memory_order_release);
  return true;
}

/* Takes the oldest task; the owner or anyone. A locked ring reads as empty:
 * its lock is held for a few instructions, and callers look again. */
static struct task *ring_pop(struct ring *r) {
  uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
  for (;;) {
    uint32_t tl = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (HEAD_POS(h) == tl || (h & HEAD_LOCKED))
      return NULL;
    struct task *t = atomic_load_explicit(&r->slot[HEAD_POS(h) % RING_SIZE],
                                          memory_order_relaxed);
    if (atomic_compare_exchange_weak_explicit(&r->head, &h, head_advance(h, 1),
                                              memory_order_acq_rel,
                                              memory_order_acquire))
      return t;
  }
}

/* Takes the older half of r's tasks into out[], if it holds at least
 * `least`. Returns how many. A slot
 * read while the owner refills it belongs to a head that has moved on, so
 * the compare-and-swap then fails and we read again. */
static uint32_t ring_grab(struct ring *r, struct task **out, uint32_t least) {
  for (;;) {
    uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    uint32_t tl = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint32_t n = tl - HEAD_POS(h);
    if (n < least || n == 0 || (h & HEAD_LOCKED))
      return 0;
    n -= n / 2;
    if (n > RING_SIZE / 2)
      continue; /* head and tail read at different moments */
    for (uint32_t i = 0; i < n; i++)
      out[i] = atomic_load_explicit(&r->slot[(HEAD_POS(h) + i) % RING_SIZE],
                                    memory_order_relaxed);
    uint64_t expected = h;
    if (atomic_compare_exchange_strong_explicit(
            &r->head, &expected, head_advance(h, n), memory_order_acq_rel,
            memory_order_acquire))
      return n;
  }
}

/* Locks r's head against other consumers, if it holds a task and no one
 * else holds the lock. Returns whether it did; *h is then the head word as
 * it was. */
static bool ring_lock(struct ring *r, uint64_t *h) {
  *h = atomic_load_explicit(&r->head, memory_order_acquire);
  for (;;) {
    uint32_t tl = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (HEAD_POS(*h) == tl || (*h & HEAD_LOCKED))
      return false;
    if (atomic_compare_exchange_weak_explicit(&r->head, h, *h | HEAD_LOCKED,
                                              memory_order_acq_rel,
                                              memory_order_acquire))
      return true;
  }
}

/* Unlocks r's head, locked when it was h, with `taken` tasks gone from it,
 * under a new version. */
static void ring_unlock(struct ring *r, uint64_t h, uint32_t taken) {
  atomic_store_explicit(&r->head, head_advance(h + HEAD_VERSION, taken),
                        memory_order_release);
}

/* The owner takes its newest task if it descends from `ancestor`. */
static struct task *ring_pop_newest(struct ring *r,
                                    const struct task *ancestor) {
  uint64_t h;
  if (!ring_lock(r, &h))
    return NULL;
  uint32_t tl = atomic_load_explicit(&r->tail, memory_order_relaxed);
  struct task *t = atomic_load_explicit(&r->slot[(tl - 1) % RING_SIZE],
                                        memory_order_relaxed);
  bool take = dag__task_descends(t, ancestor);
  if (take)
    atomic_store_explicit(&r->tail, tl - 1, memory_order_relaxed);
  ring_unlock(r, h, 0); /* the release publishes the new tail */
  return take ? t : NULL;
}

/* Anyone takes the oldest of r's tasks that descends from `ancestor`,
 * wherever it is in the ring: a thread waiting inside a task must reach its
 * descendants even behind tasks it may not run (a thief's ring holds what
 * it took in one batch, descendants or not). Under the head lock the slots
 * from the head to the tail hold still (the owner only writes beyond the
 * tail), so the task is lifted out and the older ones shift up by one. */
static struct task *ring_pop_oldest_descendant(struct ring *r,
                                               const struct task *ancestor) {
  uint64_t h;
  if (!ring_lock(r, &h))
    return NULL;
  uint32_t head = HEAD_POS(h);
  uint32_t tl = atomic_load_explicit(&r->tail, memory_order_acquire);
  struct task *t = NULL;
  uint32_t at = head;
  for (; at != tl; at++) {
    t = atomic_load_explicit(&r->slot[at % RING_SIZE], memory_order_relaxed);
    if (dag__task_descends(t, ancestor))
      break;
  }
  if (at == tl) {
    ring_unlock(r, h, 0);
    return NULL;
  }
  for (; at != head; at--)
    atomic_store_explicit(&r->slot[at % RING_SIZE],
                          atomic_load_explicit(&r->slot[(at - 1) % RING_SIZE],
                                               memory_order_relaxed),
                          memory_order_relaxed);
  ring_unlock(r, h, 1);
  return t;
}

/* --------------------------------------------------- the priority heap */

static struct {
  pthread_mutex_t lock;
  struct task **items;
  size_t n, cap;
  atomic_size_t count; /* n, readable without the lock */
  atomic_int top_priority;
} heap = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool heap_before(const struct task *a, const struct task *b) {
  if (a->priority != b->priority)
    return a->priority > b->priority;
  return a->id < b->id;
}

static void heap_push(struct task *t) {
  pthread_mutex_lock(&heap.lock);
  if (heap.n == heap.cap) {
    size_t cap = heap.cap ? 2 * heap.cap : 64;
    struct task **items = realloc(heap.items, cap * sizeof *items);
    if (!items)
      dag__out_of_memory("the priority queue");
    heap.items = items;
    heap.cap = cap;
  }
  size_t i = heap.n++;
  while (i > 0 && heap_before(t, heap.items[(i - 1) / 2])) {
    heap.items[i] = heap.items[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  heap.items[i] = t;
  atomic_store_explicit(&heap.top_priority, heap.items[0]->priority,
                        memory_order_relaxed);
  atomic_store_explicit(&heap.count, heap.n, memory_order_seq_cst);
  pthread_mutex_unlock(&heap.lock);
}

/* Removes and returns the item at index i, with the lock held. */
static struct task *heap_take(size_t i) {
  struct task *taken = heap.items[i];
  struct task *last = heap.items[--heap.n];
  if (i < heap.n) {
    /* last goes into the hole: up if it beats the hole's parent, else
     * down. */
    while (i > 0 && heap_before(last, heap.items[(i - 1) / 2])) {
      heap.items[i] = heap.items[(i - 1) / 2];
      i = (i - 1) / 2;
    }
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= heap.n)
        break;
      if (c + 1 < heap.n && heap_before(heap.items[c + 1], heap.items[c]))
        c++;
      if (!heap_before(heap.items[c], last))
        break;
      heap.items[i] = heap.items[c];
      i = c;
    }
    heap.items[i] = last;
  }
  atomic_store_explicit(&heap.top_priority,
                        heap.n ? heap.items[0]->priority : INT_MIN,
                        memory_order_relaxed);
  atomic_store_explicit(&heap.count, heap.n, memory_order_relaxed);
  return taken;
}

/* Pops the best task if its priority is at least min_priority. */
struct task *dag__sched_take_priority(int min_priority) {
  if (atomic_load_explicit(&heap.count, memory_order_relaxed) == 0 ||
      atomic_load_explicit(&heap.top_priority, memory_order_relaxed) <
          min_priority)
    return NULL;
  pthread_mutex_lock(&heap.lock);
  struct task *best = NULL;
  if (heap.n > 0 && heap.items[0]->priority >= min_priority)
    best = heap_take(0);
  pthread_mutex_unlock(&heap.lock);
  return best;
}

/* Pops the best task that descends from `ancestor`, if any: a scan, for the
 * rare waiting task whose children have priorities. */
struct task *dag__sched_take_priority_descendant(const struct task *ancestor) {
  if (atomic_load_explicit(&heap.count, memory_order_relaxed) == 0)
    return NULL;
  pthread_mutex_lock(&heap.lock);
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < heap.n; i++)
    if ((best == SIZE_MAX || heap_before(heap.items[i], heap.items[best])) &&
        dag__task_descends(heap.items[i], ancestor))
      best = i;
  struct task *t = best == SIZE_MAX ? NULL : heap_take(best);
  pthread_mutex_unlock(&heap.lock);
  return t;
}

/* ----------------------------------------------------- injection list */

static struct {
  pthread_mutex_t lock;
  struct task *head, *tail;
  atomic_size_t count;
} inject = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void inject_push(struct task **tasks, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    tasks[i]->flags &= (uint16_t)~TASK_STAMPED; /* link overwrites `ready` */
  for (uint32_t i = 0; i + 1 < n; i++)
    tasks[i]->link = tasks[i + 1];
  tasks[n - 1]->link = NULL;
  pthread_mutex_lock(&inject.lock);
  if (inject.tail)
    inject.tail->link = tasks[0];
  else
    inject.head = tasks[0];
  inject.tail = tasks[n - 1];
  atomic_fetch_add_explicit(&inject.count, n, memory_order_seq_cst);
  pthread_mutex_unlock(&inject.lock);
}

/* Takes the oldest task that descends from `ancestor` (a scan), or with
 * ancestor NULL the oldest task. */
struct task *dag__sched_take_injected(const struct task *ancestor) {
  if (atomic_load_explicit(&inject.count, memory_order_relaxed) == 0)
    return NULL;
  pthread_mutex_lock(&inject.lock);
  struct task *prev = NULL, *t = inject.head;
  while (ancestor && t && !dag__task_descends(t, ancestor)) {
    prev = t;
    t = t->link;
  }
  if (t) {
    *(prev ? &prev->link : &inject.head) = t->link;
    if (inject.tail == t)
      inject.tail = prev;
    atomic_fetch_sub_explicit(&inject.count, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&inject.lock);
  return t;
}

/* ------------------------------------------------------------ sleeping */

static struct {
  _Alignas(DAG_CACHELINE) atomic_uint epoch; /* futex word */
  _Alignas(DAG_CACHELINE) atomic_int sleepers;
  /* Threads waiting in a help loop sleep on a word of their own, so that a
   * wake-up meant for an idle worker never lands on a waiter that may not
   * run the task (one inside a task body runs only its descendants). */
  _Alignas(DAG_CACHELINE) atomic_uint doze_epoch;
  _Alignas(DAG_CACHELINE) atomic_int dozers;
} idle;

static struct ring *rings;
static int nrings;

/* Sleeps while *word is seen, up to `ns` (0: no limit) or a wake-up. */
static void futex_wait(atomic_uint *word, unsigned seen, uint64_t ns) {
  struct timespec limit = {(time_t)(ns / 1000000000u),
                           (long)(ns % 1000000000u)};
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, ns ? &limit : NULL, NULL,
          0);
}

static void futex_wake(atomic_uint *word, int n) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* A full fence. ThreadSanitizer does not model fences, so there a
 * read-modify-write of the sleeper count (same ordering, dearer) stands in
 * for it. */
static void full_fence(void) {
#if defined(__SANITIZE_THREAD__)
  atomic_fetch_add_explicit(&idle.sleepers, 0, memory_order_seq_cst);
#else
  atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* The sleeper count, read after the task just published. */
static int sleepers_after_fence(void) {
  full_fence();
  return atomic_load_explicit(&idle.sleepers, memory_order_seq_cst);
}

static void wake_dozers(void) {
  atomic_fetch_add_explicit(&idle.doze_epoch, 1, memory_order_seq_cst);
  futex_wake(&idle.doze_epoch, INT_MAX);
}

/* New work: an idle worker takes it; with none asleep, a waiter that dozes
 * may (the program's thread in a taskwait, when it is the only worker). */
static void wake_one_if_sleeping(void) {
  if (sleepers_after_fence() > 0) {
    atomic_fetch_add_explicit(&idle.epoch, 1, memory_order_seq_cst);
    futex_wake(&idle.epoch, 1);
  } else if (atomic_load_explicit(&idle.dozers, memory_order_seq_cst) > 0) {
    wake_dozers();
  }
}

void dag__sched_wake_all(void) {
  atomic_fetch_add_explicit(&idle.epoch, 1, memory_order_seq_cst);
  futex_wake(&idle.epoch, INT_MAX);
}

static bool work_visible(void) {
  if (atomic_load_explicit(&heap.count, memory_order_seq_cst) ||
      atomic_load_explicit(&inject.count, memory_order_seq_cst))
    return true;
  for (int i = 0; i < nrings; i++)
    if (ring_size(&rings[i]))
      return true;
  return false;
}

void dag__sched_idle(struct worker *w, const atomic_bool *stop) {
  atomic_fetch_add_explicit(&idle.sleepers, 1, memory_order_seq_cst);
  full_fence(); /* the count is visible before we look at the queues */
  unsigned seen = atomic_load_explicit(&idle.epoch, memory_order_seq_cst);
  if (!work_visible() && !atomic_load(stop)) {
    w->stats.sleeps++;
    futex_wait(&idle.epoch, seen, 0);
  }
  atomic_fetch_sub_explicit(&idle.sleepers, 1, memory_order_seq_cst);
}

void dag__sched_doze(uint64_t ns, bool any_task, bool (*cond)(void *),
                     void *arg) {
  atomic_fetch_add_explicit(&idle.dozers, 1, memory_order_seq_cst);
  full_fence();
  /* cond and the queues are looked at once nudgers and producers can see
   * this dozer: either it sees the change, or they see it and move the
   * epoch. */
  unsigned seen = atomic_load_explicit(&idle.doze_epoch, memory_order_seq_cst);
  if (!(any_task && work_visible()) && cond(arg))
    futex_wait(&idle.doze_epoch, seen, ns);
  atomic_fetch_sub_explicit(&idle.dozers, 1, memory_order_seq_cst);
}

void dag__sched_nudge(void) {
  full_fence(); /* the change the waiter looks for, before the count */
  if (atomic_load_explicit(&idle.dozers, memory_order_seq_cst) > 0)
    wake_dozers();
}

/* ------------------------------------------------------------- the API */

int dag__sched_init(int nworkers) {
  rings = aligned_alloc(DAG_CACHELINE, (size_t)nworkers * sizeof *rings);
  if (!rings)
    return DAG_ENOMEM;
  nrings = nworkers;
  for (int i = 0; i < nworkers; i++) {
    atomic_init(&rings[i].head, 0);
    atomic_init(&rings[i].tail, 0);
  }
  atomic_store(&heap.top_priority, INT_MIN);
  if (dag__handoff_init(nworkers)) {
    free(rings);
    return DAG_ENOMEM;
  }
  return 0;
}

void dag__sched_release(void) {
  dag__handoff_release();
  free(rings);
  rings = NULL;
  nrings = 0;
  free(heap.items);
  heap.items = NULL;
  heap.n = heap.cap = 0;
  atomic_store(&heap.count, 0);
}

struct ring *dag__sched_queue(int worker_id) {
  return &rings[worker_id];
}

/* w's ring is full: move its older half and t to the injection list. */
static void spill(struct worker *w, struct task *t) {
  struct task *batch[RING_SIZE / 2 + 1];
  uint32_t n = ring_grab(w->queue, batch, 1);
  batch[n++] = t;
  inject_push(batch, n);
}

void dag__sched_push(struct worker *w, struct task *t) {
  dag__task_stamp_ready(w, t);
  switch (policy_queue_for(w, t)) {
  case QUEUE_PRIORITY:
    heap_push(t);
    break;
  case QUEUE_INJECTION:
    inject_push(&t, 1);
    break;
  case QUEUE_OWN_RING:
    if (!ring_push(w->queue, t))
      spill(w, t);
    break;
  }
  wake_one_if_sleeping();
}

bool dag__sched_urgent(void) {
  return atomic_load_explicit(&heap.count, memory_order_relaxed) &&
         atomic_load_explicit(&heap.top_priority, memory_order_relaxed) > 0;
}

size_t dag__sched_local_size(struct worker *w) { return ring_size(w->queue); }

struct task *dag__sched_take_own(struct worker *w) {
  return ring_pop(w->queue);
}

struct task *dag__sched_take_own_newest(struct worker *w,
                                        const struct task *ancestor) {
  return ring_pop_newest(w->queue, ancestor);
}

/* xorshift: thieves start at a random victim so that they spread out. */
static uint32_t next_random(struct worker *w) {
  w->rng ^= w->rng << 13;
  w->rng ^= w->rng >> 17;
  w->rng ^= w->rng << 5;
  return w->rng;
}

/* Runs the first task taken, keeps the rest in w's own ring. That ring is
 * empty, since w found nothing there, unless a waiting thread held its head
 * locked for a moment (a locked ring reads as empty): what does not fit
 * then goes to the injection list. */
struct task *dag__sched_steal(struct worker *w, uint32_t least) {
  int start = (int)(next_random(w) % (uint32_t)nrings);
  struct task *batch[RING_SIZE / 2];
  for (int k = 0; k < nrings; k++) {
    struct ring *victim = &rings[(start + k) % nrings];
    if (victim == w->queue)
      continue;
    uint32_t n = ring_grab(victim, batch, least);
    if (n == 0)
      continue;
    w->stats.steals++;
    w->stats.stolen += n;
    for (uint32_t i = 1; i < n; i++)
      if (!ring_push(w->queue, batch[i])) {
        inject_push(&batch[i], n - i);
        break;
      }
    return batch[0];
  }
  return NULL;
}

/* One look at each victim's ring, from a random one on. */
struct task *dag__sched_steal_descendant(struct worker *w,
                                         const struct task *ancestor) {
  int start = (int)(next_random(w) % (uint32_t)nrings);
  for (int k = 0; k < nrings; k++) {
    struct ring *victim = &rings[(start + k) % nrings];
    struct task *t;
    if (victim != w->queue &&
        (t = ring_pop_oldest_descendant(victim, ancestor))) {
      w->stats.steals++;
      w->stats.stolen++;
      return t;
    }
  }
  return NULL;
}
