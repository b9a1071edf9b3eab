/* check_dist.c — global-view distributed memory (dist.c) on one rank.
 *
 * dag_grid picks the squarest grid; the home arithmetic of the five
 * distributions (through dag__dist_home_for, for 1 to 7 ranks) and the runs
 * of dag__dist_block agree with brute-force oracles; malformed
 * distributions are refused with a message; dag_owner answers on and off
 * dag_alloc memory; dag_free refuses interior pointers and second frees and
 * waits for the tasks using the memory; memory reads as zero; the registry
 * finds many allocations at their edges and answers lookups from other
 * threads while allocations come and go; an 8 GiB reservation costs no
 * resident memory, and only the pages written (and not given back) do.
 *
 * Each test runs in its own process (Check's fork mode).
 */
#include "dag.h"
#include "plan/dist.h" /* dag__dist_*: the registry and the home arithmetic */

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "run_suite.h"

/* ------------------------------------------------------------- grids */

START_TEST(test_grid) {
  for (int n = 1; n <= 64; n++) {
    int p = -1, q = -1;
    ck_assert_int_eq(dag_grid(n, &p, &q), 0);
    ck_assert_int_eq(p * q, n);
    ck_assert_int_le(p, q);
    /* No factorisation is squarer. */
    for (int a = 1; a <= n; a++)
      if (n % a == 0 && a <= n / a)
        ck_assert_int_le(n / p - p, n / a - a);
  }
  int p, q;
  ck_assert_int_eq(dag_grid(12, &p, &q), 0);
  ck_assert(p == 3 && q == 4);
  ck_assert_int_eq(dag_grid(7, &p, &q), 0);
  ck_assert(p == 1 && q == 7);
  ck_assert_int_eq(dag_grid(0, &p, &q), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "dag_grid"));
  ck_assert_int_eq(dag_grid(-3, &p, &q), DAG_EINVAL);
  ck_assert_int_eq(dag_grid(4, NULL, &q), DAG_EINVAL);
  ck_assert_int_eq(dag_grid(4, &p, NULL), DAG_EINVAL);
}
END_TEST

START_TEST(test_constructors) {
  struct dag_dist d = dag_dist_block(8, 16);
  ck_assert(d.kind == DAG_DIST_BLOCK && d.elem == 8 && d.block == 16);
  d = dag_dist_block_cyclic(8, 16);
  ck_assert(d.kind == DAG_DIST_BLOCK_CYCLIC && d.elem == 8 && d.block == 16);
  d = dag_dist_block_cyclic_2d(4, 100, 10, 20, 2, 3);
  ck_assert(d.kind == DAG_DIST_BLOCK_CYCLIC_2D && d.elem == 4 && d.ld == 100 &&
            d.mb == 10 && d.nb == 20 && d.p == 2 && d.q == 3);
  /* The name before 0.2 is the same distribution. */
  struct dag_dist old = dag_dist_2d(4, 100, 10, 20, 2, 3);
  ck_assert(old.kind == d.kind && DAG_DIST_2D == d.kind && old.ld == d.ld &&
            old.mb == d.mb && old.nb == d.nb && old.p == d.p && old.q == d.q);
  d = dag_dist_block_2d(4, 100, 10, 20, 2, 3);
  ck_assert(d.kind == DAG_DIST_BLOCK_2D && d.elem == 4 && d.ld == 100 &&
            d.mb == 10 && d.nb == 20 && d.p == 2 && d.q == 3);
  int x;
  d = dag_dist_owner(64, (int (*)(size_t, void *))NULL, &x);
  ck_assert(d.kind == DAG_DIST_OWNER && d.block == 64 && d.ctx == &x);
}
END_TEST

/* ------------------------------------------- homes and runs: oracles */

/* For every byte of a small allocation: its home and the identity of its
 * contiguous run (block, row segment of a block, unit), filled by walking
 * the distribution's own definition. */
struct oracle {
  size_t bytes;
  int *home;
  long *run;
};

static void oracle_init(struct oracle *o, size_t bytes) {
  o->bytes = bytes;
  o->home = malloc(bytes * sizeof *o->home);
  o->run = malloc(bytes * sizeof *o->run);
  ck_assert(o->home && o->run);
  for (size_t i = 0; i < bytes; i++)
    o->home[i] = -1;
}

static void oracle_free(struct oracle *o) {
  free(o->home);
  free(o->run);
}

/* The rank of the k-th of n parts dealt to `nranks` ranks: in turn
 * (cyclic), or in runs as equal as whole parts allow (the first nranks
 * boundaries of n parts cut as evenly as can be: part k goes to the rank r
 * with r * n <= k * nranks < (r + 1) * n). */
static int dealt(size_t k, size_t n, int nranks, bool cyclic) {
  if (cyclic)
    return (int)(k % (size_t)nranks);
  int r = 0;
  while ((size_t)(r + 1) * n <= k * (size_t)nranks)
    r++;
  return r;
}

/* Blocks dealt to ranks 0, 1, ... in turn (cyclic) or in runs. */
static void oracle_block(struct oracle *o, size_t elem, size_t block,
                         int nranks, bool cyclic) {
  size_t nblocks = (o->bytes + elem * block - 1) / (elem * block);
  long id = 0;
  size_t in_block = 0;
  for (size_t i = 0; i < o->bytes; i++) {
    o->home[i] = dealt((size_t)id, nblocks, nranks, cyclic);
    o->run[i] = id;
    if (++in_block == elem * block) {
      in_block = 0;
      id++;
    }
  }
}

/* Block (i, j) on rank (i mod p) * q + (j mod q) (cyclic), or the rows and
 * columns of blocks each dealt in runs to the grid's rows and columns. */
static void oracle_2d(struct oracle *o, size_t elem, size_t ld, size_t mb,
                      size_t nb, int p, int q, bool cyclic) {
  size_t rows = (o->bytes + ld * elem - 1) / (ld * elem);
  size_t nbi = (rows + mb - 1) / mb, nbj = (ld + nb - 1) / nb;
  for (size_t bi = 0; bi * mb < rows; bi++)
    for (size_t bj = 0; bj * nb < ld; bj++)
      for (size_t r = bi * mb; r < (bi + 1) * mb && r < rows; r++)
        for (size_t c = bj * nb; c < (bj + 1) * nb && c < ld; c++)
          for (size_t b = 0; b < elem; b++) {
            size_t i = (r * ld + c) * elem + b;
            if (i >= o->bytes)
              continue;
            o->home[i] =
                dealt(bi, nbi, p, cyclic) * q + dealt(bj, nbj, q, cyclic);
            o->run[i] = (long)(r * 1000 + bj);
          }
}

struct owner_ctx {
  int nranks;
  atomic_int misaligned; /* calls with an offset that starts no unit */
  size_t unit;
};

static int hashed_owner(size_t offset, void *ctx) {
  struct owner_ctx *c = ctx;
  if (offset % c->unit)
    atomic_fetch_add(&c->misaligned, 1);
  return (int)((offset / c->unit * 7 + 3) % (size_t)c->nranks);
}

static void oracle_owner(struct oracle *o, size_t unit, int nranks) {
  for (size_t k = 0; k * unit < o->bytes; k++)
    for (size_t i = k * unit; i < (k + 1) * unit && i < o->bytes; i++) {
      o->home[i] = (int)((k * 7 + 3) % (size_t)nranks);
      o->run[i] = (long)k;
    }
}

/* Checks dag__dist_home_for and dag__dist_block against the oracle at every
 * byte, and that walking the allocation run by run covers it exactly. */
static void check_against(const struct oracle *o, const struct dag_dist *d,
                          int nranks) {
  struct allocation a = {.bytes = o->bytes, .dist = *d};
  size_t run_begin = 0;
  for (size_t i = 0; i < o->bytes; i++) {
    ck_assert_int_ge(o->home[i], 0);
    if (i && o->run[i] != o->run[i - 1])
      run_begin = i;
    size_t run_end = i + 1;
    while (run_end < o->bytes && o->run[run_end] == o->run[i])
      run_end++;
    int h = dag__dist_home_for(d, o->bytes, i, nranks);
    if (h != o->home[i])
      ck_abort_msg("kind %d, %d ranks, byte %zu of %zu: home %d, expected %d",
                   (int)d->kind, nranks, i, o->bytes, h, o->home[i]);
    size_t b, e;
    dag__dist_block(&a, i, &b, &e);
    if (b != run_begin || e != run_end)
      ck_abort_msg("kind %d, byte %zu of %zu: run [%zu, %zu), expected "
                   "[%zu, %zu)",
                   (int)d->kind, i, o->bytes, b, e, run_begin, run_end);
  }
  size_t covered = 0;
  for (size_t off = 0; off < o->bytes;) {
    size_t b, e;
    dag__dist_block(&a, off, &b, &e);
    ck_assert_uint_eq(b, off);
    ck_assert_uint_gt(e, b);
    covered += e - b;
    off = e;
  }
  ck_assert_uint_eq(covered, o->bytes);
}

static const size_t elems[] = {1, 3, 8};

START_TEST(test_home_block) {
  for (int cyclic = 0; cyclic < 2; cyclic++)
    for (int nranks = 1; nranks <= 7; nranks++)
      for (size_t ie = 0; ie < 3; ie++)
        for (size_t block = 1; block <= 5; block += 2)
          for (size_t blocks = 1; blocks <= 3 * (size_t)nranks + 1;
               blocks += (size_t)nranks) {
            size_t elem = elems[ie];
            struct oracle o;
            /* The last block is cut short, but for one byte. */
            oracle_init(&o, (blocks - 1) * elem * block + elem / 2 + 1);
            oracle_block(&o, elem, block, nranks, cyclic);
            struct dag_dist d = cyclic ? dag_dist_block_cyclic(elem, block)
                                       : dag_dist_block(elem, block);
            check_against(&o, &d, nranks);
            oracle_free(&o);
          }
}
END_TEST

/* One block per rank: the two 1-D distributions agree. */
START_TEST(test_block_per_rank) {
  for (int nranks = 1; nranks <= 7; nranks++) {
    struct dag_dist b = dag_dist_block(8, 16), c = dag_dist_block_cyclic(8, 16);
    size_t bytes = (size_t)nranks * 8 * 16;
    for (size_t i = 0; i < bytes; i += 8)
      ck_assert_int_eq(dag__dist_home_for(&b, bytes, i, nranks),
                       dag__dist_home_for(&c, bytes, i, nranks));
  }
}
END_TEST

START_TEST(test_home_2d) {
  static const size_t lds[] = {1, 2, 5, 7};
  for (int cyclic = 0; cyclic < 2; cyclic++)
    for (int nranks = 1; nranks <= 7; nranks++)
      for (int p = 1; p <= nranks; p++)
        for (int q = 1; p * q <= nranks; q++)
          for (size_t ie = 0; ie < 3; ie++)
            for (size_t il = 0; il < 4; il++)
              for (size_t mb = 1; mb <= 3; mb++)
                for (size_t nb = 1; nb <= 3; nb++) {
                  size_t elem = elems[ie], ld = lds[il];
                  size_t rows = 2 * mb * (size_t)p + 1;
                  struct oracle o;
                  /* The last row is cut short, mid-element. */
                  oracle_init(&o, (rows * ld - ld / 2) * elem - elem / 2);
                  oracle_2d(&o, elem, ld, mb, nb, p, q, cyclic);
                  struct dag_dist d =
                      cyclic ? dag_dist_block_cyclic_2d(elem, ld, mb, nb, p, q)
                             : dag_dist_block_2d(elem, ld, mb, nb, p, q);
                  check_against(&o, &d, nranks);
                  oracle_free(&o);
                }
}
END_TEST

START_TEST(test_home_owner) {
  for (int nranks = 1; nranks <= 7; nranks++)
    for (size_t unit = 1; unit <= 13; unit += 4) {
      struct owner_ctx c = {.nranks = nranks, .unit = unit};
      struct oracle o;
      oracle_init(&o, 5 * (size_t)nranks * unit + unit / 2 + 1);
      oracle_owner(&o, unit, nranks);
      struct dag_dist d = dag_dist_owner(unit, hashed_owner, &c);
      check_against(&o, &d, nranks);
      ck_assert_int_eq(atomic_load(&c.misaligned), 0);
      oracle_free(&o);
    }
}
END_TEST

static int bad_owner(size_t offset, void *ctx) {
  (void)ctx;
  return offset ? 11 : 9;
}

START_TEST(test_owner_out_of_range) {
  struct dag_dist d = dag_dist_owner(4, bad_owner, NULL);
  ck_assert_int_eq(dag__dist_home_for(&d, 64, 1, 4), 0);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "gave rank 9"));
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "0 to 3"));
  /* Reported once: the message of rank 11 does not replace it. */
  ck_assert_int_eq(dag__dist_home_for(&d, 64, 8, 4), 0);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "gave rank 9"));
  /* Through an allocation too (one rank here). */
  char *m = dag_alloc(64, d);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(dag_owner(m + 10), 0);
  ck_assert_int_eq(dag_free(m), 0);
}
END_TEST

/* -------------------------------------------------------- validation */

static int zero_owner(size_t offset, void *ctx) {
  (void)offset;
  (void)ctx;
  return 0;
}

struct bad_alloc {
  const char *name;
  size_t bytes;
  struct dag_dist dist;
  const char *why;
};

#define BLOCK(e, b)                                                            \
  { .kind = DAG_DIST_BLOCK, .elem = (e), .block = (b) }
#define TWO_D(e, l, m, n, pp, qq)                                              \
  {                                                                            \
    .kind = DAG_DIST_2D, .elem = (e), .ld = (l), .mb = (m), .nb = (n),         \
    .p = (pp), .q = (qq)                                                       \
  }
#define OWNER(u, f)                                                            \
  { .kind = DAG_DIST_OWNER, .block = (u), .owner = (f) }

static const struct bad_alloc bad_allocs[] = {
    {"0 bytes", 0, BLOCK(8, 4), "0 bytes"},
    {"block elem 0", 64, BLOCK(0, 4), "positive"},
    {"block 0", 64, BLOCK(8, 0), "positive"},
    {"block overflow", 64, BLOCK(SIZE_MAX / 2, 3), "overflow"},
    {"2d elem 0", 64, TWO_D(0, 4, 2, 2, 1, 1), "must be positive"},
    {"2d ld 0", 64, TWO_D(8, 0, 2, 2, 1, 1), "must be positive"},
    {"2d mb 0", 64, TWO_D(8, 4, 0, 2, 1, 1), "must be positive"},
    {"2d nb 0", 64, TWO_D(8, 4, 2, 0, 1, 1), "must be positive"},
    {"2d p 0", 64, TWO_D(8, 4, 2, 2, 0, 1), "0 x 1"},
    {"2d q -1", 64, TWO_D(8, 4, 2, 2, 1, -1), "1 x -1"},
    {"2d grid too big", 64, TWO_D(8, 4, 2, 2, 1, 2), "p * q <= 1 ranks"},
    {"2d row overflow", 64, TWO_D(16, SIZE_MAX / 8, 2, 2, 1, 1), "overflow"},
    {"owner unit 0", 64, OWNER(0, zero_owner), "units of 0 bytes"},
    {"owner NULL", 64, OWNER(16, NULL), "without an owner function"},
    {"kind 0", 64, {.kind = 0, .elem = 8, .block = 4}, "unknown kind 0"},
    {"kind 42", 64, {.kind = 42, .elem = 8, .block = 4}, "unknown kind 42"},
    {"too big to reserve", SIZE_MAX - 4095, BLOCK(8, 4), "cannot reserve"},
};
#define NBAD ((int)(sizeof bad_allocs / sizeof bad_allocs[0]))

START_TEST(test_bad_alloc) {
  const struct bad_alloc *c = &bad_allocs[_i];
  void *m = dag_alloc(c->bytes, c->dist);
  if (m)
    ck_abort_msg("%s: dag_alloc succeeded", c->name);
  const char *msg = dag_last_error();
  if (!strstr(msg, "dag_alloc (") || !strstr(msg, "check_dist.c:") ||
      !strstr(msg, c->why))
    ck_abort_msg("%s: message '%s' lacks '%s'", c->name, msg, c->why);
  /* The runtime goes on working. */
  m = dag_alloc(100, dag_dist_block(1, 10));
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(dag_free(m), 0);
}
END_TEST

/* ------------------------------------------------------ alloc and free */

static int on_stack_global;

START_TEST(test_owner_on_and_off) {
  char on_stack = 0;
  char *heap = malloc(16);
  ck_assert_int_eq(dag_owner(&on_stack), -1);
  ck_assert_int_eq(dag_owner(heap), -1);
  ck_assert_int_eq(dag_owner(&on_stack_global), -1);
  ck_assert_int_eq(dag_owner(NULL), -1);
  char *m = dag_alloc(10000, dag_dist_2d(8, 25, 4, 4, 1, 1));
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(dag_nranks(), 1);
  ck_assert_int_eq(dag_owner(m), 0);
  ck_assert_int_eq(dag_owner(m + 5000), 0);
  ck_assert_int_eq(dag_owner(m + 9999), 0);
  ck_assert_int_eq(dag_owner(m + 10000), -1);
  ck_assert_int_eq(dag_owner(m - 1), -1);
  ck_assert_ptr_eq(dag__dist_find(m + 1234)->base, m);
  ck_assert_uint_eq(dag__dist_find(m)->bytes, 10000);
  ck_assert_int_eq(dag__dist_find(m)->dist.kind, DAG_DIST_2D);
  ck_assert_int_eq(dag__dist_home(dag__dist_find(m), 9999), 0);
  ck_assert_int_eq(dag_free(m), 0);
  ck_assert_int_eq(dag_owner(m), -1);
  ck_assert_ptr_null(dag__dist_find(m));
  free(heap);
}
END_TEST

START_TEST(test_free_errors) {
  char *m = dag_alloc(4096 * 3, dag_dist_block(8, 64));
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(dag_free(m + 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "1 bytes into"));
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "not its start"));
  ck_assert_int_eq(dag_free(m + 4096), DAG_EINVAL);
  char local;
  ck_assert_int_eq(dag_free(&local), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "not dag_alloc memory"));
  ck_assert_int_eq(dag_free(NULL), 0); /* like free(NULL) */
  /* Still allocated after the refusals. */
  ck_assert_ptr_eq(dag__dist_find(m + 100)->base, m);
  m[100] = 1;
  ck_assert_int_eq(dag_free(m), 0);
  ck_assert_int_eq(dag_free(m), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "freed already?"));
}
END_TEST

/* dag_alloc and dag_free are the program's calls, on every rank: inside a
 * task they are refused with a message (under MPI only one rank would
 * allocate, and the others crash on the pointer). */
static void *in_task_alloc;
static int in_task_free = 1;
static char *outside;
static char in_task_error[256]; /* dag_last_error() is the task's thread's */

static void alloc_in_task(void *p) {
  (void)p;
  in_task_alloc = dag_alloc(4096, dag_dist_block(8, 64));
  in_task_free = dag_free(outside);
  snprintf(in_task_error, sizeof in_task_error, "%s", dag_last_error());
}

START_TEST(test_alloc_inside_task) {
  outside = dag_alloc(4096, dag_dist_block(8, 64));
  ck_assert_ptr_nonnull(outside);
  struct dag_task_info info = {.fn = alloc_in_task,
                               .label = "alloc",
                               .file = __FILE__,
                               .line = __LINE__};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_ptr_null(in_task_alloc);
  ck_assert_int_eq(in_task_free, DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(in_task_error, "dag_free called from inside "
                                              "a task"));
  ck_assert_ptr_eq(dag__dist_find(outside)->base, outside); /* still there */
  ck_assert_int_eq(dag_free(outside), 0);
}
END_TEST

START_TEST(test_after_finalize) {
  char *m = dag_alloc(1 << 20, dag_dist_block(8, 128));
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(dag_finalize(), 0);
  /* Finalize unmapped it and forgot the registry. */
  ck_assert_ptr_null(dag__dist_find(m));
  ck_assert_int_eq(dag_owner(m), -1);
  ck_assert_ptr_null(dag_alloc(64, dag_dist_block(8, 1)));
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "dag_alloc: "));
  ck_assert_int_eq(dag_free(m), DAG_EINVAL);
}
END_TEST

static atomic_int slow_done;

static void slow_write(void *p) {
  char *m = *(char **)p;
  struct timespec ts = {0, 50 * 1000 * 1000};
  nanosleep(&ts, NULL);
  m[10] = 42;
  atomic_store(&slow_done, 1);
}

START_TEST(test_free_waits_for_tasks) {
  setenv("DAG_NUM_THREADS", _i ? "4" : "1", 1);
  char *m = dag_alloc(1 << 16, dag_dist_block(8, 64));
  ck_assert_ptr_nonnull(m);
  struct dag_task_info info = {
      .fn = slow_write, .label = "slow", .file = __FILE__, .line = __LINE__};
  struct dag_access acc = {DAG_OUT, dag_region_1d(m + 8, 8)};
  ck_assert_int_eq(dag_submit(&info, &m, sizeof m, &acc, 1), 0);
  ck_assert_int_eq(dag_free(m), 0);
  ck_assert_int_eq(atomic_load(&slow_done), 1);
  ck_assert_int_eq(dag_taskwait(), 0);
}
END_TEST

START_TEST(test_zero_filled) {
  size_t bytes = (size_t)1 << 30;
  unsigned char *m = dag_alloc(bytes, dag_dist_block(8, 1024));
  ck_assert_ptr_nonnull(m);
  for (size_t i = 0; i < bytes; i += bytes / 997)
    ck_assert_uint_eq(m[i], 0);
  ck_assert_uint_eq(m[bytes - 1], 0);
  /* Written, discarded: reads as zero again, except partial pages. */
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  memset(m, 0xab, 8 * page);
  dag__dist_discard(m + 100, 5 * page);
  for (size_t i = 0; i < 8 * page; i++) {
    unsigned expect = i < page || i >= 5 * page ? 0xab : 0;
    if (m[i] != expect)
      ck_abort_msg("byte %zu: %u, expected %u", i, m[i], expect);
  }
  dag__dist_discard(m, 10); /* no whole page: nothing happens */
  ck_assert_uint_eq(m[0], 0xab);
  ck_assert_int_eq(dag_free(m), 0);
}
END_TEST

/* ------------------------------------------------- misplaced items */

static enum dist_misplaced where(const char *lo, const char *hi,
                                 const struct allocation **a) {
  struct region r = {
      .lo = (uintptr_t)lo, .hi = (uintptr_t)hi, .span = (size_t)(hi - lo)};
  *a = NULL;
  return dag__dist_misplaced(&r, a);
}

static void nop(void *p) { (void)p; }

/* Items that lie just outside an allocation, or across its edge, are told
 * apart from those inside it and those far from it; dag_submit refuses
 * them naming the task, the item and the allocation's call. */
START_TEST(test_misplaced_items) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *m = dag_alloc(1000, dag_dist_block(1, 100));
  ck_assert_ptr_nonnull(m);
  const struct allocation *a, *mine = dag__dist_find(m);
  ck_assert_int_eq(where(m, m + 1000, &a), DIST_FITS);
  ck_assert_int_eq(where(m + 10, m + 20, &a), DIST_FITS);
  ck_assert_int_eq(where(m - 8, m, &a), DIST_BEFORE_START);
  ck_assert_ptr_eq(a, mine);
  ck_assert_int_eq(where(m - page, m - page + 1, &a), DIST_BEFORE_START);
  ck_assert_int_eq(where(m + 1000, m + 1008, &a), DIST_PAST_END);
  ck_assert_int_eq(where(m + 2 * page - 1, m + 2 * page, &a), DIST_PAST_END);
  ck_assert_int_eq(where(m + 992, m + 1008, &a), DIST_LEAVES);
  ck_assert_ptr_eq(a, mine);
  ck_assert_int_eq(where(m - 8, m + 8, &a), DIST_ENTERS);
  ck_assert_int_eq(where(m - page - 8, m + 2 * page + 8, &a), DIST_HOLDS);
  ck_assert_ptr_eq(a, mine);
  char *heap = malloc(64);
  ck_assert_int_eq(where(heap, heap + 64, &a), DIST_FITS);

  struct dag_task_info info = {.fn = nop,
                               .label = "tok",
                               .file = "t.c",
                               .line = 7,
                               .items = (const char *[]){"m[-1]"}};
  struct dag_access acc = {DAG_IN, dag_region_1d(m - 1, 1)};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), DAG_EINVAL);
  const char *msg = dag_last_error();
  if (!strstr(msg, "task 'tok' (t.c:7)") || !strstr(msg, "'m[-1]'") ||
      !strstr(msg, "lies just before dag_alloc memory of 1000 bytes") ||
      !strstr(msg, "check_dist.c:"))
    ck_abort_msg("message: %s", msg);
  acc.region = dag_region_1d(m + 1000, 8);
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "lies just past the end"));
  acc.region = dag_region_1d(m + 999, 1);
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  free(heap);
  ck_assert_int_eq(dag_free(m), 0);
}
END_TEST

/* ---------------------------------------------------------- registry */

#define NMANY 300

START_TEST(test_registry_many) {
  static char *m[NMANY];
  static size_t sizes[NMANY];
  unsigned seed = 12345;
  for (int i = 0; i < NMANY; i++) {
    seed = seed * 1103515245 + 12345;
    /* Some a whole number of pages (neighbours may touch), some not. */
    sizes[i] = i % 3 ? 1 + seed % 50000 : 4096 * (1 + seed % 5);
    m[i] = dag_alloc(sizes[i], dag_dist_block(1, 1 + i));
    ck_assert_ptr_nonnull(m[i]);
  }
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < NMANY; i++) {
      if (!m[i])
        continue;
      const char *at[] = {m[i], m[i] + sizes[i] / 2, m[i] + sizes[i] - 1};
      for (int k = 0; k < 3; k++) {
        const struct allocation *a = dag__dist_find(at[k]);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_eq(a->base, m[i]);
        ck_assert_uint_eq(a->bytes, sizes[i]);
        ck_assert_uint_eq(a->dist.block, 1 + i);
      }
      /* One past the end: nothing, or a neighbour that starts there. */
      const struct allocation *a = dag__dist_find(m[i] + sizes[i]);
      ck_assert(!a || a->base == m[i] + sizes[i]);
      a = dag__dist_find(m[i] - 1);
      ck_assert(!a || a->base + a->bytes == m[i]);
    }
    /* Free every other one, then look again. */
    for (int i = round; i < NMANY; i += 2) {
      if (!m[i])
        continue;
      ck_assert_int_eq(dag_free(m[i]), 0);
      m[i] = NULL;
    }
  }
  for (int i = 0; i < NMANY; i++)
    ck_assert(!m[i]);
}
END_TEST

#define NFIXED 16
static char *fixed[NFIXED];
static size_t fixed_bytes[NFIXED];
static _Atomic(char *) transient;
static atomic_bool stop_readers;
static atomic_long lookups;

static void *reader(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  long n = 0;
  char local;
  while (!atomic_load_explicit(&stop_readers, memory_order_relaxed)) {
    seed = seed * 1103515245 + 12345;
    int i = (int)(seed >> 8) % NFIXED;
    const char *x = fixed[i] + (seed >> 4) % fixed_bytes[i];
    const struct allocation *a = dag__dist_find(x);
    if (!a || a->base != fixed[i])
      return (void *)"a fixed allocation went missing";
    if (dag_owner(x) != 0)
      return (void *)"dag_owner of a fixed allocation";
    if (dag__dist_find(&local) || dag_owner(&local) != -1)
      return (void *)"the stack is in the registry";
    char *t = atomic_load_explicit(&transient, memory_order_relaxed);
    if (t) {
      a = dag__dist_find(t);
      if (a && (a->base > t || a->base + a->bytes <= t))
        return (void *)"an allocation that does not hold the address";
    }
    n++;
  }
  atomic_fetch_add(&lookups, n);
  return NULL;
}

START_TEST(test_concurrent_lookups) {
  for (int i = 0; i < NFIXED; i++) {
    fixed_bytes[i] = 1000 + 777 * (size_t)i;
    fixed[i] = dag_alloc(fixed_bytes[i], dag_dist_block(8, 2));
    ck_assert_ptr_nonnull(fixed[i]);
  }
  enum { NREADERS = 3 };
  pthread_t th[NREADERS];
  for (int i = 0; i < NREADERS; i++)
    ck_assert_int_eq(
        pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)(i + 1)), 0);
  /* Allocations come and go meanwhile, some kept a while. */
  char *kept[32] = {0};
  for (int round = 0; round < 2000; round++) {
    size_t bytes = 100 + (size_t)(round % 17) * 4000;
    char *m = dag_alloc(bytes, dag_dist_owner(64, zero_owner, NULL));
    ck_assert_ptr_nonnull(m);
    atomic_store_explicit(&transient, m + bytes / 2, memory_order_relaxed);
    int k = round % 32;
    if (kept[k])
      ck_assert_int_eq(dag_free(kept[k]), 0);
    kept[k] = m;
  }
  atomic_store(&stop_readers, true);
  for (int i = 0; i < NREADERS; i++) {
    void *why;
    pthread_join(th[i], &why);
    if (why)
      ck_abort_msg("reader %d: %s", i, (const char *)why);
  }
  ck_assert_int_gt(atomic_load(&lookups), 0);
  for (int k = 0; k < 32; k++)
    ck_assert_int_eq(dag_free(kept[k]), 0);
  for (int i = 0; i < NFIXED; i++)
    ck_assert_int_eq(dag_free(fixed[i]), 0);
}
END_TEST

/* --------------------------------------------------- resident memory */

/* KiB of [p, p + bytes) that are resident, page by page (mincore). The
 * allocation's own pages, not the process's VmRSS: worker threads that start
 * at dag_init page in code, stacks and malloc arenas while the test runs, and
 * a sanitizer's shadow memory would count too. */
static long resident_kib(const char *p, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t pages = (bytes + page - 1) / page;
  unsigned char *in = malloc(pages);
  ck_assert_ptr_nonnull(in);
  ck_assert_int_eq(mincore((void *)p, bytes, in), 0);
  size_t count = 0;
  for (size_t i = 0; i < pages; i++)
    count += in[i] & 1;
  free(in);
  return (long)(count * page / 1024);
}

START_TEST(test_resident_memory) {
  ck_assert_int_eq(dag_init(), 0);
  size_t bytes = (size_t)8 << 30;
  char *m = dag_alloc(bytes, dag_dist_2d(8, 32768, 256, 256, 1, 1));
  ck_assert_ptr_nonnull(m);
  long reserved = resident_kib(m, bytes);
  if (reserved != 0)
    ck_abort_msg("reserving 8 GiB made %ld KiB resident", reserved);

  size_t touched = (size_t)64 << 20;
  char *at = m + bytes / 2;
  memset(at, 1, touched);
  /* A transparent huge page may round each end up to 2 MiB. */
  long written = resident_kib(m, bytes);
  if (written < 64 * 1024 || written > 68 * 1024)
    ck_abort_msg("writing 64 MiB made %ld KiB resident", written);

  /* Over the discarded range only: a huge page that a kernel did not align
   * to it keeps its part outside resident. */
  dag__dist_discard(at, touched);
  long discarded = resident_kib(at, touched);
  if (discarded != 0)
    ck_abort_msg("64 MiB discarded: %ld KiB still resident", discarded);
  ck_assert_int_eq(at[0], 0);
  ck_assert_int_eq(dag_free(m), 0);
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *dist_suite(void) {
  Suite *s = suite_create("dist");
  TCase *tc = tcase_create("distributions");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_grid);
  tcase_add_test(tc, test_constructors);
  tcase_add_test(tc, test_home_block);
  tcase_add_test(tc, test_block_per_rank);
  tcase_add_test(tc, test_home_2d);
  tcase_add_test(tc, test_home_owner);
  tcase_add_test(tc, test_owner_out_of_range);
  tcase_add_loop_test(tc, test_bad_alloc, 0, NBAD);
  suite_add_tcase(s, tc);

  tc = tcase_create("allocations");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_owner_on_and_off);
  tcase_add_test(tc, test_free_errors);
  tcase_add_test(tc, test_alloc_inside_task);
  tcase_add_test(tc, test_after_finalize);
  tcase_add_loop_test(tc, test_free_waits_for_tasks, 0, 2);
  tcase_add_test(tc, test_zero_filled);
  tcase_add_test(tc, test_misplaced_items);
  tcase_add_test(tc, test_registry_many);
  tcase_add_test(tc, test_concurrent_lookups);
  tcase_add_test(tc, test_resident_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(dist_suite()); }
