/* chol_omp.h — the tiled Cholesky of samples/cholesky as OpenMP tasks,
 * written once for its two harnesses: chol_omp.c (cholesky_gomp and
 * cholesky_libomp, on samples/cholesky's driver) and the linalg group's
 * blas.c (blas_omptask, on the suite's).
 *
 * One thread of a `parallel` region submits the right-looking loop nest in
 * chol_walk's order, each kernel of tiles.h a task with `depend` and
 * chol_priority (counted up to OMP_MAX_TASK_PRIORITY, default 0, which the
 * runners set). OpenMP orders tasks by the address of a dependence item,
 * so each tile is named by its first element, exact here because tiles
 * never partially overlap.
 */
#ifndef CHOL_OMP_H
#define CHOL_OMP_H

#include "tiles.h"

/* Factors the row-major n x n matrix a (leading dimension n) in tiles of
 * bs; returns when every task has run. */
static inline void chol_omp_factor(double *a, int n, int bs) {
  int nt = chol_ntiles(n, bs);
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < nt; k++) {
    double *akk = chol_tile(a, n, bs, k, k);
    int dk = chol_tile_dim(n, bs, k);
#pragma omp task depend(inout                                                  \
                        : akk[0])                                              \
    priority(chol_priority(CHOL_POTRF, k, k, k, nt))
    tile_potrf(akk, dk, n);
    for (int i = k + 1; i < nt; i++) {
      double *aik = chol_tile(a, n, bs, i, k);
      int di = chol_tile_dim(n, bs, i);
#pragma omp task depend(in                                                     \
                        : akk[0]) depend(inout                                 \
                                         : aik[0])                             \
    priority(chol_priority(CHOL_TRSM, i, k, k, nt))
      tile_trsm(akk, aik, di, dk, n);
    }
    for (int i = k + 1; i < nt; i++) {
      double *aik = chol_tile(a, n, bs, i, k), *aii = chol_tile(a, n, bs, i, i);
      int di = chol_tile_dim(n, bs, i);
#pragma omp task depend(in                                                     \
                        : aik[0]) depend(inout                                 \
                                         : aii[0])                             \
    priority(chol_priority(CHOL_SYRK, i, i, k, nt))
      tile_syrk(aik, aii, di, dk, n);
      for (int j = k + 1; j < i; j++) {
        double *ajk = chol_tile(a, n, bs, j, k),
               *aij = chol_tile(a, n, bs, i, j);
        int dj = chol_tile_dim(n, bs, j);
#pragma omp task depend(in                                                     \
                        : aik[0], ajk[0]) depend(inout                         \
                                                 : aij[0])                     \
    priority(chol_priority(CHOL_GEMM, i, j, k, nt))
        tile_gemm(aik, ajk, aij, di, dj, dk, n);
      }
    }
  }
}

#endif /* CHOL_OMP_H */
