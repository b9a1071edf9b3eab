/* mpi_cholesky: the pragma Cholesky on a matrix distributed 2-D
 * block-cyclic over the ranks (dag_alloc), checked bit for bit against the
 * same kernels run sequentially on every rank. Built with dagcc; run under
 * mpiexec with any number of ranks:
 *
 *   mpi_cholesky [n] [tile]
 *
 * Every task writes one tile and runs at the tile's home; the tiles it
 * reads travel from where they were last written. Each tile sees its
 * updates in the order of the sequential loop, so the factor is the same
 * bits on any number of ranks. Exits non-zero on the first difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

#include "tiles.h"

static double element(int n, int i, int j) {
  double v = 1.0 / (1.0 + (i > j ? i - j : j - i)); /* symmetric */
  return i == j ? v + n : v;                      /* diagonally dominant */
}

static void fill_tile(int n, double *a, int i0, int j0, int rows, int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      a[(size_t)i * n + j] = element(n, i0 + i, j0 + j);
}

static void factor(int n, int bs, double (*A)[n]) {
  int nt = chol_ntiles(n, bs);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      int ii = i * bs, jj = j * bs;
      int di = chol_tile_dim(n, bs, i), dj = chol_tile_dim(n, bs, j);
#pragma dag task out(A[ii:di][jj:dj]) label("fill")
      fill_tile(n, &A[ii][jj], ii, jj, di, dj);
    }
  for (int k = 0; k < nt; k++) {
    int kk = k * bs, dk = chol_tile_dim(n, bs, k);
#pragma dag task inout(A[kk:dk][kk:dk]) label("potrf")
    tile_potrf(&A[kk][kk], dk, n);
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = chol_tile_dim(n, bs, i);
#pragma dag task in(A[kk:dk][kk:dk]) inout(A[ii:di][kk:dk]) label("trsm")
      tile_trsm(&A[kk][kk], &A[ii][kk], di, dk, n);
    }
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = chol_tile_dim(n, bs, i);
      for (int j = k + 1; j < i; j++) {
        int jj = j * bs, dj = chol_tile_dim(n, bs, j);
#pragma dag task in(A[ii:di][kk:dk], A[jj:dj][kk:dk]) inout(A[ii:di][jj:dj])  \
    label("gemm")
        tile_gemm(&A[ii][kk], &A[jj][kk], &A[ii][jj], di, dj, dk, n);
      }
#pragma dag task in(A[ii:di][kk:dk]) inout(A[ii:di][ii:di]) label("syrk")
      tile_syrk(&A[ii][kk], &A[ii][ii], di, dk, n);
    }
  }
#pragma dag taskwait on(A[0:n][0:n])
}

/* The same kernels in the same order, without tasks. */
static void reference(int n, int bs, double (*R)[n]) {
  int nt = chol_ntiles(n, bs);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      R[i][j] = element(n, i, j);
  for (int k = 0; k < nt; k++) {
    int kk = k * bs, dk = chol_tile_dim(n, bs, k);
    tile_potrf(&R[kk][kk], dk, n);
    for (int i = k + 1; i < nt; i++)
      tile_trsm(&R[kk][kk], &R[i * bs][kk], chol_tile_dim(n, bs, i), dk, n);
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = chol_tile_dim(n, bs, i);
      for (int j = k + 1; j < i; j++)
        tile_gemm(&R[ii][kk], &R[j * bs][kk], &R[ii][j * bs], di,
                  chol_tile_dim(n, bs, j), dk, n);
      tile_syrk(&R[ii][kk], &R[ii][ii], di, dk, n);
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  int bs = argc > 2 ? atoi(argv[2]) : 64;
  int p, q;
  dag_grid(dag_nranks(), &p, &q);
  size_t bytes = (size_t)n * n * sizeof(double);
  double(*A)[n] = dag_alloc(bytes, dag_dist_2d(sizeof(double), (size_t)n,
                                               (size_t)bs, (size_t)bs, p, q));
  double(*R)[n] = malloc(bytes);
  if (!A || !R)
    return 1;
  fprintf(stderr, "mpi_cholesky: rank %d factors\n", dag_rank());
  factor(n, bs, A);
  reference(n, bs, R);
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      if (memcmp(&A[i][j], &R[i][j], sizeof(double))) {
        fprintf(stderr,
                "mpi_cholesky: rank %d of %d: L[%d][%d] is %.17g, the "
                "sequential kernels give %.17g\n",
                dag_rank(), dag_nranks(), i, j, A[i][j], R[i][j]);
        return 1;
      }
  printf("mpi_cholesky: rank %d of %d (%d x %d grid): n=%d tile=%d: the "
         "same bits as the sequential kernels\n",
         dag_rank(), dag_nranks(), p, q, n, bs);
  free(R);
  dag_free(A);
  return 0;
}
