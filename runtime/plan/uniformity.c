/* uniformity.c — the check that every rank submitted the same tasks.
 *
 * Each task adds a hash of its description to a running hash that ranks
 * compare at every taskwait (one allgather), and every DAG_CHECK_EVERY
 * tasks within a phase: submitting never blocks, so every rank reaches the
 * same count, or a wait whose check pairs with the others' and differs. On
 * a mismatch a binary search
 * over the recorded hashes, one collective per step, finds the first task
 * that differs, and every rank names its own before the run stops: a
 * diverging program ends with a message instead of a hang.
 */
#include "plan/planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The hash of every task since the last check, cumulated up to and
 * including it, to find the first one that differs between ranks; and
 * where each run of tasks from one source site starts, to name it. A loop
 * submits one site many times over, so a task costs 8 bytes here until
 * the next check (32 when each kept its own names), for a few instructions
 * of comparing sites. */
static uint64_t *history;
static size_t nhistory, cap_history;

struct site {
  size_t first; /* the index in history of its first task */
  const char *label, *file;
  int line;
};
static struct site *sites;
static size_t nsites, cap_sites;
/* sites[nsites - 1], or NULL: every task compares against it, and the
 * pointer saves that hot path computing it from nsites. */
static const struct site *last_site;

static uint64_t checked; /* tasks before the first of history */
static uint64_t cumulated = 14695981039346656037ull;

/* One multiply per value: only equality between ranks matters. */
static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

/* The offset, not the address, in dag_alloc memory: addresses of
 * replicated memory differ between ranks. A chain of its own per access,
 * computed once per access as written (the access cache keeps it). */
uint64_t dag__uniformity_access_hash(const struct region *r, enum dag_mode mode,
                                     const struct allocation *a) {
  uint64_t h = mix(0x243f6a8885a308d3ull, (uint64_t)mode);
  h = mix(h, r->span + r->shape);
  for (int d = 0; d < r->ndims; d++)
    h = mix(mix(h, r->dim[d].count), r->dim[d].stride);
  if (a)
    h = mix(mix(h, a->bytes), r->lo - (uintptr_t)a->base);
  return h;
}

/* What every rank must agree on about a task: its source line, flags and
 * placement, and its accesses in order. */
size_t dag__uniformity_record(const struct dag_task_info *info,
                              const struct resolved *res, size_t n) {
  /* The line and the flags in one word; the rank only where it is set. */
  uint64_t h = mix(cumulated, (uint64_t)(uint32_t)info->line << 32 |
                                  (uint32_t)info->flags);
  if (info->flags & DAG_TASK_ON_RANK)
    h = mix(h, (uint64_t)info->rank);
  for (size_t i = 0; i < n; i++)
    h = mix(h, res[i].hash);
  cumulated = h;
  history = dag__grow(history, &cap_history, nhistory, sizeof *history,
                      "the uniformity record");
  history[nhistory] = h;
  if (!last_site || last_site->line != info->line ||
      last_site->label != info->label || last_site->file != info->file) {
    sites = dag__grow(sites, &cap_sites, nsites, sizeof *sites,
                      "the uniformity record");
    sites[nsites] =
        (struct site){nhistory, info->label, info->file, info->line};
    last_site = &sites[nsites++];
  }
  return ++nhistory;
}

/* The site of the task at index in history: the last one starting at or
 * before it. */
static const struct site *site_of(size_t index) {
  size_t lo = 0, hi = nsites; /* the first site starting after index */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sites[mid].first <= index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return &sites[lo - 1];
}

static void set_done(void *arg) {
  atomic_store_explicit((atomic_bool *)arg, true, memory_order_seq_cst);
  dag__core_nudge();
}

static bool not_done(void *arg) {
  return !atomic_load_explicit((atomic_bool *)arg, memory_order_acquire);
}

/* Every rank's value of v into all. The caller runs tasks while it waits:
 * the sends that other ranks need before they reach the collective may be
 * its own tasks. */
static void allgather(uint64_t v, uint64_t *all) {
  atomic_bool done = false;
  dag__comm_allgather(v, all, set_done, &done);
  dag__core_help_while(not_done, &done);
}

bool dag__ranks_agree(uint64_t v, uint64_t *all) {
  allgather(v, all);
  for (int r = 1; r < dag__nranks; r++)
    if (all[r] != all[0])
      return false;
  return true;
}

static void describe(char *buf, size_t size, size_t index) {
  if (index >= nhistory) {
    snprintf(buf, size, "no task (it submitted %llu)",
             (unsigned long long)(checked + nhistory));
    return;
  }
  const struct site *t = site_of(index);
  char name[256];
  dag__task_name(name, sizeof name, t->label, t->file, t->line);
  snprintf(buf, size, "task %llu '%s' (%s:%d)",
           (unsigned long long)(checked + index + 1), name,
           t->file ? t->file : "?", t->line);
}

/* All ranks must have submitted the same tasks since the last check: on a
 * mismatch, finds the first task that differs (a binary search over the
 * recorded hashes, one collective per step) and stops the run. */
void dag__uniformity_check(const char *where) {
  uint64_t *all = malloc((size_t)dag__nranks * sizeof *all);
  if (!all)
    dag__out_of_memory("the uniformity check");
  if (dag__ranks_agree(cumulated ^ nhistory, all)) {
    free(all);
    checked += nhistory;
    nhistory = nsites = 0;
    last_site = NULL;
    return;
  }
  size_t lo = 0, hi = nhistory; /* the first index where ranks differ */
  uint64_t longest = 0;
  allgather(nhistory, all);
  for (int r = 0; r < dag__nranks; r++)
    longest = all[r] > longest ? all[r] : longest;
  hi = (size_t)longest;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint64_t mine = mid < nhistory ? history[mid] : ~0ull - dag__rank;
    if (dag__ranks_agree(mine, all))
      lo = mid + 1;
    else
      hi = mid;
  }
  char what[512];
  describe(what, sizeof what, lo);
  dag__log(DAG_LOG_ERROR,
           "the ranks submitted different tasks before %s: on rank %d the "
           "first that differs is %s",
           where, dag__rank, what);
  dag__ranks_stop(all);
}

_Noreturn void dag__ranks_stop(uint64_t *all) {
  /* Every rank has said its part before any of them stops the run, and
   * mpiexec gets a moment to pass the lines on. */
  allgather(0, all);
  nanosleep(&(struct timespec){0, 200000000}, NULL);
  free(all);
  dag__comm_abort_all();
}

void dag__uniformity_release(void) {
  free(history);
  free(sites);
  history = NULL;
  sites = NULL;
  last_site = NULL;
  nhistory = cap_history = nsites = cap_sites = 0;
  checked = 0;
  cumulated = 14695981039346656037ull;
}
