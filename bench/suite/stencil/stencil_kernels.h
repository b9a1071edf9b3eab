/* stencil_kernels.h — the plain C kernels of the stencil group and its
 * main (stencil_main), shared by the dag program (stencil.c: one task per
 * block) and its OpenMP peer (stencil_omp.c: a parallel loop over rows),
 * so both run the same code.
 *
 * Every function works on a rectangle of an n x n row-major matrix seen as
 * `double (*X)[n]`; a rectangle is a struct stencil_block (a b x b block of
 * the distribution, or one row for OpenMP). The kernels:
 *
 *   box_wrap, box_zero, box_clamp, box_reflect
 *       Y(i, j) = the sum of X over the 3 x 3 neighbourhood of (i, j), the
 *       nine terms added in row-major order; an index outside [0, n) is
 *       mapped by the boundary rule (box_map).
 *   jacobi
 *       JACOBI_SWEEPS sweeps v(i, j) = 0.25 (u(i-1, j) + u(i+1, j) +
 *       u(i, j-1) + u(i, j+1)) on the interior points, u -> v -> u; the
 *       outer ring keeps its initial values.
 *   update
 *       B = B + A.
 *
 * The checks, a block at a time: the largest difference from the exact
 * result, computed again with the same additions in the same order, so 0
 * (the box sums and update from suite_random; jacobi's last sweep from the
 * iterate before it), and the sum of the block's result, row by row. The
 * blocks' results are combined in block order (stencil_combine): the same
 * bits for any number of threads or ranks.
 */
#ifndef BENCH_SUITE_STENCIL_KERNELS_H
#define BENCH_SUITE_STENCIL_KERNELS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

/* The kernels, in the order of their names; the four box kernels first, in
 * the order of enum box_rule. */
enum stencil_kernel {
  BOX_WRAP,
  BOX_ZERO,
  BOX_CLAMP,
  BOX_REFLECT,
  JACOBI,
  UPDATE
};

static const char *const stencil_kernels[] = {
    "box_wrap", "box_zero", "box_clamp", "box_reflect",
    "jacobi",   "update",   NULL};

/* What is outside the matrix, for the box sums. */
enum box_rule {
  RULE_WRAP,    /* periodic: -1 -> n-1, n -> 0 */
  RULE_ZERO,    /* zeros */
  RULE_CLAMP,   /* the edge repeated: -1 -> 0, n -> n-1 */
  RULE_REFLECT, /* mirrored around the edge: -1 -> 1, n -> n-2 */
};

enum {
  JACOBI_SWEEPS = 10,
  STENCIL_CHUNK = 256, /* columns gathered or checked at a time */
  SEED_FIRST = 1,      /* X, A, and u and v of jacobi */
  SEED_SECOND = 2,     /* B */
};

/* How many of the columns j .. end - 1 to take at a time. */
static inline long stencil_chunk(long j, long end) {
  return end - j < STENCIL_CHUNK ? end - j : STENCIL_CHUNK;
}

/* The larger of two errors; NaN wins, so a NaN result fails the check. */
static inline double stencil_max_err(double a, double b) {
  return b > a || isnan(b) ? b : a;
}

/* Before a repetition (untimed), the seed to fill the first matrix with
 * (X, A or u), 0 for none: before the first repetition, and before every
 * one for jacobi, which overwrites u. */
static inline uint64_t stencil_seed_p(enum stencil_kernel k, int first) {
  return first || k == JACOBI ? SEED_FIRST : 0;
}

/* Before every repetition, the seed to fill the second matrix with, 0 for
 * none: B of update (the kernel adds A to it), v of jacobi (the same as u:
 * its outer ring is read by the even sweeps); Y of the box sums is only
 * written. */
static inline uint64_t stencil_seed_q(enum stencil_kernel k) {
  return k == UPDATE ? SEED_SECOND : k == JACOBI ? SEED_FIRST : 0;
}

/* Bytes moved by one run of the kernel: read X and write Y; read u and
 * write v per sweep; read A and B and write B. */
static inline double stencil_work(enum stencil_kernel k, long n) {
  double elems = (double)n * (double)n;
  return k == UPDATE   ? 24.0 * elems
         : k == JACOBI ? 16.0 * elems * JACOBI_SWEEPS
                       : 16.0 * elems;
}

/* The band (rows of a block) when -b is not given: about 8 bands per
 * thread in all. */
static inline long stencil_block_rule(long n, long ranks, long workers) {
  long bands = 8 * ranks * workers;
  return n > bands ? (n + bands - 1) / bands : 1;
}

/* ---------------------------------------------------------- rectangles */

/* Rows i0 .. i0 + rows - 1, columns j0 .. j0 + cols - 1. */
struct stencil_block {
  long i0, rows, j0, cols;
};

/* Block k of the n x n matrix: the band of rows k b .. k b + b - 1, whole
 * rows (a kernel streams each row from end to end). */
static inline struct stencil_block stencil_block_at(long n, long b, long k) {
  return (struct stencil_block){k * b, suite_block_dim(n, b, k), 0, n};
}

/* The part of blk inside the outer ring (rows and columns 1 .. n-2): what a
 * Jacobi sweep writes. Empty (0 x 0) when there is none. */
static inline struct stencil_block stencil_interior(long n,
                                                    struct stencil_block blk) {
  long i0 = blk.i0 > 1 ? blk.i0 : 1, j0 = blk.j0 > 1 ? blk.j0 : 1;
  long i1 = blk.i0 + blk.rows < n - 1 ? blk.i0 + blk.rows : n - 1;
  long j1 = blk.j0 + blk.cols < n - 1 ? blk.j0 + blk.cols : n - 1;
  if (i1 <= i0 || j1 <= j0)
    return (struct stencil_block){1, 0, 1, 0};
  return (struct stencil_block){i0, i1 - i0, j0, j1 - j0};
}

/* ------------------------------------------------------- fill, update */

/* x[0 .. len-1] = suite_random(seed, first + 0 .. len-1). */
static inline void random_row(double *x, uint64_t seed, uint64_t first,
                              long len) {
  for (long j = 0; j < len; j++)
    x[j] = suite_random(seed, first + (uint64_t)j);
}

/* X(i, j) = suite_random(seed, i n + j) on blk. */
static inline void fill_block(long n, double (*X)[n], uint64_t seed,
                              struct stencil_block blk) {
  for (long i = blk.i0; i < blk.i0 + blk.rows; i++)
    random_row(&X[i][blk.j0], seed, (uint64_t)(i * n + blk.j0), blk.cols);
}

/* B = B + A on blk. */
static inline void update_block(long n, double (*A)[n], double (*B)[n],
                                struct stencil_block blk) {
  for (long i = blk.i0; i < blk.i0 + blk.rows; i++) {
    const double *restrict a = &A[i][blk.j0];
    double *restrict y = &B[i][blk.j0];
    for (long j = 0; j < blk.cols; j++)
      y[j] += a[j];
  }
}

/* ------------------------------------------------------------ box sums */

/* Where index i (at most one step outside [0, n)) reads under rule; -1 for
 * a zero. */
static inline long box_map(long n, enum box_rule rule, long i) {
  if (i >= 0 && i < n)
    return i;
  switch (rule) {
  case RULE_WRAP:
    return i < 0 ? i + n : i - n;
  case RULE_ZERO:
    return -1;
  case RULE_CLAMP:
    return i < 0 ? 0 : n - 1;
  case RULE_REFLECT:
  default:
    return n == 1 ? 0 : i < 0 ? -i : 2 * n - 2 - i;
  }
}

/* y[j] = the 3 x 3 sum around column j of the rows up, mid and down (which
 * are read from index -1 to len): the nine terms in row-major order. The
 * interior's loop, and the boundary's on gathered rows. */
static inline void box_row(const double *up, const double *mid,
                           const double *down, double *restrict y, long len) {
  for (long j = 0; j < len; j++)
    y[j] = up[j - 1] + up[j] + up[j + 1] + mid[j - 1] + mid[j] + mid[j + 1] +
           down[j - 1] + down[j] + down[j + 1];
}

/* X(r, c) for indices mapped by box_map (0 where one is -1), or the exact
 * value suite_random(seed, r n + c) when X is NULL. */
static inline double box_input(long n, double (*X)[n], uint64_t seed, long r,
                               long c) {
  if (r < 0 || c < 0)
    return 0.0;
  return X ? X[r][c] : suite_random(seed, (uint64_t)(r * n + c));
}

/* y[0 .. len-1] = the box sums of row i at columns j0 .. j0 + len - 1 with
 * every index mapped by rule: the neighbourhoods are gathered into three
 * short rows (box_input: from X, or the exact values for the check), then
 * summed by box_row. */
static inline void box_mapped(long n, double (*X)[n], uint64_t seed,
                              enum box_rule rule, long i, long j0, long len,
                              double *y) {
  double near[3][STENCIL_CHUNK + 2];
  for (long c0 = 0; c0 < len; c0 += STENCIL_CHUNK) {
    long w = stencil_chunk(c0, len);
    for (int d = 0; d < 3; d++) {
      long r = box_map(n, rule, i - 1 + d);
      for (long c = 0; c < w + 2; c++)
        near[d][c] =
            box_input(n, X, seed, r, box_map(n, rule, j0 + c0 - 1 + c));
    }
    box_row(&near[0][1], &near[1][1], &near[2][1], y + c0, w);
  }
}

/* Y = the box sums of X on blk: box_row straight on X's rows inside, and
 * box_mapped on the matrix's outer ring. */
static inline void box_block(long n, double (*X)[n], double (*Y)[n],
                             enum box_rule rule, struct stencil_block blk) {
  long j1 = blk.j0 + blk.cols;
  for (long i = blk.i0; i < blk.i0 + blk.rows; i++) {
    if (i == 0 || i == n - 1) {
      box_mapped(n, X, 0, rule, i, blk.j0, blk.cols, &Y[i][blk.j0]);
      continue;
    }
    long a = blk.j0 > 0 ? blk.j0 : 1, e = j1 < n ? j1 : n - 1;
    if (blk.j0 == 0)
      box_mapped(n, X, 0, rule, i, 0, 1, &Y[i][0]);
    if (e > a)
      box_row(&X[i - 1][a], &X[i][a], &X[i + 1][a], &Y[i][a], e - a);
    if (j1 == n)
      box_mapped(n, X, 0, rule, i, n - 1, 1, &Y[i][n - 1]);
  }
}

/* The rows (or columns) a box task reads beyond its block on one side: the
 * index just outside it, mapped by the rule, as a section of at most one
 * entry. */
struct stencil_span {
  long at, len;
};

/* The side of [lo, lo + len) at index `at` (lo - 1 or lo + len): nothing
 * (len 0) when the rule maps it to a zero or back into the block itself. */
static inline struct stencil_span box_side(long n, enum box_rule rule, long at,
                                           long lo, long len) {
  long m = box_map(n, rule, at);
  if (m < 0 || (m >= lo && m < lo + len))
    return (struct stencil_span){lo, 0};
  return (struct stencil_span){m, 1};
}

/* What a box task on blk reads besides blk: the row above and below, the
 * column left and right (and so the four corners). A side that is the same
 * row or column as the other (a one-row block at the edge under reflect, a
 * two-block matrix under wrap) is named once. */
struct box_halo {
  struct stencil_span up, down, left, right;
};

static inline struct box_halo box_halo_of(long n, enum box_rule rule,
                                          struct stencil_block blk) {
  struct box_halo h = {
      box_side(n, rule, blk.i0 - 1, blk.i0, blk.rows),
      box_side(n, rule, blk.i0 + blk.rows, blk.i0, blk.rows),
      box_side(n, rule, blk.j0 - 1, blk.j0, blk.cols),
      box_side(n, rule, blk.j0 + blk.cols, blk.j0, blk.cols),
  };
  if (h.up.len && h.down.len && h.up.at == h.down.at)
    h.down.len = 0;
  if (h.left.len && h.right.len && h.left.at == h.right.at)
    h.right.len = 0;
  return h;
}

/* -------------------------------------------------------------- Jacobi */

/* y[j] = 0.25 (up[j] + down[j] + mid[j-1] + mid[j+1]), j = 0 .. len-1. */
static inline void jacobi_row(const double *up, const double *mid,
                              const double *down, double *restrict y,
                              long len) {
  for (long j = 0; j < len; j++)
    y[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
}

/* One sweep u -> v on c, a rectangle of interior points. */
static inline void jacobi_block(long n, double (*u)[n], double (*v)[n],
                                struct stencil_block c) {
  for (long i = c.i0; i < c.i0 + c.rows; i++)
    jacobi_row(&u[i - 1][c.j0], &u[i][c.j0], &u[i + 1][c.j0], &v[i][c.j0],
               c.cols);
}

/* -------------------------------------------------------------- checks */

/* A block's check: the largest difference from the exact result, and the
 * sum of its result. */
struct block_result {
  double err, sum;
};

/* The sum of blk of X, row by row. */
static inline double block_sum(long n, double (*X)[n],
                               struct stencil_block blk) {
  double s = 0.0;
  for (long i = blk.i0; i < blk.i0 + blk.rows; i++)
    for (long j = blk.j0; j < blk.j0 + blk.cols; j++)
      s += X[i][j];
  return s;
}

/* The largest of err and |y[j] - exact[j]|, j = 0 .. len-1. */
static inline double max_diff(double err, const double *y, const double *exact,
                              long len) {
  for (long j = 0; j < len; j++)
    err = stencil_max_err(err, fabs(y[j] - exact[j]));
  return err;
}

/* Box sums: the largest difference of Y on blk from the sums of the exact
 * inputs, computed by box_mapped from suite_random. */
static inline double box_error(long n, double (*Y)[n], enum box_rule rule,
                               struct stencil_block blk) {
  double err = 0.0, exact[STENCIL_CHUNK];
  for (long i = blk.i0; i < blk.i0 + blk.rows; i++)
    for (long j = blk.j0; j < blk.j0 + blk.cols; j += STENCIL_CHUNK) {
      long w = stencil_chunk(j, blk.j0 + blk.cols);
      box_mapped(n, NULL, SEED_FIRST, rule, i, j, w, exact);
      err = max_diff(err, &Y[i][j], exact, w);
    }
  return err;
}

/* update: the largest difference of B on blk from
 * suite_random(SEED_SECOND, .) + suite_random(SEED_FIRST, .). */
static inline double update_error(long n, double (*B)[n],
                                  struct stencil_block blk) {
  double err = 0.0, a[STENCIL_CHUNK], exact[STENCIL_CHUNK];
  for (long i = blk.i0; i < blk.i0 + blk.rows; i++)
    for (long j = blk.j0; j < blk.j0 + blk.cols; j += STENCIL_CHUNK) {
      long w = stencil_chunk(j, blk.j0 + blk.cols);
      random_row(a, SEED_FIRST, (uint64_t)(i * n + j), w);
      random_row(exact, SEED_SECOND, (uint64_t)(i * n + j), w);
      for (long c = 0; c < w; c++)
        exact[c] += a[c];
      err = max_diff(err, &B[i][j], exact, w);
    }
  return err;
}

/* jacobi: u holds the last iterate, v the one before. The largest
 * difference of u on c, a rectangle of interior points, from one more
 * sweep from v. */
static inline double jacobi_error(long n, double (*u)[n], double (*v)[n],
                                  struct stencil_block c) {
  double err = 0.0, exact[STENCIL_CHUNK];
  for (long i = c.i0; i < c.i0 + c.rows; i++)
    for (long j = c.j0; j < c.j0 + c.cols; j += STENCIL_CHUNK) {
      long w = stencil_chunk(j, c.j0 + c.cols);
      jacobi_row(&v[i - 1][j], &v[i][j], &v[i + 1][j], exact, w);
      err = max_diff(err, &u[i][j], exact, w);
    }
  return err;
}

/* The blocks' results combined in block order: the largest error, the sum
 * of the sums. */
static inline struct block_result
stencil_combine(const struct block_result *res, long count) {
  struct block_result all = {0.0, 0.0};
  for (long k = 0; k < count; k++) {
    all.err = stencil_max_err(all.err, res[k].err);
    all.sum += res[k].sum;
  }
  return all;
}

/* ---------------------------------------------------------------- main */

/* What each program (stencil.c, stencil_omp.c) defines for stencil_main:
 * its matrices, n x n in bands of b rows (NULL without memory), and the
 * untimed inputs (first: of the first repetition), the timed kernel and
 * the check of a repetition, on P (X, u or A) and Q (Y, v or B); the check
 * fills res, one per b x b block, and combines them in block order. */
static void *matrix(long n, long b);
static void release(void *m);
static void prepare(enum stencil_kernel kernel, long n, long b, double (*P)[n],
                    double (*Q)[n], int first);
static void run(enum stencil_kernel kernel, long n, long b, double (*P)[n],
                double (*Q)[n]);
static struct block_result check(enum stencil_kernel kernel, long n, long b,
                                 double (*P)[n], double (*Q)[n],
                                 struct block_result *res);

/* The program's main: arguments, b by stencil_block_rule unless -b, the
 * timed repetitions, the check and the SUITE line. */
static inline int stencil_main(int argc, char **argv, const char *runtime,
                               int (*workers)(void)) {
  struct suite_opts o;
  int status =
      suite_init(&argc, &argv, "stencil", runtime, stencil_kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  enum stencil_kernel kernel = (enum stencil_kernel)o.k;
  long n = o.n;
  if (!o.b)
    o.b = stencil_block_rule(n, suite_nranks(), workers());
  long b = o.b;
  double(*P)[n] = matrix(n, b);
  double(*Q)[n] = matrix(n, b);
  struct block_result *res = malloc((size_t)suite_nblocks(n, b) * sizeof *res);
  if (!P || !Q || !res) {
    fprintf(stderr, "stencil: no memory for two %ld x %ld matrices\n", n, n);
    suite_finish();
    return 1;
  }

  struct suite_times tt = {0};
  while (suite_more(&tt, &o)) {
    prepare(kernel, n, b, P, Q, tt.reps == 0);
    suite_begin(&tt);
    run(kernel, n, b, P, Q);
    suite_end(&tt);
  }
  struct block_result r = check(kernel, n, b, P, Q, res);
  status = suite_report(&o, workers(), &tt, stencil_work(kernel, n), "GB/s",
                        r.err, 0.0, r.sum);
  free(res);
  release(Q);
  release(P);
  suite_finish();
  return status;
}

#endif /* BENCH_SUITE_STENCIL_KERNELS_H */
