/* lu.c — tiled LU factorization without pivoting, on tile pointers.
 *
 * The n x n matrix (n = nt * bs) is held as nt x nt separately allocated
 * bs x bs row-major tiles, reached through a table of pointers
 * `double *T[nt][nt]`. The right-looking algorithm is written as one would
 * write it sequentially, one `#pragma dag task` per tile kernel; each pragma
 * names the tiles it reads and updates as `T[i][j][0:bs*bs]`, the whole tile
 * behind the pointer. The matrix is diagonally dominant, so no pivoting is
 * needed.
 *
 * After the factorization the residual ||A - L U||_F / ||A||_F is computed
 * with tasks too (one product task per (i, j, k), one sum-of-squares task
 * per tile), from a copy of A kept in its own tiles.
 *
 *   lu [nt [bs]]        default nt = 16, bs = 64 (n = 1024)
 *
 * Output: a line with the sizes, the residual and a checksum of the factors,
 * both printed to the last bit; they are the same whatever the number of
 * threads, and the same built with plain cc, which ignores the pragmas.
 * The time of the factorization goes on a line of its own, starting with
 * "time:". Exits non-zero if the residual is too large.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------ tile kernels */

/* a = L U in place: L unit lower (below the diagonal), U upper. */
static void tile_getrf(double *a, int bs) {
  for (int k = 0; k < bs; k++) {
    double pivot = a[k * bs + k];
    for (int i = k + 1; i < bs; i++) {
      double l = a[i * bs + k] / pivot;
      a[i * bs + k] = l;
      for (int j = k + 1; j < bs; j++)
        a[i * bs + j] -= l * a[k * bs + j];
    }
  }
}

/* b := L^-1 b, L the unit lower triangle of a (a block row of U). */
static void tile_trsm_lower(const double *a, double *b, int bs) {
  for (int k = 0; k < bs; k++)
    for (int i = k + 1; i < bs; i++) {
      double l = a[i * bs + k];
      for (int j = 0; j < bs; j++)
        b[i * bs + j] -= l * b[k * bs + j];
    }
}

/* b := b U^-1, U the upper triangle of a (a block column of L). */
static void tile_trsm_upper(const double *a, double *b, int bs) {
  for (int i = 0; i < bs; i++)
    for (int k = 0; k < bs; k++) {
      double x = b[i * bs + k] / a[k * bs + k];
      b[i * bs + k] = x;
      for (int j = k + 1; j < bs; j++)
        b[i * bs + j] -= x * a[k * bs + j];
    }
}

/* c -= a b */
static void tile_gemm(const double *a, const double *b, double *c, int bs) {
  for (int i = 0; i < bs; i++)
    for (int k = 0; k < bs; k++) {
      double aik = a[i * bs + k];
      for (int j = 0; j < bs; j++)
        c[i * bs + j] -= aik * b[k * bs + j];
    }
}

/* Which part of a factored tile a product uses. */
enum part { FULL, UNIT_LOWER, UPPER };

/* r -= L U for one tile product, L and U taken from factored tiles: the
 * unit lower triangle of a diagonal tile, the upper one, or whole tiles. */
static void tile_lu_product(const double *l, enum part lp, const double *u,
                            enum part up, double *r, int bs) {
  for (int i = 0; i < bs; i++)
    for (int k = 0; k < bs; k++) {
      double lik = l[i * bs + k];
      if (lp == UNIT_LOWER)
        lik = k < i ? lik : k == i ? 1.0 : 0.0;
      if (lik == 0.0)
        continue;
      int j0 = up == UPPER ? k : 0; /* U(k, j) = 0 for j < k */
      for (int j = j0; j < bs; j++)
        r[i * bs + j] -= lik * u[k * bs + j];
    }
}

static double tile_sumsq(const double *a, int bs) {
  double s = 0;
  for (int i = 0; i < bs * bs; i++)
    s += a[i] * a[i];
  return s;
}

/* Element (i, j) of the matrix: pseudo-random in [-0.5, 0.5), from its
 * indices only, plus n on the diagonal (diagonally dominant). */
static double element(long i, long j, long n) {
  uint64_t x =
      (uint64_t)i * 0x9E3779B97F4A7C15u ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Fu;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9u;
  x ^= x >> 29;
  double v = (double)(x >> 11) / 9007199254740992.0 - 0.5;
  return i == j ? v + (double)n : v;
}

static void tile_fill(double *a, int bs, int ti, int tj, int nt) {
  long n = (long)nt * bs;
  for (int i = 0; i < bs; i++)
    for (int j = 0; j < bs; j++)
      a[i * bs + j] = element((long)ti * bs + i, (long)tj * bs + j, n);
}

/* ------------------------------------------------------- the algorithm */

/* The functions take the table as `double *(*T)[nt]`, which is what a
 * parameter `double *T[nt][nt]` means in C; written the second way, dagcc
 * (for now) captures the parameter as an array instead of a pointer. */

/* Fills A and its copy A0, tile by tile. */
static void generate(int nt, int bs, double *(*A)[nt], double *(*A0)[nt]) {
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
#pragma dag task out(A[i][j][0:bs * bs], A0[i][j][0:bs * bs]) label("fill")
      {
        tile_fill(A[i][j], bs, i, j, nt);
        memcpy(A0[i][j], A[i][j], sizeof(double) * bs * bs);
      }
    }
}

/* Right-looking tiled LU: for each k, the diagonal tile, the block row of
 * U and the block column of L, then the trailing update. The tasks of the
 * next panel (k + 1) rank first, so that the next step starts while the
 * rest of this step's update still runs. */
static void factor(int nt, int bs, double *(*T)[nt]) {
  for (int k = 0; k < nt; k++) {
#pragma dag task inout(T[k][k][0:bs * bs]) label("getrf") priority(3)
    tile_getrf(T[k][k], bs);
    for (int j = k + 1; j < nt; j++) {
#pragma dag task in(T[k][k][0:bs * bs]) inout(T[k][j][0:bs * bs])             \
    label("trsm_row") priority(j == k + 1 ? 2 : 0)
      tile_trsm_lower(T[k][k], T[k][j], bs);
    }
    for (int i = k + 1; i < nt; i++) {
#pragma dag task in(T[k][k][0:bs * bs]) inout(T[i][k][0:bs * bs])             \
    label("trsm_col") priority(i == k + 1 ? 2 : 0)
      tile_trsm_upper(T[k][k], T[i][k], bs);
    }
    for (int i = k + 1; i < nt; i++)
      for (int j = k + 1; j < nt; j++) {
#pragma dag task in(T[i][k][0:bs * bs], T[k][j][0:bs * bs])                   \
    inout(T[i][j][0:bs * bs]) label("gemm")                                   \
    priority(i == k + 1 || j == k + 1 ? 1 : 0)
        tile_gemm(T[i][k], T[k][j], T[i][j], bs);
      }
  }
#pragma dag taskwait
}

/* R := A0 - L U, tile by tile (R overwrites A0), then the sums of squares
 * of R and of the original matrix per tile. The products into one tile are
 * ordered by their inout on it (k increasing), so each tile's sum is done
 * in the same order whatever runs in parallel. */
static double residual(int nt, int bs, double *(*T)[nt], double *(*A0)[nt]) {
  double asq[nt][nt], rsq[nt][nt];
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
#pragma dag task in(A0[i][j][0:bs * bs]) out(asq[i][j]) label("norm_a")
      asq[i][j] = tile_sumsq(A0[i][j], bs);
    }
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      int kmax = i < j ? i : j;
      for (int k = 0; k <= kmax; k++) {
        enum part lp = k == i ? UNIT_LOWER : FULL;
        enum part up = k == j ? UPPER : FULL;
#pragma dag task in(T[i][k][0:bs * bs], T[k][j][0:bs * bs])                   \
    inout(A0[i][j][0:bs * bs]) label("lu_product")
        tile_lu_product(T[i][k], lp, T[k][j], up, A0[i][j], bs);
      }
#pragma dag task in(A0[i][j][0:bs * bs]) out(rsq[i][j]) label("norm_r")
      rsq[i][j] = tile_sumsq(A0[i][j], bs);
    }
#pragma dag taskwait on(asq, rsq)
  double a = 0, r = 0;
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      a += asq[i][j];
      r += rsq[i][j];
    }
  return sqrt(r) / sqrt(a);
}

/* Sum of the factors' elements with weights, in a fixed order. */
static double checksum(int nt, int bs, double *(*T)[nt]) {
  double s = 0;
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++)
      for (int e = 0; e < bs * bs; e++)
        s += T[i][j][e] * (double)(1 + (i * nt + j + e) % 7);
  return s;
}

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 16;
  int bs = argc > 2 ? atoi(argv[2]) : 64;
  if (nt < 1 || bs < 1 || nt > 64 || bs > 4096) {
    fprintf(stderr, "usage: %s [nt (1..64) [bs (1..4096)]]\n", argv[0]);
    return 2;
  }
  double *T[nt][nt], *A0[nt][nt];
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      T[i][j] = malloc(sizeof(double) * bs * bs);
      A0[i][j] = malloc(sizeof(double) * bs * bs);
      if (!T[i][j] || !A0[i][j]) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
      }
    }

  generate(nt, bs, T, A0);
#pragma dag taskwait
  double t0 = now();
  factor(nt, bs, T);
  double t = now() - t0;
  double res = residual(nt, bs, T, A0);
  double sum = checksum(nt, bs, T);

  printf("lu n=%d nt=%d bs=%d residual=%.17g checksum=%.17g\n", nt * bs, nt, bs,
         res, sum);
  printf("time: factor %.4f s, %.2f GFLOP/s\n", t,
         2.0 / 3.0 * (double)nt * bs * nt * bs * nt * bs / t * 1e-9);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      free(T[i][j]);
      free(A0[i][j]);
    }
  if (!(res < 1e-12)) {
    fprintf(stderr, "%s: residual %.3e is too large: WRONG\n", argv[0], res);
    return 1;
  }
  return 0;
}
