/* check_validity.c — the devices' record of which spaces hold each byte
 * (runtime/device/validity.c, region_table.c), against a plain array of
 * holders, one per byte.
 *
 * Validity keeps a region whose bytes agree as one entry and writes it
 * into per-chunk pieces when a question or an update does not match it
 * exactly. The tests mix exactly that: updates of whole tiles, of single
 * rows and of byte ranges across tiles, questions by region and by range,
 * on regions of every size class from a byte to the whole arena, and
 * check after each step that every answer is the array's. No memory is
 * touched: validity only reads addresses.
 */
#include "device/devices.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

/* The arena: 1 MiB of addresses, 16 chunks of validity, seen as a matrix
 * of 64 rows of 16 KiB. */
#define BASE ((uintptr_t)0x40000000)
#define SIZE ((size_t)1 << 20)
#define LD ((size_t)16 << 10)
#define ROWS (SIZE / LD)

static holders_t model[SIZE];

static void model_reset(void) { memset(model, HOST, sizeof model); }

/* Whether the model gives every byte of [lo, hi) holders h. */
static bool model_is(uintptr_t lo, uintptr_t hi, holders_t h) {
  const holders_t *m = &model[lo - BASE];
  size_t n = hi - lo;
  for (size_t i = 0; i < n; i++)
    if (m[i] != h)
      return false;
  return true;
}

static struct region region_of(struct dag_region in) {
  struct region r;
  const char *why;
  ck_assert_int_eq(dag__region_make(&in, &r, &why), 0);
  return r;
}

static struct region tile(size_t row, size_t col, size_t rows, size_t bytes) {
  return region_of(
      dag_region_2d((void *)(BASE + row * LD + col), rows, bytes, LD));
}

static struct region run(size_t lo, size_t bytes) {
  return region_of(dag_region_1d((void *)(BASE + lo), bytes));
}

struct change {
  holders_t keep, add;
};

static void model_span(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct change *c = arg;
  for (uintptr_t x = lo; x < hi; x++)
    model[x - BASE] = (holders_t)((model[x - BASE] & c->keep) | c->add);
}

static void model_update_region(const struct region *r, holders_t keep,
                                holders_t add) {
  dag__region_each_span(r, model_span, &(struct change){keep, add});
}

/* The walk of [lo, hi): in order, without gaps, each range's holders the
 * model's, and no two neighbours alike. */
struct walk {
  uintptr_t at;
  holders_t last;
  bool any;
};

static void check_range(uintptr_t lo, uintptr_t hi, holders_t h, void *arg) {
  struct walk *w = arg;
  ck_assert_uint_eq(lo, w->at);
  ck_assert_uint_lt(lo, hi);
  ck_assert(!w->any || h != w->last);
  ck_assert(model_is(lo, hi, h));
  w->at = hi;
  w->last = h;
  w->any = true;
}

static void check_walk(size_t lo, size_t hi) {
  struct walk w = {BASE + lo, 0, false};
  dag__validity_each(BASE + lo, BASE + hi, check_range, &w);
  ck_assert_uint_eq(w.at, BASE + hi);
}

/* Every byte the model says a device holds, and none other, is in a range
 * of each_held. */
static unsigned char seen[SIZE];

static void mark_held(uintptr_t lo, uintptr_t hi, holders_t h, void *arg) {
  (void)arg;
  ck_assert(model_is(lo, hi, h));
  ck_assert_uint_ne(h, HOST);
  for (uintptr_t x = lo; x < hi; x++)
    seen[x - BASE]++;
}

static void mark_whole(const struct region *r, holders_t h, void *arg) {
  struct ranges spans = {.mask = 0, .want = 0};
  (void)arg;
  dag__validity_collect(r, &spans);
  for (size_t i = 0; i < spans.n; i++) {
    ck_assert_uint_eq(spans.at[i].holders, h);
    mark_held(spans.at[i].lo, spans.at[i].hi, h, NULL);
  }
  free(spans.at);
}

static void check_held(void) {
  memset(seen, 0, sizeof seen);
  dag__validity_each_held(mark_whole, mark_held, NULL);
  size_t wrong = 0;
  for (size_t x = 0; x < SIZE; x++)
    wrong += seen[x] != (model[x] != HOST);
  ck_assert_uint_eq(wrong, 0);
  ck_assert(dag__validity_any() == (memchr(seen, 1, SIZE) != NULL));
}

/* collect(r) with mask and want: the ranges of r whose holders qualify. */
static void check_collect(const struct region *r, holders_t mask,
                          holders_t want) {
  struct ranges got = {.mask = mask, .want = want};
  dag__validity_collect(r, &got);
  memset(seen, 0, sizeof seen);
  for (size_t i = 0; i < got.n; i++) {
    ck_assert(model_is(got.at[i].lo, got.at[i].hi, got.at[i].holders));
    ck_assert_uint_eq(got.at[i].holders & mask, want);
    memset(&seen[got.at[i].lo - BASE], 1, got.at[i].hi - got.at[i].lo);
  }
  free(got.at);
  /* Every qualifying byte of r was collected. */
  struct ranges all = {.mask = 0, .want = 0};
  dag__validity_collect(r, &all);
  size_t wrong = 0;
  for (size_t i = 0; i < all.n; i++)
    for (uintptr_t x = all.at[i].lo; x < all.at[i].hi; x++)
      wrong += seen[x - BASE] != ((model[x - BASE] & mask) == want);
  ck_assert_uint_eq(wrong, 0);
  free(all.at);
}

static void check_alike(uintptr_t lo, uintptr_t hi, void *holders) {
  ck_assert(model_is(lo, hi, *(holders_t *)holders));
}

/* Whole, if validity says so, means every byte of r has its holders. */
static bool check_whole(const struct region *r) {
  holders_t h;
  if (!dag__validity_whole(r, &h))
    return false;
  dag__region_each_span(r, check_alike, &h);
  return true;
}

static void teardown(void) {
  dag__validity_release();
  model_reset();
}

/* ------------------------------------------------------------ by hand */

START_TEST(tile_is_kept_whole) {
  model_reset();
  struct region t = tile(8, 4096, 16, 4096);
  holders_t h;
  ck_assert(dag__validity_whole(&t, &h)); /* nothing recorded: the host's */
  ck_assert_uint_eq(h, HOST);
  dag__validity_update_region(&t, 0, 2); /* device 0 alone */
  model_update_region(&t, 0, 2);
  ck_assert(dag__validity_whole(&t, &h));
  ck_assert_uint_eq(h, 2);
  ck_assert(dag__validity_any());
  /* One row of it goes back to the host: no longer whole, exact still. */
  dag__validity_update(t.lo, t.lo + 4096, (holders_t)~0, HOST);
  model_span(t.lo, t.lo + 4096, &(struct change){(holders_t)~0, HOST});
  ck_assert(!dag__validity_whole(&t, &h));
  check_walk(0, SIZE);
  /* The whole tile again: kept whole again. */
  dag__validity_update_region(&t, (holders_t)~0, HOST);
  model_update_region(&t, (holders_t)~0, HOST);
  ck_assert(dag__validity_whole(&t, &h));
  ck_assert_uint_eq(h, HOST | 2);
  check_walk(0, SIZE);
  check_held();
  teardown();
}
END_TEST

START_TEST(neighbour_tiles_do_not_disturb_each_other) {
  model_reset();
  /* Tiles of one band interleave by address but share no byte. */
  struct region a = tile(0, 0, 32, 4096), b = tile(0, 4096, 32, 4096);
  dag__validity_update_region(&a, 0, 2);
  dag__validity_update_region(&b, 0, 4);
  holders_t h;
  ck_assert(dag__validity_whole(&a, &h) && h == 2);
  ck_assert(dag__validity_whole(&b, &h) && h == 4);
  /* A range across both rows 3 of a and b: each tile is written into
   * pieces, the answer is exact. */
  model_update_region(&a, 0, 2);
  model_update_region(&b, 0, 4);
  check_walk(3 * LD, 3 * LD + 8192);
  ck_assert(!dag__validity_whole(&a, &h));
  check_walk(0, SIZE);
  check_held();
  teardown();
}
END_TEST

START_TEST(rows_that_agree_become_whole) {
  model_reset();
  /* Written row by row, then updated as one tile: one entry. */
  struct region t = tile(16, 0, 8, 2048);
  for (size_t i = 0; i < 8; i++)
    dag__validity_update(t.lo + i * LD, t.lo + i * LD + 2048, 0, 2);
  holders_t h;
  ck_assert(!dag__validity_whole(&t, &h));
  dag__validity_update_region(&t, (holders_t)~0, 4);
  ck_assert(dag__validity_whole(&t, &h));
  ck_assert_uint_eq(h, 2 | 4);
  /* A row that disagrees keeps it in pieces. */
  dag__validity_update(t.lo, t.lo + 16, 0, HOST);
  dag__validity_update_region(&t, (holders_t)~0, 8);
  ck_assert(!dag__validity_whole(&t, &h));
  model_update_region(&t, 0, 2);
  model_update_region(&t, (holders_t)~0, 4);
  model_span(t.lo, t.lo + 16, &(struct change){0, HOST});
  model_update_region(&t, (holders_t)~0, 8);
  check_walk(0, SIZE);
  check_held();
  teardown();
}
END_TEST

START_TEST(forget_devices_leaves_the_host) {
  model_reset();
  struct region t = tile(0, 0, 64, 1024), u = run(2048, 8000);
  dag__validity_update_region(&t, 0, 2);
  dag__validity_update_region(&u, (holders_t)~0, 4);
  dag__validity_forget_devices();
  ck_assert(!dag__validity_any());
  holders_t h;
  ck_assert(dag__validity_whole(&t, &h) && h == HOST);
  check_walk(0, SIZE); /* a question about bytes: t goes into pieces, */
  ck_assert(dag__validity_whole(&t, &h) && h == HOST); /* ... none kept */
  teardown();
}
END_TEST

/* ------------------------------------------------------------- random */

static unsigned next_random(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 8;
}

/* A region of one of a few families: tiles of a fixed grid (met again and
 * again, so kept whole), rows, tiles of any size anywhere, byte runs of
 * every size class, the whole arena. */
static struct region random_region(unsigned *seed) {
  unsigned kind = next_random(seed) % 6;
  size_t row = next_random(seed) % ROWS;
  switch (kind) {
  case 0:
  case 1: { /* the grid: 8 x 4 tiles of 8 rows by 4 KiB */
    size_t i = next_random(seed) % 8, j = next_random(seed) % 4;
    return tile(i * 8, j * 4096, 8, 4096);
  }
  case 2: /* one row of a grid tile */
    return run(row * LD + (next_random(seed) % 4) * 4096, 4096);
  case 3: { /* any tile */
    size_t rows = 1 + next_random(seed) % (ROWS - row);
    size_t col = next_random(seed) % LD;
    size_t bytes = 1 + next_random(seed) % (LD - col);
    return tile(row, col, rows, bytes);
  }
  case 4: { /* a run of 2^k bytes or so, k from 0 to 20 */
    size_t bytes =
        ((size_t)1 << (next_random(seed) % 21)) + next_random(seed) % 7;
    if (bytes > SIZE)
      bytes = SIZE;
    return run(next_random(seed) % (SIZE - bytes + 1), bytes);
  }
  default:
    return next_random(seed) % 4 ? tile(row, 0, 1, LD) : run(0, SIZE);
  }
}

static holders_t random_holders(unsigned *seed) {
  return (holders_t)(1 + next_random(seed) % 15); /* host and 3 devices */
}

START_TEST(random_steps_match_the_model) {
  unsigned seed = 12345u + (unsigned)_i;
  model_reset();
  int wholes = 0; /* questions answered by one lookup */
  for (int step = 0; step < 1500; step++) {
    struct region r = random_region(&seed);
    holders_t keep = next_random(&seed) % 3 ? 0 : random_holders(&seed);
    holders_t add = random_holders(&seed);
    switch (next_random(&seed) % 8) {
    case 0:
    case 1:
    case 2: /* a task's region */
      dag__validity_update_region(&r, keep, add);
      model_update_region(&r, keep, add);
      break;
    case 3: { /* a range of bytes (an eviction's granule) */
      size_t lo = next_random(&seed) % SIZE;
      size_t hi = lo + 1 + next_random(&seed) % (SIZE - lo);
      dag__validity_update(BASE + lo, BASE + hi, keep, add);
      model_span(BASE + lo, BASE + hi, &(struct change){keep, add});
      break;
    }
    case 4: /* what a host task reads comes back */ {
      struct ranges stale = {.mask = HOST, .want = 0};
      dag__validity_collect(&r, &stale);
      dag__validity_host_copied(&stale, next_random(&seed) % 2 ? &r : NULL);
      for (size_t i = 0; i < stale.n; i++)
        model_span(stale.at[i].lo, stale.at[i].hi,
                   &(struct change){(holders_t)~0, HOST});
      free(stale.at);
      break;
    }
    case 5: {
      holders_t bit = (holders_t)(2 << next_random(&seed) % 3);
      check_collect(&r, bit, 0);
      break;
    }
    case 6:
      wholes += check_whole(&r);
      break;
    default:
      if (next_random(&seed) % 50 == 0) {
        dag__validity_forget_devices();
        model_reset();
      }
      break;
    }
    /* Questions about bytes write what they meet into pieces: now and
     * then, and a few rows' worth, so that whole regions live on. */
    size_t lo = next_random(&seed) % SIZE;
    if (step % 4 == 0)
      check_walk(lo, lo + 1 +
                         next_random(&seed) %
                             (SIZE - lo < 65536 ? SIZE - lo : 65536));
    if (step % 100 == 99) {
      check_walk(0, SIZE);
      check_held();
    }
  }
  check_walk(0, SIZE);
  check_held();
  teardown();
}
END_TEST

int main(void) {
  Suite *s = suite_create("validity");
  TCase *tc = tcase_create("validity");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, tile_is_kept_whole);
  tcase_add_test(tc, neighbour_tiles_do_not_disturb_each_other);
  tcase_add_test(tc, rows_that_agree_become_whole);
  tcase_add_test(tc, forget_devices_leaves_the_host);
  tcase_add_loop_test(tc, random_steps_match_the_model, 0, 8);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
