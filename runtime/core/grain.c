/* grain.c — how long the bodies of each function take, so that the policy
 * can run tiny ones inline (policy.h, 5). Each function keeps the mean of
 * its first GRAIN_MIN_SAMPLES samples, then a moving average.
 *
 * Locking: a fixed open-addressing table of atomics. A slot is claimed once
 * with a compare-and-swap and never freed; racing updates of an average may
 * lose a sample, which does not matter.
 */
#include "core/policy.h"

#define GRAIN_SLOTS 256 /* a power of two */
#define GRAIN_PROBES 8

struct grain_slot {
  _Atomic(uintptr_t) fn;
  atomic_uint avg_ns;
  atomic_uint samples;
  atomic_bool tiny; /* the answer of dag__grain_tiny, kept by each note */
};

static struct grain_slot slots[GRAIN_SLOTS];

/* Fibonacci hashing: the top bits of the product mix all of fn's. */
static unsigned hash(uintptr_t fn) {
  return (unsigned)(((uint64_t)fn * 0x9e3779b97f4a7c15ull) >> 56) % GRAIN_SLOTS;
}

/* fn's slot; with claim, takes a free one for it. NULL if none. */
static struct grain_slot *slot_of(dag_task_fn fn, bool claim) {
  uintptr_t key = (uintptr_t)fn;
  unsigned h = hash(key);
  for (unsigned i = 0; i < GRAIN_PROBES; i++) {
    struct grain_slot *s = &slots[(h + i) % GRAIN_SLOTS];
    uintptr_t cur = atomic_load_explicit(&s->fn, memory_order_acquire);
    if (cur == key)
      return s;
    if (cur == 0 && claim &&
        (atomic_compare_exchange_strong(&s->fn, &cur, key) || cur == key))
      return s;
  }
  return NULL;
}

void dag__grain_note(dag_task_fn fn, uint64_t ns) {
  struct grain_slot *s = slot_of(fn, true);
  if (!s)
    return;
  unsigned sample = ns > UINT32_MAX ? UINT32_MAX : (unsigned)ns;
  unsigned n = atomic_load_explicit(&s->samples, memory_order_relaxed);
  unsigned avg = atomic_load_explicit(&s->avg_ns, memory_order_relaxed);
  /* The mean of the first samples, then a moving average (weight 1/8). */
  unsigned next = n < GRAIN_MIN_SAMPLES
                      ? (unsigned)(((uint64_t)avg * n + sample) / (n + 1))
                      : (unsigned)(((uint64_t)avg * 7 + sample) / 8);
  atomic_store_explicit(&s->avg_ns, next, memory_order_relaxed);
  if (n < UINT32_MAX)
    atomic_store_explicit(&s->samples, n + 1, memory_order_relaxed);
  atomic_store_explicit(&s->tiny, policy_tiny(next, n + 1),
                        memory_order_relaxed);
}

bool dag__grain_tiny(dag_task_fn fn) {
  struct grain_slot *s = slot_of(fn, false);
  return s && atomic_load_explicit(&s->tiny, memory_order_relaxed);
}
