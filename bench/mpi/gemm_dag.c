/* gemm_dag.c — the distributed tiled GEMM C += A B on dag, written with
 * pragmas and built with dagcc:
 *
 *   mpiexec -n R gemm_dag [-n N] [-b B] [-r reps]
 *
 * A, B and C are global-view memory (dag_alloc), each 2-D block-cyclic in
 * b x b tiles on dag_grid's p x q grid. One task per (i, j, k) updates
 * C(i,j) with A(i,k) B(k,j); it runs at the home of C(i,j), the item it
 * writes, and the runtime brings A(i,k) and B(k,j) there, once per rank
 * (a copy stays valid until the tile is written). The loop runs k outermost,
 * as SUMMA does, so that each step's panels travel early.
 *
 * The timed part is the product and its taskwait; the residual is checked
 * by one task on rank 0 that reads C (see chol_dag.c). Output: common.h.
 */
#include <cblas.h>
#include <dag.h>
#include <mpi.h>
#include <stdio.h>

#include "common.h"

static void fill_tile(int n, double *a, enum bench_gemm_matrix m, int i0,
                      int j0, int rows, int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      a[(size_t)i * n + j] = bench_gemm_elem(m, i0 + i, j0 + j);
}

static void fill(int n, int b, double (*X)[n], enum bench_gemm_matrix m) {
  int nt = bench_ntiles(n, b);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      int ii = i * b, jj = j * b;
      int di = bench_tile_dim(n, b, i), dj = bench_tile_dim(n, b, j);
#pragma dag task out(X[ii:di][jj:dj]) label("fill")
      fill_tile(n, &X[ii][jj], m, ii, jj, di, dj);
    }
}

static void tile_gemm(const double *a, const double *b, double *c, int m,
                      int n, int k, int ld) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, ld,
              b, ld, 1.0, c, ld);
}

static void multiply(int n, int b, double (*A)[n], double (*B)[n],
                     double (*C)[n]) {
  int nt = bench_ntiles(n, b);
  for (int k = 0; k < nt; k++) {
    int kk = k * b, dk = bench_tile_dim(n, b, k);
    for (int i = 0; i < nt; i++) {
      int ii = i * b, di = bench_tile_dim(n, b, i);
      for (int j = 0; j < nt; j++) {
        int jj = j * b, dj = bench_tile_dim(n, b, j);
#pragma dag task in(A[ii:di][kk:dk], B[kk:dk][jj:dj]) inout(C[ii:di][jj:dj])  \
    label("gemm")
        tile_gemm(&A[ii][kk], &B[kk][jj], &C[ii][jj], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait
}

static double residual(int n, double (*C)[n]) {
  double resid = 0.0;
#pragma dag task in(C[0:n][0:n]) out(resid) on(0) label("residual")
  resid = bench_gemm_probe(&C[0][0], n);
#pragma dag taskwait
  return resid;
}

int main(int argc, char **argv) {
  struct bench_opts o;
  int status = bench_init(&argc, &argv, "gemm_dag", &o);
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }
  int n = o.n, b = o.b, p, q;
  dag_grid(dag_nranks(), &p, &q);
  struct dag_dist dist =
      dag_dist_2d(sizeof(double), (size_t)n, (size_t)b, (size_t)b, p, q);
  size_t bytes = (size_t)n * n * sizeof(double);
  double(*A)[n] = dag_alloc(bytes, dist);
  double(*B)[n] = dag_alloc(bytes, dist);
  double(*C)[n] = dag_alloc(bytes, dist);
  if (!A || !B || !C) {
    fprintf(stderr, "gemm_dag: dag_alloc: %s\n", dag_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double best = 1e300;
  uint64_t sent = 0;
  for (int r = 0; r < o.reps; r++) {
    fill(n, b, A, BENCH_A);
    fill(n, b, B, BENCH_B);
    fill(n, b, C, BENCH_C);
#pragma dag taskwait
    bench_barrier();
    uint64_t s0 = bench_bytes_sent();
    double t0 = bench_now();
    multiply(n, b, A, B, C);
    double t = bench_now() - t0;
    sent = bench_bytes_sent() - s0;
    t = bench_max(t);
    best = t < best ? t : best;
  }
  double resid = residual(n, C);
  status = bench_report("gemm", "dag", &o, p, q, dag_num_workers(), best,
                        resid, sent,
                        bench_gemm_min_bytes(n, b, p, q, dag_rank()));
  dag_free(C);
  dag_free(B);
  dag_free(A);
  MPI_Finalize();
  return status;
}
