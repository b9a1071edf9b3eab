/* copy_back.c — bringing to the host the bytes it lacks, each range from
 * the first device that holds it, for a host task, a wait or an eviction.
 */
#include "device/copies.h"

#include <stdlib.h>

void dag__copy_back(const struct ranges *r, const struct call *task) {
  atomic_long pending = 0;
  dag__copy_back_start(r, task, &pending);
  dag__copies_wait(&pending);
}

void dag__copy_back_whole(const struct region *r, holders_t h,
                          atomic_long *pending) {
  struct device *d = dag__device_of_bit((holders_t)(h & -h));
  struct ranges spans = {.mask = 0, .want = 0};
  dag__ranges_add_region(r, h, &spans);
  size_t n = dag__ranges_sort_join(spans.at, spans.n);
  dag__copies_ranges(
      &(struct copy_job){d, false, NULL, pending, NULL, NULL, NULL},
      dag__residency_known(d, r), spans.at, n);
  free(spans.at);
}

void dag__copy_back_start(const struct ranges *r, const struct call *task,
                          atomic_long *pending) {
  struct range *from = malloc((r->n ? r->n : 1) * sizeof *from);
  if (!from)
    dag__out_of_memory("a copy from a device");
  for (int k = 0; k < dag__ndevices; k++) {
    /* The ranges the host lacks that device k copies: it is their first
     * holder. */
    struct device *d = &dag__devices[k];
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
      holders_t h = r->at[i].holders;
      if (!(h & HOST) && (holders_t)(h & -h) == d->bit)
        from[n++] = r->at[i];
    }
    n = dag__ranges_sort_join(from, n);
    dag__copies_ranges(
        &(struct copy_job){d, false, task, pending, NULL, NULL, NULL}, NULL,
        from, n);
  }
  free(from);
}
