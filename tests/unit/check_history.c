/* check_history.c — the index of a tracker's records (runtime/history.c)
 * against brute force.
 *
 * Runs and blocks of rows of several strides, at every phase of their rows
 * and some crossing a row, are inserted and erased at random; every lookup
 * must return each record that shares a byte with the access, once, and
 * the band table must account for every band in the tree. The index never
 * reads the bytes, so the addresses are plain numbers.
 */
#include "core/history.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

#define RECORDS 4096 /* a 64 x 64 grid of tiles */

static struct record *records[RECORDS];
static bool live[RECORDS];
static struct record *found[RECORDS];
static const size_t strides[] = {64, 96, 100, 4096};

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

/* A random region: a run (1 in 5), else rows of a random stride, a few of
 * them crossing from one row into the next. */
static void random_region(struct region *g) {
  memset(g, 0, sizeof *g);
  size_t s = strides[rnd(4)];
  uintptr_t row = 1 + rnd(3000);
  if (rnd(5) == 0) {
    g->lo = row * s + rnd((uint32_t)s);
    g->span = 1 + rnd(500);
    g->hi = g->lo + g->span;
    return;
  }
  size_t span = 1 + rnd((uint32_t)s - 1);
  size_t column = rnd((uint32_t)(s - span + 1));
  if (span > 1 && rnd(6) == 0)
    column = s - span + 1 + rnd((uint32_t)span - 1); /* crosses a row */
  g->lo = row * s + column;
  g->span = span;
  g->ndims = 1;
  g->dim[0].count = 1 + rnd(40);
  g->dim[0].stride = s;
  g->hi = g->lo + (g->dim[0].count - 1) * s + span;
}

static void insert(struct history *h, int i, const struct region *g) {
  struct record *r = records[i];
  memset(r, 0, sizeof *r);
  r->region = *g;
  r->task_kind = g->ndims == 0 ? SHAPE_RUN : SHAPE_FULL;
  dag__history_insert(h, r);
  live[i] = true;
}

static size_t bands_in_tree(const struct record *t) {
  if (!t)
    return 0;
  return (record_shape(t) == SHAPE_BAND) + bands_in_tree(t->left) +
         bands_in_tree(t->right);
}

static void check_index(const struct history *h, size_t nlive) {
  size_t slots = 0;
  for (size_t k = 0; h->bands && k <= h->band_mask; k++)
    slots += h->bands[k] != NULL;
  ck_assert_uint_eq(bands_in_tree(h->root), h->nbands);
  ck_assert_uint_eq(slots, h->nbands);
  size_t n = 0;
  dag__history_collect(h, found, &n);
  ck_assert_uint_eq(n, nlive);
}

/* Every live record that overlaps g is found, and once. (Assertions only
 * on failure: Check reports each one to its parent process.) */
static void check_query(const struct history *h, const struct region *g) {
  size_t n = 0;
  dag__history_query(h, g, found, &n);
  for (int i = 0; i < RECORDS; i++) {
    if (!live[i])
      continue;
    int times = 0;
    for (size_t k = 0; k < n; k++)
      times += found[k] == records[i];
    if (times > 1)
      ck_abort_msg("record %d found %d times", i, times);
    if (times == 0 && dag__region_overlap(&records[i]->region, g))
      ck_abort_msg("record %d overlaps the access, not found", i);
  }
}

START_TEST(test_random_index) {
  rng_state = 12345u + (uint64_t)_i;
  struct history h = {0};
  size_t nlive = 0;
  for (long step = 0; step < 200000; step++) {
    int i = (int)rnd(RECORDS);
    if (live[i]) {
      dag__history_erase(&h, records[i]);
      live[i] = false;
      nlive--;
    } else {
      struct region g;
      random_region(&g);
      insert(&h, i, &g);
      nlive++;
    }
    if (step % 4000 != 0)
      continue;
    check_index(&h, nlive);
    for (int q = 0; q < 40; q++) {
      struct region g;
      random_region(&g);
      check_query(&h, &g);
    }
    if (rnd(3) == 0) { /* what a sweep does */
      size_t n = 0;
      dag__history_collect(&h, found, &n);
      struct record **again = malloc(n * sizeof *again);
      ck_assert_ptr_nonnull(again);
      memcpy(again, found, n * sizeof *again);
      dag__history_reset(&h);
      for (size_t k = 0; k < n; k++)
        dag__history_insert(&h, again[k]);
      free(again);
      check_index(&h, nlive);
    }
  }
  for (int i = 0; i < RECORDS; i++)
    if (live[i]) {
      dag__history_erase(&h, records[i]);
      live[i] = false;
    }
  ck_assert_ptr_null(h.root);
  ck_assert_uint_eq(h.nbands, 0);
  dag__history_reset(&h);
}
END_TEST

/* The tiles of a 64 x 64 grid: a tile's lookup finds the tiles it shares
 * bytes with, not its whole band of rows. */
START_TEST(test_tiles_by_columns) {
  const size_t tiles = 64, b = 16, s = tiles * b;
  /* _i = 0: the matrix starts a row; 1: it starts mid-row, so that one
   * tile of each band crosses a row and stays in the top tree. */
  uintptr_t base = 1000 * s + (_i ? 24 : 0);
  struct history h = {0};
  for (size_t i = 0; i < tiles; i++)
    for (size_t j = 0; j < tiles; j++) {
      struct region g = {.lo = base + i * b * s + j * b,
                         .span = b,
                         .ndims = 1,
                         .dim = {{b, s}}};
      g.hi = g.lo + (b - 1) * s + b;
      insert(&h, (int)(i * tiles + j), &g);
    }
  check_index(&h, tiles * tiles);
  for (size_t i = 0; i < tiles; i++)
    for (size_t j = 0; j < tiles; j++) {
      const struct region *g = &records[i * tiles + j]->region;
      size_t n = 0;
      dag__history_query(&h, g, found, &n);
      /* Itself, and with the odd base the tiles crossing a row near it. */
      ck_assert_uint_ge(n, 1);
      ck_assert_uint_le(n, (size_t)(_i ? 3 : 1));
      check_query(&h, g);
    }
  for (size_t k = 0; k < tiles * tiles; k++) {
    dag__history_erase(&h, records[k]);
    live[k] = false;
  }
  ck_assert_uint_eq(h.nbands, 0);
  dag__history_reset(&h);
}
END_TEST

static void setup(void) {
  dag__pools_init();
  for (int i = 0; i < RECORDS; i++) {
    records[i] = calloc(1, sizeof **records);
    ck_assert_ptr_nonnull(records[i]);
    live[i] = false;
  }
}

static void teardown(void) {
  for (int i = 0; i < RECORDS; i++)
    free(records[i]);
  dag__pools_release();
}

int main(void) {
  Suite *s = suite_create("history");
  TCase *tc = tcase_create("index");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_random_index, 0, 3);
  tcase_add_loop_test(tc, test_tiles_by_columns, 0, 2);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
