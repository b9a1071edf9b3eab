/* residency.h — device memory as a cache of host memory in the host's
 * layout (residency.c): windows of device addresses that mirror host
 * ranges, backed granule by granule. Under the devices' lock.
 */
#ifndef DAG_DEVICE_RESIDENCY_H
#define DAG_DEVICE_RESIDENCY_H

#include "device/devices.h"

/* A device address range that mirrors host range [lo, hi) (granule
 * aligned) at `at`: host byte x is at at + (x - lo) there. Windows may
 * overlap; a granule of device memory is mapped into each window that
 * covers it and needed it. */
struct window {
  uintptr_t lo, hi;
  char *at;
  uint64_t *mapped; /* a bit per granule of the window */
  atomic_int pins;  /* direct sends reading it: its granules stay */
};

/* A window of d covering [lo, hi) (made if there is none). */
struct window *dag__residency_window(struct device *d, uintptr_t lo,
                                     uintptr_t hi);
/* Windows w[0..n) where the n regions of a task live on d, every granule
 * they touch backed with device memory, evicting granules that the task
 * does not use when the device is full (their data written back first).
 * Returns 0; DAG_ENOMEM when even that leaves no room for region
 * *failed; or the error of a device that failed to allocate (its reason in
 * dag_last_error()). */
int dag__residency_back_task(struct device *d, const struct region *regs,
                             uint32_t n, struct window **w, uint32_t *failed);
/* The window where every granule of r is known to be mapped (it was
 * backed whole, and nothing was evicted since), or NULL. */
struct window *dag__residency_known(const struct device *d,
                                    const struct region *r);
/* Of the windows that map host byte x's granule, the one that maps the
 * longest prefix of [x, *hi) whole; *hi becomes that prefix's end. */
struct window *dag__residency_mapping(struct device *d, uintptr_t x,
                                      uintptr_t *hi);
/* Whether w maps every granule of [lo, hi). */
bool dag__residency_maps(const struct device *d, const struct window *w,
                         uintptr_t lo, uintptr_t hi);
/* Frees all of d's memory (nothing may be queued). */
void dag__residency_release(struct device *d);

static inline char *dag__window_address(const struct window *w, uintptr_t x) {
  return w->at + (x - w->lo);
}

#endif /* DAG_DEVICE_RESIDENCY_H */
