/* blas.c — GEMM, SYRK, GEMV and Cholesky of the linalg group as tiled
 * pragma programs: runtime "dag" built with dagcc, "serial" built with
 * plain cc (the pragmas ignored, the same operations in sequence), and
 * "omptask" built with cc -fopenmp (blas_omptask, the OpenMP tasks peer).
 *
 *   blas -k gemm|syrk|gemv|cholesky [-n N] [-b B] [-r REPS] [-t SECONDS]
 *
 * Each task is written twice, as nested's kernels are: an OpenMP pragma,
 * then a dag pragma on the same statement; each compiler ignores the
 * other's. OpenMP's tasks are submitted by one thread of a `parallel`
 * region, on row-major matrices in one process, and ordered by the address
 * of a dependence item, so a tile is named by its first entry (exact:
 * tiles never partly overlap). The Cholesky's OpenMP tasks are those of
 * bench/cholesky's OpenMP peers (chol_omp.h, the same kernels in the same
 * order, priorities counted up to OMP_MAX_TASK_PRIORITY, which the suite
 * sets). Each tile's kernels run in the same order in every build, so the
 * result and sum= are the same bits.
 *
 * The problems, their flops and their checks are blas_tiles.h's. Every
 * n x n matrix is suite_matrix(n, n, b, b): b x b tiles, tile (i, j) homed
 * on rank (i mod p) q + (j mod q) of dag_grid's p x q grid. Each task
 * writes one tile, so it runs at that tile's home, and the runtime brings
 * it the tiles it reads from where they were last written:
 *
 *   gemm      k outermost, as SUMMA: C(i,j) += A(i,k) B(k,j) for every
 *             (i, j); A(i,k) travels to the homes of C's tile row i, B(k,j)
 *             to those of tile column j.
 *   syrk      the same on the lower tiles of C: C(i,j) += A(i,k) A(j,k)^T,
 *             a dsyrk on the diagonal tiles.
 *   gemv      A is suite_bands(n, n, b, b) instead: bands of b whole rows,
 *             each rank homing a contiguous run of them, and one task per
 *             band computes y(band) = A(band, :) x at the band's home.
 *             Bands rather than tiles: GEMV streams A once, and whole rows
 *             stream faster than the short rows of tiles; no partial sums
 *             to add, and A never travels. x and y are replicated (malloc):
 *             every rank holds x, and the taskwait gives y to every rank.
 *   cholesky  samples/cholesky's right-looking tiled algorithm, with its
 *             kernels and priorities (potrf and trsm, on the critical path,
 *             first).
 *
 * Timed: the kernel and its taskwait. Untimed: the inputs, filled by a task
 * per tile at its home from suite_random (no communication, the same matrix
 * on any number of ranks), before each repetition (all of them, so that no
 * copy an earlier repetition moved is still valid); the check, for the
 * matrices a task on rank 0 that reads the whole result (the runtime brings
 * every tile there); and sum=, the sum of the result's entries (of its lower
 * triangle for syrk and cholesky): a task per tile at its home sums the tile
 * into a replicated array, one entry per tile, added in tile order after the
 * taskwait. A tile's kernels are the same calls in the same order on
 * whichever rank they run, so sum= has the same bits serially and on any
 * number of ranks.
 *
 * The tile kernels run in parallel tasks on dag's workers (DAG_NUM_THREADS)
 * or OpenMP's (OMP_NUM_THREADS), so OpenBLAS gets one thread each (set
 * here, whatever OPENBLAS_NUM_THREADS says).
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include "chol_omp.h" /* bench/cholesky: the Cholesky's OpenMP tasks */
#include <omp.h>
#define BLAS_RUNTIME "omptask"
#define BLAS_THREADS omp_get_max_threads
#else
#define BLAS_RUNTIME SUITE_DAG_RUNTIME
#define BLAS_THREADS suite_dag_workers
#endif

#include "linalg_program.h"
#include "suite.h"
#include "tiles.h" /* samples/cholesky: the Cholesky's kernels, priorities */

/* Fills matrix m with the input `shape` of `seed`, a task per tile at its
 * home (OpenMP: tiles in parallel). */
static void fill(const struct blas_problem *p, void *m, enum blas_shape shape,
                 uint64_t seed) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*M)[n] = m;
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (long i = 0; i < nt; i++)
    for (long j = 0; j < nt; j++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
      long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma dag task out(M [i0:di] [j0:dj]) label("fill")
      blas_fill(&M[i0][j0], n, 1, shape, seed, n, i0, j0, di, dj);
    }
#pragma dag taskwait
}

/* ------------------------------------------------------------- kernels */

/* C += A B. */
static void gemm(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a, (*B)[n] = p->b, (*C)[n] = p->c;
#pragma omp parallel
#pragma omp single
  for (long k = 0; k < nt; k++) {
    long k0 = k * bs, dk = suite_block_dim(n, bs, k);
    for (long i = 0; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
      for (long j = 0; j < nt; j++) {
        long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma omp task depend(in : A[i0][k0], B[k0][j0]) depend(inout : C[i0][j0])
#pragma dag task in(A [i0:di] [k0:dk],                                         \
                    B [k0:dk] [j0:dj])inout(C [i0:di] [j0:dj]) label("gemm")
        blas_tile_gemm(&A[i0][k0], &B[k0][j0], &C[i0][j0], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait
}

/* C += A A^T on the lower tiles of C. */
static void syrk(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a, (*C)[n] = p->c;
#pragma omp parallel
#pragma omp single
  for (long k = 0; k < nt; k++) {
    long k0 = k * bs, dk = suite_block_dim(n, bs, k);
    for (long i = 0; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma omp task depend(in : A[i0][k0]) depend(inout : C[i0][i0])
#pragma dag task in(A [i0:di] [k0:dk])inout(C [i0:di] [i0:di]) label("syrk")
      blas_tile_syrk(&A[i0][k0], &C[i0][i0], di, dk, n);
      for (long j = 0; j < i; j++) {
        long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma omp task depend(in : A[i0][k0], A[j0][k0]) depend(inout : C[i0][j0])
#pragma dag task in(A [i0:di] [k0:dk],                                         \
                    A [j0:dj] [k0:dk])inout(C [i0:di] [j0:dj]) label("gemm")
        blas_tile_gemm_nt(&A[i0][k0], &A[j0][k0], &C[i0][j0], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait
}

/* y = A x, a task per band of rows. */
static void gemv(const struct blas_problem *p) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a;
  double *x = p->x, *y = p->y;
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < nt; i++) {
    long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma omp task depend(out : y[i0])
#pragma dag task in(A [i0:di] [0:n], x [0:n])out(y [i0:di]) label("gemv")
    blas_tile_gemv(&A[i0][0], x, &y[i0], di, n, n);
  }
#pragma dag taskwait
}

/* A = L L^T, L over the lower tiles of A. OpenMP's tasks are those of
 * bench/cholesky's OpenMP peers (chol_omp.h). */
static void cholesky(const struct blas_problem *p) {
#ifdef _OPENMP
  chol_omp_factor(p->a, (int)p->n, (int)p->bs);
#else
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*A)[n] = p->a;
  for (long k = 0; k < nt; k++) {
    long k0 = k * bs, dk = suite_block_dim(n, bs, k);
#pragma dag task inout(A [k0:dk] [k0:dk]) label("potrf")                       \
    priority(chol_priority(CHOL_POTRF, k, k, k, nt))
    tile_potrf(&A[k0][k0], dk, n);
    for (long i = k + 1; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma dag task in(A [k0:dk] [k0:dk])inout(A [i0:di] [k0:dk]) label("trsm")   \
    priority(chol_priority(CHOL_TRSM, i, k, k, nt))
      tile_trsm(&A[k0][k0], &A[i0][k0], di, dk, n);
    }
    for (long i = k + 1; i < nt; i++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
#pragma dag task in(A [i0:di] [k0:dk])inout(A [i0:di] [i0:di]) label("syrk")   \
    priority(chol_priority(CHOL_SYRK, i, i, k, nt))
      tile_syrk(&A[i0][k0], &A[i0][i0], di, dk, n);
      for (long j = k + 1; j < i; j++) {
        long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma dag task in(A [i0:di] [k0:dk],                                         \
                    A [j0:dj] [k0:dk])inout(A [i0:di] [j0:dj]) label("gemm")   \
    priority(chol_priority(CHOL_GEMM, i, j, k, nt))
        tile_gemm(&A[i0][k0], &A[j0][k0], &A[i0][j0], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait
#endif
}

/* ------------------------------------------------------------- result */

/* check(m) of the result matrix m, by one task on rank 0 that reads it
 * whole. */
static double check_on_rank0(const struct blas_problem *p, void *m,
                             blas_check_fn *check) {
  long n = p->n;
  double(*M)[n] = m;
  double r = 0.0;
#pragma dag task in(M [0:n] [0:n])out(r) on(0) label("check")
  r = check(&M[0][0], n, 1, n);
#pragma dag taskwait
  return r;
}

/* The sum of m's entries (of its lower triangle when lower is set): a task
 * per tile, at its home, into one entry of the replicated parts[], then
 * parts[] added in tile order. */
static double sum_by_tiles(const struct blas_problem *p, void *m, bool lower) {
  long n = p->n, bs = p->bs, nt = p->nt;
  double(*M)[n] = m;
  double *parts = suite_need(calloc((size_t)(nt * nt), sizeof *parts));
  for (long i = 0; i < nt; i++)
    for (long j = 0; j <= (lower ? i : nt - 1); j++) {
      long i0 = i * bs, di = suite_block_dim(n, bs, i);
      long j0 = j * bs, dj = suite_block_dim(n, bs, j);
#pragma dag task in(M [i0:di] [j0:dj])out(parts[i * nt + j]) label("sum")
      parts[i * nt + j] =
          blas_block_sum(&M[i0][j0], n, 1, di, dj, lower && i == j);
    }
#pragma dag taskwait
  double sum = 0.0;
  for (long t = 0; t < nt * nt; t++)
    sum += parts[t];
  free(parts);
  return sum;
}

int main(int argc, char **argv) {
  return blas_main(argc, argv,
                   &(struct blas_program){.runtime = BLAS_RUNTIME,
                                          .tiled = true,
                                          .fill = fill,
                                          .run = {gemm, syrk, gemv, cholesky},
                                          .check = check_on_rank0,
                                          .sum = sum_by_tiles,
                                          .threads = BLAS_THREADS});
}
