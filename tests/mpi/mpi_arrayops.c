/* mpi_arrayops: map, reduce, norms, a dot product and a transpose on
 * distributed arrays, as a pragma program. The results are replicated
 * scalars written by tasks; after a taskwait they must hold the same bits
 * on every rank (checked with MPI_Allgather) and equal the sequential
 * answer computed on every rank with the same kernels. Partial results go
 * to replicated arrays, one element per block, and are combined in a fixed
 * order by one task, so the answer does not depend on the number of ranks.
 * Built with dagcc; run under mpiexec with any number of ranks:
 *
 *   mpi_arrayops [len [m n]]
 *
 *   x       dag_alloc, 1-D block-cyclic in blocks of BX elements;
 *   y, w    dag_alloc, 1-D block-cyclic in blocks of BY (which does not
 *           divide BX: a task on a block of y reads parts of two blocks of x
 *           homed on other ranks);
 *   A (m x n), B = A^T (n x m)   dag_alloc, 2-D block-cyclic on the grid
 *           dag_grid picks, in tiles of different shapes (strided regions
 *           travel as they are);
 *   part_*  replicated arrays of partial results, one element per block;
 *   the scalars: sum, sumsq, norm, maxabs, dot, wsum (y scaled by 1/norm,
 *           a replicated scalar read by tasks on every rank before any
 *           taskwait), frob (of B).
 * Exits non-zero on the first difference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>
#include <mpi.h>

enum { BX = 1000, BY = 768, TM = 40, TN = 56 };

#define KERNEL static __attribute__((noinline))

/* ------------------------------------------------------------ kernels */

static double xval(size_t i) {
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15u;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9u;
  h ^= h >> 32;
  return (double)(h >> 11) / 9007199254740992.0 - 0.25;
}

KERNEL void fill_x(double *x, size_t lo, size_t len) {
  for (size_t i = 0; i < len; i++)
    x[i] = xval(lo + i);
}

KERNEL void map_y(const double *x, double *y, size_t len) {
  for (size_t i = 0; i < len; i++)
    y[i] = 3.0 * x[i] * x[i] - x[i] / 7.0 + 0.125;
}

KERNEL void reduce(const double *y, size_t len, double *sum, double *sq,
                   double *mx) {
  double s = 0, q = 0, m = 0;
  for (size_t i = 0; i < len; i++) {
    s += y[i];
    q += y[i] * y[i];
    m = fabs(y[i]) > m ? fabs(y[i]) : m;
  }
  *sum = s;
  *sq = q;
  *mx = m;
}

KERNEL void dot_part(const double *x, const double *y, size_t len,
                     double *d) {
  double s = 0;
  for (size_t i = 0; i < len; i++)
    s += x[i] * y[i];
  *d = s;
}

KERNEL void combine(const double *ps, const double *pq, const double *pm,
                    const double *pd, int nb, double *sum, double *sumsq,
                    double *norm, double *maxabs, double *dot) {
  double s = 0, q = 0, m = 0, d = 0;
  for (int b = 0; b < nb; b++) {
    s += ps[b];
    q += pq[b];
    m = pm[b] > m ? pm[b] : m;
    d += pd[b];
  }
  *sum = s;
  *sumsq = q;
  *norm = sqrt(q);
  *maxabs = m;
  *dot = d;
}

KERNEL void scale(const double *y, double *w, size_t len, const double *norm) {
  for (size_t i = 0; i < len; i++)
    w[i] = y[i] / *norm;
}

KERNEL void sum_parts(const double *p, int n, double *out) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  *out = s;
}

KERNEL void plain_sum(const double *w, size_t len, double *out) {
  double s = 0;
  for (size_t i = 0; i < len; i++)
    s += w[i];
  *out = s;
}

static double aval(int i, int j) {
  return (double)((i * 131 + j * 71) % 1009) / 1009.0 - (double)j / 4096.0;
}

/* Tile (i0, j0) of A, r x c, leading dimension n. */
KERNEL void fill_a(double *a, int n, int i0, int j0, int r, int c) {
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      a[(size_t)i * n + j] = aval(i0 + i, j0 + j);
}

/* b (c x r, leading dimension m) = a^T (a r x c, leading dimension n). */
KERNEL void transpose(const double *a, int n, double *b, int m, int r,
                      int c) {
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      b[(size_t)j * m + i] = a[(size_t)i * n + j];
}

KERNEL void sumsq_tile(const double *b, int ld, int r, int c, double *out) {
  double s = 0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      s += b[(size_t)i * ld + j] * b[(size_t)i * ld + j];
  *out = s;
}

KERNEL void sqrt_sum(const double *p, int n, double *out) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  *out = sqrt(s);
}

/* ------------------------------------------------------------ results */

struct results {
  double sum, sumsq, norm, maxabs, dot, wsum, wsum_plain, frob;
};
static const char *const names[] = {"sum", "sumsq", "norm",       "maxabs",
                                    "dot", "wsum",  "wsum_plain", "frob"};
enum { NRESULTS = sizeof(struct results) / sizeof(double) };

static size_t chunk(size_t len, size_t bs, size_t b) {
  return (b + 1) * bs <= len ? bs : len - b * bs;
}
static int tdim(int n, int t, int i) { return (i + 1) * t <= n ? t : n - i * t; }

/* ---------------------------------------------------------- with tasks */

static void with_tasks(size_t len, int m, int n, double *x, double *y,
                       double *w, double (*A)[n], double (*B)[m],
                       struct results *res) {
  int nby = (int)((len + BY - 1) / BY);
  size_t nbx = (len + BX - 1) / BX;
  double *ps = malloc(nby * sizeof *ps), *pq = malloc(nby * sizeof *pq),
         *pm = malloc(nby * sizeof *pm), *pd = malloc(nby * sizeof *pd),
         *pw = malloc(nby * sizeof *pw);
  int tr = (m + TM - 1) / TM, tc = (n + TN - 1) / TN;
  double *pf = malloc((size_t)tr * tc * sizeof *pf);
  if (!ps || !pq || !pm || !pd || !pw || !pf)
    exit(1);
  double *sum = &res->sum, *sumsq = &res->sumsq, *norm = &res->norm,
         *maxabs = &res->maxabs, *dot = &res->dot, *wsum = &res->wsum,
         *wsum_plain = &res->wsum_plain, *frob = &res->frob;

  for (size_t b = 0; b < nbx; b++) {
    size_t lo = b * BX, l = chunk(len, BX, b);
#pragma dag task out(x[lo:l]) label("fill_x")
    fill_x(x + lo, lo, l);
  }
  for (int b = 0; b < nby; b++) {
    size_t lo = (size_t)b * BY, l = chunk(len, BY, b);
#pragma dag task in(x[lo:l]) out(y[lo:l]) label("map")
    map_y(x + lo, y + lo, l);
  }
  for (int b = 0; b < nby; b++) {
    size_t lo = (size_t)b * BY, l = chunk(len, BY, b);
#pragma dag task in(y[lo:l]) out(ps[b], pq[b], pm[b]) label("reduce")
    reduce(y + lo, l, &ps[b], &pq[b], &pm[b]);
#pragma dag task in(x[lo:l], y[lo:l]) out(pd[b]) label("dot")
    dot_part(x + lo, y + lo, l, &pd[b]);
  }
#pragma dag task in(ps[0:nby], pq[0:nby], pm[0:nby], pd[0:nby])              \
    out(*sum, *sumsq, *norm, *maxabs, *dot) label("combine")
  combine(ps, pq, pm, pd, nby, sum, sumsq, norm, maxabs, dot);
  /* Every rank's tasks read the norm, written on one rank. */
  for (int b = 0; b < nby; b++) {
    size_t lo = (size_t)b * BY, l = chunk(len, BY, b);
#pragma dag task in(y[lo:l], *norm) out(w[lo:l]) label("scale")
    scale(y + lo, w + lo, l, norm);
#pragma dag task in(w[lo:l]) out(pw[b]) label("wpart")
    plain_sum(w + lo, l, &pw[b]);
  }
#pragma dag task in(pw[0:nby]) out(*wsum) label("wsum")
  sum_parts(pw, nby, wsum);
  /* One task reads all of w, from every home, in place. */
#pragma dag task in(w[0:len]) out(*wsum_plain) label("wsum_plain")
  plain_sum(w, len, wsum_plain);

  for (int i = 0; i < tr; i++)
    for (int j = 0; j < tc; j++) {
      int i0 = i * TM, j0 = j * TN, r = tdim(m, TM, i), c = tdim(n, TN, j);
#pragma dag task out(A[i0:r][j0:c]) label("fill_a")
      fill_a(&A[i0][j0], n, i0, j0, r, c);
    }
  /* B's tiles are TN x TM: the transpose of a tile of A is a tile of B. */
  for (int i = 0; i < tr; i++)
    for (int j = 0; j < tc; j++) {
      int i0 = i * TM, j0 = j * TN, r = tdim(m, TM, i), c = tdim(n, TN, j);
#pragma dag task in(A[i0:r][j0:c]) out(B[j0:c][i0:r]) label("transpose")
      transpose(&A[i0][j0], n, &B[j0][i0], m, r, c);
#pragma dag task in(B[j0:c][i0:r]) out(pf[i * tc + j]) label("frob_part")
      sumsq_tile(&B[j0][i0], m, c, r, &pf[i * tc + j]);
    }
#pragma dag task in(pf[0:tr * tc]) out(*frob) label("frob")
  sqrt_sum(pf, tr * tc, frob);
#pragma dag taskwait
  free(ps);
  free(pq);
  free(pm);
  free(pd);
  free(pw);
  free(pf);
}

/* ----------------------------------------------------------- sequential */

static void sequential(size_t len, int m, int n, double *x, double *y,
                       double *w, double *A, double *B, struct results *res) {
  int nby = (int)((len + BY - 1) / BY);
  double *ps = malloc(nby * sizeof *ps), *pq = malloc(nby * sizeof *pq),
         *pm = malloc(nby * sizeof *pm), *pd = malloc(nby * sizeof *pd),
         *pw = malloc(nby * sizeof *pw);
  int tr = (m + TM - 1) / TM, tc = (n + TN - 1) / TN;
  double *pf = malloc((size_t)tr * tc * sizeof *pf);
  if (!ps || !pq || !pm || !pd || !pw || !pf)
    exit(1);
  for (size_t b = 0; b * BX < len; b++)
    fill_x(x + b * BX, b * BX, chunk(len, BX, b));
  for (int b = 0; b < nby; b++)
    map_y(x + (size_t)b * BY, y + (size_t)b * BY, chunk(len, BY, b));
  for (int b = 0; b < nby; b++) {
    size_t lo = (size_t)b * BY, l = chunk(len, BY, b);
    reduce(y + lo, l, &ps[b], &pq[b], &pm[b]);
    dot_part(x + lo, y + lo, l, &pd[b]);
  }
  combine(ps, pq, pm, pd, nby, &res->sum, &res->sumsq, &res->norm,
          &res->maxabs, &res->dot);
  for (int b = 0; b < nby; b++) {
    size_t lo = (size_t)b * BY, l = chunk(len, BY, b);
    scale(y + lo, w + lo, l, &res->norm);
    plain_sum(w + lo, l, &pw[b]);
  }
  sum_parts(pw, nby, &res->wsum);
  plain_sum(w, len, &res->wsum_plain);
  for (int i = 0; i < tr; i++)
    for (int j = 0; j < tc; j++)
      fill_a(A + (size_t)i * TM * n + j * TN, n, i * TM, j * TN,
             tdim(m, TM, i), tdim(n, TN, j));
  for (int i = 0; i < tr; i++)
    for (int j = 0; j < tc; j++) {
      int i0 = i * TM, j0 = j * TN, r = tdim(m, TM, i), c = tdim(n, TN, j);
      transpose(A + (size_t)i0 * n + j0, n, B + (size_t)j0 * m + i0, m, r, c);
      sumsq_tile(B + (size_t)j0 * m + i0, m, c, r, &pf[i * tc + j]);
    }
  sqrt_sum(pf, tr * tc, &res->frob);
  free(ps);
  free(pq);
  free(pm);
  free(pd);
  free(pw);
  free(pf);
}

static int compare(const char *what, const double *got, const double *want,
                   size_t count) {
  for (size_t k = 0; k < count; k++)
    if (memcmp(&got[k], &want[k], sizeof(double))) {
      fprintf(stderr,
              "mpi_arrayops: rank %d of %d: %s[%zu] is %.17g, the sequential "
              "kernels give %.17g\n",
              dag_rank(), dag_nranks(), what, k, got[k], want[k]);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  size_t len = argc > 1 ? strtoul(argv[1], NULL, 10) : 40000;
  int m = argc > 3 ? atoi(argv[2]) : 150, n = argc > 3 ? atoi(argv[3]) : 230;
  if (len < 1 || m < 1 || n < 1) {
    fprintf(stderr, "usage: mpi_arrayops [len [m n]]\n");
    return 2;
  }
  int rank = dag_rank(), nranks = dag_nranks(), p, q;
  dag_grid(nranks, &p, &q);
  double *x = dag_alloc(len * sizeof *x, dag_dist_block_cyclic(sizeof *x, BX));
  double *y = dag_alloc(len * sizeof *y, dag_dist_block_cyclic(sizeof *y, BY));
  double *w = dag_alloc(len * sizeof *w, dag_dist_block_cyclic(sizeof *w, BY));
  double(*A)[n] = dag_alloc((size_t)m * n * sizeof(double),
                            dag_dist_2d(sizeof(double), n, TM, TN, p, q));
  double(*B)[m] = dag_alloc((size_t)n * m * sizeof(double),
                            dag_dist_2d(sizeof(double), m, TN, TM, p, q));
  double *sx = malloc(len * sizeof *sx), *sy = malloc(len * sizeof *sy),
         *sw = malloc(len * sizeof *sw),
         *sA = malloc((size_t)m * n * sizeof *sA),
         *sB = malloc((size_t)m * n * sizeof *sB);
  if (!x || !y || !w || !A || !B || !sx || !sy || !sw || !sA || !sB) {
    fprintf(stderr, "mpi_arrayops: rank %d: out of memory: %s\n", rank,
            dag_last_error());
    return 1;
  }
  struct results got, want;
  memset(&got, 0xff, sizeof got); /* NaNs: a result not written shows */
  with_tasks(len, m, n, x, y, w, A, B, &got);
  sequential(len, m, n, sx, sy, sw, sA, sB, &want);
  int bad = compare("results", (const double *)&got, (const double *)&want,
                    NRESULTS);
  for (int k = 0; k < NRESULTS && !bad; k++)
    if (memcmp((const double *)&got + k, (const double *)&want + k, 8))
      bad = 1;

  /* The same bytes on every rank. */
  double *all = malloc((size_t)nranks * sizeof got);
  if (!all)
    return 1;
  MPI_Allgather(&got, NRESULTS, MPI_DOUBLE, all, NRESULTS, MPI_DOUBLE,
                MPI_COMM_WORLD);
  for (int r = 0; r < nranks; r++)
    for (int k = 0; k < NRESULTS; k++)
      if (memcmp(&all[(size_t)r * NRESULTS + k], (const double *)&got + k,
                 sizeof(double))) {
        fprintf(stderr,
                "mpi_arrayops: rank %d: %s is %.17g here and %.17g on rank "
                "%d\n",
                rank, names[k], ((const double *)&got)[k],
                all[(size_t)r * NRESULTS + k], r);
        bad = 1;
      }
  free(all);

  /* The distributed arrays, made readable everywhere. */
  struct dag_access acc[4] = {
      {DAG_IN, dag_region_1d(y, len * sizeof *y)},
      {DAG_IN, dag_region_1d(w, len * sizeof *w)},
      {DAG_IN, dag_region_1d(A, (size_t)m * n * sizeof(double))},
      {DAG_IN, dag_region_1d(B, (size_t)m * n * sizeof(double))}};
  dag_check(dag_taskwait_on(acc, 4));
  bad |= !bad && compare("y", y, sy, len);
  bad |= !bad && compare("w", w, sw, len);
  bad |= !bad && compare("A", &A[0][0], sA, (size_t)m * n);
  bad |= !bad && compare("B", &B[0][0], sB, (size_t)m * n);
  if (!bad)
    printf("mpi_arrayops: rank %d of %d: len=%zu A %dx%d: sum=%.17g "
           "norm=%.17g dot=%.17g frob=%.17g: the same bits on every rank as "
           "the sequential kernels\n",
           rank, nranks, len, m, n, got.sum, got.norm, got.dot, got.frob);
  free(sx);
  free(sy);
  free(sw);
  free(sA);
  free(sB);
  dag_free(x);
  dag_free(y);
  dag_free(w);
  dag_free(A);
  dag_free(B);
  return bad;
}
