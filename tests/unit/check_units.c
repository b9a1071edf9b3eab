/* check_units.c — the rank-uniform layer's bookkeeping pieces on one rank.
 *
 * Rank sets (rankset.c) against a boolean oracle, for 1 to 200 ranks and
 * random sequences of add, only, all and intersect. Block lookup (units.c):
 * for random regions of a 2-D block-cyclic allocation, dag__units_block
 * answers the block that holds every byte, or NULL when bytes lie in
 * several blocks; a tile always finds its block; answers repeat when looked
 * up again (remembered), also after more shapes than the table keeps.
 * Flushes (uniform.c) spread replicated data along a binomial tree: in a
 * simulated run of 64 ranks, the writer sends log2(64) messages, not 63.
 * The access cache (api/validate.c) answers only for the access exactly as
 * written, and forgets everything when an allocation comes or goes.
 * dag_finalize with dag_alloc memory still allocated, blocks planned on
 * (under AddressSanitizer: no write into released allocation records).
 */
#include "api/api.h" /* the access cache */
#include "dag.h"
#include "plan/planner.h" /* struct rankset, dag__units_block */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

/* ------------------------------------------------------------- rank sets */

enum { MAX_RANKS = 200 };

static void same(const struct rankset *s, const bool *oracle, int n) {
  int first = -1;
  for (int r = 0; r < n; r++) {
    ck_assert_int_eq(dag__rankset_has(s, r), oracle[r]);
    if (oracle[r] && first < 0)
      first = r;
  }
  ck_assert_int_eq(dag__rankset_first(s), first);
}

START_TEST(test_rankset_random) {
  srand(7);
  for (int n = 1; n <= MAX_RANKS; n += n < 70 ? 1 : 13) {
    dag__nranks = n;
    struct rankset s = {rand() % n, NULL}, t = {RANKSET_ALL, NULL};
    bool in_s[MAX_RANKS] = {0}, in_t[MAX_RANKS];
    in_s[s.one] = true;
    for (int r = 0; r < n; r++)
      in_t[r] = true;
    for (int step = 0; step < 400; step++) {
      int r = rand() % n;
      switch (rand() % 6) {
      case 0:
      case 1:
        dag__rankset_add(&s, r);
        in_s[r] = true;
        break;
      case 2:
        dag__rankset_only(&s, r);
        memset(in_s, 0, sizeof in_s);
        in_s[r] = true;
        break;
      case 3:
        dag__rankset_add(&t, r);
        in_t[r] = true;
        break;
      case 4: /* t ∩ s, kept non-empty: s's first member joins t */
        dag__rankset_add(&t, dag__rankset_first(&s));
        in_t[dag__rankset_first(&s)] = true;
        dag__rankset_intersect(&t, &s);
        for (int k = 0; k < n; k++)
          in_t[k] = in_t[k] && in_s[k];
        break;
      case 5:
        dag__rankset_all(&t);
        for (int k = 0; k < n; k++)
          in_t[k] = true;
        break;
      }
      same(&s, in_s, n);
      same(&t, in_t, n);
    }
    dag__rankset_free(&s);
    dag__rankset_free(&t);
  }
}
END_TEST

/* ----------------------------------------------------------- block lookup */

enum { LD = 40, ROWS = 37, MB = 8, NB = 6 }; /* doubles; partial edges */

static size_t block_of(size_t offset) {
  size_t e = offset / sizeof(double);
  size_t nbj = (LD + NB - 1) / NB;
  return e / LD / MB * nbj + e % LD / NB;
}

/* A region of rows [r0, r0 + nr), columns [c0, c0 + nc), every `step`-th
 * row. */
static struct region rect(const double *a, int r0, int nr, int c0, int nc,
                          int step) {
  struct dag_region in =
      dag_region_2d(a + r0 * LD + c0, nr, (size_t)nc * sizeof(double),
                    (size_t)step * LD * sizeof(double));
  struct region out;
  const char *why;
  ck_assert_int_eq(dag__region_make(&in, &out, &why), 0);
  return out;
}

/* Checks the answer for r against the blocks its bytes lie in. */
static void check_lookup(const double *a, const struct allocation *al,
                         const struct region *r, int r0, int nr, int c0, int nc,
                         int step) {
  struct unit *u = dag__units_block(al, r);
  size_t blocks[ROWS * LD], nblocks = 0;
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nc; j++) {
      size_t off = (size_t)((r0 + i * step) * LD + c0 + j) * sizeof(double);
      size_t b = block_of(off);
      if (!nblocks || blocks[nblocks - 1] != b)
        blocks[nblocks++] = b;
      if (u) {
        uintptr_t p = (uintptr_t)a + off;
        struct region byte = {p, p + 8, 8, 0, 0, {{0, 0}}};
        ck_assert_msg(dag__region_covers(&u->region, &byte),
                      "rows %d+%d cols %d+%d: byte outside the block", r0, nr,
                      c0, nc);
      }
    }
  bool one = true;
  for (size_t k = 1; k < nblocks; k++)
    one &= blocks[k] == blocks[0];
  if (!one)
    ck_assert_msg(!u, "rows %d+%d cols %d+%d spans blocks", r0, nr, c0, nc);
  if (one && step == 1)
    ck_assert_msg(u != NULL, "rows %d+%d cols %d+%d: a tile without its block",
                  r0, nr, c0, nc);
  ck_assert_ptr_eq(dag__units_block(al, r), u); /* remembered */
}

START_TEST(test_block_lookup) {
  dag__nranks = 1;
  double *a = dag_alloc(ROWS * LD * sizeof(double),
                        dag_dist_2d(sizeof(double), LD, MB, NB, 1, 1));
  ck_assert_ptr_nonnull(a);
  const struct allocation *al = dag__dist_find(a);
  ck_assert_ptr_nonnull(al);
  srand(11);
  for (int iter = 0; iter < 100000; iter++) {
    int step = 1 + (rand() % 4 == 0);
    int r0 = rand() % ROWS, c0 = rand() % LD;
    int nr = 1 + rand() % ((ROWS - 1 - r0) / step + 1);
    int nc = 1 + rand() % (LD - c0);
    if (iter % 2) { /* a tile, or a part of one */
      nr = 1 + rand() % (MB - r0 % MB < ROWS - r0 ? MB - r0 % MB : ROWS - r0);
      nc = 1 + rand() % (NB - c0 % NB < LD - c0 ? NB - c0 % NB : LD - c0);
      step = 1;
    }
    struct region r = rect(a, r0, nr, c0, nc, step);
    check_lookup(a, al, &r, r0, nr, c0, nc, step);
  }
  ck_assert_int_eq(dag_free(a), 0);
}
END_TEST

/* ---------------------------------------------------------- access cache */

START_TEST(test_access_cache) {
  double *a = dag_alloc(64 * sizeof(double),
                        dag_dist_block(sizeof(double), 32)); /* starts dag */
  ck_assert_ptr_nonnull(a);
  ck_assert(!dag__access_cache_valid()); /* first look: emptied */
  ck_assert(dag__access_cache_valid());
  struct dag_access tile = {DAG_INOUT, dag_region_2d(a + 8, 2, 16, 64)};
  struct region g;
  const char *why;
  ck_assert_int_eq(dag__region_make(&tile.region, &g, &why), 0);
  struct resolved r = {.alloc = dag__dist_find(a)};
  r.block = dag__units_block(r.alloc, &g);
  ck_assert_ptr_nonnull(r.block);
  r.hash = dag__uniformity_access_hash(&g, tile.mode, r.alloc);
  struct region got_region;
  struct resolved got;
  ck_assert(!dag__access_known(&tile, &got_region, &got));
  dag__access_remember(&tile, &g, &r);
  ck_assert(dag__access_known(&tile, &got_region, &got));
  ck_assert(got_region.lo == g.lo && got_region.hi == g.hi);
  ck_assert_int_eq(got_region.ndims, 1);
  ck_assert_uint_eq(got_region.dim[0].stride, 64);
  ck_assert_ptr_eq(got.alloc, r.alloc);
  ck_assert_ptr_eq(got.block, r.block);
  ck_assert(got.hash == r.hash);
  /* Another mode, stride or count is another access. */
  struct dag_access other = tile;
  other.mode = DAG_IN;
  ck_assert(!dag__access_known(&other, &got_region, &got));
  other = tile;
  other.region.dim[0].stride = 128;
  ck_assert(!dag__access_known(&other, &got_region, &got));
  other = tile;
  other.region.dim[0].count = 3;
  ck_assert(!dag__access_known(&other, &got_region, &got));
  /* A new allocation: the cache no longer answers. */
  double *b = dag_alloc(64, dag_dist_block(1, 64));
  ck_assert_ptr_nonnull(b);
  ck_assert(!dag__access_cache_valid());
  ck_assert(!dag__access_known(&tile, &got_region, &got));
  ck_assert_int_eq(dag_free(b), 0);
  ck_assert_int_eq(dag_free(a), 0);
}
END_TEST

/* ------------------------------------------------------------- broadcast */

static void nothing(void *args) { (void)args; }

static void write_on(double *x, int rank) {
  struct dag_task_info info = {
      .fn = nothing, .label = "write", .flags = DAG_TASK_ON_RANK, .rank = rank};
  struct dag_access acc = {DAG_INOUT, dag_region_1d(x, sizeof *x)};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), 0);
}

START_TEST(test_flush_tree) {
  setenv("DAG_SIMULATE_RANKS", "64", 1);
  setenv("DAG_SIMULATE_RANK", "0", 1);
  ck_assert_int_eq(dag_nranks(), 64);
  static double x;
  uint64_t sent, received;
  write_on(&x, 0); /* rank 0 is the root: 0 -> 1, 2, 4, ..., 32 */
  ck_assert_int_eq(dag_taskwait(), 0);
  dag__plan_messages(&sent, &received);
  ck_assert_int_eq(sent, 6);
  ck_assert_int_eq(received, 0);
  write_on(&x, 5); /* rank 5 is: rank 0 hears from rank 32, sends nothing */
  ck_assert_int_eq(dag_taskwait(), 0);
  dag__plan_messages(&sent, &received);
  ck_assert_int_eq(sent, 6);
  ck_assert_int_eq(received, 1);
  unsetenv("DAG_SIMULATE_RANKS");
  unsetenv("DAG_SIMULATE_RANK");
}
END_TEST

/* ---------------------------------------------------------------- finalize */

START_TEST(test_finalize_with_blocks) {
  setenv("DAG_SIMULATE_RANKS", "2", 1);
  double *a = dag_alloc(64 * sizeof *a, dag_dist_block(sizeof *a, 8));
  ck_assert_ptr_nonnull(a);
  write_on(a, 1); /* planned on a block of a, never freed */
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(dag_finalize(), 0);
  unsetenv("DAG_SIMULATE_RANKS");
}
END_TEST

int main(void) {
  Suite *s = suite_create("units");
  TCase *tc = tcase_create("bookkeeping");
  tcase_add_test(tc, test_rankset_random);
  tcase_add_test(tc, test_block_lookup);
  tcase_add_test(tc, test_flush_tree);
  tcase_add_test(tc, test_access_cache);
  tcase_add_test(tc, test_finalize_with_blocks);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
