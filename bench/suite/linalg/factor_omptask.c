/* factor_omptask.c — the linalg group's lu, qr and solve as factor.c runs
 * them, with OpenMP tasks (runtime "omptask"):
 *
 *   factor_omptask -k lu|qr|solve [-n N] [-b B] [-r REPS] [-t SECONDS]
 *
 * The same tiled algorithms, tile kernels (factor_tiles.c), column-major
 * layout and priorities as the dag program (see factor.c for the
 * algorithms); only the task submission differs: `#pragma omp task
 * depend(...)` inside one parallel/single region. OpenMP orders tasks by
 * the address of each dependence item, not by the bytes it covers, so each
 * tile is named by its first element (exact, as tiles never partially
 * overlap), a task over a column strip of tiles names each of them with an
 * iterator, a piece of the pivots or of x by its first element. The tile
 * kernels call OpenBLAS with one thread each (the program sets it: tasks
 * call it at the same time). OMP_NUM_THREADS sets the threads; priorities
 * count up to OMP_MAX_TASK_PRIORITY (default 0, which ignores them: the
 * suite sets it, bench/runner.py).
 *
 * The matrix (and b) are made again before each repetition, untimed; the
 * checks and checksums are factor_tiles.c's.
 */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "linalg_program.h"
#include "suite.h"

/* The LU: A := L \ U, ipiv its pivots (rows, 1-based). Here and below the
 * task bodies get plain pointers to their tiles, computed before each task:
 * inside these task bodies GCC 12 indexes A, a pointer to variable-length
 * rows, with a wrong row length (a trsm on a wild address, seen here). */
static void lu_factor(long n, long b, double (*A)[n], int *ipiv) {
  long nt = suite_nblocks(n, b);
  for (long k = 0; k < nt; k++) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
    double *akk = &A[kk][kk];
#pragma omp task depend(iterator(long t = k                                    \
                                 : nt),                                        \
                        inout                                                  \
                        : A[kk][t * b]) depend(out                             \
                                               : ipiv[kk])                     \
    priority(factor_priority(k, nt))
    lu_panel(akk, n - kk, dk, n, &ipiv[kk], kk);
    for (long j = k + 1; j < nt; j++) {
      long jj = j * b, dj = suite_block_dim(n, b, j);
      double *col = A[jj], *akj = &A[jj][kk];
      int prio = factor_priority(j, nt);
#pragma omp task depend(in                                                     \
                        : ipiv[kk]) depend(iterator(long t = k                 \
                                                    : nt),                     \
                                           inout                               \
                                           : A[jj][t * b]) priority(prio)
      lu_swap(col, dj, n, ipiv, kk, dk);
#pragma omp task depend(in : akk[0]) depend(inout : akj[0]) priority(prio)
      lu_trsm(akk, akj, dk, dj, n);
      for (long i = k + 1; i < nt; i++) {
        long ii = i * b, di = suite_block_dim(n, b, i);
        double *aik = &A[kk][ii], *aij = &A[jj][ii];
#pragma omp task depend(in                                                     \
                        : aik[0], akj[0]) depend(inout                         \
                                                 : aij[0]) priority(prio)
        lu_gemm(aik, akj, aij, di, dj, dk, n);
      }
    }
    for (long j = 0; j < k; j++) {
      double *col = A[j * b];
#pragma omp task depend(in                                                     \
                        : ipiv[kk]) depend(iterator(long t = k                 \
                                                    : nt),                     \
                                           inout                               \
                                           : col[t * b]) priority(0)
      lu_swap(col, b, n, ipiv, kk, dk);
    }
  }
}

/* x := A^-1 x from the LU factors (A, ipiv) of A. The pivot task waits
 * for every panel through the pivots' first elements. */
static void lu_solve(long n, long b, double (*A)[n], const int *ipiv,
                     double *x) {
  long nt = suite_nblocks(n, b);
#pragma omp task depend(iterator(long t = 0                                    \
                                 : nt),                                        \
                        in                                                     \
                        : ipiv[t * b]) depend(iterator(long t = 0              \
                                                       : nt),                  \
                                              inout                            \
                                              : x[t * b])
  solve_swap(x, ipiv, n);
  for (long k = 0; k < nt; k++) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
    double *akk = &A[kk][kk];
#pragma omp task depend(in : akk[0]) depend(inout : x[kk])
    solve_trsv(akk, &x[kk], dk, n, 1);
    for (long i = k + 1; i < nt; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i);
      double *aik = &A[kk][ii];
#pragma omp task depend(in : aik[0], x[kk]) depend(inout : x[ii])
      solve_gemv(aik, &x[kk], &x[ii], di, dk, n);
    }
  }
  for (long k = nt - 1; k >= 0; k--) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
    double *akk = &A[kk][kk];
#pragma omp task depend(in : akk[0]) depend(inout : x[kk])
    solve_trsv(akk, &x[kk], dk, n, 0);
    for (long i = 0; i < k; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i);
      double *aik = &A[kk][ii];
#pragma omp task depend(in : aik[0], x[kk]) depend(inout : x[ii])
      solve_gemv(aik, &x[kk], &x[ii], di, dk, n);
    }
  }
}

/* The QR: A := R and the reflectors, T (tw = nt * QR_IB columns) their
 * triangular factors. */
static void qr_factor(long n, long b, double (*A)[n], long tw,
                      double (*T)[tw]) {
  long nt = suite_nblocks(n, b);
  for (long k = 0; k < nt; k++) {
    long kk = k * b, dk = suite_block_dim(n, b, k);
    double *akk = &A[kk][kk], *tkk = &T[kk][k * QR_IB];
#pragma omp task depend(inout                                                  \
                        : akk[0]) depend(out                                   \
                                         : tkk[0])                             \
    priority(factor_priority(k, nt))
    qr_geqrt(akk, dk, dk, tkk, tw, n);
    for (long j = k + 1; j < nt; j++) {
      long dj = suite_block_dim(n, b, j);
      double *akj = &A[j * b][kk];
#pragma omp task depend(in                                                     \
                        : akk[0], tkk[0]) depend(inout                         \
                                                 : akj[0])                     \
    priority(factor_priority(j, nt))
      qr_gemqrt(akk, tkk, akj, dk, dj, tw, n);
    }
    for (long i = k + 1; i < nt; i++) {
      long ii = i * b, di = suite_block_dim(n, b, i);
      double *aik = &A[kk][ii], *tik = &T[kk][i * QR_IB];
#pragma omp task depend(inout                                                  \
                        : aik[0], akk[0]) depend(out                           \
                                                 : tik[0])                     \
    priority(factor_priority(k, nt))
      qr_tpqrt(akk, aik, tik, di, dk, tw, n);
      for (long j = k + 1; j < nt; j++) {
        long jj = j * b, dj = suite_block_dim(n, b, j);
        double *akj = &A[jj][kk], *aij = &A[jj][ii];
#pragma omp task depend(in                                                     \
                        : aik[0], tik[0]) depend(inout                         \
                                                 : aij[0], akj[0])             \
    priority(factor_priority(j, nt))
        qr_tpmqrt(aik, tik, akj, aij, di, dj, dk, tw, n);
      }
    }
  }
}

/* The timed part: one kernel, its tasks submitted by one thread of the
 * team and waited for at the region's end. */
static void run(struct factor_problem *p) {
  long n = p->n, b = p->b, tw = p->tw;
  double(*A)[n] = (double(*)[n])p->a;
#pragma omp parallel
#pragma omp single
  {
    if (p->kernel == FACTOR_QR) {
      qr_factor(n, b, A, tw, (double(*)[tw])p->t);
    } else {
      lu_factor(n, b, A, p->ipiv);
      if (p->kernel == FACTOR_SOLVE)
        lu_solve(n, b, A, p->ipiv, p->x);
    }
  }
}

int main(int argc, char **argv) {
  return factor_main(argc, argv,
                     &(struct factor_program){.runtime = "omptask",
                                              .tiled = true,
                                              .fill = factor_fill_problem,
                                              .run = run,
                                              .check = factor_check_problem,
                                              .threads = omp_get_max_threads});
}
