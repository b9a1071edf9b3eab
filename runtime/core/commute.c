/* commute.c — mutual exclusion of commutative tasks.
 *
 * Commutative tasks on overlapping data are not ordered by edges; instead
 * each holds the locks of the commutative regions it touches while its body
 * runs. A task takes all its locks at once, in address order, without
 * waiting: if one is busy it releases what it took and parks on the busy
 * lock, and the lock's release puts it back on a ready queue. No worker ever
 * blocks, and no two tasks deadlock.
 *
 * Locking: `held` is the lock itself; `guard` is a spin lock that protects
 * the parked list. A parker checks `held` under the guard and a releaser
 * clears `held` before taking the guard, so no wake-up is lost.
 */
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

struct commute_lock {
  atomic_bool held;
  atomic_flag guard;
  atomic_int refs;
  struct task *parked; /* chained by task->link */
};

const size_t dag__lock_size = sizeof(struct commute_lock);

struct lock_set {
  uint32_t n, cap;
  struct commute_lock *locks[]; /* sorted by address */
};

struct commute_lock *dag__lock_new(void) {
  struct commute_lock *l = dag__pool_get(POOL_LOCK);
  if (!l)
    dag__out_of_memory("commutative locks");
  atomic_init(&l->held, false);
  atomic_flag_clear(&l->guard);
  atomic_init(&l->refs, 1);
  l->parked = NULL;
  return l;
}

void dag__lock_ref(struct commute_lock *l) {
  atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
}

void dag__lock_unref(struct commute_lock *l) {
  if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
    dag__pool_put(POOL_LOCK, l);
}

static size_t set_bytes(uint32_t cap) {
  return sizeof(struct lock_set) + cap * sizeof(struct commute_lock *);
}

void dag__task_add_lock(struct task *t, struct commute_lock *l) {
  struct lock_set *s = t->locks;
  uint32_t pos = 0;
  if (s) {
    while (pos < s->n && (uintptr_t)s->locks[pos] < (uintptr_t)l)
      pos++;
    if (pos < s->n && s->locks[pos] == l)
      return;
  }
  if (!s || s->n == s->cap) {
    uint32_t cap = s ? 2 * s->cap : 4;
    struct lock_set *grown = dag__args_alloc(set_bytes(cap));
    if (!grown)
      dag__out_of_memory("commutative locks");
    grown->n = s ? s->n : 0;
    grown->cap = cap;
    if (s) {
      memcpy(grown->locks, s->locks, s->n * sizeof s->locks[0]);
      dag__args_free(s, set_bytes(s->cap));
    }
    t->locks = s = grown;
  }
  memmove(&s->locks[pos + 1], &s->locks[pos],
          (s->n - pos) * sizeof s->locks[0]);
  s->locks[pos] = l;
  s->n++;
  dag__lock_ref(l);
}

void dag__task_free_locks(struct task *t) {
  struct lock_set *s = t->locks;
  if (!s)
    return;
  for (uint32_t i = 0; i < s->n; i++)
    dag__lock_unref(s->locks[i]);
  dag__args_free(s, set_bytes(s->cap));
  t->locks = NULL;
}

static void spin_lock(atomic_flag *f) {
  while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
    ;
}

static void spin_unlock(atomic_flag *f) {
  atomic_flag_clear_explicit(f, memory_order_release);
}

/* Releases l and makes ready every task parked on it. */
static void release(struct commute_lock *l) {
  atomic_store_explicit(&l->held, false, memory_order_seq_cst);
  spin_lock(&l->guard);
  struct task *parked = l->parked;
  l->parked = NULL;
  spin_unlock(&l->guard);
  struct worker *w = dag__self();
  while (parked) {
    struct task *next = parked->link;
    dag__sched_push(w, parked);
    parked = next;
  }
}

/* Parks t on l unless l was released meanwhile. Returns whether parked. */
static bool park(struct commute_lock *l, struct task *t) {
  spin_lock(&l->guard);
  bool busy = atomic_load_explicit(&l->held, memory_order_seq_cst);
  if (busy) {
    t->link = l->parked;
    l->parked = t;
  }
  spin_unlock(&l->guard);
  return busy;
}

bool dag__task_try_lock(struct task *t) {
  struct lock_set *s = t->locks;
  for (;;) {
    uint32_t i = 0;
    while (i < s->n && !atomic_exchange_explicit(&s->locks[i]->held, true,
                                                 memory_order_acquire))
      i++;
    if (i == s->n)
      return true;
    struct commute_lock *busy = s->locks[i];
    while (i-- > 0)
      release(s->locks[i]);
    if (park(busy, t))
      return false;
    /* Released between our attempt and parking: try again. */
  }
}

void dag__task_unlock(struct task *t) {
  struct lock_set *s = t->locks;
  for (uint32_t i = 0; i < s->n; i++)
    release(s->locks[i]);
}
