/* guard_pages.c — DAG_CHECK_ITEMS's watch on pages (guard.c tells what
 * to watch, and when): the pages protected for one body, published for the
 * SIGSEGV handler, which snapshots a page at its first write and makes it
 * writable; the snapshots' reservation; which mappings may be protected
 * (/proc/self/maps); the intervals of memory that every file of the guard
 * works with.
 *
 * Locking: guard.c calls it under its lock (or at start and stop); the
 * handler takes no lock and calls no malloc. The protected runs are published
 * before they are protected, and the generation before stays readable, for
 * a fault that raced its disarming; the claim table is taken by
 * compare-and-swap, the snapshot slots by an atomic counter.
 */
#include "core/guard.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

size_t dag__guard_page;
static struct sigaction previous; /* the SIGSEGV action before ours */

/* A mapping of /proc/self/maps: watched only if writable. */
struct mapping {
  uintptr_t lo, hi;
  bool writable;
};

static struct mapping *maps; /* under guard.c's lock */
static size_t nmaps, cap_maps;

/* ---------------------------------------------- what the handler reads */

static struct run *published[2]; /* two generations of protected runs */
static _Atomic size_t npublished[2];
static atomic_int live = -1;   /* the armed generation, -1: none */
static atomic_int before = -1; /* the one disarmed last */
static _Atomic uintptr_t *claims;
static uintptr_t *dirty; /* the page of each snapshot slot */
static char *snapshots;
static atomic_size_t ndirty;    /* slots taken */
static atomic_size_t unchecked; /* pages unprotected without a snapshot */
static atomic_int handling;     /* handlers running */

static size_t reserved_bytes(void) {
  return MAX_DIRTY * dag__guard_page + MAX_DIRTY * sizeof *dirty +
         CLAIM_SLOTS * sizeof *claims + 2 * MAX_RUNS * sizeof(struct run);
}

static void say_and_die(const char *what) {
  ssize_t ignored = write(2, what, strlen(what));
  (void)ignored;
  _exit(1);
}

/* Where the claim table's search for page p starts. */
static size_t claim_slot(uintptr_t p) {
  return (size_t)((p / dag__guard_page) * 0x9e3779b97f4a7c15ull >> 20) &
         (CLAIM_SLOTS - 1);
}

/* Page p, of the armed runs, is about to be written: snapshots it once and
 * makes it writable. From the handler (any thread) or transfer_begin. */
static void claim(uintptr_t p) {
  size_t h = claim_slot(p);
  bool recorded = false;
  for (size_t probe = 0; probe < CLAIM_SLOTS; probe++) {
    uintptr_t seen = 0;
    if (atomic_compare_exchange_strong(&claims[h], &seen, p)) {
      recorded = true;
      break;
    }
    if (seen == p)
      return; /* its claimant makes it writable: the write tries again */
    h = (h + 1) & (CLAIM_SLOTS - 1);
  }
  size_t slot = recorded ? atomic_fetch_add(&ndirty, 1) : MAX_DIRTY;
  if (slot < MAX_DIRTY) {
    memcpy(snapshots + slot * dag__guard_page, (const void *)p,
           dag__guard_page);
    dirty[slot] = p;
  } else {
    atomic_fetch_add(&unchecked, 1);
  }
  if (!mprotect((void *)p, dag__guard_page, PROT_READ | PROT_WRITE))
    return;
  /* Too many mappings (a protected run split page by page): the whole
   * run becomes writable, the rest of it unchecked. */
  int g = atomic_load(&live);
  const struct run *r =
      g < 0 ? NULL
            : dag__run_holding(published[g], atomic_load(&npublished[g]), p);
  atomic_fetch_add(&unchecked, 1);
  if (!r || mprotect((void *)r->lo, r->hi - r->lo, PROT_READ | PROT_WRITE))
    say_and_die("dag: error: DAG_CHECK_ITEMS: cannot make a watched page "
                "writable again\n");
}

/* A fault that is not ours: as if the guard were not there. The previous
 * action comes back, and the faulting access, tried again, meets it (a
 * real crash dies of SIGSEGV, or reaches the program's or MPI's handler);
 * a SIGSEGV sent by someone is sent again. */
static void not_ours(int sig, siginfo_t *si) {
  sigaction(SIGSEGV, &previous, NULL);
  if (si->si_code <= 0)
    raise(sig);
}

/* A thread's faults in a page disarmed a moment ago, in a row: a few, while
 * the disarming goes on; many, and the page is protected by someone else. */
static DAG_THREAD_LOCAL uintptr_t stale_at;
static DAG_THREAD_LOCAL unsigned stale_count;
#define STALE_MOST 10000

static void on_fault(int sig, siginfo_t *si, void *context) {
  (void)context;
  int saved_errno = errno;
  atomic_fetch_add(&handling, 1);
  uintptr_t a = (uintptr_t)si->si_addr;
  bool ours = false;
  if (si->si_code == SEGV_ACCERR) {
    int g = atomic_load(&live), b = atomic_load(&before);
    if (g >= 0 && in_runs(published[g], atomic_load(&npublished[g]), a)) {
      claim(a & ~(uintptr_t)(dag__guard_page - 1));
      ours = true;
    } else if (b >= 0 &&
               in_runs(published[b], atomic_load(&npublished[b]), a)) {
      /* Protected a moment ago, writable now: try again. */
      stale_count = stale_at == a ? stale_count + 1 : 0;
      stale_at = a;
      ours = stale_count < STALE_MOST;
    }
  }
  atomic_fetch_sub(&handling, 1);
  if (!ours)
    not_ours(sig, si);
  errno = saved_errno;
}

/* ------------------------------------------------------------ intervals */

void dag__runs_push(struct runs *v, uintptr_t lo, uintptr_t hi) {
  if (lo >= hi)
    return;
  v->at = dag__grow(v->at, &v->cap, v->n, sizeof *v->at, "DAG_CHECK_ITEMS");
  v->at[v->n++] = (struct run){lo, hi};
}

static int by_lo(const void *a, const void *b) {
  uintptr_t x = ((const struct run *)a)->lo, y = ((const struct run *)b)->lo;
  return (x > y) - (x < y);
}

void dag__runs_merge(struct runs *v) {
  if (v->n < 2)
    return;
  qsort(v->at, v->n, sizeof *v->at, by_lo);
  size_t k = 0;
  for (size_t i = 1; i < v->n; i++) {
    if (v->at[i].lo <= v->at[k].hi) {
      if (v->at[i].hi > v->at[k].hi)
        v->at[k].hi = v->at[i].hi;
    } else {
      v->at[++k] = v->at[i];
    }
  }
  v->n = k + 1;
}

void dag__runs_subtract(const struct runs *a, const struct runs *b,
                        struct runs *out) {
  size_t j = 0;
  for (size_t i = 0; i < a->n; i++) {
    uintptr_t lo = a->at[i].lo, hi = a->at[i].hi;
    while (j < b->n && b->at[j].hi <= lo)
      j++;
    for (size_t k = j; k < b->n && b->at[k].lo < hi; k++) {
      dag__runs_push(out, lo, b->at[k].lo);
      if (b->at[k].hi > lo)
        lo = b->at[k].hi;
    }
    dag__runs_push(out, lo, hi);
  }
}

const struct run *dag__run_holding(const struct run *r, size_t n, uintptr_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a < r[mid].lo)
      hi = mid;
    else if (a >= r[mid].hi)
      lo = mid + 1;
    else
      return &r[mid];
  }
  return NULL;
}

/* ------------------------------------------------------------- mappings */

void dag__guard_read_maps(void) {
  nmaps = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8] = "";
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
      continue;
    maps = dag__grow(maps, &cap_maps, nmaps, sizeof *maps, "DAG_CHECK_ITEMS");
    maps[nmaps++] =
        (struct mapping){lo, hi,
                         perms[0] == 'r' && perms[1] == 'w' &&
                             perms[2] != 'x' && !strstr(line, "[stack")};
  }
  fclose(f);
}

bool dag__guard_writable_parts(uintptr_t lo, uintptr_t hi, struct runs *out) {
  uintptr_t at = lo;
  for (size_t i = 0; i < nmaps && at < hi; i++) {
    if (maps[i].hi <= at)
      continue;
    if (maps[i].lo > at)
      return false;
    uintptr_t end = maps[i].hi < hi ? maps[i].hi : hi;
    if (maps[i].writable)
      dag__runs_push(out, at, end);
    at = end;
  }
  return at >= hi;
}

/* ------------------------------------------------------ arm and disarm */

void dag__guard_protect(const struct runs *protect) {
  /* Beyond MAX_RUNS, the rest unwatched. */
  size_t n = protect->n < MAX_RUNS ? protect->n : MAX_RUNS;
  int g = atomic_load(&before) == 0 ? 1 : 0;
  if (n)
    memcpy(published[g], protect->at, n * sizeof *protect->at);
  atomic_store(&npublished[g], n);
  atomic_store(&live, g);
  static bool warned;
  for (size_t i = 0; i < n; i++)
    if (mprotect((void *)protect->at[i].lo,
                 protect->at[i].hi - protect->at[i].lo, PROT_READ) &&
        !warned) {
      warned = true;
      dag__log(DAG_LOG_WARN,
               "DAG_CHECK_ITEMS: cannot protect %zu bytes at %p (%s): they "
               "are not checked",
               (size_t)(protect->at[i].hi - protect->at[i].lo),
               (void *)protect->at[i].lo, strerror(errno));
    }
}

void dag__guard_unprotect(void) {
  int g = atomic_load(&live);
  if (g < 0)
    return;
  size_t n = atomic_load(&npublished[g]);
  for (size_t i = 0; i < n; i++)
    /* ENOMEM: the memory went meanwhile (a body freed it). */
    if (mprotect((void *)published[g][i].lo,
                 published[g][i].hi - published[g][i].lo,
                 PROT_READ | PROT_WRITE) &&
        errno != ENOMEM)
      DAG_BUG("mprotect: %s", strerror(errno));
  atomic_store(&before, g);
  atomic_store(&live, -1);
  while (atomic_load(&handling))
    sched_yield();
  size_t used = atomic_load(&ndirty);
  if (atomic_load(&unchecked) || used > MAX_DIRTY) {
    memset((void *)claims, 0, CLAIM_SLOTS * sizeof *claims);
  } else {
    /* Clearing breaks the probe chains of the entries left: the search
     * goes past empty slots, and in the end none is left. */
    for (size_t i = 0; i < used; i++) {
      size_t h = claim_slot(dirty[i]);
      while (atomic_load(&claims[h]) != dirty[i])
        h = (h + 1) & (CLAIM_SLOTS - 1);
      atomic_store(&claims[h], 0);
    }
  }
  atomic_store(&ndirty, 0);
  atomic_store(&unchecked, 0);
}

bool dag__guard_armed(void) { return atomic_load(&live) >= 0; }

void dag__guard_claim_span(uintptr_t lo, uintptr_t hi, void *arg) {
  (void)arg;
  int g = atomic_load(&live);
  for (uintptr_t p = page_down(lo); g >= 0 && p < hi; p += dag__guard_page)
    if (in_runs(published[g], atomic_load(&npublished[g]), p))
      claim(p);
}

void dag__guard_snapshots(struct snapshots *s) {
  while (atomic_load(&handling))
    sched_yield();
  size_t n = atomic_load(&ndirty);
  *s = (struct snapshots){dirty, snapshots, n < MAX_DIRTY ? n : MAX_DIRTY,
                          atomic_load(&unchecked)};
}

/* ---------------------------------------------------------- start, stop */

int dag__guard_reserve(void) {
  dag__guard_page = (size_t)sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, reserved_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return dag__user_error(NULL, DAG_ENOMEM,
                           "DAG_CHECK_ITEMS: cannot reserve %zu bytes for "
                           "snapshots: %s",
                           reserved_bytes(), strerror(errno));
  snapshots = m;
  m += MAX_DIRTY * dag__guard_page;
  dirty = (uintptr_t *)m;
  m += MAX_DIRTY * sizeof *dirty;
  claims = (_Atomic uintptr_t *)m;
  m += CLAIM_SLOTS * sizeof *claims;
  published[0] = (struct run *)m;
  published[1] = published[0] + MAX_RUNS;
  return 0;
}

int dag__guard_catch(void) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_sigaction = on_fault;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGSEGV, &act, &previous)) {
    munmap(snapshots, reserved_bytes());
    return dag__user_error(NULL, DAG_EINVAL,
                           "DAG_CHECK_ITEMS: cannot catch SIGSEGV: %s",
                           strerror(errno));
  }
  return 0;
}

void dag__guard_release(void) {
  struct sigaction ours;
  sigaction(SIGSEGV, NULL, &ours);
  if (ours.sa_sigaction == on_fault)
    sigaction(SIGSEGV, &previous, NULL);
  atomic_store(&live, -1);
  atomic_store(&before, -1);
  munmap(snapshots, reserved_bytes());
  free(maps);
  maps = NULL;
  nmaps = cap_maps = 0;
}
