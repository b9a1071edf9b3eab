/* region.c — geometry of multi-span regions: validation, canonical form,
 * exact overlap and conservative containment.
 *
 * A region is `span` contiguous bytes repeated over up to DAG_MAX_DIMS
 * (count, stride) dimensions. Every stride is at least the extent of the
 * dimensions inside it, so the blocks of one dimension never interleave; the
 * tests below rely on it to stay O(dimensions) in the common cases (same
 * strides, or one side contiguous) instead of enumerating spans.
 *
 * Pure functions: no locks, no allocation.
 */
#include "base.h"

/* A region seen from one of its dimensions inward: the block of the
 * dimensions dim[0..n) at `base` (dim points into a struct region). */
struct view {
  intptr_t base;
  const struct dim_pair {
    size_t count;
    size_t stride;
  } * dim;
  int n;
  size_t span;
};

_Static_assert(sizeof(struct dim_pair) == sizeof(((struct region *)0)->dim[0]),
               "struct view aliases struct region's dimensions");

static struct view view_of(const struct region *r) {
  struct view v = {(intptr_t)r->lo, (const struct dim_pair *)r->dim, r->ndims,
                   r->span};
  return v;
}

/* The view of block i of v's outermost dimension. */
static struct view inner_block(struct view v, int64_t i) {
  struct view b = {v.base + (intptr_t)(i * (int64_t)v.dim[0].stride), v.dim + 1,
                   v.n - 1, v.span};
  return b;
}

static size_t extent(struct view v) {
  size_t e = v.span;
  for (int d = 0; d < v.n; d++)
    e += (v.dim[d].count - 1) * v.dim[d].stride;
  return e;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Error in one dimension: a negative or zero stride with several blocks. */
static const char *bad_stride(const struct dag_region *in) {
  for (int d = 0; d < in->ndims; d++)
    if (in->dim[d].count > 1 && in->dim[d].stride <= 0)
      return in->dim[d].stride < 0 ? "negative stride" : "zero stride";
  return NULL;
}

/* The common case, a valid run or block of rows, in a few instructions (it
 * is on the path of every access). False leaves every other region, errors
 * included, to the general pass, which would make the same of these. */
static bool make_simple(const struct dag_region *in, struct region *out) {
  uintptr_t lo = (uintptr_t)in->base;
  size_t span = in->span, count = 1, stride = 0, extent;
  if ((unsigned)in->ndims > 1 || !lo || span == 0 || span > (size_t)INTPTR_MAX)
    return false;
  if (in->ndims == 1) {
    count = in->dim[0].count;
    stride = (size_t)in->dim[0].stride;
    if (count == 0 || (count > 1 && (in->dim[0].stride <= 0 || stride < span)))
      return false;
  }
  if (__builtin_mul_overflow(count - 1, stride, &extent) ||
      __builtin_add_overflow(extent, span, &extent) ||
      extent > (size_t)INTPTR_MAX || extent > UINTPTR_MAX - lo ||
      lo + extent > INTPTR_MAX)
    return false;
  out->lo = lo;
  out->hi = lo + extent;
  out->shape = 0;
  if (count == 1 || stride == span) { /* one run */
    out->span = extent;
    out->ndims = 0;
  } else {
    out->span = span;
    out->ndims = 1;
    out->dim[0].count = count;
    out->dim[0].stride = stride;
  }
  return true;
}

int dag__region_make(const struct dag_region *in, struct region *out,
                     const char **why) {
  if (likely(make_simple(in, out)))
    return 0;
  if ((unsigned)in->ndims > DAG_MAX_DIMS) {
    *why = in->ndims < 0 ? "negative number of dimensions"
                         : "more than DAG_MAX_DIMS (4) dimensions";
    return in->ndims < 0 ? DAG_EINVAL : DAG_EDIMS;
  }
  if ((*why = bad_stride(in)))
    return DAG_EINVAL;
  if (in->span > (size_t)INTPTR_MAX) {
    *why = "span larger than the address space (a negative size?)";
    return DAG_EOVERFLOW;
  }

  /* One pass, innermost dimension first: merge contiguous dimensions and
   * check nesting. The dimensions kept are collected innermost first. A
   * nesting or size error counts only if the region is not empty. */
  size_t span = in->span, extent = in->span;
  struct dim_pair kept[DAG_MAX_DIMS];
  int nkept = 0;
  bool empty = span == 0;
  const char *late = NULL; /* the error, if the region is not empty */
  int late_err = 0;
  for (int d = in->ndims - 1; d >= 0; d--) {
    size_t count = in->dim[d].count;
    if (count <= 1) {
      empty |= count == 0;
      continue;
    }
    size_t stride = (size_t)in->dim[d].stride, grow;
    if (late)
      continue;
    if (stride < extent) {
      late = "a stride is smaller than the extent of the dimensions inside "
             "it (spans would interleave)";
      late_err = DAG_EINVAL;
    } else if (__builtin_mul_overflow(count - 1, stride, &grow) ||
               grow > (size_t)INTPTR_MAX - extent) {
      late = "region extent overflows";
      late_err = DAG_EOVERFLOW;
    } else {
      if (nkept == 0 && stride == span) {
        span *= count; /* rows that touch: one longer span */
      } else if (nkept > 0 &&
                 stride == kept[nkept - 1].count * kept[nkept - 1].stride) {
        kept[nkept - 1].count *= count; /* same lattice, more blocks */
      } else {
        kept[nkept].count = count;
        kept[nkept].stride = stride;
        nkept++;
      }
      extent += grow;
    }
  }
  uintptr_t lo = (uintptr_t)in->base;
  out->ndims = 0;
  out->shape = 0;
  if (empty) {
    out->span = in->span;
    out->lo = out->hi = lo;
    return 0;
  }
  if (!lo) {
    *why = "null base address";
    return DAG_EINVAL;
  }
  if (late) {
    *why = late;
    return late_err;
  }
  if (extent > UINTPTR_MAX - lo || lo + extent > INTPTR_MAX) {
    *why = "region runs past the end of the address space";
    return DAG_EOVERFLOW;
  }
  out->span = span;
  out->ndims = nkept;
  for (int d = 0; d < nkept; d++) {
    out->dim[d].count = kept[nkept - 1 - d].count;
    out->dim[d].stride = kept[nkept - 1 - d].stride;
  }
  out->lo = lo;
  out->hi = lo + extent;
  return 0;
}

/* ------------------------------------------------------ shaped regions
 *
 * A shaped region is part of a square block of n rows of n elements: row
 * k holds the columns [first, end) of shape_columns. It keeps the block's
 * geometry (one dimension of n rows, span the row) and its bounds, which
 * hold it; the functions below look at it row by row. */

enum {
  SHAPE_LOWER = 1,
  SHAPE_UPPER,
  SHAPE_UNIT_LOWER,
  SHAPE_UNIT_UPPER,
  SHAPE_DIAGONAL,
  SHAPE_LAST = SHAPE_DIAGONAL
};

_Static_assert(DAG_LOWER >> 24 == SHAPE_LOWER &&
                   DAG_DIAGONAL >> 24 == SHAPE_DIAGONAL,
               "shapes as dag.h numbers them");

/* Row k of an n-row shape: its columns [*first, *end). */
static void shape_columns(unsigned shape, size_t n, size_t k, size_t *first,
                          size_t *end) {
  switch (shape) {
  case SHAPE_LOWER:
    *first = 0, *end = k + 1;
    break;
  case SHAPE_UPPER:
    *first = k, *end = n;
    break;
  case SHAPE_UNIT_LOWER:
    *first = 0, *end = k;
    break;
  case SHAPE_UNIT_UPPER:
    *first = k + 1, *end = n;
    break;
  default: /* SHAPE_DIAGONAL */
    *first = k, *end = k + 1;
  }
}

/* Row k of shaped r: the bytes [*lo, *hi), maybe none. */
static void shaped_row(const struct region *r, size_t k, uintptr_t *lo,
                       uintptr_t *hi) {
  size_t n = r->dim[0].count, elem = r->span / n, first, end;
  shape_columns(r->shape, n, k, &first, &end);
  *lo = r->lo + k * r->dim[0].stride + first * elem;
  *hi = *lo + (end > first ? (end - first) * elem : 0);
}

int dag__region_make_shaped(const struct dag_region *in, unsigned shape,
                            struct region *out, const char **why) {
  int err = dag__region_make(in, out, why);
  if (err || dag__region_empty(out))
    return err;
  if (shape < SHAPE_LOWER || shape > SHAPE_LAST) {
    *why = "unknown shape (not DAG_LOWER, DAG_UPPER, DAG_UNIT_LOWER, "
           "DAG_UNIT_UPPER or DAG_DIAGONAL)";
    return DAG_EINVAL;
  }
  /* The rows as written: canonical form would merge rows that touch. */
  size_t rows = 1, stride = in->span;
  for (int d = 0; d < in->ndims; d++)
    if (in->dim[d].count > 1) {
      if (rows > 1) {
        *why = "a triangle or diagonal needs a block of rows (one "
               "dimension), not more";
        return DAG_EINVAL;
      }
      rows = in->dim[d].count;
      stride = (size_t)in->dim[d].stride;
    }
  if (in->span % rows) {
    *why = "a triangle or diagonal needs a square block, as many elements "
           "in a row as rows";
    return DAG_EINVAL;
  }
  if (rows == 1) { /* one element: the whole of it, or nothing */
    if (shape == SHAPE_UNIT_LOWER || shape == SHAPE_UNIT_UPPER)
      out->hi = out->lo;
    return 0;
  }
  out->ndims = 1;
  out->span = in->span;
  out->dim[0].count = rows;
  out->dim[0].stride = stride;
  out->shape = (unsigned char)shape;
  return 0;
}

/* Calls fn on each row of shaped r that holds bytes, in address order;
 * stops at the first that returns true, and returns whether one did. */
static bool each_shaped_row(const struct region *r,
                            bool (*fn)(uintptr_t lo, uintptr_t hi, void *arg),
                            void *arg) {
  for (size_t k = 0; k < r->dim[0].count; k++) {
    uintptr_t lo, hi;
    shaped_row(r, k, &lo, &hi);
    if (lo < hi && fn(lo, hi, arg))
      return true;
  }
  return false;
}

/* The block that shaped r is part of. */
static struct region whole_block(const struct region *r) {
  struct region b = *r;
  b.shape = 0;
  return b;
}

size_t dag__region_bytes(const struct region *r) {
  if (dag__region_empty(r))
    return 0;
  if (r->shape) {
    size_t n = r->dim[0].count, elem = r->span / n;
    size_t elems = r->shape == SHAPE_DIAGONAL ? n
                   : r->shape <= SHAPE_UPPER  ? n * (n + 1) / 2
                                              : n * (n - 1) / 2;
    return elems * elem;
  }
  size_t n = r->span;
  for (int d = 0; d < r->ndims; d++)
    n *= r->dim[d].count;
  return n;
}

/* Does v share a byte with [a, b)? */
static bool view_hits_interval(struct view v, intptr_t a, intptr_t b) {
  for (;;) {
    if (b <= v.base || a >= v.base + (intptr_t)extent(v))
      return false;
    if (v.n == 0)
      return true;
    int64_t s = (int64_t)v.dim[0].stride;
    int64_t inner = (int64_t)extent(inner_block(v, 0));
    /* Blocks i with base + i*s < b and base + i*s + inner > a. */
    int64_t i_hi =
        min64((int64_t)v.dim[0].count - 1, floor_div(b - 1 - v.base, s));
    int64_t i_lo = max64(0, floor_div(a - v.base - inner, s) + 1);
    if (i_lo > i_hi)
      return false;
    if (i_hi - i_lo >= 2)
      return true; /* a middle block lies wholly inside [a, b) */
    if (i_hi != i_lo && view_hits_interval(inner_block(v, i_hi), a, b))
      return true;
    v = inner_block(v, i_lo);
  }
}

static bool views_overlap(struct view a, struct view b) {
  intptr_t a_end = a.base + (intptr_t)extent(a);
  intptr_t b_end = b.base + (intptr_t)extent(b);
  if (a_end <= b.base || b_end <= a.base)
    return false;
  if (a.n == 0)
    return view_hits_interval(b, a.base, a_end);
  if (b.n == 0)
    return view_hits_interval(a, b.base, b_end);

  int64_t sa = (int64_t)a.dim[0].stride, sb = (int64_t)b.dim[0].stride;
  if (sa == sb) {
    /* Block i of a meets block j of b only through k = i - j: a's inner
     * block moved by k*s must meet b's first inner block. Extents are at
     * most s, so at most three k qualify. */
    struct view a0 = inner_block(a, 0), b0 = inner_block(b, 0);
    int64_t ea = (int64_t)extent(a0), eb = (int64_t)extent(b0);
    int64_t delta = b.base - a.base;
    int64_t k_lo =
        max64(floor_div(delta - ea, sa) + 1, -((int64_t)b.dim[0].count - 1));
    int64_t k_hi =
        min64(floor_div(delta + eb - 1, sa), (int64_t)a.dim[0].count - 1);
    for (int64_t k = k_lo; k <= k_hi; k++)
      if (views_overlap(inner_block(a, k), b0))
        return true;
    return false;
  }

  /* Different strides: walk the blocks of the side with fewer of them
   * inside the other's bounding interval. */
  int64_t a_lo = max64(
      0,
      floor_div(b.base - a.base - (int64_t)extent(inner_block(a, 0)), sa) + 1);
  int64_t a_hi =
      min64((int64_t)a.dim[0].count - 1, floor_div(b_end - 1 - a.base, sa));
  int64_t b_lo = max64(
      0,
      floor_div(a.base - b.base - (int64_t)extent(inner_block(b, 0)), sb) + 1);
  int64_t b_hi =
      min64((int64_t)b.dim[0].count - 1, floor_div(a_end - 1 - b.base, sb));
  if (a_hi - a_lo <= b_hi - b_lo) {
    for (int64_t i = a_lo; i <= a_hi; i++)
      if (views_overlap(inner_block(a, i), b))
        return true;
  } else {
    for (int64_t j = b_lo; j <= b_hi; j++)
      if (views_overlap(a, inner_block(b, j)))
        return true;
  }
  return false;
}

/* Two blocks of rows with the same stride (tiles of one matrix, the most
 * common pair by far): compare their rows and their columns. Returns 1 or
 * 0, or -1 when a row of either wraps past the stride (then the general
 * test decides). */
static int tiles_overlap(const struct region *a, const struct region *b) {
  size_t s = a->dim[0].stride;
  uintptr_t base = a->lo < b->lo ? a->lo : b->lo;
  size_t row_a = (a->lo - base) / s, col_a = (a->lo - base) % s;
  size_t row_b = (b->lo - base) / s, col_b = (b->lo - base) % s;
  if (col_a + a->span > s || col_b + b->span > s)
    return -1;
  return row_a < row_b + b->dim[0].count && row_b < row_a + a->dim[0].count &&
         col_a < col_b + b->span && col_b < col_a + a->span;
}

/* Whether the bytes [lo, hi) meet shaped region t: t's rows whose extent
 * meets the interval, each checked. */
static bool interval_meets_shape(const struct region *t, uintptr_t lo,
                                 uintptr_t hi) {
  int64_t s = (int64_t)t->dim[0].stride, base = (int64_t)t->lo;
  int64_t k_lo =
      max64(0, floor_div((int64_t)lo - base - (int64_t)t->span, s) + 1);
  int64_t k_hi =
      min64((int64_t)t->dim[0].count - 1, floor_div((int64_t)hi - 1 - base, s));
  for (int64_t k = k_lo; k <= k_hi; k++) {
    uintptr_t r_lo, r_hi;
    shaped_row(t, (size_t)k, &r_lo, &r_hi);
    if (r_lo < r_hi && r_lo < hi && lo < r_hi)
      return true;
  }
  return false;
}

/* Whether [lo, hi) meets the region at arg. */
static bool interval_meets(uintptr_t lo, uintptr_t hi, void *arg) {
  const struct region *other = arg;
  return other->shape
             ? interval_meets_shape(other, lo, hi)
             : view_hits_interval(view_of(other), (intptr_t)lo, (intptr_t)hi);
}

bool dag__region_overlap(const struct region *a, const struct region *b) {
  if (dag__region_empty(a) || dag__region_empty(b))
    return false;
  if (a->hi <= b->lo || b->hi <= a->lo)
    return false;
  if (unlikely(a->shape || b->shape)) /* row by row of a shaped side */
    return a->shape ? each_shaped_row(a, interval_meets, (void *)b)
                    : each_shaped_row(b, interval_meets, (void *)a);
  if (a->ndims == 1 && b->ndims == 1 && a->dim[0].stride == b->dim[0].stride) {
    int tiles = tiles_overlap(a, b);
    if (tiles >= 0)
      return tiles;
  }
  return views_overlap(view_of(a), view_of(b));
}

/* Largest number of blocks covers() checks one by one before giving up. */
#define COVERS_MAX_BLOCKS 64

static bool view_covers(struct view a, struct view b) {
  intptr_t a_end = a.base + (intptr_t)extent(a);
  intptr_t b_end = b.base + (intptr_t)extent(b);
  if (b.base < a.base || b_end > a_end)
    return false;
  if (a.n == 0)
    return true;

  /* b inside one block of a's outermost dimension: look inside it. */
  int64_t sa = (int64_t)a.dim[0].stride;
  int64_t i = (b.base - a.base) / sa;
  if (i < (int64_t)a.dim[0].count) {
    struct view ai = inner_block(a, i);
    if (b_end <= ai.base + (intptr_t)extent(ai))
      return view_covers(ai, b);
  }
  if (b.n == 0)
    return false; /* a contiguous run across a's gaps: say no */

  if ((int64_t)b.dim[0].stride == sa) {
    /* Every block j of b sits at the same place in block q + j of a. */
    int64_t q = (b.base - a.base) / sa;
    if (q + (int64_t)b.dim[0].count > (int64_t)a.dim[0].count)
      return false;
    return view_covers(inner_block(a, q), inner_block(b, 0));
  }
  if (b.dim[0].count > COVERS_MAX_BLOCKS)
    return false;
  for (int64_t j = 0; j < (int64_t)b.dim[0].count; j++)
    if (!view_covers(a, inner_block(b, j)))
      return false;
  return true;
}

/* Shapes that hold others of the same block: a triangle its strict part
 * and the diagonal. */
static bool shape_holds(unsigned a, unsigned b) {
  return a == b ||
         (a == SHAPE_LOWER && (b == SHAPE_UNIT_LOWER || b == SHAPE_DIAGONAL)) ||
         (a == SHAPE_UPPER && (b == SHAPE_UNIT_UPPER || b == SHAPE_DIAGONAL));
}

bool dag__region_covers(const struct region *a, const struct region *b) {
  if (dag__region_empty(b))
    return true;
  if (dag__region_empty(a))
    return false;
  if (unlikely(a->shape || b->shape)) {
    struct region block_a = whole_block(a), block_b = whole_block(b);
    if (!a->shape) /* b is part of its block: a holding the block holds b */
      return view_covers(view_of(a), view_of(&block_b));
    return b->shape && dag__region_same(&block_a, &block_b) &&
           shape_holds(a->shape, b->shape);
  }
  return view_covers(view_of(a), view_of(b));
}

/* *out: `rows` rows of `span` bytes, `stride` apart, from lo. */
static bool rows_region(uintptr_t lo, size_t rows, size_t stride, size_t span,
                        struct region *out) {
  const char *why;
  if (rows == 0 || span == 0)
    return false;
  struct dag_region r = {(const void *)lo, span, rows > 1, {{rows, stride}}};
  return dag__region_make(&r, out, &why) == 0;
}

/* a's rows (a contiguous a: one row) that lie in the contiguous u; false if
 * one lies partly in it. */
static bool rows_in_span(const struct region *a, const struct region *u,
                         struct region *out) {
  size_t rows = a->ndims ? a->dim[0].count : 1;
  size_t stride = a->ndims ? a->dim[0].stride : 0;
  if (rows == 1 && a->ndims == 0) { /* contiguous: the overlap */
    uintptr_t lo = a->lo > u->lo ? a->lo : u->lo;
    uintptr_t hi = a->hi < u->hi ? a->hi : u->hi;
    return lo < hi && rows_region(lo, 1, 0, hi - lo, out);
  }
  size_t first = rows, last = 0;
  for (size_t i = 0; i < rows; i++) {
    uintptr_t lo = a->lo + i * stride, hi = lo + a->span;
    if (hi <= u->lo || lo >= u->hi)
      continue;
    if (lo < u->lo || hi > u->hi)
      return false; /* partly in u */
    first = i < first ? i : first;
    last = i;
  }
  return first <= last && rows_region(a->lo + first * stride, last - first + 1,
                                      stride, a->span, out);
}

bool dag__region_within(const struct region *a, const struct region *u,
                        struct region *out) {
  if (unlikely(a->shape || u->shape)) { /* a triangle inside u, whole */
    if (u->shape || !dag__region_covers(u, a))
      return false;
    *out = *a;
    return true;
  }
  if (a->ndims > 1 || u->ndims > 1 || dag__region_empty(a) ||
      dag__region_empty(u))
    return false;
  if (u->ndims == 0)
    return rows_in_span(a, u, out);
  /* Rows of u: a's rows in u's frame, row `row` and byte `col` of it. */
  size_t s = u->dim[0].stride, rows = a->ndims ? a->dim[0].count : 1;
  if (a->ndims && a->dim[0].stride != s)
    return false;
  intptr_t rel = (intptr_t)(a->lo - u->lo);
  intptr_t row =
      rel >= 0 ? rel / (intptr_t)s : -((-rel + (intptr_t)s - 1) / (intptr_t)s);
  size_t col = (size_t)(rel - row * (intptr_t)s);
  if (col + a->span > s || col >= u->span)
    return false;
  intptr_t r0 = row > 0 ? row : 0;
  intptr_t r1 = row + (intptr_t)rows;
  if (r1 > (intptr_t)u->dim[0].count)
    r1 = (intptr_t)u->dim[0].count;
  size_t hi = col + a->span < u->span ? col + a->span : u->span;
  return r0 < r1 && rows_region(u->lo + (size_t)r0 * s + col, (size_t)(r1 - r0),
                                s, hi - col, out);
}

static void each_span_below(const struct region *r, int d, uintptr_t at,
                            void (*fn)(uintptr_t, uintptr_t, void *),
                            void *arg) {
  if (d == r->ndims) {
    fn(at, at + r->span, arg);
    return;
  }
  for (size_t i = 0; i < r->dim[d].count; i++)
    each_span_below(r, d + 1, at + i * r->dim[d].stride, fn, arg);
}

void dag__region_each_span(const struct region *r,
                           void (*fn)(uintptr_t lo, uintptr_t hi, void *arg),
                           void *arg) {
  if (dag__region_empty(r))
    return;
  if (!r->shape) {
    each_span_below(r, 0, r->lo, fn, arg);
    return;
  }
  for (size_t k = 0; k < r->dim[0].count; k++) {
    uintptr_t lo, hi;
    shaped_row(r, k, &lo, &hi);
    if (lo < hi)
      fn(lo, hi, arg);
  }
}

static uint64_t mix(uint64_t x) {
  x *= 0x9e3779b97f4a7c15u;
  return x ^ (x >> 29);
}

uint64_t dag__region_hash(const struct region *r) {
  uint64_t h = mix(r->lo) ^ mix(r->hi + 1) ^ mix(r->span + 2 + r->shape);
  for (int d = 0; d < r->ndims; d++)
    h ^= mix(r->dim[d].count + 3 * (uint64_t)d) ^ mix(r->dim[d].stride);
  return h;
}

bool dag__region_same(const struct region *a, const struct region *b) {
  if (a->lo != b->lo || a->hi != b->hi || a->span != b->span ||
      a->ndims != b->ndims || a->shape != b->shape)
    return false;
  for (int d = 0; d < a->ndims; d++)
    if (a->dim[d].count != b->dim[d].count ||
        a->dim[d].stride != b->dim[d].stride)
      return false;
  return true;
}
