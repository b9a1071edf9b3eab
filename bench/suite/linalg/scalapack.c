/* scalapack.c — the ScaLAPACK peers of the linalg group: what a user would
 * call instead of writing the tiled algorithms with dag.
 *
 *   mpiexec -n R linalg_scalapack -k KERNEL [-n N] [-b B] [-r REPS] [-t S]
 *
 * One MPI process per core, each calling single-threaded OpenBLAS under
 * ScaLAPACK (workers=1). The matrices are n x n, spread 2-D block-cyclic in
 * b x b blocks over the squarest p x q grid of the R ranks with p <= q, block
 * (I, J) on rank (I mod p) q + J mod q as dag_grid places tile (I, J)
 * (scalapack_grid.c sets the grid up). Local parts are column-major, as
 * ScaLAPACK wants, but every entry is the group's formula of its global row
 * i and column j (suite_random by the row-major index i n + j), so the
 * problem is the one the other runtimes solve; each rank fills its own part,
 * without communication. The kernels and their timed calls:
 *
 *   gemm      C = C + A B                  pdgemm    2 n^3 flops
 *   syrk      C = C + A A^T, lower C only  pdsyrk    n^3
 *   gemv      y = A x                      pdgemv    2 n^2
 *   cholesky  A = L L^T                    pdpotrf   n^3 / 3
 *   lu        P A = L U                    pdgetrf   2 n^3 / 3
 *   qr        A = Q R                      pdgeqrf   4 n^3 / 3
 *   solve     A x = b                      pdgesv    2 n^3 / 3 + 2 n^2
 *                                          (LU and the two triangular
 *                                          solves)
 *
 * The inputs a kernel overwrites are filled again, untimed, before every
 * repetition. Checks, untimed, with a fixed random probe x and the original
 * matrices regenerated from their formulas, all products by PBLAS on the
 * grid (no matrix is gathered, at most vectors):
 *
 *   gemm      ||C x - C0 x - A (B x)|| / ((||C0||_F + ||A||_F ||B||_F) ||x||)
 *   syrk      ||C x - C0 x - A (A^T x)|| / ((||C0||_F + ||A||_F^2) ||x||)
 *   cholesky  ||A x - L (L^T x)|| / (||A||_F ||x||)
 *   lu        ||P A x - L (U x)|| / (||A||_F ||x||), P applied to the
 *             gathered A x
 *   qr        ||A^T (A x) - R^T (R x)|| / (||A||_F^2 ||x||)   (Q not formed)
 *   solve     ||A x - b|| / (||A||_F ||x|| + ||b||)
 *   gemv      ||y - A x|| / (||A||_F ||x||), A x summed row by row from the
 *             formulas, each rank a share of the rows, against y gathered
 *
 * all against 100 n DBL_EPSILON. sum= is the sum of the result's entries:
 * C (its lower triangle for syrk), y, L, the L\U array, R, x.
 */
#include <cblas.h> /* openblas_set_num_threads */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas_tiles.h"
#include "scalapack_grid.h"
#include "scalapack_pblas.h"
#include "suite.h"

static const int one = 1, zero = 0;

/* ------------------------------------------------------------- the data */

/* The group's matrices, entry by global (row, column), blas_tiles.h's
 * formulas; a vector x(i) = suite_random(seed, i) is the general matrix of
 * order 1's column. */
struct formula {
  long n;
  enum blas_shape shape;
  uint64_t seed;
};

static double entry(int i, int j, void *ctx) {
  const struct formula *f = ctx;
  return blas_entry(f->shape, f->seed, f->n, i, j);
}

/* Everything a kernel works on; each kernel sets up the part it needs. */
struct problem {
  struct sl_grid g;
  int n, bs; /* order, block order */
  /* n x n: a, b and c are the kernel's A, B and C; where the kernel has no
   * B, b holds the original matrix for the check. */
  struct sl_matrix a, b, c;
  /* n x 1 (on grid column 0): x the probe of the checks (gemv's x), y and z
   * for products (solve's b, then x). */
  struct sl_matrix x, y, z;
  int *ipiv;          /* lu, solve: the pivots */
  double *tau, *work; /* qr: Householder scalars and workspace */
  int lwork;
};

static void die(const char *what, int info) {
  fprintf(stderr, "linalg_scalapack: %s (info %d)\n", what, info);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *alloc(size_t bytes) {
  void *m = malloc(bytes ? bytes : 1);
  if (!m)
    die("out of memory", 0);
  return m;
}

static void *zeros(size_t count, size_t size) {
  void *m = calloc(count ? count : 1, size);
  if (!m)
    die("out of memory", 0);
  return m;
}

static void matrix(struct problem *p, struct sl_matrix *m) {
  if (sl_matrix_init(m, &p->g, p->n, p->bs))
    die("cannot make a matrix", 0);
}

/* An n x 1 matrix in b x b blocks: only grid column 0 has a part. */
static void vector(struct problem *p, struct sl_matrix *v) {
  int info = 0;
  v->n = p->n;
  v->b = p->bs;
  v->mloc = numroc_(&p->n, &p->bs, &p->g.myrow, &zero, &p->g.p);
  v->nloc = numroc_(&one, &p->bs, &p->g.mycol, &zero, &p->g.q);
  v->lld = v->mloc > 1 ? v->mloc : 1;
  descinit_(v->desc, &p->n, &one, &p->bs, &p->bs, &zero, &zero, &p->g.context,
            &v->lld, &info);
  if (info != 0)
    die("descinit of a vector", info);
  v->a = alloc((size_t)v->lld * sizeof *v->a);
}

static void fill(struct problem *p, struct sl_matrix *m, enum blas_shape shape,
                 uint64_t seed) {
  sl_matrix_fill(m, &p->g, entry, &(struct formula){p->n, shape, seed});
}

static void fill_vector(struct problem *p, struct sl_matrix *v, uint64_t seed) {
  sl_matrix_fill(v, &p->g, entry, &(struct formula){1, BLAS_GENERAL, seed});
}

static void problem_free(struct problem *p) {
  struct sl_matrix *all[] = {&p->a, &p->b, &p->c, &p->x, &p->y, &p->z};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++)
    sl_matrix_free(all[k]);
  free(p->ipiv);
  free(p->tau);
  free(p->work);
}

/* -------------------------------------------------- products and norms */

/* y = alpha op(M) x + beta y (trans "N" or "T"). */
static void matvec(const struct problem *p, const char *trans, double alpha,
                   const struct sl_matrix *m, const struct sl_matrix *x,
                   double beta, struct sl_matrix *y) {
  pdgemv_(trans, &p->n, &p->n, &alpha, m->a, &one, &one, m->desc, x->a, &one,
          &one, x->desc, &one, &beta, y->a, &one, &one, y->desc, &one, 1);
}

/* x = op(T) x, T the uplo triangle of m, unit diagonal when diag is "U". */
static void trivec(const struct problem *p, const char *uplo, const char *trans,
                   const char *diag, const struct sl_matrix *m,
                   struct sl_matrix *x) {
  pdtrmv_(uplo, trans, diag, &p->n, m->a, &one, &one, m->desc, x->a, &one, &one,
          x->desc, &one, 1, 1, 1);
}

/* The global index (0-based) of local index l on grid coordinate c. */
static int global(int l, int b, int c, int procs) {
  int l1 = l + 1;
  return indxl2g_(&l1, &b, &c, &zero, &procs) - 1;
}

/* The sum over all ranks of m's entries (i, j) with i >= j (part 'L'),
 * i <= j ('U') or all of them ('A'). */
static double total(const struct problem *p, const struct sl_matrix *m,
                    char part) {
  double s = 0.0;
  for (int lj = 0; lj < m->nloc; lj++) {
    int j = global(lj, m->b, p->g.mycol, p->g.q);
    for (int li = 0; li < m->mloc; li++) {
      int i = global(li, m->b, p->g.myrow, p->g.p);
      if (part == 'A' || (part == 'L' ? i >= j : i <= j))
        s += m->a[(size_t)lj * m->lld + li];
    }
  }
  return suite_sum(s);
}

/* The Frobenius norm of m (the 2-norm of a vector), over all ranks. */
static double norm(const struct sl_matrix *m) {
  double s = 0.0;
  for (int lj = 0; lj < m->nloc; lj++)
    for (int li = 0; li < m->mloc; li++) {
      double v = m->a[(size_t)lj * m->lld + li];
      s += v * v;
    }
  return sqrt(suite_sum(s));
}

/* The whole vector v on every rank (malloc'ed): each owner puts its entries
 * at their places in zeros, and the ranks add up. */
static double *everywhere(const struct problem *p, const struct sl_matrix *v) {
  double *all = zeros((size_t)p->n, sizeof *all);
  if (v->nloc > 0)
    for (int li = 0; li < v->mloc; li++)
      all[global(li, v->b, p->g.myrow, p->g.p)] = v->a[li];
  MPI_Allreduce(MPI_IN_PLACE, all, p->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* ------------------------------------------------------------------ gemm */

static void gemm_setup(struct problem *p) {
  matrix(p, &p->a);
  matrix(p, &p->b);
  matrix(p, &p->c);
  fill(p, &p->a, BLAS_GENERAL, 1);
  fill(p, &p->b, BLAS_GENERAL, 2);
}

static void gemm_prepare(struct problem *p) { fill(p, &p->c, BLAS_GENERAL, 3); }

static void gemm_compute(struct problem *p) {
  double alpha = 1.0, beta = 1.0;
  pdgemm_("N", "N", &p->n, &p->n, &p->n, &alpha, p->a.a, &one, &one, p->a.desc,
          p->b.a, &one, &one, p->b.desc, &beta, p->c.a, &one, &one, p->c.desc,
          1, 1);
}

static double gemm_check(struct problem *p, double *sum) {
  double na = norm(&p->a), nb = norm(&p->b);
  matvec(p, "N", 1.0, &p->b, &p->x, 0.0, &p->y);  /* y = B x */
  matvec(p, "N", 1.0, &p->a, &p->y, 0.0, &p->z);  /* z = A (B x) */
  fill(p, &p->b, BLAS_GENERAL, 3);                /* B is done with: C0 */
  matvec(p, "N", 1.0, &p->b, &p->x, 1.0, &p->z);  /* z += C0 x */
  matvec(p, "N", 1.0, &p->c, &p->x, -1.0, &p->z); /* z = C x - z */
  *sum = total(p, &p->c, 'A');
  return norm(&p->z) / ((norm(&p->b) + na * nb) * norm(&p->x));
}

/* ------------------------------------------------------------------ syrk */

static void syrk_setup(struct problem *p) {
  matrix(p, &p->a);
  matrix(p, &p->b);
  matrix(p, &p->c);
  fill(p, &p->a, BLAS_GENERAL, 1);
}

static void syrk_prepare(struct problem *p) {
  fill(p, &p->c, BLAS_SYMMETRIC, 3);
}

static void syrk_compute(struct problem *p) {
  double alpha = 1.0, beta = 1.0;
  pdsyrk_("L", "N", &p->n, &p->n, &alpha, p->a.a, &one, &one, p->a.desc, &beta,
          p->c.a, &one, &one, p->c.desc, 1, 1);
}

static double syrk_check(struct problem *p, double *sum) {
  double alpha = 1.0, beta = -1.0, na = norm(&p->a);
  matvec(p, "T", 1.0, &p->a, &p->x, 0.0, &p->y); /* y = A^T x */
  matvec(p, "N", 1.0, &p->a, &p->y, 0.0, &p->z); /* z = A (A^T x) */
  fill(p, &p->b, BLAS_SYMMETRIC, 3);             /* C0 */
  matvec(p, "N", 1.0, &p->b, &p->x, 1.0, &p->z); /* z += C0 x */
  /* z = C x - z, C symmetric from the lower triangle pdsyrk updated. */
  pdsymv_("L", &p->n, &alpha, p->c.a, &one, &one, p->c.desc, p->x.a, &one, &one,
          p->x.desc, &one, &beta, p->z.a, &one, &one, p->z.desc, &one, 1);
  *sum = total(p, &p->c, 'L');
  return norm(&p->z) / ((norm(&p->b) + na * na) * norm(&p->x));
}

/* ------------------------------------------------------------------ gemv */

static void gemv_setup(struct problem *p) {
  matrix(p, &p->a);
  fill(p, &p->a, BLAS_GENERAL, 1);
  fill_vector(p, &p->x, 2);
}

static void gemv_compute(struct problem *p) {
  matvec(p, "N", 1.0, &p->a, &p->x, 0.0, &p->y);
}

static double gemv_check(struct problem *p, double *sum) {
  double *x = everywhere(p, &p->x), *y = everywhere(p, &p->y), err = 0.0;
  int rank = suite_rank(), ranks = suite_nranks();
  for (int i = rank; i < p->n; i += ranks) {
    double ax = 0.0;
    for (int j = 0; j < p->n; j++)
      ax += suite_random(1, (uint64_t)i * p->n + j) * x[j];
    err += (y[i] - ax) * (y[i] - ax);
  }
  free(x);
  free(y);
  *sum = total(p, &p->y, 'A');
  return sqrt(suite_sum(err)) / (norm(&p->a) * norm(&p->x));
}

/* -------------------------------------------------------------- cholesky */

static void cholesky_setup(struct problem *p) {
  matrix(p, &p->a);
  matrix(p, &p->b);
}

static void cholesky_prepare(struct problem *p) { fill(p, &p->a, BLAS_SPD, 1); }

static void cholesky_compute(struct problem *p) {
  int info = 0;
  pdpotrf_("L", &p->n, p->a.a, &one, &one, p->a.desc, &info, 1);
  if (info != 0)
    die("pdpotrf failed", info);
}

static double cholesky_check(struct problem *p, double *sum) {
  fill_vector(p, &p->y, BLAS_PROBE_SEED);         /* y = x */
  trivec(p, "L", "T", "N", &p->a, &p->y);         /* y = L^T x */
  trivec(p, "L", "N", "N", &p->a, &p->y);         /* y = L (L^T x) */
  fill(p, &p->b, BLAS_SPD, 1);                    /* A */
  matvec(p, "N", 1.0, &p->b, &p->x, -1.0, &p->y); /* y = A x - y */
  *sum = total(p, &p->a, 'L');
  return norm(&p->y) / (norm(&p->b) * norm(&p->x));
}

/* -------------------------------------------------------------------- lu */

static void lu_setup(struct problem *p) {
  matrix(p, &p->a);
  matrix(p, &p->b);
  p->ipiv = alloc((size_t)(p->a.mloc + p->bs) * sizeof *p->ipiv);
}

static void general_prepare(struct problem *p) {
  fill(p, &p->a, BLAS_GENERAL, 1);
}

static void lu_compute(struct problem *p) {
  int info = 0;
  pdgetrf_(&p->n, &p->n, p->a.a, &one, &one, p->a.desc, p->ipiv, &info);
  if (info != 0)
    die("pdgetrf failed", info);
}

/* The pivots on every rank (malloc'ed): piv[i] is the row (0-based) that
 * row i was swapped with, in order. Grid column 0 gives them, each process
 * row those of its rows. */
static int *pivots(const struct problem *p) {
  int *all = zeros((size_t)p->n, sizeof *all);
  if (p->g.mycol == 0)
    for (int li = 0; li < p->a.mloc; li++)
      all[global(li, p->bs, p->g.myrow, p->g.p)] = p->ipiv[li] - 1;
  MPI_Allreduce(MPI_IN_PLACE, all, p->n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static double lu_check(struct problem *p, double *sum) {
  fill_vector(p, &p->y, BLAS_PROBE_SEED);        /* y = x */
  trivec(p, "U", "N", "N", &p->a, &p->y);        /* y = U x */
  trivec(p, "L", "N", "U", &p->a, &p->y);        /* y = L (U x) */
  fill(p, &p->b, BLAS_GENERAL, 1);               /* A */
  matvec(p, "N", 1.0, &p->b, &p->x, 0.0, &p->z); /* z = A x */
  /* P's interchanges on z, both vectors gathered on every rank. */
  double *pax = everywhere(p, &p->z), *lux = everywhere(p, &p->y), err = 0.0;
  int *piv = pivots(p);
  for (int i = 0; i < p->n; i++) {
    double t = pax[i];
    pax[i] = pax[piv[i]];
    pax[piv[i]] = t;
  }
  for (int i = 0; i < p->n; i++)
    err += (pax[i] - lux[i]) * (pax[i] - lux[i]);
  free(pax);
  free(lux);
  free(piv);
  *sum = total(p, &p->a, 'A');
  return sqrt(err) / (norm(&p->b) * norm(&p->x));
}

/* -------------------------------------------------------------------- qr */

static void qr_setup(struct problem *p) {
  matrix(p, &p->a);
  matrix(p, &p->b);
  p->tau = alloc((size_t)p->a.nloc * sizeof *p->tau);
  double size = 0.0;
  int query = -1, info = 0;
  pdgeqrf_(&p->n, &p->n, p->a.a, &one, &one, p->a.desc, p->tau, &size, &query,
           &info);
  if (info != 0)
    die("pdgeqrf workspace query failed", info);
  p->lwork = (int)size;
  p->work = alloc((size_t)p->lwork * sizeof *p->work);
}

static void qr_compute(struct problem *p) {
  int info = 0;
  pdgeqrf_(&p->n, &p->n, p->a.a, &one, &one, p->a.desc, p->tau, p->work,
           &p->lwork, &info);
  if (info != 0)
    die("pdgeqrf failed", info);
}

static double qr_check(struct problem *p, double *sum) {
  fill_vector(p, &p->y, BLAS_PROBE_SEED);         /* y = x */
  trivec(p, "U", "N", "N", &p->a, &p->y);         /* y = R x */
  trivec(p, "U", "T", "N", &p->a, &p->y);         /* y = R^T (R x) */
  fill(p, &p->b, BLAS_GENERAL, 1);                /* A */
  matvec(p, "N", 1.0, &p->b, &p->x, 0.0, &p->z);  /* z = A x */
  matvec(p, "T", 1.0, &p->b, &p->z, -1.0, &p->y); /* y = A^T z - y */
  double na = norm(&p->b);
  *sum = total(p, &p->a, 'U');
  return norm(&p->y) / (na * na * norm(&p->x));
}

/* ----------------------------------------------------------------- solve */

static void solve_setup(struct problem *p) {
  matrix(p, &p->a);
  p->ipiv = alloc((size_t)(p->a.mloc + p->bs) * sizeof *p->ipiv);
}

static void solve_prepare(struct problem *p) {
  fill(p, &p->a, BLAS_GENERAL, 1);
  fill_vector(p, &p->y, 2); /* b */
}

static void solve_compute(struct problem *p) {
  int info = 0;
  pdgesv_(&p->n, &one, p->a.a, &one, &one, p->a.desc, p->ipiv, p->y.a, &one,
          &one, p->y.desc, &info);
  if (info != 0)
    die("pdgesv failed", info);
}

static double solve_check(struct problem *p, double *sum) {
  fill(p, &p->a, BLAS_GENERAL, 1); /* A again: its factors are done with */
  fill_vector(p, &p->z, 2);        /* b */
  double nb = norm(&p->z);
  matvec(p, "N", 1.0, &p->a, &p->y, -1.0, &p->z); /* z = A x - b */
  *sum = total(p, &p->y, 'A');
  return norm(&p->z) / (norm(&p->a) * norm(&p->y) + nb);
}

/* ------------------------------------------------------------------ main */

/* A kernel: flops n3 n^3 + n2 n^2; setup allocates and fills what stays,
 * prepare (untimed, before each repetition; may be NULL) refills what the
 * kernel overwrites, compute is timed, check returns the residual and puts
 * the checksum in *sum. */
struct kernel {
  const char *name;
  double n3, n2;
  void (*setup)(struct problem *);
  void (*prepare)(struct problem *);
  void (*compute)(struct problem *);
  double (*check)(struct problem *, double *sum);
};

static const struct kernel kernels[] = {
    {"gemm", 2.0, 0.0, gemm_setup, gemm_prepare, gemm_compute, gemm_check},
    {"syrk", 1.0, 0.0, syrk_setup, syrk_prepare, syrk_compute, syrk_check},
    {"gemv", 0.0, 2.0, gemv_setup, NULL, gemv_compute, gemv_check},
    {"cholesky", 1.0 / 3.0, 0.0, cholesky_setup, cholesky_prepare,
     cholesky_compute, cholesky_check},
    {"lu", 2.0 / 3.0, 0.0, lu_setup, general_prepare, lu_compute, lu_check},
    {"qr", 4.0 / 3.0, 0.0, qr_setup, general_prepare, qr_compute, qr_check},
    {"solve", 2.0 / 3.0, 2.0, solve_setup, solve_prepare, solve_compute,
     solve_check},
};
#define NKERNELS (sizeof kernels / sizeof *kernels)

/* The group's block rule: 256 from n = 2048 on, else n / 8 rounded down to
 * a multiple of 8 but at least 32 (and at most n). */
static long default_block(long n) {
  long b = n >= 2048 ? 256 : (n / 8 > 32 ? n / 8 : 32) / 8 * 8;
  return b < n ? b : n;
}

int main(int argc, char **argv) {
  const char *names[NKERNELS + 1] = {NULL};
  for (size_t k = 0; k < NKERNELS; k++)
    names[k] = kernels[k].name;
  struct suite_opts o;
  int status = suite_init(&argc, &argv, "linalg", "scalapack", names, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  const struct kernel *k = &kernels[o.k];
  openblas_set_num_threads(1); /* one process per core */
  if (!o.b)
    o.b = default_block(o.n);

  struct problem p = {.n = (int)o.n, .bs = (int)o.b};
  if (sl_grid_init(&p.g))
    die("cannot make the process grid", 0);
  vector(&p, &p.x);
  vector(&p, &p.y);
  vector(&p, &p.z);
  fill_vector(&p, &p.x, BLAS_PROBE_SEED);
  k->setup(&p);
  struct suite_times tt = {0};
  while (suite_more(&tt, &o)) {
    if (k->prepare)
      k->prepare(&p);
    suite_begin(&tt);
    k->compute(&p);
    suite_end(&tt);
  }
  double sum = 0.0, check = k->check(&p, &sum), n = (double)o.n;
  status = suite_report(&o, 1, &tt, (k->n3 * n + k->n2) * n * n, "GFLOP/s",
                        check, blas_tol(n), sum);
  problem_free(&p);
  sl_grid_exit(&p.g);
  suite_finish();
  return status;
}
