/* sched.c — ready queues and idle workers.
 *
 * Each worker owns a Chase-Lev deque: it pushes and pops at the bottom
 * (newest first, for locality), thieves take from the top (oldest first).
 * Tasks with a non-zero priority go to one shared heap instead, ordered by
 * priority then submission; positive priorities are served before the
 * deques, negative ones only when nothing else is ready. Threads that are
 * not workers hand tasks over through a shared injection list.
 *
 * Idle workers spin briefly, then sleep on a futex word `epoch`. A producer
 * publishes its task, then (after a full fence) wakes a sleeper if the
 * sleeper count is non-zero; a sleeper raises the count, then (after a full
 * fence) looks for work once more before sleeping on the epoch it read.
 * One of the two always sees the other, so no wake-up is lost.
 *
 * Memory orders follow Lê et al., "Correct and Efficient Work-Stealing for
 * Weak Memory Models" (PPoPP 2013), with the fences folded into seq_cst
 * accesses so that ThreadSanitizer understands them.
 */
#include "internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---------------------------------------------------------------- deque */

struct deque_array {
  int64_t size;              /* a power of two */
  struct deque_array *older; /* kept until release: thieves may read it */
  _Atomic(struct task *) slot[];
};

struct deque {
  _Alignas(DAG_CACHELINE) atomic_int_fast64_t top;
  _Alignas(DAG_CACHELINE) atomic_int_fast64_t bottom;
  _Atomic(struct deque_array *) array;
};

static struct deque_array *array_new(int64_t size) {
  struct deque_array *a =
      malloc(sizeof *a + (size_t)size * sizeof(_Atomic(struct task *)));
  if (!a)
    dag__out_of_memory("ready queues");
  a->size = size;
  a->older = NULL;
  return a;
}

static void deque_init(struct deque *q) {
  atomic_init(&q->top, 0);
  atomic_init(&q->bottom, 0);
  atomic_init(&q->array, array_new(256));
}

static void deque_release(struct deque *q) {
  struct deque_array *a = atomic_load(&q->array);
  while (a) {
    struct deque_array *older = a->older;
    free(a);
    a = older;
  }
}

static void deque_push(struct deque *q, struct task *t) {
  int64_t b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
  int64_t top = atomic_load_explicit(&q->top, memory_order_acquire);
  struct deque_array *a = atomic_load_explicit(&q->array, memory_order_relaxed);
  if (b - top > a->size - 1) {
    struct deque_array *grown = array_new(2 * a->size);
    for (int64_t i = top; i < b; i++)
      atomic_store_explicit(&grown->slot[i & (grown->size - 1)],
                            atomic_load_explicit(&a->slot[i & (a->size - 1)],
                                                 memory_order_relaxed),
                            memory_order_relaxed);
    grown->older = a;
    atomic_store_explicit(&q->array, grown, memory_order_release);
    a = grown;
  }
  atomic_store_explicit(&a->slot[b & (a->size - 1)], t, memory_order_relaxed);
  atomic_store_explicit(&q->bottom, b + 1, memory_order_release);
}

static struct task *deque_take(struct deque *q) {
  int64_t b = atomic_load_explicit(&q->bottom, memory_order_relaxed) - 1;
  struct deque_array *a = atomic_load_explicit(&q->array, memory_order_relaxed);
  atomic_store_explicit(&q->bottom, b, memory_order_seq_cst);
  int64_t top = atomic_load_explicit(&q->top, memory_order_seq_cst);
  if (top > b) {
    atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
    return NULL;
  }
  struct task *t =
      atomic_load_explicit(&a->slot[b & (a->size - 1)], memory_order_relaxed);
  if (top == b) {
    /* The last one: race the thieves for it. */
    if (!atomic_compare_exchange_strong_explicit(
            &q->top, &top, top + 1, memory_order_seq_cst, memory_order_relaxed))
      t = NULL;
    atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
  }
  return t;
}

static struct task *deque_steal(struct deque *q) {
  int64_t top = atomic_load_explicit(&q->top, memory_order_seq_cst);
  int64_t b = atomic_load_explicit(&q->bottom, memory_order_seq_cst);
  if (top >= b)
    return NULL;
  struct deque_array *a = atomic_load_explicit(&q->array, memory_order_acquire);
  struct task *t =
      atomic_load_explicit(&a->slot[top & (a->size - 1)], memory_order_relaxed);
  if (!atomic_compare_exchange_strong_explicit(
          &q->top, &top, top + 1, memory_order_seq_cst, memory_order_relaxed))
    return NULL; /* lost the race; the caller moves on */
  return t;
}

static int64_t deque_size(struct deque *q) {
  int64_t b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
  int64_t top = atomic_load_explicit(&q->top, memory_order_relaxed);
  return b > top ? b - top : 0;
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

/* Pops the best task if its priority is at least min_priority. */
static struct task *heap_pop(int min_priority) {
  if (atomic_load_explicit(&heap.count, memory_order_relaxed) == 0 ||
      atomic_load_explicit(&heap.top_priority, memory_order_relaxed) <
          min_priority)
    return NULL;
  pthread_mutex_lock(&heap.lock);
  struct task *best = NULL;
  if (heap.n > 0 && heap.items[0]->priority >= min_priority) {
    best = heap.items[0];
    struct task *last = heap.items[--heap.n];
    size_t i = 0;
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
    if (heap.n > 0)
      heap.items[i] = last;
    atomic_store_explicit(&heap.top_priority,
                          heap.n ? heap.items[0]->priority : INT_MIN,
                          memory_order_relaxed);
    atomic_store_explicit(&heap.count, heap.n, memory_order_relaxed);
  }
  pthread_mutex_unlock(&heap.lock);
  return best;
}

/* ----------------------------------------------------- injection list */

static struct {
  pthread_mutex_t lock;
  struct task *head, *tail;
  atomic_size_t count;
} inject = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void inject_push(struct task *t) {
  pthread_mutex_lock(&inject.lock);
  t->link = NULL;
  if (inject.tail)
    inject.tail->link = t;
  else
    inject.head = t;
  inject.tail = t;
  atomic_fetch_add_explicit(&inject.count, 1, memory_order_seq_cst);
  pthread_mutex_unlock(&inject.lock);
}

static struct task *inject_pop(void) {
  if (atomic_load_explicit(&inject.count, memory_order_relaxed) == 0)
    return NULL;
  pthread_mutex_lock(&inject.lock);
  struct task *t = inject.head;
  if (t) {
    inject.head = t->link;
    if (!inject.head)
      inject.tail = NULL;
    atomic_fetch_sub_explicit(&inject.count, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&inject.lock);
  return t;
}

/* ------------------------------------------------------------ sleeping */

static struct {
  _Alignas(DAG_CACHELINE) atomic_uint epoch; /* futex word */
  _Alignas(DAG_CACHELINE) atomic_int sleepers;
} idle;

static struct deque *deques;
static int ndeques;

static void futex_wait(atomic_uint *word, unsigned seen) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word, int n) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* The full fence between publishing a task and reading the sleeper count.
 * ThreadSanitizer does not model fences, so there a read-modify-write of
 * the count (same ordering, dearer) stands in for it. */
static int sleepers_after_fence(void) {
#if defined(__SANITIZE_THREAD__)
  return atomic_fetch_add_explicit(&idle.sleepers, 0, memory_order_seq_cst);
#else
  atomic_thread_fence(memory_order_seq_cst);
  return atomic_load_explicit(&idle.sleepers, memory_order_seq_cst);
#endif
}

static void wake_one_if_sleeping(void) {
  if (sleepers_after_fence() > 0) {
    atomic_fetch_add_explicit(&idle.epoch, 1, memory_order_seq_cst);
    futex_wake(&idle.epoch, 1);
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
  for (int i = 0; i < ndeques; i++)
    if (atomic_load_explicit(&deques[i].bottom, memory_order_seq_cst) >
        atomic_load_explicit(&deques[i].top, memory_order_seq_cst))
      return true;
  return false;
}

void dag__sched_idle(struct worker *w, const atomic_bool *stop) {
  atomic_fetch_add_explicit(&idle.sleepers, 1, memory_order_seq_cst);
  unsigned seen = atomic_load_explicit(&idle.epoch, memory_order_seq_cst);
  if (!work_visible() && !atomic_load(stop)) {
    w->stats.sleeps++;
    futex_wait(&idle.epoch, seen);
  }
  atomic_fetch_sub_explicit(&idle.sleepers, 1, memory_order_seq_cst);
}

/* ------------------------------------------------------------- the API */

int dag__sched_init(int nworkers) {
  deques = calloc((size_t)nworkers, sizeof *deques);
  if (!deques)
    return DAG_ENOMEM;
  ndeques = nworkers;
  for (int i = 0; i < nworkers; i++)
    deque_init(&deques[i]);
  atomic_store(&heap.top_priority, INT_MIN);
  return 0;
}

void dag__sched_release(void) {
  for (int i = 0; i < ndeques; i++)
    deque_release(&deques[i]);
  free(deques);
  deques = NULL;
  ndeques = 0;
  free(heap.items);
  heap.items = NULL;
  heap.n = heap.cap = 0;
  atomic_store(&heap.count, 0);
}

struct deque *dag__sched_deque(int worker_id) {
  return &deques[worker_id];
}

void dag__sched_push(struct worker *w, struct task *t) {
  if (t->priority != 0)
    heap_push(t);
  else if (w)
    deque_push(w->deque, t);
  else
    inject_push(t);
  wake_one_if_sleeping();
}

size_t dag__sched_local_size(struct worker *w) {
  return (size_t)deque_size(w->deque);
}

static struct task *steal(struct worker *w) {
  /* xorshift: start at a random victim so thieves spread out. */
  w->rng ^= w->rng << 13;
  w->rng ^= w->rng >> 17;
  w->rng ^= w->rng << 5;
  int start = (int)(w->rng % (uint32_t)ndeques);
  for (int k = 0; k < ndeques; k++) {
    struct deque *victim = &deques[(start + k) % ndeques];
    if (victim == w->deque)
      continue;
    struct task *t = deque_steal(victim);
    if (t) {
      w->stats.steals++;
      return t;
    }
  }
  return NULL;
}

struct task *dag__sched_pop(struct worker *w) {
  struct task *t;
  if ((t = heap_pop(1)) || (t = deque_take(w->deque)) || (t = inject_pop()) ||
      (t = steal(w)) || (t = heap_pop(INT_MIN)))
    return t;
  return NULL;
}
