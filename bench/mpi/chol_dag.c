/* chol_dag.c — the distributed tiled Cholesky on dag, written with pragmas
 * and built with dagcc:
 *
 *   mpiexec -n R chol_dag [-n N] [-b B] [-r reps]
 *
 * The matrix is global-view memory (dag_alloc) spread 2-D block-cyclic in
 * b x b tiles on dag_grid's p x q grid, so the tile distribution and the
 * dag_dist_2d blocks coincide. The loop nest is samples/cholesky's, one
 * pragma per kernel: each task runs at the home of the tile it writes, and
 * the tiles it reads come from where they were last written. Every rank
 * runs this same program; no MPI call in the algorithm.
 *
 * The timed part is the factorization and its taskwait. The residual is
 * checked by one task on rank 0 that reads the whole factor (the runtime
 * brings every tile there) and writes `resid`, a replicated variable that
 * the taskwait then sends to every rank. Output: see common.h.
 */
#include <dag.h>
#include <mpi.h>
#include <stdio.h>

#include "common.h"
#include "tiles.h"

static void fill_tile(int n, double *a, int i0, int j0, int rows, int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      a[(size_t)i * n + j] = bench_spd(n, i0 + i, j0 + j);
}

/* The lower triangle, each tile filled at its home. */
static void fill(int n, int b, double (*A)[n]) {
  int nt = bench_ntiles(n, b);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++) {
      int ii = i * b, jj = j * b;
      int di = bench_tile_dim(n, b, i), dj = bench_tile_dim(n, b, j);
#pragma dag task out(A[ii:di][jj:dj]) label("fill")
      fill_tile(n, &A[ii][jj], ii, jj, di, dj);
    }
#pragma dag taskwait
}

static void factor(int n, int b, double (*A)[n]) {
  int nt = bench_ntiles(n, b);
  for (int k = 0; k < nt; k++) {
    int kk = k * b, dk = bench_tile_dim(n, b, k);
#pragma dag task inout(A[kk:dk][kk:dk]) label("potrf")                        \
    priority(chol_priority(CHOL_POTRF, k, k, k, nt))
    tile_potrf(&A[kk][kk], dk, n);
    for (int i = k + 1; i < nt; i++) {
      int ii = i * b, di = bench_tile_dim(n, b, i);
#pragma dag task in(A[kk:dk][kk:dk]) inout(A[ii:di][kk:dk]) label("trsm")     \
    priority(chol_priority(CHOL_TRSM, i, k, k, nt))
      tile_trsm(&A[kk][kk], &A[ii][kk], di, dk, n);
    }
    for (int i = k + 1; i < nt; i++) {
      int ii = i * b, di = bench_tile_dim(n, b, i);
#pragma dag task in(A[ii:di][kk:dk]) inout(A[ii:di][ii:di]) label("syrk")     \
    priority(chol_priority(CHOL_SYRK, i, i, k, nt))
      tile_syrk(&A[ii][kk], &A[ii][ii], di, dk, n);
      for (int j = k + 1; j < i; j++) {
        int jj = j * b, dj = bench_tile_dim(n, b, j);
#pragma dag task in(A[ii:di][kk:dk], A[jj:dj][kk:dk]) inout(A[ii:di][jj:dj])  \
    label("gemm") priority(chol_priority(CHOL_GEMM, i, j, k, nt))
        tile_gemm(&A[ii][kk], &A[jj][kk], &A[ii][jj], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait
}

static double residual(int n, double (*A)[n]) {
  double resid = 0.0;
#pragma dag task in(A[0:n][0:n]) out(resid) on(0) label("residual")
  resid = bench_chol_probe(&A[0][0], n);
#pragma dag taskwait
  return resid;
}

int main(int argc, char **argv) {
  struct bench_opts o;
  int status = bench_init(&argc, &argv, "chol_dag", &o);
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }
  int n = o.n, b = o.b, p, q;
  dag_grid(dag_nranks(), &p, &q);
  double(*A)[n] =
      dag_alloc((size_t)n * n * sizeof(double),
                dag_dist_2d(sizeof(double), (size_t)n, (size_t)b, (size_t)b,
                            p, q));
  if (!A) {
    fprintf(stderr, "chol_dag: dag_alloc: %s\n", dag_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double best = 1e300;
  uint64_t sent = 0;
  for (int r = 0; r < o.reps; r++) {
    fill(n, b, A);
    bench_barrier();
    uint64_t s0 = bench_bytes_sent();
    double t0 = bench_now();
    factor(n, b, A);
    double t = bench_now() - t0;
    sent = bench_bytes_sent() - s0;
    t = bench_max(t);
    best = t < best ? t : best;
  }
  double resid = residual(n, A);
  status = bench_report("cholesky", "dag", &o, p, q, dag_num_workers(), best,
                        resid, sent,
                        bench_chol_min_bytes(n, b, p, q, dag_rank()));
  dag_free(A);
  MPI_Finalize();
  return status;
}
