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
 * the first and the last byte that differ, and every rank names them,
 * with the access that first named the memory and the last task that
 * declared writing it, before the run stops.
 *
 * It reads only memory that is mapped: an item may name bytes no array
 * holds (a token, as OpenMP ports keep them), and the check names such an
 * item instead of crashing on it.
 */
#include "plan/planner.h"

#include <inttypes.h>
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

/* The last byte of w that differs, from `first` on: over the hashes of
 * its suffixes. */
static size_t last_byte_differing(const struct watched *w, size_t first,
                                  uint64_t *all) {
  const unsigned char *p = (const unsigned char *)w->lo;
  size_t n = w->hi - w->lo, lo = first, hi = n - 1;
  while (lo < hi) { /* the last differing byte is in [lo, hi] */
    size_t mid = lo + (hi - lo + 1) / 2;
    if (dag__ranks_agree(hash_bytes(HASH_START, p + mid, n - mid), all))
      hi = mid - 1;
    else
      lo = mid;
  }
  return lo;
}

/* "task 3 'init' (p2p.c:74), item 'w[0:8]'" (no number: 0). */
static void name_site(char *buf, size_t size, const struct task_site *s) {
  char task[300], number[32] = "";
  dag__task_where(task, sizeof task, s->label, s->file, s->line);
  if (s->number)
    snprintf(number, sizeof number, " %" PRIu64, s->number);
  /* "task 'x'" becomes "task 3 'x'". */
  snprintf(buf, size, "task%s%s%s%s%s", number, task + 4,
           s->item ? ", item '" : "", s->item ? s->item : "",
           s->item ? "'" : "");
}

/* Where the unit's bytes come from and who wrote them last. */
static void name_unit(char *buf, size_t size, const struct watched *w) {
  char maker[400], writer[420] = "which no task declares writing";
  if (w->maker.label || w->maker.file)
    name_site(maker, sizeof maker, &w->maker);
  else
    snprintf(maker, sizeof maker, "a taskwait on(...)");
  if (w->writer.number) {
    char last[400];
    name_site(last, sizeof last, &w->writer);
    snprintf(writer, sizeof writer, "last written by %s", last);
  }
  snprintf(buf, size, "replicated memory at %p, first named by %s, %s",
           (void *)w->lo, maker, writer);
}

/* ------------------------------------------------- memory that is mapped */

struct span {
  uintptr_t lo, hi;
};

/* The readable memory of this process, from /proc/self/maps: *n address
 * ranges in order, neighbours merged (NULL if it cannot be read: then the
 * check trusts every item). */
static struct span *readable_memory(size_t *n) {
  FILE *f = fopen("/proc/self/maps", "r");
  struct span *s = NULL;
  size_t cap = 0;
  *n = 0;
  if (!f)
    return NULL;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    uintptr_t lo, hi;
    char perms[8];
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) != 3 ||
        perms[0] != 'r')
      continue;
    if (*n && s[*n - 1].hi == lo) {
      s[*n - 1].hi = hi;
      continue;
    }
    s = dag__grow(s, &cap, *n, sizeof *s, "the values check");
    s[(*n)++] = (struct span){lo, hi};
  }
  fclose(f);
  return s;
}

/* Whether [lo, hi) lies in one readable range of m (n ranges). */
static bool mapped(const struct span *m, size_t n, uintptr_t lo, uintptr_t hi) {
  if (!m)
    return true;
  size_t a = 0, b = n; /* the first range that ends after lo is in [a, b] */
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (m[mid].hi <= lo)
      a = mid + 1;
    else
      b = mid;
  }
  return a < n && m[a].lo <= lo && hi <= m[a].hi;
}

/* Every rank says which of its units are not mapped, if any rank has one;
 * the run then stops. */
static void refuse_unmapped(const struct watched *w, size_t n, uint64_t *all) {
  size_t nmaps;
  struct span *maps = readable_memory(&nmaps);
  uint64_t unmapped = 0;
  for (size_t i = 0; i < n; i++)
    if (!mapped(maps, nmaps, w[i].lo, w[i].hi) && unmapped++ < 4) {
      char unit[1000];
      name_unit(unit, sizeof unit, &w[i]);
      dag__log(DAG_LOG_ERROR,
               "DAG_CHECK_UNIFORMITY=values cannot compare the %zu bytes of "
               "%s: no memory is mapped there on rank %d; an item is memory "
               "the task reads or writes, not a token: name bytes of an "
               "array, or a variable of its own",
               (size_t)(w[i].hi - w[i].lo), unit, dag__rank);
    }
  free(maps);
  dag__ranks_agree(unmapped, all);
  for (int r = 0; r < dag__nranks; r++)
    if (all[r])
      dag__ranks_stop(all);
}

void dag__values_check(const struct watched *w, size_t n) {
  uint64_t *all = malloc((size_t)dag__nranks * sizeof *all);
  uint64_t *prefix = malloc((n + 1) * sizeof *prefix);
  if (!all || !prefix)
    dag__out_of_memory("the values check");
  refuse_unmapped(w, n, all);
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
  size_t first = first_byte_differing(u, all);
  size_t last = last_byte_differing(u, first, all);
  char unit[1000];
  name_unit(unit, sizeof unit, u);
  dag__log(DAG_LOG_ERROR,
           "the ranks hold different values at this taskwait: on rank %d "
           "the first byte that differs is byte %zu (value 0x%02x), the last "
           "byte %zu, of the %zu bytes of %s; a task that wrote them "
           "without declaring it leaves no trace here: DAG_CHECK_ITEMS=1 "
           "names it",
           dag__rank, first, ((const unsigned char *)u->lo)[first], last,
           (size_t)(u->hi - u->lo), unit);
  free(prefix);
  dag__ranks_stop(all);
}
