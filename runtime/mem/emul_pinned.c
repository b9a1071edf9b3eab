/* emul_pinned.c — the host memory the emulated device treats as
 * page-locked: its staging buffers (host_alloc) and what the device layer
 * registers (host_register), for every emulated device of the process, as
 * a GPU's portable registrations are.
 *
 * What it changes: in timed mode a copy whose host side is not page-locked
 * goes at the model's pageable rate, as a GPU's driver stages it through a
 * buffer of its own; and, as CUDA refuses it, registering memory that
 * overlaps a registration is an error. A copy queued from page-locked memory
 * that is no longer so when it runs (unregistered while in flight, which
 * the device layer must never let happen) fails, where a GPU would have
 * moved bytes of pages that may be gone.
 */
#include "mem/emul.h"

#include <stdlib.h>
#include <string.h>

struct pinned_range {
  uintptr_t lo, hi;
};

static struct pinned_range *pinned; /* disjoint, by address */
static size_t npinned, pinned_cap;
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

/* The first range whose end is past lo. Under pinned_lock. */
static size_t first_ending_after(uintptr_t lo) {
  size_t a = 0, b = npinned;
  while (a < b) {
    size_t m = (a + b) / 2;
    if (pinned[m].hi <= lo)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

int dag__emul_pin(void *p, size_t bytes) {
  uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
  pthread_mutex_lock(&pinned_lock);
  size_t i = first_ending_after(lo);
  if (i < npinned && pinned[i].lo < hi) {
    pthread_mutex_unlock(&pinned_lock);
    return dag__error_note(DAG_EINVAL,
                           "host memory %p..%p is page-locked already "
                           "(registered twice?)",
                           p, (void *)hi);
  }
  pinned = dag__grow(pinned, &pinned_cap, npinned + 1, sizeof *pinned,
                     "the emulated device's page-locked memory");
  memmove(&pinned[i + 1], &pinned[i], (npinned - i) * sizeof *pinned);
  pinned[i] = (struct pinned_range){lo, hi};
  npinned++;
  pthread_mutex_unlock(&pinned_lock);
  return 0;
}

void dag__emul_unpin(void *p) {
  uintptr_t lo = (uintptr_t)p;
  pthread_mutex_lock(&pinned_lock);
  size_t i = first_ending_after(lo);
  if (i == npinned || pinned[i].lo != lo)
    DAG_BUG("the emulated device unpins %p, which it never pinned", p);
  memmove(&pinned[i], &pinned[i + 1], (npinned - i - 1) * sizeof *pinned);
  if (--npinned == 0) {
    free(pinned);
    pinned = NULL;
    pinned_cap = 0;
  }
  pthread_mutex_unlock(&pinned_lock);
}

bool dag__emul_pinned(const void *p, size_t bytes) {
  uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
  pthread_mutex_lock(&pinned_lock);
  size_t i = first_ending_after(lo);
  bool in = i < npinned && pinned[i].lo <= lo && hi <= pinned[i].hi;
  pthread_mutex_unlock(&pinned_lock);
  return in;
}
