/* chol_omp.c — the tiled Cholesky of samples/cholesky with OpenMP tasks.
 *
 * Same kernels, loop nest, priorities and driver (samples/cholesky/tiles.c);
 * only the task submission differs: `#pragma omp task depend(...)` inside
 * one `parallel`/`single` region. OpenMP orders tasks by the address of a
 * dependence item, so each tile is named by its first element, which is
 * exact here because tiles never partially overlap. Built twice: with gcc
 * (runtime "gomp", libgomp) and with clang (runtime "libomp", LLVM's).
 * Priorities only count up to OMP_MAX_TASK_PRIORITY (default 0), which the
 * benchmark driver sets. OMP_NUM_THREADS sets the threads.
 */
#include "tiles.h"

#include <omp.h>

#define CHOL_STR_(x) #x
#define CHOL_STR(x) CHOL_STR_(x)
#ifdef __clang__
#define CHOL_OMP_NAME "libomp"
#define CHOL_OMP_CC                                                            \
  "clang " CHOL_STR(__clang_major__) "." CHOL_STR(__clang_minor__)
#else
#define CHOL_OMP_NAME "gomp"
#define CHOL_OMP_CC "gcc " CHOL_STR(__GNUC__) "." CHOL_STR(__GNUC_MINOR__)
#endif

struct chol {
  double *a;
  int n, bs, nt;
};

static void potrf(void *ctx, int k) {
  const struct chol *c = ctx;
  double *akk = chol_tile(c->a, c->n, c->bs, k, k);
  int dk = chol_tile_dim(c->n, c->bs, k), ld = c->n;
#pragma omp task depend(inout                                                  \
                        : akk[0])                                              \
    priority(chol_priority(CHOL_POTRF, k, k, k, c->nt))
  tile_potrf(akk, dk, ld);
}

static void trsm(void *ctx, int i, int k) {
  const struct chol *c = ctx;
  const double *akk = chol_tile(c->a, c->n, c->bs, k, k);
  double *aik = chol_tile(c->a, c->n, c->bs, i, k);
  int di = chol_tile_dim(c->n, c->bs, i), dk = chol_tile_dim(c->n, c->bs, k);
  int ld = c->n;
#pragma omp task depend(in                                                     \
                        : akk[0]) depend(inout                                 \
                                         : aik[0])                             \
    priority(chol_priority(CHOL_TRSM, i, k, k, c->nt))
  tile_trsm(akk, aik, di, dk, ld);
}

static void syrk(void *ctx, int i, int k) {
  const struct chol *c = ctx;
  const double *aik = chol_tile(c->a, c->n, c->bs, i, k);
  double *aii = chol_tile(c->a, c->n, c->bs, i, i);
  int di = chol_tile_dim(c->n, c->bs, i), dk = chol_tile_dim(c->n, c->bs, k);
  int ld = c->n;
#pragma omp task depend(in                                                     \
                        : aik[0]) depend(inout                                 \
                                         : aii[0])                             \
    priority(chol_priority(CHOL_SYRK, i, i, k, c->nt))
  tile_syrk(aik, aii, di, dk, ld);
}

static void gemm(void *ctx, int i, int j, int k) {
  const struct chol *c = ctx;
  const double *aik = chol_tile(c->a, c->n, c->bs, i, k);
  const double *ajk = chol_tile(c->a, c->n, c->bs, j, k);
  double *aij = chol_tile(c->a, c->n, c->bs, i, j);
  int di = chol_tile_dim(c->n, c->bs, i), dj = chol_tile_dim(c->n, c->bs, j);
  int dk = chol_tile_dim(c->n, c->bs, k), ld = c->n;
#pragma omp task depend(in                                                     \
                        : aik[0], ajk[0]) depend(inout                         \
                                                 : aij[0])                     \
    priority(chol_priority(CHOL_GEMM, i, j, k, c->nt))
  tile_gemm(aik, ajk, aij, di, dj, dk, ld);
}

static const struct chol_ops omp_ops = {potrf, trsm, syrk, gemm};

/* Starts the thread team outside the timed part. */
static int omp_start(void) {
  int threads = 0;
#pragma omp parallel
#pragma omp single
  threads = omp_get_num_threads();
  return threads;
}

static int omp_factor(double *a, int n, int bs) {
  struct chol c = {a, n, bs, chol_ntiles(n, bs)};
#pragma omp parallel
#pragma omp single
  chol_walk(&omp_ops, &c, c.nt);
  return 0;
}

int main(int argc, char **argv) {
  static const struct chol_runtime rt = {.name = CHOL_OMP_NAME,
                                         .config = CHOL_OMP_CC,
                                         .start = omp_start,
                                         .factor = omp_factor};
  return chol_main(argc, argv, &rt);
}
