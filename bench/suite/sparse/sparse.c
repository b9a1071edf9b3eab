/* sparse.c — a sparse matrix-vector product and conjugate gradients on the
 * 5-point Laplacian (sparse.h), one task per block of rows: the dag
 * program of the suite's sparse group.
 *
 *   sparse -k spmv|cg|cg_unfused [-n N] [-b B] [-r REPS] [-t SECONDS]
 *
 * -n is the grid side (N = n^2 unknowns), -b the grid rows per block
 * (default: about 4 blocks per worker on each rank, at least one row).
 *
 * The matrix is in CSR by row blocks: block k is grid rows k b .. k b + b - 1
 * (the last block may have fewer), that is matrix rows k b n onwards. Its row
 * pointers (counting from 0), column indices (global rows of x) and values
 * lie in slots of fixed size of three arrays, room for 5 b n nonzeros; a
 * task at the block's home builds them.
 *
 * Distribution. Every array is dag_alloc memory cut in row-block pieces:
 * block k's CSR slots, its rows of every vector and its element of each
 * per-block array live on one rank, k R / nb of R ranks (runs of blocks, as
 * PETSc's ownership ranges), so each task below runs where everything it
 * writes lives and reads its block's rows there. The runtime tracks the
 * vectors by grid rows (n doubles): a block that reads one grid row of
 * halo on each side gets just those rows from a neighbour on another rank,
 * and only the blocks at the ends of a rank's run have one. (With
 * dag_dist_block, blocks dealt to the ranks in turn and tracked whole, a
 * block's neighbours live on other ranks and travel whole: a CG solve at
 * n = 1000 on 2 ranks sent 195 MiB each way instead of 0.4 MiB, and took
 * twice as long.)
 *
 * Kernels:
 *
 *   spmv  y = A x with x(r) = suite_random(2, r): per block, a task reads
 *         the block's CSR slots and x(r0 - n .. r0 + rows + n - 1) (clamped
 *         to the vector) and writes the block's rows of y. Work: 2 nnz.
 *   cg    50 iterations of unpreconditioned conjugate gradients on A x = b,
 *         b(r) = suite_random(2, r), x0 = 0. Each iteration has three tasks
 *         per block, q = A p with the block's part of p.q; x += alpha p and
 *         r -= alpha q with its part of r.r; p = r + beta p; and two
 *         reduction tasks that add the parts in block order and compute
 *         alpha and beta. The parts are dag_alloc arrays, one element per
 *         block at the block's home; alpha, beta and r.r are replicated
 *         variables that the runtime carries to the ranks that read them,
 *         so no taskwait stops the iterations. Work per iteration: 2 nnz
 *         (the product) + 10 N (two dot products, 4 N; x, r and p updates,
 *         6 N). Setting x, r and p up is untimed.
 *   cg_unfused  the same iterations with each operation a pass over the
 *         vectors of its own, six tasks per block as PETSc's KSPCG makes
 *         them (cg_iterate_unfused): the like of KSPCG, where cg is the
 *         like of a fused CG. The same work counted, the same check.
 *
 * Checks (tasks too, after the timed part):
 *
 *   spmv  the largest |y - exact| over the rows, exact from the stencil
 *         formula (laplace_apply) in the CSR row's order of terms: a right
 *         matrix gives the same bits, so the tolerance is 0. sum: the sum of
 *         y.
 *   cg, cg_unfused  the true residual ||b - A x||, computed by tasks, against the
 *         recurrence's sqrt(r.r): check = |true - recurrence| / ||b||, at
 *         most CG_TOL (sparse.h). The recurrence's residual must also have
 *         dropped below ||b||, or the check is infinite. sum: the sum of x.
 *
 * Per-block sums are added in block order, never as tasks complete, so sum
 * is the same bits serially (plain cc) and on any number of ranks and
 * workers, for a given -b.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sparse.h"
#include "suite.h"


/* ------------------------------------------------------------- layout */

/* An array is cut in one piece per row block, piece k at block k's home:
 * suite_bands' layout (suite.h), with a piece for a band. */
/* The row blocks, and how the vectors and the per-block arrays are cut. */
struct layout {
  long n;  /* grid side: N = n^2 rows */
  long b;  /* grid rows per block */
  long nb; /* blocks */
  struct suite_bands vector, part;
};

static long block_first(const struct layout *l, long k) {
  return k * l->b * l->n;
}

static long block_rows(const struct layout *l, long k) {
  return suite_block_dim(l->n, l->b, k) * l->n;
}

/* The rows a block's product reads: its own and one grid row on each side,
 * within the vector. (Inline: with plain cc, where the pragmas go, nothing
 * calls them.) */
static inline long halo_first(const struct layout *l, long k) {
  long r = block_first(l, k) - l->n;
  return r > 0 ? r : 0;
}

static inline long halo_rows(const struct layout *l, long k) {
  long end = block_first(l, k) + block_rows(l, k) + l->n;
  return (end < l->n * l->n ? end : l->n * l->n) - halo_first(l, k);
}

static struct suite_bands pieces_of(const struct layout *l, size_t bytes) {
  return (struct suite_bands){bytes, l->nb, suite_nranks()};
}

static struct layout layout_new(long n, long b) {
  struct layout l = {n, b, suite_nblocks(n, b), {0}, {0}};
  l.vector = pieces_of(&l, (size_t)(b * n) * sizeof(double));
  l.part = pieces_of(&l, sizeof(double));
  return l;
}


/* m, unless the memory could not be had: then the run ends. */
static void *need(void *m) {
  if (!m) {
    fprintf(stderr, "sparse: out of memory\n");
    exit(1);
  }
  return m;
}

/* Zeroed memory for the pieces p describes (p must outlive it), which the
 * runtime tracks in units of `unit` bytes, a divisor of p->band_bytes;
 * calloc with plain cc. Free it with suite_free_matrix. */
static void *pieces_alloc(const struct suite_bands *p, size_t unit) {
#ifdef _DAG
  return need(dag_alloc(p->band_bytes * (size_t)p->nbands,
                        dag_dist_owner(unit, suite_band_home, (void *)p)));
#else
  (void)unit;
  return need(calloc((size_t)p->nbands, p->band_bytes));
#endif
}

/* A vector of N doubles, tracked by grid rows. */
static double *vector_new(const struct layout *l) {
  return pieces_alloc(&l->vector, (size_t)l->n * sizeof(double));
}

/* An array of one double per block, at the block's home. */
static double *part_new(const struct layout *l) {
  return pieces_alloc(&l->part, sizeof(double));
}

/* `count` replicated doubles per block, zeroed: `count` arrays of
 * per-block results, one after the other, that tasks write and plain code
 * reads after a taskwait. */
static double *per_block(const struct layout *l, size_t count) {
  return need(calloc(count * (size_t)l->nb, sizeof(double)));
}

/* ---------------------------------------------------------------- CSR */

/* The matrix in CSR by row blocks (see the top of the file). */
struct csr {
  long ptrs;   /* row pointer slots per block: b n + 1 */
  long cap;    /* nonzero slots per block: 5 b n */
  int *rowptr; /* block k's at rowptr + k ptrs */
  int *col;    /* block k's at col + k cap */
  double *val; /* block k's at val + k cap */
  struct suite_bands rowptr_pieces, col_pieces, val_pieces;
};

/* Writes the CSR slots of the block of `rows` rows from row `first`. */
static void csr_build_block(long n, long first, long rows, int *rowptr,
                            int *col, double *val) {
  int e = 0;
  for (long i = 0; i < rows; i++) {
    rowptr[i] = e;
    e += laplace_row(n, first + i, col + e, val + e);
  }
  rowptr[rows] = e;
}

/* y = A x on the block of `rows` rows from row `first`, given by its CSR
 * slots: x is the whole vector (read at the block's columns only), y the
 * block's part. Returns x.y over the block's rows, CG's p.q, for one
 * multiply-add a row: x(first + i) is the diagonal term's, just loaded. */
static double csr_mult(long first, long rows, const int *rowptr, const int *col,
                       const double *val, const double *x, double *y) {
  double xy = 0.0;
  for (long i = 0; i < rows; i++) {
    double s = 0.0;
    for (int e = rowptr[i]; e < rowptr[i + 1]; e++)
      s += val[e] * x[col[e]];
    y[i] = s;
    xy += x[first + i] * s;
  }
  return xy;
}

/* Allocates the matrix; each block's slots are built at its home. */
static void csr_new(const struct layout *l, struct csr *A) {
  A->ptrs = l->b * l->n + 1;
  A->cap = LAPLACE_ROW_MAX * l->b * l->n;
  A->rowptr_pieces = pieces_of(l, (size_t)A->ptrs * sizeof(int));
  A->col_pieces = pieces_of(l, (size_t)A->cap * sizeof(int));
  A->val_pieces = pieces_of(l, (size_t)A->cap * sizeof(double));
  A->rowptr = pieces_alloc(&A->rowptr_pieces, A->rowptr_pieces.band_bytes);
  A->col = pieces_alloc(&A->col_pieces, A->col_pieces.band_bytes);
  A->val = pieces_alloc(&A->val_pieces, A->val_pieces.band_bytes);
  int *rowptr = A->rowptr, *col = A->col;
  double *val = A->val;
  long ptrs = A->ptrs, cap = A->cap;
  for (long k = 0; k < l->nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(rowptr[k * ptrs:ptrs], col[k * cap:cap],                  \
                     val[k * cap:cap]) label("build")
    csr_build_block(l->n, first, rows, rowptr + k * ptrs, col + k * cap,
                    val + k * cap);
  }
#pragma dag taskwait
}

static void csr_free(struct csr *A) {
  suite_free_matrix(A->rowptr);
  suite_free_matrix(A->col);
  suite_free_matrix(A->val);
}

/* --------------------------------------------------------- block loops */

static double dot(long m, const double *x, const double *y) {
  double s = 0.0;
  for (long i = 0; i < m; i++)
    s += x[i] * y[i];
  return s;
}

/* The squared distance between x and y. */
static double distance2(long m, const double *x, const double *y) {
  double s = 0.0;
  for (long i = 0; i < m; i++)
    s += (x[i] - y[i]) * (x[i] - y[i]);
  return s;
}

static double sum(long m, const double *x) {
  double s = 0.0;
  for (long i = 0; i < m; i++)
    s += x[i];
  return s;
}

/* x(r) = suite_random(seed, r) on one block's rows. */
static void random_rows(long first, long rows, double *x, uint64_t seed) {
  for (long i = first; i < first + rows; i++)
    x[i] = suite_random(seed, (uint64_t)i);
}

static void fill_random(const struct layout *l, double *x, uint64_t seed) {
  for (long k = 0; k < l->nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(x[first:rows]) label("fill")
    random_rows(first, rows, x, seed);
  }
#pragma dag taskwait
}

/* ---------------------------------------------------------------- spmv */

static void spmv(const struct layout *l, const struct csr *A, const double *x,
                 double *y) {
  const int *rowptr = A->rowptr, *col = A->col;
  const double *val = A->val;
  long ptrs = A->ptrs, cap = A->cap;
  for (long k = 0; k < l->nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(y[first:rows])                                            \
    in(rowptr[k * ptrs:ptrs], col[k * cap:cap], val[k * cap:cap],              \
       x[halo_first(l, k):halo_rows(l, k)]) label("spmv")
    csr_mult(first, rows, rowptr + k * ptrs, col + k * cap, val + k * cap, x,
             y + first);
  }
#pragma dag taskwait
}

/* The largest |y(r) - (A x)(r)| over block k's rows, (A x)(r) from the
 * stencil. */
static double spmv_error(const struct layout *l, long k, const double *x,
                         const double *y) {
  long first = block_first(l, k), rows = block_rows(l, k);
  double worst = 0.0;
  for (long r = first; r < first + rows; r++)
    worst = fmax(worst, fabs(y[r] - laplace_apply(l->n, r, x, 0)));
  return worst;
}

static int run_spmv(const struct suite_opts *o, const struct layout *l,
                    const struct csr *A) {
  double *x = vector_new(l), *y = vector_new(l);
  fill_random(l, x, 2);
  struct suite_times tt = {0};
  while (suite_more(&tt, o)) {
    suite_begin(&tt);
    spmv(l, A, x, y);
    suite_end(&tt);
  }

  /* Per block, replicated: the largest error and the sum of y. */
  double *err = per_block(l, 2), *ysum = err + l->nb;
  for (long k = 0; k < l->nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task in(y[first:rows], x[halo_first(l, k):halo_rows(l, k)])       \
    out(err[k], ysum[k]) label("spmv_check")
    {
      err[k] = spmv_error(l, k, x, y);
      ysum[k] = sum(rows, y + first);
    }
  }
#pragma dag taskwait
  double worst = 0.0, total = 0.0;
  for (long k = 0; k < l->nb; k++) {
    worst = fmax(worst, err[k]);
    total += ysum[k];
  }
  int status = suite_report(o, suite_dag_workers(), &tt, spmv_flops(l->n),
                            "GFLOP/s", worst, 0.0, total);
  free(err);
  suite_free_matrix(x);
  suite_free_matrix(y);
  return status;
}

/* ------------------------------------------------------------------ cg */

/* The state of the iterations: vectors, per-block parts of the dot
 * products, and the scalars (replicated). */
struct cg {
  double *b, *x, *r, *p, *q;
  double *pq, *rr_part; /* p.q and r.r, per block */
  double rr, alpha, beta;
};

/* dag_alloc calls, in the same order on every rank. */
static void cg_new(const struct layout *l, struct cg *s) {
  s->b = vector_new(l);
  s->x = vector_new(l);
  s->r = vector_new(l);
  s->p = vector_new(l);
  s->q = vector_new(l);
  s->pq = part_new(l);
  s->rr_part = part_new(l);
  s->rr = s->alpha = s->beta = 0.0;
}

static void cg_free(struct cg *s) {
  double *arrays[] = {s->b, s->x, s->r, s->p, s->q, s->pq, s->rr_part};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
    suite_free_matrix(arrays[i]);
}

/* x = 0, r = p = b on one block; returns its part of r.r. */
static double cg_start_block(long m, const double *b, double *x, double *r,
                             double *p) {
  for (long i = 0; i < m; i++) {
    x[i] = 0.0;
    r[i] = p[i] = b[i];
  }
  return dot(m, r, r);
}

/* x += alpha p, r -= alpha q on one block; returns its part of r.r. */
static double cg_update_block(long m, double alpha, const double *p,
                              const double *q, double *x, double *r) {
  double rr = 0.0;
  for (long i = 0; i < m; i++) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
    rr += r[i] * r[i];
  }
  return rr;
}

/* a / b, or 0 once b is 0: on a grid of a few points CG reaches r = 0
 * exactly before its last iteration, and the later steps are then 0. */
static double ratio(double a, double b) { return b != 0.0 ? a / b : 0.0; }

/* p = r + beta p on one block. */
static void cg_direction_block(long m, double beta, const double *r,
                               double *p) {
  for (long i = 0; i < m; i++)
    p[i] = r[i] + beta * p[i];
}

/* x0 = 0, r0 = p0 = b, s->rr = b.b (untimed). */
static void cg_start(const struct layout *l, struct cg *s) {
  double *b = s->b, *x = s->x, *r = s->r, *p = s->p, *rr_part = s->rr_part;
  for (long k = 0; k < l->nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(x[first:rows], r[first:rows], p[first:rows], rr_part[k])  \
    in(b[first:rows]) label("cg_start")
    rr_part[k] =
        cg_start_block(rows, b + first, x + first, r + first, p + first);
  }
  long nb = l->nb;
#pragma dag task in(rr_part[0:nb]) out(s->rr) label("cg_rr")
  s->rr = sum(nb, rr_part);
#pragma dag taskwait
}

/* An iteration's end, once the parts of r.r are in: beta, then the next
 * direction p = r + beta p. */
static void cg_next_direction(const struct layout *l, struct cg *s) {
  long nb = l->nb;
  double *r = s->r, *p = s->p, *rr_part = s->rr_part;
#pragma dag task in(rr_part[0:nb]) inout(s->rr) out(s->beta) label("cg_beta")
  {
    double rr = sum(nb, rr_part);
    s->beta = ratio(rr, s->rr);
    s->rr = rr;
  }
  for (long k = 0; k < nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task inout(p[first:rows]) in(r[first:rows], s->beta)              \
    label("cg_direction")
    cg_direction_block(rows, s->beta, r + first, p + first);
  }
}

/* CG_ITERATIONS iterations from the state cg_start left. */
static void cg_iterate(const struct layout *l, const struct csr *A,
                       struct cg *s) {
  const int *rowptr = A->rowptr, *col = A->col;
  const double *val = A->val;
  long ptrs = A->ptrs, cap = A->cap, nb = l->nb;
  double *x = s->x, *r = s->r, *p = s->p, *q = s->q;
  double *pq = s->pq, *rr_part = s->rr_part;
  for (int it = 0; it < CG_ITERATIONS; it++) {
    for (long k = 0; k < nb; k++) {
      long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(q[first:rows], pq[k])                                     \
    in(rowptr[k * ptrs:ptrs], col[k * cap:cap], val[k * cap:cap],              \
       p[halo_first(l, k):halo_rows(l, k)]) label("cg_product")
      pq[k] = csr_mult(first, rows, rowptr + k * ptrs, col + k * cap,
                       val + k * cap, p, q + first);
    }
#pragma dag task in(pq[0:nb], s->rr) out(s->alpha) label("cg_alpha")
    s->alpha = ratio(s->rr, sum(nb, pq));
    for (long k = 0; k < nb; k++) {
      long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task inout(x[first:rows], r[first:rows]) out(rr_part[k])          \
    in(p[first:rows], q[first:rows], s->alpha) label("cg_update")
      rr_part[k] = cg_update_block(rows, s->alpha, p + first, q + first,
                                   x + first, r + first);
    }
    cg_next_direction(l, s);
  }
#pragma dag taskwait
}

/* x += alpha p on one block. */
static void axpy_block(long m, double alpha, const double *p, double *x) {
  for (long i = 0; i < m; i++)
    x[i] += alpha * p[i];
}

/* CG_ITERATIONS iterations as cg_iterate, each operation a pass of its own
 * over the vectors, as PETSc's KSPCG makes them: q = A p; p.q; x += alpha
 * p; r -= alpha q; r.r; p = r + beta p. The same arithmetic as cg_iterate,
 * in the same order (the product's own p.q is not used). */
static void cg_iterate_unfused(const struct layout *l, const struct csr *A,
                               struct cg *s) {
  const int *rowptr = A->rowptr, *col = A->col;
  const double *val = A->val;
  long ptrs = A->ptrs, cap = A->cap, nb = l->nb;
  double *x = s->x, *r = s->r, *p = s->p, *q = s->q;
  double *pq = s->pq, *rr_part = s->rr_part;
  for (int it = 0; it < CG_ITERATIONS; it++) {
    for (long k = 0; k < nb; k++) {
      long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(q[first:rows])                                            \
    in(rowptr[k * ptrs:ptrs], col[k * cap:cap], val[k * cap:cap],              \
       p[halo_first(l, k):halo_rows(l, k)]) label("cg_product")
      csr_mult(first, rows, rowptr + k * ptrs, col + k * cap, val + k * cap, p,
               q + first);
    }
    for (long k = 0; k < nb; k++) {
      long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task in(p[first:rows], q[first:rows]) out(pq[k]) label("cg_pq")
      pq[k] = dot(rows, p + first, q + first);
    }
#pragma dag task in(pq[0:nb], s->rr) out(s->alpha) label("cg_alpha")
    s->alpha = ratio(s->rr, sum(nb, pq));
    for (long k = 0; k < nb; k++) {
      long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task inout(x[first:rows]) in(p[first:rows], s->alpha)              \
    label("cg_x")
      axpy_block(rows, s->alpha, p + first, x + first);
#pragma dag task inout(r[first:rows]) in(q[first:rows], s->alpha)              \
    label("cg_r")
      axpy_block(rows, -s->alpha, q + first, r + first);
#pragma dag task in(r[first:rows]) out(rr_part[k]) label("cg_rr")
      rr_part[k] = dot(rows, r + first, r + first);
    }
    cg_next_direction(l, s);
  }
#pragma dag taskwait
}

/* The true residual ||b - A x|| (q serves as scratch for A x) and the sum
 * of x, both added in block order. */
static void cg_residual(const struct layout *l, const struct csr *A,
                        struct cg *s, double *norm, double *xsum) {
  const int *rowptr = A->rowptr, *col = A->col;
  const double *val = A->val;
  long ptrs = A->ptrs, cap = A->cap;
  double *b = s->b, *x = s->x, *q = s->q;
  /* Per block, replicated: the squared residual and the sum of x. */
  double *res = per_block(l, 2), *part = res + l->nb;
  for (long k = 0; k < l->nb; k++) {
    long first = block_first(l, k), rows = block_rows(l, k);
#pragma dag task out(q[first:rows], res[k], part[k])                           \
    in(b[first:rows], rowptr[k * ptrs:ptrs], col[k * cap:cap],                 \
       val[k * cap:cap], x[halo_first(l, k):halo_rows(l, k)])                  \
    label("cg_residual")
    {
      csr_mult(first, rows, rowptr + k * ptrs, col + k * cap, val + k * cap, x,
               q + first);
      res[k] = distance2(rows, b + first, q + first);
      part[k] = sum(rows, x + first);
    }
  }
#pragma dag taskwait
  *norm = sqrt(sum(l->nb, res));
  *xsum = sum(l->nb, part);
  free(res);
}

/* CG, with its passes fused (cg_iterate) or not (cg_iterate_unfused). */
static int run_cg(const struct suite_opts *o, const struct layout *l,
                  const struct csr *A, bool fused) {
  struct cg s;
  cg_new(l, &s);
  fill_random(l, s.b, 2);
  double bnorm = 0.0;
  struct suite_times tt = {0};
  while (suite_more(&tt, o)) {
    cg_start(l, &s);
    bnorm = sqrt(s.rr);
    suite_begin(&tt);
    (fused ? cg_iterate : cg_iterate_unfused)(l, A, &s);
    suite_end(&tt);
  }

  double norm, xsum;
  cg_residual(l, A, &s, &norm, &xsum);
  double recurrence = sqrt(s.rr);
  double check = fabs(norm - recurrence) / bnorm;
  if (!(recurrence < bnorm)) {
    if (suite_rank() == 0)
      fprintf(stderr, "sparse: cg: the residual %g did not drop below %g\n",
              recurrence, bnorm);
    check = INFINITY;
  }
  int status = suite_report(o, suite_dag_workers(), &tt, cg_flops(l->n),
                            "GFLOP/s", check, CG_TOL, xsum);
  cg_free(&s);
  return status;
}

/* ---------------------------------------------------------------- main */

/* About 4 blocks per worker on each rank, at least one grid row each. */
static long default_block(long n) {
  long blocks = 4L * suite_dag_workers() * suite_nranks();
  return (n + blocks - 1) / blocks;
}

int main(int argc, char **argv) {
  struct suite_opts o;
  int status =
      sparse_init(&argc, &argv, SUITE_DAG_RUNTIME, sparse_kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  if (!o.b)
    o.b = default_block(o.n);
  struct layout l = layout_new(o.n, o.b);
  struct csr A;
  csr_new(&l, &A);
  status = !strcmp(o.kernel, "spmv")
               ? run_spmv(&o, &l, &A)
               : run_cg(&o, &l, &A, !strcmp(o.kernel, "cg"));
  csr_free(&A);
  suite_finish();
  return status;
}
