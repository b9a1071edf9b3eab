/* factor.c — LU with partial pivoting, QR and the solve of the linalg
 * group, tiled, with one `#pragma dag task` per tile kernel:
 *
 *   factor -k lu|qr|solve [-n N] [-b B] [-r REPS] [-t SECONDS]
 *
 * The problems, the kernels (single-threaded OpenBLAS and LAPACK on tiles
 * in place) and the checks are in factor_tiles.h; the matrix is column-major
 * there, `double (*A)[n]` with A[j][i] = A(i, j), so tile (i, j) is
 * A[jj:dj][ii:di] in the pragmas below (ii = i*b, di its rows; jj, dj its
 * columns).
 *
 * Distribution: A is suite_colmajor(n, n, b, b), 2-D block-cyclic on the
 * ranks with whole tile columns on one rank when the grid is 1 x q (as
 * ScaLAPACK's), so a panel and its interchanges stay on one rank; each
 * tile is filled by a task at its home, from the formula.
 * A task runs at the home of the first tile it writes, so the tile kernels
 * run where their tile lives and only the tiles they read travel. Every rank
 * runs this same program; there is no MPI call in it.
 *
 * LU (P A = L U, as LAPACK's dgetrf) is right-looking with partial
 * pivoting, as LAPACK, ScaLAPACK and SLATE do it and the peers run it. At
 * step k one panel task factors the column strip under the diagonal tile,
 * A[kk:dk][kk:n-kk], with LAPACK's dgetrf, and writes the step's pivots to
 * ipiv, a replicated array. Then, for each tile column j right of the
 * panel, a task applies the step's row interchanges to the strip's rows kk
 * and below, a trsm makes tile (k, j) of U, and a gemm per tile (i, j)
 * updates the trailing matrix; for each tile column left of it, a task
 * applies the interchanges too, so that L ends up as LAPACK's. Partial
 * pivoting rather than PLASMA's incremental (tile-pair) pivoting: it is
 * dgetrf's numerical stability and dgetrf's factors, the same as every peer
 * computes; its price is the panel, one task over a whole column of tiles,
 * whose rows it may exchange with any other row. Priorities follow the
 * columns (factor_priority): the next panel's column first, the
 * interchanges left of the panel last.
 *
 * QR (A = Q R) is PLASMA's tiled Householder with LAPACK's kernels on a
 * flat tree: at step k, dgeqrt factors tile (k, k) and dgemqrt applies its
 * reflectors to the tiles (k, j) right of it; then, for each tile (i, k)
 * below, dtpqrt factors R of tile (k, k) stacked on tile (i, k) and dtpmqrt
 * applies that to tiles (k, j) and (i, j). The reflectors stay in A, below
 * R; their triangular factors T, QR_IB x b per tile, are a second
 * suite_colmajor matrix, whose block (i, k) (T[kk:dk][i*QR_IB:QR_IB]) is
 * homed with tile (i, k).
 *
 * Solve (A x = b, as dgesv): the LU, then the step's pivots applied to b,
 * then x := L^-1 b and x := U^-1 x by tiles of x: a trsv on the diagonal
 * tile, a gemv per tile of L (or U) under (above) it. All in the timed part.
 *
 * Check (untimed): for lu and qr, one task on rank 0 reads the whole factor
 * (the runtime brings every tile there) and computes the residual and the
 * checksum of factor_tiles.h; for solve, every rank checks x, which the
 * taskwait made valid everywhere. The tile kernels do the same operations
 * in the same order wherever they run, and the checksum is added in one
 * order, so sum= is the same bits serially and on any number of ranks.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include "linalg_program.h"
#include "suite.h"

/* Fills A, each tile by a task at its home. */
static void fill(const struct factor_problem *p) {
  long n = p->n, b = p->b, nt = suite_nblocks(n, b);
  double(*A)[n] = (double(*)[n])p->a;
  for (long j = 0; j < nt; j++)
    for (long i = 0; i < nt; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i);
      long jj = j * b, dj = suite_block_dim(n, b, j);
#pragma dag task out(A [jj:dj] [ii:di]) label("fill")
      blas_fill(&A[jj][ii], 1, n, BLAS_GENERAL, 1, n, ii, jj, di, dj);
    }
#pragma dag taskwait
}

/* Submits the LU: A := L \ U, ipiv its pivots (rows, 1-based). */
static void lu_factor(long n, long b, double (*A)[n], int *ipiv) {
  long nt = suite_nblocks(n, b);
  for (long k = 0; k < nt; k++) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
    /* The panel: tile column k from the diagonal down, and its pivots. */
#pragma dag task inout(A [kk:dk] [kk:n - kk]) out(ipiv [kk:dk]) label("panel") \
    priority(factor_priority(k, nt))
    lu_panel(&A[kk][kk], n - kk, dk, n, &ipiv[kk], kk);
    /* Each tile column j right of it: the step's interchanges on rows kk
     * and below, U(k, j), then the update of tiles (i, j) below. */
    for (long j = k + 1; j < nt; j++) {
      long jj = j * b, dj = suite_block_dim(n, b, j);
#pragma dag task in(ipiv [kk:dk])inout(A [jj:dj] [kk:n - kk]) label("swap")    \
    priority(factor_priority(j, nt))
      lu_swap(A[jj], dj, n, ipiv, kk, dk);
#pragma dag task in(A [kk:dk] [kk:dk])inout(A [jj:dj] [kk:dk]) label("trsm")   \
    priority(factor_priority(j, nt))
      lu_trsm(&A[kk][kk], &A[jj][kk], dk, dj, n);
      for (long i = k + 1; i < nt; i++) {
        long ii = i * b, di = suite_block_dim(n, b, i);
#pragma dag task in(A [kk:dk] [ii:di], A [jj:dj] [kk:dk])inout(                \
    A [jj:dj] [ii:di]) label("gemm") priority(factor_priority(j, nt))
        lu_gemm(&A[kk][ii], &A[jj][kk], &A[jj][ii], di, dj, dk, n);
      }
    }
    /* Each tile column left of it: the same interchanges (LAPACK's L). */
    for (long j = 0; j < k; j++) {
      long jj = j * b;
#pragma dag task in(ipiv [kk:dk])inout(A [jj:b] [kk:n - kk])                   \
    label("swap_left") priority(0)
      lu_swap(A[jj], b, n, ipiv, kk, dk);
    }
  }
}

/* Submits x := A^-1 x from the LU factors (A, ipiv) of A. */
static void lu_solve(long n, long b, double (*A)[n], const int *ipiv,
                     double *x) {
  long nt = suite_nblocks(n, b);
#pragma dag task in(ipiv [0:n])inout(x [0:n]) label("swap_b")
  solve_swap(x, ipiv, n);
  /* x := L^-1 x: tile k of x, then its share of the tiles below. */
  for (long k = 0; k < nt; k++) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
#pragma dag task in(A [kk:dk] [kk:dk])inout(x [kk:dk]) label("trsv_l")
    solve_trsv(&A[kk][kk], &x[kk], dk, n, 1);
    for (long i = k + 1; i < nt; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i);
#pragma dag task in(A [kk:dk] [ii:di], x [kk:dk])inout(x [ii:di])              \
    label("gemv_l")
      solve_gemv(&A[kk][ii], &x[kk], &x[ii], di, dk, n);
    }
  }
  /* x := U^-1 x: the same from the bottom up. */
  for (long k = nt - 1; k >= 0; k--) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
#pragma dag task in(A [kk:dk] [kk:dk])inout(x [kk:dk]) label("trsv_u")
    solve_trsv(&A[kk][kk], &x[kk], dk, n, 0);
    for (long i = 0; i < k; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i);
#pragma dag task in(A [kk:dk] [ii:di], x [kk:dk])inout(x [ii:di])              \
    label("gemv_u")
      solve_gemv(&A[kk][ii], &x[kk], &x[ii], di, dk, n);
    }
  }
}

/* Submits the QR: A := R and the reflectors, T (tw = nt * QR_IB columns)
 * their triangular factors. */
static void qr_factor(long n, long b, double (*A)[n], long tw,
                      double (*T)[tw]) {
  long nt = suite_nblocks(n, b);
  for (long k = 0; k < nt; k++) {
    long kk = k * b, dk = suite_block_dim(n, b, k), tk = k * QR_IB;
    /* Tile (k, k), and its reflectors applied to the tiles right of it. */
#pragma dag task inout(A [kk:dk] [kk:dk]) out(T [kk:dk] [tk:QR_IB])            \
    label("geqrt") priority(factor_priority(k, nt))
    qr_geqrt(&A[kk][kk], dk, dk, &T[kk][tk], tw, n);
    for (long j = k + 1; j < nt; j++) {
      long jj = j * b, dj = suite_block_dim(n, b, j);
#pragma dag task in(A [kk:dk] [kk:dk], T [kk:dk] [tk:QR_IB])inout(             \
    A [jj:dj] [kk:dk]) label("gemqrt") priority(factor_priority(j, nt))
      qr_gemqrt(&A[kk][kk], &T[kk][tk], &A[jj][kk], dk, dj, tw, n);
    }
    /* Each tile (i, k) below, with R of tile (k, k), and the reflectors
     * applied to tile rows k and i right of them. The task runs at the
     * home of tile (i, k) (written first), where T(i, k) lives. It writes
     * only R of tile (k, k), and the dgemqrt above read only V, but a
     * triangle is no section: both name the whole tile, so the first
     * dtpqrt waits for the step's dgemqrt. */
    for (long i = k + 1; i < nt; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i), ti = i * QR_IB;
#pragma dag task inout(A [kk:dk] [ii:di], A [kk:dk] [kk:dk])                   \
    out(T [kk:dk] [ti:QR_IB]) label("tpqrt") priority(factor_priority(k, nt))
      qr_tpqrt(&A[kk][kk], &A[kk][ii], &T[kk][ti], di, dk, tw, n);
      for (long j = k + 1; j < nt; j++) {
        long jj = j * b, dj = suite_block_dim(n, b, j);
#pragma dag task in(A [kk:dk] [ii:di], T [kk:dk] [ti:QR_IB])inout(             \
    A [jj:dj] [ii:di], A [jj:dj] [kk:dk]) label("tpmqrt")                      \
    priority(factor_priority(j, nt))
        qr_tpmqrt(&A[kk][ii], &T[kk][ti], &A[jj][kk], &A[jj][ii], di, dj, dk,
                  tw, n);
      }
    }
  }
}

/* The timed part: one kernel, to its taskwait. */
static void run(struct factor_problem *p) {
  long n = p->n, b = p->b, tw = p->tw;
  double(*A)[n] = (double(*)[n])p->a;
  if (p->kernel == FACTOR_QR) {
    qr_factor(n, b, A, tw, (double(*)[tw])p->t);
  } else {
    lu_factor(n, b, A, p->ipiv);
    if (p->kernel == FACTOR_SOLVE)
      lu_solve(n, b, A, p->ipiv, p->x);
  }
#pragma dag taskwait
}

/* The residual and checksum of the result (untimed): x is on every rank
 * after the taskwait; the factors are checked by a task on rank 0. */
static struct factor_result check(const struct factor_problem *p) {
  if (p->kernel == FACTOR_SOLVE)
    return factor_check_problem(p);
  long n = p->n;
  double(*A)[n] = (double(*)[n])p->a;
  int *ipiv = p->ipiv;
  enum factor_kernel kernel = p->kernel;
  struct factor_result c;
#pragma dag task in(A [0:n] [0:n], ipiv [0:n])out(c) on(0) label("check")
  c = factor_check(kernel, &A[0][0], ipiv, NULL, n);
#pragma dag taskwait
  return c;
}

int main(int argc, char **argv) {
  return factor_main(argc, argv,
                     &(struct factor_program){.runtime = SUITE_DAG_RUNTIME,
                                              .tiled = true,
                                              .fill = fill,
                                              .run = run,
                                              .check = check,
                                              .threads = suite_dag_workers});
}
