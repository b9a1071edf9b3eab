/* mpi_lu: tiled LU without pivoting, as a pragma program, on a diagonally
 * dominant matrix distributed 2-D block-cyclic over the ranks (dag_alloc on
 * the grid dag_grid picks), checked bit for bit against the same kernels
 * run sequentially on every rank. Built with dagcc; run under mpiexec with
 * any number of ranks:
 *
 *   mpi_lu [n] [tile]
 *
 * Every task writes one tile and runs at its home; the tiles it reads come
 * from where they were last written. Each tile sees its updates in the
 * order of the sequential loop, so L and U are the same bits on any number
 * of ranks. The tile size need not divide n: the last tile row and column
 * are narrower, so the regions are of several shapes. Exits non-zero on the
 * first difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

/* ------------------------------------------------------------ kernels */

/* In every kernel ld is the leading dimension (elements) of the matrix.
 * noinline: the tasks and the reference call the very same code. */
#define KERNEL static __attribute__((noinline))

/* a = L U in place (k x k): L unit lower, U upper. */
KERNEL void tile_getrf(double *a, int k, int ld) {
  for (int p = 0; p < k; p++) {
    double pivot = a[(size_t)p * ld + p];
    for (int i = p + 1; i < k; i++) {
      double l = a[(size_t)i * ld + p] / pivot;
      a[(size_t)i * ld + p] = l;
      for (int j = p + 1; j < k; j++)
        a[(size_t)i * ld + j] -= l * a[(size_t)p * ld + j];
    }
  }
}

/* b := L^-1 b; L the unit lower triangle of the k x k tile a, b is k x n
 * (a tile of the block row of U). */
KERNEL void tile_trsm_lower(const double *a, double *b, int k, int n, int ld) {
  for (int p = 0; p < k; p++)
    for (int i = p + 1; i < k; i++) {
      double l = a[(size_t)i * ld + p];
      for (int j = 0; j < n; j++)
        b[(size_t)i * ld + j] -= l * b[(size_t)p * ld + j];
    }
}

/* b := b U^-1; U the upper triangle of the k x k tile a, b is m x k (a
 * tile of the block column of L). */
KERNEL void tile_trsm_upper(const double *a, double *b, int m, int k, int ld) {
  for (int i = 0; i < m; i++)
    for (int p = 0; p < k; p++) {
      double x = b[(size_t)i * ld + p] / a[(size_t)p * ld + p];
      b[(size_t)i * ld + p] = x;
      for (int j = p + 1; j < k; j++)
        b[(size_t)i * ld + j] -= x * a[(size_t)p * ld + j];
    }
}

/* c -= a b; a is m x k, b is k x n, c is m x n. */
KERNEL void tile_gemm(const double *a, const double *b, double *c, int m,
                      int n, int k, int ld) {
  for (int i = 0; i < m; i++)
    for (int p = 0; p < k; p++) {
      double aip = a[(size_t)i * ld + p];
      for (int j = 0; j < n; j++)
        c[(size_t)i * ld + j] -= aip * b[(size_t)p * ld + j];
    }
}

/* Element (i, j): pseudo-random in [-0.5, 0.5) from its indices, plus n on
 * the diagonal (diagonally dominant: no pivoting needed). */
static double element(int n, int i, int j) {
  uint64_t x =
      (uint64_t)i * 0x9E3779B97F4A7C15u ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Fu;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9u;
  x ^= x >> 29;
  double v = (double)(x >> 11) / 9007199254740992.0 - 0.5;
  return i == j ? v + n : v;
}

KERNEL void fill_tile(int n, double *a, int i0, int j0, int rows, int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      a[(size_t)i * n + j] = element(n, i0 + i, j0 + j);
}

static int ntiles(int n, int bs) { return (n + bs - 1) / bs; }
static int tile_dim(int n, int bs, int i) {
  return (i + 1) * bs <= n ? bs : n - i * bs;
}

/* ------------------------------------------------------ the algorithm */

static void factor(int n, int bs, double (*A)[n]) {
  int nt = ntiles(n, bs);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      int ii = i * bs, jj = j * bs;
      int di = tile_dim(n, bs, i), dj = tile_dim(n, bs, j);
#pragma dag task out(A[ii:di][jj:dj]) label("fill")
      fill_tile(n, &A[ii][jj], ii, jj, di, dj);
    }
  for (int k = 0; k < nt; k++) {
    int kk = k * bs, dk = tile_dim(n, bs, k);
#pragma dag task inout(A[kk:dk][kk:dk]) label("getrf")
    tile_getrf(&A[kk][kk], dk, n);
    for (int j = k + 1; j < nt; j++) {
      int jj = j * bs, dj = tile_dim(n, bs, j);
#pragma dag task in(A[kk:dk][kk:dk]) inout(A[kk:dk][jj:dj]) label("trsm_row")
      tile_trsm_lower(&A[kk][kk], &A[kk][jj], dk, dj, n);
    }
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = tile_dim(n, bs, i);
#pragma dag task in(A[kk:dk][kk:dk]) inout(A[ii:di][kk:dk]) label("trsm_col")
      tile_trsm_upper(&A[kk][kk], &A[ii][kk], di, dk, n);
    }
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = tile_dim(n, bs, i);
      for (int j = k + 1; j < nt; j++) {
        int jj = j * bs, dj = tile_dim(n, bs, j);
#pragma dag task in(A[ii:di][kk:dk], A[kk:dk][jj:dj]) inout(A[ii:di][jj:dj])  \
    label("gemm")
        tile_gemm(&A[ii][kk], &A[kk][jj], &A[ii][jj], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait on(A[0:n][0:n])
}

/* The same kernels in the same order, without tasks. */
static void reference(int n, int bs, double (*R)[n]) {
  int nt = ntiles(n, bs);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++)
      fill_tile(n, &R[i * bs][j * bs], i * bs, j * bs, tile_dim(n, bs, i),
                tile_dim(n, bs, j));
  for (int k = 0; k < nt; k++) {
    int kk = k * bs, dk = tile_dim(n, bs, k);
    tile_getrf(&R[kk][kk], dk, n);
    for (int j = k + 1; j < nt; j++)
      tile_trsm_lower(&R[kk][kk], &R[kk][j * bs], dk, tile_dim(n, bs, j), n);
    for (int i = k + 1; i < nt; i++)
      tile_trsm_upper(&R[kk][kk], &R[i * bs][kk], tile_dim(n, bs, i), dk, n);
    for (int i = k + 1; i < nt; i++)
      for (int j = k + 1; j < nt; j++)
        tile_gemm(&R[i * bs][kk], &R[kk][j * bs], &R[i * bs][j * bs],
                  tile_dim(n, bs, i), tile_dim(n, bs, j), dk, n);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  int bs = argc > 2 ? atoi(argv[2]) : 48;
  if (n < 1 || bs < 1) {
    fprintf(stderr, "usage: mpi_lu [n [tile]]\n");
    return 2;
  }
  int p, q;
  dag_grid(dag_nranks(), &p, &q);
  size_t bytes = (size_t)n * n * sizeof(double);
  double(*A)[n] = dag_alloc(bytes, dag_dist_2d(sizeof(double), (size_t)n,
                                               (size_t)bs, (size_t)bs, p, q));
  double(*R)[n] = malloc(bytes);
  if (!A || !R) {
    fprintf(stderr, "mpi_lu: rank %d: out of memory: %s\n", dag_rank(),
            dag_last_error());
    return 1;
  }
  factor(n, bs, A);
  reference(n, bs, R);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (memcmp(&A[i][j], &R[i][j], sizeof(double))) {
        fprintf(stderr,
                "mpi_lu: rank %d of %d: LU[%d][%d] is %.17g, the sequential "
                "kernels give %.17g\n",
                dag_rank(), dag_nranks(), i, j, A[i][j], R[i][j]);
        return 1;
      }
  /* A sanity check of the reference itself: L U gives back A somewhere. */
  int ci = n / 2, cj = n / 3;
  double s = 0;
  for (int k = 0; k < n; k++) {
    double l = k < ci ? R[ci][k] : k == ci ? 1.0 : 0.0;
    double u = k <= cj ? R[k][cj] : 0.0;
    s += l * u;
  }
  double want = element(n, ci, cj), err = s - want;
  if (err > 1e-9 || err < -1e-9) {
    fprintf(stderr, "mpi_lu: rank %d: (L U)[%d][%d] is %.17g, A holds %.17g\n",
            dag_rank(), ci, cj, s, want);
    return 1;
  }
  printf("mpi_lu: rank %d of %d (%d x %d grid): n=%d tile=%d: the same bits "
         "as the sequential kernels\n",
         dag_rank(), dag_nranks(), p, q, n, bs);
  free(R);
  dag_free(A);
  return 0;
}
