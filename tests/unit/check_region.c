/* check_region.c — geometry of multi-span regions (runtime/region.c).
 *
 * A table of hand-made cases (partial overlap of sections, strided blocks
 * that interleave without sharing a byte, 4-D sections, canonical forms),
 * then random regions checked against their byte sets: overlap must be
 * exact, containment must never claim a byte that is not covered.
 */
#include "base.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

#define ARENA 4096
static char arena[ARENA];

static struct dag_region R1(size_t off, size_t span) {
  return dag_region_1d(arena + off, span);
}

static struct dag_region
R2(size_t off, size_t rows, size_t span, size_t ld) {
  return dag_region_2d(arena + off, rows, span, ld);
}

static struct dag_region
RN(size_t off, size_t span, int ndims, const size_t *counts,
   const size_t *strides) {
  struct dag_region r = {arena + off, span, ndims, {{0, 0}}};
  for (int d = 0; d < ndims; d++) {
    r.dim[d].count = counts[d];
    r.dim[d].stride = (ptrdiff_t)strides[d];
  }
  return r;
}

static struct region
make(struct dag_region in) {
  struct region out;
  const char *why = NULL;
  int err = dag__region_make(&in, &out, &why);
  ck_assert_msg(err == 0, "region_make failed: %s", why ? why : "?");
  return out;
}

/* ------------------------------------------------------------ the table */

struct pair_case {
  const char *name;
  struct dag_region a, b;
  bool overlap;
  bool a_covers_b;
};

static struct pair_case cases[64];
static int ncases;

static void add(const char *name, struct dag_region a, struct dag_region b,
                bool overlap, bool covers) {
  cases[ncases++] = (struct pair_case){name, a, b, overlap, covers};
}

static void build_cases(void) {
  static const size_t c4[] = {2, 2, 2, 2}, s4[] = {1024, 256, 64, 16};
  static const size_t c4b[] = {1, 1, 1, 1}, s4b[] = {1024, 256, 64, 16};
  static const size_t c3[] = {2, 3, 4}, s3[] = {1024, 128, 16};
  ncases = 0;
  add("same bytes", R1(0, 64), R1(0, 64), true, true);
  add("disjoint", R1(0, 64), R1(64, 64), false, false);
  add("partial overlap", R1(0, 64), R1(63, 64), true, false);
  add("contained", R1(0, 64), R1(8, 8), true, true);
  add("container is smaller", R1(8, 8), R1(0, 64), true, false);
  add("empty span", R1(0, 64), R1(0, 0), false, true);
  add("tile vs same tile", R2(0, 4, 32, 128), R2(0, 4, 32, 128), true, true);
  add("tiles side by side", R2(0, 4, 32, 128), R2(32, 4, 32, 128), false,
      false);
  add("tiles one below", R2(0, 4, 32, 128), R2(512, 4, 32, 128), false, false);
  add("tiles shifted half", R2(0, 4, 32, 128), R2(16, 4, 32, 128), true, false);
  add("tile vs row inside", R2(0, 4, 32, 128), R1(128 + 4, 8), true, true);
  add("tile vs gap between rows", R2(0, 4, 32, 128), R1(32, 96), false, false);
  add("row across two spans", R2(0, 4, 32, 128), R1(16, 128), true, false);
  add("interleaved columns", R2(0, 8, 8, 16), R2(8, 8, 8, 16), false, false);
  add("interleaved, different strides", R2(0, 8, 8, 32), R2(8, 8, 8, 16), false,
      false);
  add("different strides meet", R2(0, 8, 8, 32), R2(4, 8, 8, 16), true, false);
  add("sub-tile", R2(0, 8, 64, 128), R2(128 + 8, 2, 16, 128), true, true);
  add("sub-tile sticking out", R2(0, 8, 64, 128), R2(128 + 56, 2, 16, 128),
      true, false);
  add("whole rows = one span", R2(0, 4, 128, 128), R1(0, 512), true, true);
  add("4-D vs itself", RN(0, 8, 4, c4, s4), RN(0, 8, 4, c4, s4), true, true);
  add("4-D vs gap", RN(0, 8, 4, c4, s4), R1(8, 8), false, false);
  add("4-D vs last byte", RN(0, 8, 4, c4, s4), R1(1024 + 256 + 64 + 16 + 7, 1),
      true, true);
  add("4-D vs one of its spans", RN(0, 8, 4, c4, s4), RN(256, 8, 4, c4b, s4b),
      true, true);
  add("4-D vs a 3-D inside", RN(0, 8, 4, c4, s4), RN(0, 8, 3, c4 + 1, s4 + 1),
      true, true);
  add("3-D vs shifted 3-D", RN(0, 8, 3, c3, s3), RN(8, 8, 3, c3, s3), false,
      false);
  add("3-D vs 2-D across blocks", RN(0, 8, 3, c3, s3), R2(16, 2, 8, 1024), true,
      true);
  add("3-D vs 2-D off the lattice", RN(0, 8, 3, c3, s3), R2(20, 2, 8, 1024),
      true, false);
}

START_TEST(table_case) {
  build_cases();
  const struct pair_case *c = &cases[_i];
  struct region a = make(c->a), b = make(c->b);
  ck_assert_msg(dag__region_overlap(&a, &b) == c->overlap, "%s: overlap(a,b)",
                c->name);
  ck_assert_msg(dag__region_overlap(&b, &a) == c->overlap, "%s: overlap(b,a)",
                c->name);
  ck_assert_msg(dag__region_covers(&a, &b) == c->a_covers_b, "%s: covers(a,b)",
                c->name);
}
END_TEST

/* -------------------------------------------------------- canonical form */

START_TEST(canonical_forms) {
  /* Rows that touch are one span. */
  struct region r = make(R2(0, 4, 128, 128));
  ck_assert_int_eq(r.ndims, 0);
  ck_assert_uint_eq(r.span, 512);
  /* Count-1 dimensions disappear. */
  static const size_t c[] = {1, 4}, s[] = {4096, 128};
  r = make(RN(0, 16, 2, c, s));
  ck_assert_int_eq(r.ndims, 1);
  ck_assert_uint_eq(r.dim[0].count, 4);
  /* An outer dimension continuing the lattice merges into it. */
  static const size_t c2[] = {3, 4}, s2[] = {512, 128};
  r = make(RN(0, 16, 2, c2, s2));
  ck_assert_int_eq(r.ndims, 1);
  ck_assert_uint_eq(r.dim[0].count, 12);
  ck_assert_uint_eq(r.dim[0].stride, 128);
  ck_assert_uint_eq(dag__region_bytes(&r), 12 * 16);
  ck_assert_uint_eq(r.lo, (uintptr_t)arena);
  ck_assert_uint_eq(r.hi, (uintptr_t)arena + 11 * 128 + 16);
}
END_TEST

START_TEST(invalid_regions) {
  struct region out;
  const char *why;
  struct dag_region neg = R2(0, 4, 8, 16);
  neg.dim[0].stride = -16;
  ck_assert_int_eq(dag__region_make(&neg, &out, &why), DAG_EINVAL);
  struct dag_region zero = R2(0, 4, 8, 0);
  ck_assert_int_eq(dag__region_make(&zero, &out, &why), DAG_EINVAL);
  struct dag_region nested = R2(0, 4, 32, 16); /* rows interleave */
  ck_assert_int_eq(dag__region_make(&nested, &out, &why), DAG_EINVAL);
  struct dag_region dims = R1(0, 8);
  dims.ndims = DAG_MAX_DIMS + 1;
  ck_assert_int_eq(dag__region_make(&dims, &out, &why), DAG_EDIMS);
  dims.ndims = -1;
  ck_assert_int_eq(dag__region_make(&dims, &out, &why), DAG_EINVAL);
  struct dag_region huge = R1(0, (size_t)-8);
  ck_assert_int_eq(dag__region_make(&huge, &out, &why), DAG_EOVERFLOW);
  struct dag_region far = R2(0, (size_t)1 << 62, 8, 16);
  ck_assert_int_eq(dag__region_make(&far, &out, &why), DAG_EOVERFLOW);
  struct dag_region null = dag_region_1d(NULL, 8);
  ck_assert_int_eq(dag__region_make(&null, &out, &why), DAG_EINVAL);
  struct dag_region empty = dag_region_1d(NULL, 0);
  ck_assert_int_eq(dag__region_make(&empty, &out, &why), 0);
  ck_assert(dag__region_empty(&out));
}
END_TEST

/* ------------------------------------------------- random vs byte sets */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

/* A random well-nested region inside the arena, with its byte set. */
static struct dag_region random_region(bool bytes[ARENA]) {
  for (;;) {
    int ndims = (int)rnd(DAG_MAX_DIMS + 1);
    size_t span = 1 + rnd(24);
    size_t extent = span;
    size_t counts[DAG_MAX_DIMS], strides[DAG_MAX_DIMS];
    for (int d = ndims - 1; d >= 0; d--) {
      counts[d] = 1 + rnd(4);
      /* Sometimes exactly the extent (touching blocks), else a gap. */
      strides[d] = extent + (rnd(3) == 0 ? 0 : rnd(40));
      extent += (counts[d] - 1) * strides[d];
    }
    if (extent >= ARENA)
      continue;
    size_t off = rnd((uint32_t)(ARENA - extent));
    struct dag_region r = RN(off, span, ndims, counts, strides);
    memset(bytes, 0, ARENA);
    size_t idx[DAG_MAX_DIMS] = {0};
    for (;;) {
      size_t at = off;
      for (int d = 0; d < ndims; d++)
        at += idx[d] * strides[d];
      memset(bytes + at, 1, span);
      int d = ndims - 1;
      while (d >= 0 && ++idx[d] == counts[d])
        idx[d--] = 0;
      if (d < 0)
        break;
    }
    return r;
  }
}

/* Whether byte sets a and b meet, and a holds b; returns a's size. */
static size_t compare_bytes(const bool *a, const bool *b, bool *overlap,
                            bool *covers) {
  size_t na = 0;
  *overlap = false;
  *covers = true;
  for (size_t i = 0; i < ARENA; i++) {
    *overlap |= a[i] && b[i];
    *covers &= a[i] || !b[i];
    na += a[i];
  }
  return na;
}

START_TEST(random_against_bytes) {
  static bool a_bytes[ARENA], b_bytes[ARENA];
  rng_state = 12345 + (uint64_t)_i;
  size_t covered_true = 0;
  for (int iter = 0; iter < 20000; iter++) {
    struct dag_region ra = random_region(a_bytes);
    struct dag_region rb = random_region(b_bytes);
    if (rnd(4) == 0) { /* b inside a more often, to exercise covers */
      rb = ra;
      memcpy(b_bytes, a_bytes, ARENA);
      if (rb.ndims > 0 && rb.dim[0].count > 1) {
        rb.dim[0].count--;
        memset(b_bytes, 0, ARENA);
        /* recompute b's bytes by brute force from a's with one less block */
        for (size_t i = 0; i < ARENA; i++)
          b_bytes[i] = a_bytes[i] &&
                       i < (size_t)((char *)rb.base - arena) +
                               (rb.dim[0].count) * (size_t)rb.dim[0].stride;
      }
    }
    struct region a = make(ra), b = make(rb);
    bool overlap, covers;
    size_t na = compare_bytes(a_bytes, b_bytes, &overlap, &covers);
    ck_assert_uint_eq(dag__region_bytes(&a), na);
    ck_assert_msg(dag__region_overlap(&a, &b) == overlap,
                  "iteration %d: overlap is %d, region says %d", iter, overlap,
                  !overlap);
    ck_assert(dag__region_overlap(&b, &a) == overlap);
    if (dag__region_covers(&a, &b)) {
      ck_assert_msg(covers, "iteration %d: covers() claims bytes not in a",
                    iter);
      covered_true++;
    }
    if (covers && ra.ndims == 0)
      ck_assert_msg(dag__region_covers(&a, &b),
                    "iteration %d: a contiguous region must cover", iter);
  }
  ck_assert_msg(covered_true > 1000, "covers() said yes only %zu times",
                covered_true);
}
END_TEST

/* A region of rows (one row: contiguous) of stride 64 or 128 in the arena,
 * its bytes marked in `bytes`. */
static struct dag_region random_rows(bool *bytes, size_t stride) {
  size_t span = 1 + rnd(stride), rows = 1 + rnd(8);
  size_t off = rnd(ARENA - (rows - 1) * stride - span);
  memset(bytes, 0, ARENA);
  for (size_t i = 0; i < rows; i++)
    memset(bytes + off + i * stride, 1, span);
  return rows > 1 ? R2(off, rows, span, stride) : R1(off, span);
}

/* dag__region_within: where it answers, exactly the bytes of a in u; and
 * it answers for contiguous pairs and rows of one stride within a row. */
START_TEST(within_against_bytes) {
  static bool a_bytes[ARENA], u_bytes[ARENA];
  rng_state = 777 + (uint64_t)_i;
  size_t answered = 0;
  for (int iter = 0; iter < 20000; iter++) {
    size_t stride = rnd(2) ? 64 : 128;
    struct dag_region ra = random_rows(a_bytes, rnd(3) ? stride : 192);
    struct dag_region ru = random_rows(u_bytes, stride);
    struct region a = make(ra), u = make(ru), out;
    size_t common = 0;
    for (size_t i = 0; i < ARENA; i++)
      common += a_bytes[i] && u_bytes[i];
    if (!dag__region_within(&a, &u, &out)) {
      ck_assert_msg(common == 0 || ra.ndims || ru.ndims,
                    "iteration %d: no answer for two contiguous regions", iter);
      continue;
    }
    answered++;
    ck_assert_msg(common > 0, "iteration %d: an answer without a common byte",
                  iter);
    ck_assert_uint_eq(dag__region_bytes(&out), common);
    size_t in_out = 0;
    for (size_t i = 0; i < ARENA; i++)
      if (a_bytes[i] && u_bytes[i]) {
        struct region one = make(R1(i, 1));
        in_out += dag__region_overlap(&out, &one);
      }
    ck_assert_uint_eq(in_out, common);
  }
  ck_assert_msg(answered > 500, "within() answered only %zu times", answered);
}
END_TEST

/* The shapes a halo and a column take: rows of a block, a column of a
 * tile. */
START_TEST(within_halo_and_column) {
  struct region out;
  /* Two rows above a contiguous block of 4 rows of 128 bytes, from a
   * read of 6 rows: the block's 4 rows. */
  struct region a = make(R1(0, 6 * 128)), u = make(R1(2 * 128, 4 * 128));
  ck_assert(dag__region_within(&a, &u, &out));
  ck_assert(dag__region_same(&out, &u));
  /* One column of a 4 x 16-byte tile of rows 128 apart. */
  a = make(R2(8, 4, 8, 128));
  u = make(R2(0, 4, 16, 128));
  ck_assert(dag__region_within(&a, &u, &out));
  ck_assert(dag__region_same(&out, &a));
  /* A row that is only partly in a contiguous block: no answer. */
  a = make(R2(100, 2, 64, 128));
  u = make(R1(0, 128));
  ck_assert(!dag__region_within(&a, &u, &out));
}
END_TEST

/* -------------------------------------------------- triangles, diagonals */

static const unsigned shapes[] = {DAG_LOWER, DAG_UPPER, DAG_UNIT_LOWER,
                                  DAG_UNIT_UPPER, DAG_DIAGONAL};

/* Whether column c of row k is in the shape (0: the whole block). */
static bool in_shape(unsigned shape, size_t k, size_t c) {
  return shape == DAG_LOWER        ? c <= k
         : shape == DAG_UPPER      ? c >= k
         : shape == DAG_UNIT_LOWER ? c < k
         : shape == DAG_UNIT_UPPER ? c > k
         : shape == DAG_DIAGONAL   ? c == k
                                   : true;
}

/* Marks the bytes of `shape` of the n x n block of elem-byte elements,
 * rows `stride` apart, at offset off. */
static void mark_shape(bool bytes[ARENA], size_t off, size_t n, size_t elem,
                       size_t stride, unsigned shape) {
  memset(bytes, 0, ARENA);
  for (size_t k = 0; k < n; k++)
    for (size_t c = 0; c < n; c++)
      if (in_shape(shape, k, c))
        memset(bytes + off + k * stride + c * elem, 1, elem);
}

/* A random part of a random square block of n x n elements of `elem`
 * bytes, rows `stride` apart, or sometimes the whole block or a plain row
 * run, with its byte set. */
static struct region random_shaped(bool bytes[ARENA], size_t stride,
                                   unsigned *shape) {
  for (;;) {
    size_t n = 1 + rnd(7), elem = 1 + rnd(8);
    if (n * elem > stride)
      continue;
    size_t extent = (n - 1) * stride + n * elem;
    size_t off = rnd((uint32_t)(ARENA - extent));
    *shape = rnd(6) ? shapes[rnd(5)] : 0;
    mark_shape(bytes, off, n, elem, stride, *shape);
    struct dag_region in =
        n > 1 ? R2(off, n, n * elem, stride) : R1(off, n * elem);
    struct region r;
    const char *why;
    ck_assert_int_eq(*shape
                         ? dag__region_make_shaped(&in, *shape >> 24, &r, &why)
                         : dag__region_make(&in, &r, &why),
                     0);
    return r;
  }
}

struct span_marks {
  bool *seen;
  size_t count;
};

static void mark_span(uintptr_t lo, uintptr_t hi, void *arg) {
  struct span_marks *m = arg;
  for (uintptr_t p = lo; p < hi; p++) {
    ck_assert(!m->seen[p - (uintptr_t)arena]); /* each byte once */
    m->seen[p - (uintptr_t)arena] = true;
    m->count++;
  }
}

/* Overlap exact, covers and within never wrong, bytes and spans exact,
 * for parts of blocks against parts of blocks (same stride and not) and
 * plain regions. */
START_TEST(shaped_against_bytes) {
  static bool a_bytes[ARENA], b_bytes[ARENA], seen[ARENA];
  rng_state = 4242 + (uint64_t)_i;
  size_t overlaps = 0, disjoint_near = 0, covered = 0;
  for (int iter = 0; iter < 20000; iter++) {
    unsigned sa, sb;
    struct region a = random_shaped(a_bytes, 64, &sa);
    struct region b = rnd(2) ? random_shaped(b_bytes, rnd(2) ? 64 : 40, &sb)
                             : make(random_region(b_bytes));
    if (rnd(3) == 0) { /* the same block, another part of it */
      b = a;
      sb = shapes[rnd(5)];
      struct dag_region in = {(void *)a.lo,
                              a.span,
                              1,
                              {{a.dim[0].count, (ptrdiff_t)a.dim[0].stride}}};
      const char *why;
      if (a.ndims != 1 || dag__region_make_shaped(&in, sb >> 24, &b, &why))
        continue;
      mark_shape(b_bytes, a.lo - (uintptr_t)arena, a.dim[0].count,
                 a.span / a.dim[0].count, a.dim[0].stride, sb);
    }
    bool overlap, covers;
    size_t na = compare_bytes(a_bytes, b_bytes, &overlap, &covers);
    ck_assert_uint_eq(dag__region_bytes(&a), na);
    memset(seen, 0, ARENA);
    struct span_marks m = {seen, 0};
    dag__region_each_span(&a, mark_span, &m);
    ck_assert_uint_eq(m.count, na);
    ck_assert_mem_eq(seen, a_bytes, ARENA);
    ck_assert_msg(dag__region_overlap(&a, &b) == overlap,
                  "iteration %d: overlap is %d", iter, overlap);
    ck_assert(dag__region_overlap(&b, &a) == overlap);
    overlaps += overlap;
    disjoint_near += !overlap && a.lo < b.hi && b.lo < a.hi;
    if (dag__region_covers(&a, &b)) {
      ck_assert_msg(covers, "iteration %d: covers() claims too much", iter);
      covered++;
    }
    struct region out;
    if (dag__region_within(&a, &b, &out)) {
      size_t common = 0;
      for (size_t i = 0; i < ARENA; i++)
        common += a_bytes[i] && b_bytes[i];
      ck_assert_uint_eq(dag__region_bytes(&out), common);
    }
  }
  ck_assert_msg(overlaps > 1000 && disjoint_near > 1000 && covered > 500,
                "too few cases: %zu overlaps, %zu disjoint within bounds, %zu "
                "covered",
                overlaps, disjoint_near, covered);
}
END_TEST

/* The bytes of each shape of an 8 x 8 block of doubles, and the shapes
 * that a triangle holds. */
START_TEST(shaped_counts) {
  struct dag_region tile = R2(0, 8, 64, 512);
  const size_t want[] = {36, 36, 28, 28, 8};
  struct region r[5];
  const char *why;
  for (int i = 0; i < 5; i++) {
    ck_assert_int_eq(
        dag__region_make_shaped(&tile, shapes[i] >> 24, &r[i], &why), 0);
    ck_assert_uint_eq(dag__region_bytes(&r[i]), want[i] * 8);
  }
  /* lower and upper meet on the diagonal; unit_lower and upper do not */
  ck_assert(dag__region_overlap(&r[0], &r[1]));
  ck_assert(!dag__region_overlap(&r[2], &r[1]));
  ck_assert(!dag__region_overlap(&r[2], &r[3]));
  ck_assert(dag__region_covers(&r[0], &r[2]) &&
            dag__region_covers(&r[0], &r[4]));
  ck_assert(!dag__region_covers(&r[2], &r[0]));
  struct region whole = make(tile);
  ck_assert(dag__region_covers(&whole, &r[3]));
  ck_assert(!dag__region_same(&whole, &r[0]));
  ck_assert(dag__region_hash(&whole) != dag__region_hash(&r[0]));
  /* a 1 x 1 block: its one element, or nothing */
  struct dag_region one = R1(0, 8);
  ck_assert_int_eq(
      dag__region_make_shaped(&one, DAG_UNIT_LOWER >> 24, &r[0], &why), 0);
  ck_assert(dag__region_empty(&r[0]));
  ck_assert_int_eq(
      dag__region_make_shaped(&one, DAG_DIAGONAL >> 24, &r[0], &why), 0);
  ck_assert_uint_eq(dag__region_bytes(&r[0]), 8);
}
END_TEST

int main(void) {
  build_cases();
  Suite *s = suite_create("region");
  TCase *tc = tcase_create("geometry");
  tcase_add_loop_test(tc, table_case, 0, ncases);
  tcase_add_test(tc, canonical_forms);
  tcase_add_test(tc, invalid_regions);
  tcase_add_loop_test(tc, random_against_bytes, 0, 4);
  tcase_add_loop_test(tc, within_against_bytes, 0, 2);
  tcase_add_test(tc, within_halo_and_column);
  tcase_add_loop_test(tc, shaped_against_bytes, 0, 2);
  tcase_add_test(tc, shaped_counts);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
