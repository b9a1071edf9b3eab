/* linalg_program.c — the mains of the linalg group's programs (see
 * linalg_program.h).
 */
#include "linalg_program.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "suite.h"

/* suite_init for a linalg program, and its block: the tile rule's unless
 * -b says otherwise, n for a program that is not tiled. Returns -1 to go
 * on, else the exit status. */
static int start(int *argc, char ***argv, const char *runtime,
                 const char *const *kernels, bool tiled, struct suite_opts *o) {
  int status = suite_init(argc, argv, "linalg", runtime, kernels, o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  if (!tiled)
    o->b = o->n;
  else if (!o->b)
    o->b = suite_tile_rule(o->n);
  /* Tile kernels run in parallel tasks: one OpenBLAS thread each. */
  if (tiled)
    openblas_set_num_threads(1);
  return -1;
}

/* ------------------------------------------------- GEMM, SYRK, GEMV, Cholesky
 */

static void *matrix(const struct blas_problem *p) {
  return suite_need(suite_matrix(p->n, p->n, p->bs, p->bs));
}

/* Allocates what kernel k uses, and fills GEMV's inputs (A never travels:
 * each band is read at its home). */
static struct blas_problem blas_setup(const struct blas_program *prog,
                                      enum blas_kernel k, long n, long bs) {
  struct blas_problem p = {.n = n, .bs = bs, .nt = suite_nblocks(n, bs)};
  p.a = k == BLAS_GEMV ? suite_need(suite_bands(n, n, bs, bs)) : matrix(&p);
  switch (k) {
  case BLAS_GEMM:
    p.b = matrix(&p);
    p.c = matrix(&p);
    break;
  case BLAS_SYRK:
    p.c = matrix(&p);
    break;
  case BLAS_GEMV:
    p.x = suite_need(malloc((size_t)n * sizeof *p.x));
    p.y = suite_need(malloc((size_t)n * sizeof *p.y));
    prog->fill(&p, p.a, BLAS_GENERAL, 1);
    blas_random_vector(p.x, n, 2);
    break;
  case BLAS_CHOLESKY: /* A is filled before each repetition */
    break;
  }
  return p;
}

/* What a repetition needs. */
struct blas_repetition {
  const struct blas_program *prog;
  const struct blas_problem *p;
  enum blas_kernel k;
};

/* Fills the matrices before each repetition: the one the kernel
 * overwrites, and the ones it reads too, so that across ranks no copy of a
 * tile that an earlier repetition moved is still valid (each repetition
 * moves what the first did). */
static void blas_prepare(void *arg) {
  const struct blas_repetition *r = arg;
  const struct blas_problem *p = r->p;
  if (r->k == BLAS_GEMM) {
    r->prog->fill(p, p->a, BLAS_GENERAL, 1);
    r->prog->fill(p, p->b, BLAS_GENERAL, 2);
    r->prog->fill(p, p->c, BLAS_GENERAL, 3);
  } else if (r->k == BLAS_SYRK) {
    r->prog->fill(p, p->a, BLAS_GENERAL, 1);
    r->prog->fill(p, p->c, BLAS_SYMMETRIC, 3);
  } else if (r->k == BLAS_CHOLESKY) {
    r->prog->fill(p, p->a, BLAS_SPD, 1);
  }
}

static void blas_run(void *arg) {
  const struct blas_repetition *r = arg;
  r->prog->run[r->k](r->p);
}

/* The check and sum= of kernel k's result. */
static void blas_result(const struct blas_program *prog,
                        const struct blas_problem *p, enum blas_kernel k,
                        double *check, double *sum) {
  switch (k) {
  case BLAS_GEMM:
    *check = prog->check(p, p->c, blas_gemm_check);
    *sum = prog->sum(p, p->c, false);
    break;
  case BLAS_SYRK:
    *check = prog->check(p, p->c, blas_syrk_check);
    *sum = prog->sum(p, p->c, true);
    break;
  case BLAS_GEMV:
    *check = blas_gemv_check(p->y, p->n);
    *sum = blas_block_sum(p->y, 1, 0, p->n, 1, 0);
    break;
  case BLAS_CHOLESKY:
    *check = prog->check(p, p->a, blas_cholesky_check);
    *sum = prog->sum(p, p->a, true);
    break;
  }
}

static void blas_release(struct blas_problem *p) {
  void *matrices[] = {p->a, p->b, p->c};
  for (size_t i = 0; i < sizeof matrices / sizeof *matrices; i++)
    if (matrices[i])
      suite_free_matrix(matrices[i]);
  free(p->x);
  free(p->y);
}

int blas_main(int argc, char **argv, const struct blas_program *prog) {
  struct suite_opts o;
  int status =
      start(&argc, &argv, prog->runtime, blas_kernels, prog->tiled, &o);
  if (status >= 0)
    return status;
  enum blas_kernel k = (enum blas_kernel)o.k;
  struct blas_problem p = blas_setup(prog, k, o.n, o.b);
  struct suite_times tt = {0};
  suite_repeat(&tt, &o, blas_prepare, blas_run,
               &(struct blas_repetition){prog, &p, k});
  double check = NAN, sum = NAN;
  blas_result(prog, &p, k, &check, &sum);
  status = suite_report(&o, prog->threads(), &tt, blas_flops(k, o.n), "GFLOP/s",
                        check, blas_tol(o.n), sum);
  blas_release(&p);
  suite_finish();
  return status;
}

/* ------------------------------------------------------- LU, QR, solve */

void factor_fill_problem(const struct factor_problem *p) {
  blas_fill(p->a, 1, p->n, BLAS_GENERAL, 1, p->n, 0, 0, p->n, p->n);
}

struct factor_result factor_check_problem(const struct factor_problem *p) {
  return factor_check(p->kernel, p->a, p->ipiv, p->x, p->n);
}

static struct factor_problem factor_setup(const struct factor_program *prog,
                                          enum factor_kernel kernel, long n,
                                          long b) {
  struct factor_problem p = {
      .kernel = kernel, .n = n, .b = b, .tw = suite_nblocks(n, b) * QR_IB};
  p.a = suite_need(suite_colmajor(n, n, b, b));
  if (kernel == FACTOR_QR)
    p.t = suite_need(suite_colmajor(p.tw, n, QR_IB, b));
  p.ipiv = suite_need(calloc(n, sizeof *p.ipiv));
  p.x = suite_need(calloc(n, sizeof *p.x));
  if (prog->scratch)
    p.scratch = suite_need(prog->scratch(n));
  return p;
}

static void factor_release(struct factor_problem *p) {
  suite_free_matrix(p->a);
  if (p->t)
    suite_free_matrix(p->t);
  free(p->ipiv);
  free(p->x);
  free(p->scratch);
}

/* What a repetition needs. */
struct factor_repetition {
  const struct factor_program *prog;
  struct factor_problem *p;
};

static void factor_prepare(void *arg) {
  const struct factor_repetition *r = arg;
  r->prog->fill(r->p);
  blas_random_vector(r->p->x, r->p->n, 2);
}

static void factor_run(void *arg) {
  const struct factor_repetition *r = arg;
  r->prog->run(r->p);
}

int factor_main(int argc, char **argv, const struct factor_program *prog) {
  struct suite_opts o;
  int status =
      start(&argc, &argv, prog->runtime, factor_kernels, prog->tiled, &o);
  if (status >= 0)
    return status;
  enum factor_kernel kernel = (enum factor_kernel)o.k;
  struct factor_problem p = factor_setup(prog, kernel, o.n, o.b);
  struct suite_times tt = {0};
  suite_repeat(&tt, &o, factor_prepare, factor_run,
               &(struct factor_repetition){prog, &p});
  struct factor_result c = prog->check(&p);
  status = suite_report(&o, prog->threads(), &tt, factor_flops(kernel, o.n),
                        "GFLOP/s", c.resid, blas_tol(o.n), c.sum);
  factor_release(&p);
  suite_finish();
  return status;
}
