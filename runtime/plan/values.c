/* values.c — DAG_CHECK_UNIFORMITY=values: after a taskwait's flush, every
 * rank must hold the same bytes in the replicated memory that tasks
 * accessed since the previous taskwait.
 *
 * The uniformity check compares what ranks submitted, not what tasks did:
 * a task that writes data no item declares changes it on the rank that ran
 * it only, and a later task reading that data on another rank computes with
 * the old value. Here the ranks compare one hash of all those bytes (one
 * collective); on a difference, a binary search over the units, then over
 * the bytes of the first unit that differs (one collective per step), finds
 * the first byte that differs, and every rank names it with the last task
 * that declared writing the unit before the run stops.
 */
#include "plan/planner.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull; /* FNV-1a */
  return h;
}

#define HASH_START 14695981039346656037ull

/* The first byte of unit w that differs between ranks (they agree that
 * one does): a binary search over the hashes of its prefixes. */
static size_t first_byte_differing(const struct watched *w, uint64_t *all) {
  const unsigned char *p = (const unsigned char *)w->lo;
  size_t lo = 0, hi = w->hi - w->lo - 1;
  while (lo < hi) { /* the first differing byte is in [lo, hi] */
    size_t mid = lo + (hi - lo) / 2;
    if (dag__ranks_agree(hash_bytes(HASH_START, p, mid + 1), all))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void name_writer(char *buf, size_t size, const struct task_site *s) {
  if (!s->number) {
    snprintf(buf, size, "which no task declares writing");
    return;
  }
  char name[256];
  dag__task_name(name, sizeof name, s->label, s->file, s->line);
  snprintf(buf, size, "last written by task %llu '%s' (%s:%d)",
           (unsigned long long)s->number, name, s->file ? s->file : "?",
           s->line);
}

void dag__values_check(const struct watched *w, size_t n) {
  uint64_t *all = malloc((size_t)dag__nranks * sizeof *all);
  uint64_t *prefix = malloc((n + 1) * sizeof *prefix);
  if (!all || !prefix)
    dag__out_of_memory("the values check");
  prefix[0] = HASH_START ^ n;
  for (size_t i = 0; i < n; i++)
    prefix[i + 1] = hash_bytes(prefix[i], (const unsigned char *)w[i].lo,
                               w[i].hi - w[i].lo);
  if (dag__ranks_agree(prefix[n], all)) {
    free(prefix);
    free(all);
    return;
  }
  if (!n) { /* the uniformity check makes this unlikely */
    dag__log(DAG_LOG_ERROR,
             "the ranks hold different values at this taskwait: rank %d "
             "holds no replicated memory that tasks used, and others do",
             dag__rank);
    dag__ranks_stop(all);
  }
  size_t lo = 0, hi = n - 1; /* the first unit that differs is in [lo, hi] */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (dag__ranks_agree(prefix[mid + 1], all))
      lo = mid + 1;
    else
      hi = mid;
  }
  const struct watched *u = &w[lo];
  size_t byte = first_byte_differing(u, all);
  char writer[400];
  name_writer(writer, sizeof writer, &u->writer);
  dag__log(DAG_LOG_ERROR,
           "the ranks hold different values at this taskwait: on rank %d "
           "the first byte that differs is byte %zu (value 0x%02x) of the "
           "%zu bytes of replicated memory at %p, %s",
           dag__rank, byte, ((const unsigned char *)u->lo)[byte],
           (size_t)(u->hi - u->lo), (void *)u->lo, writer);
  free(prefix);
  dag__ranks_stop(all);
}
