/* stencil.c — Jacobi sweeps of the 5-point stencil on a 2-D grid, in row
 * blocks, double buffered.
 *
 * Solves -Laplace(u) = 1 on the unit square (approximately: a fixed number
 * of Jacobi sweeps) with u = 1 on the top edge and 0 on the others. The grid
 * is (n + 2) x (n + 2) points, the outer ring being the boundary, seen as
 * `double (*u)[N]` with N = n + 2. Each sweep reads grid u and writes grid
 * v, one task per block of rows; then u and v swap.
 *
 * A block's task reads its rows *and one halo row on each side*,
 * `in(u[r0 - 1:rows + 2][0:N])`, and writes the interior columns of its own
 * rows of the other grid, `out(v[r0:rows][1:n])`. The read sections of
 * neighbouring blocks overlap each other and the write sections of the
 * previous sweep partially (by one row): the runtime orders a block of sweep
 * s + 1 after the three blocks of sweep s it touches (read after write), and
 * the writes of sweep s + 1 after the reads of sweep s that share their rows
 * (write after read). No barrier between sweeps, so sweeps pipeline.
 *
 *   stencil [n [sweeps [rows]]]     default 512, 200 sweeps, 32 rows a block
 *
 * Prints a checksum of the final grid and the norm of the residual
 * 4 u(i,j) - (sum of the 4 neighbours) - h^2, both to the last bit: they are
 * the same with any number of threads and with plain cc (pragmas ignored),
 * since each block's partial sums are added in a fixed order. The time is
 * on its own line, starting with "time:".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* One Jacobi sweep over rows r0 .. r0 + rows - 1 (interior columns). */
static void sweep_rows(int N, double (*u)[N], double (*v)[N], int r0, int rows,
                       double h2) {
  for (int i = r0; i < r0 + rows; i++)
    for (int j = 1; j < N - 1; j++)
      v[i][j] =
          0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] + h2);
}

/* Sum of squares of the residual over the interior points of some rows. */
static double residual_rows(int N, double (*u)[N], int r0, int rows,
                            double h2) {
  double s = 0;
  for (int i = r0; i < r0 + rows; i++)
    for (int j = 1; j < N - 1; j++) {
      double r = 4 * u[i][j] -
                 (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) - h2;
      s += r * r;
    }
  return s;
}

/* Weighted sum of some whole rows (boundary columns included). */
static double checksum_rows(int N, double (*u)[N], int r0, int rows) {
  double s = 0;
  for (int i = r0; i < r0 + rows; i++)
    for (int j = 0; j < N; j++)
      s += u[i][j] * (double)(1 + (i + 3 * j) % 5);
  return s;
}

/* Initial value of grid point (i, j): the boundary condition on the ring,
 * zero inside. */
static double initial(int N, int i, int j) {
  if (i == 0)
    return j == 0 || j == N - 1 ? 0.5 : 1.0;
  return 0.0;
}

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int sweeps = argc > 2 ? atoi(argv[2]) : 200;
  int bs = argc > 3 ? atoi(argv[3]) : 32;
  if (n < 1 || n > 16384 || sweeps < 0 || bs < 1) {
    fprintf(stderr, "usage: %s [n (1..16384) [sweeps [rows]]]\n", argv[0]);
    return 2;
  }
  int N = n + 2, nb = (n + bs - 1) / bs;
  double h2 = 1.0 / ((double)(n + 1) * (n + 1));
  double(*u)[N] = malloc(sizeof(double[N][N]));
  double(*v)[N] = malloc(sizeof(double[N][N]));
  if (!u || !v) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 1;
  }

  /* Both grids get the boundary; v's interior is written by the first
   * sweep. One task per block of rows, boundary rows with the blocks at
   * the edges. */
  for (int b = 0; b < nb; b++) {
    int r0 = b == 0 ? 0 : 1 + b * bs;
    int r1 = b == nb - 1 ? N : 1 + (b + 1) * bs;
#pragma dag task out(u[r0:r1 - r0][0:N], v[r0:r1 - r0][0:N]) label("init")
    for (int i = r0; i < r1; i++)
      for (int j = 0; j < N; j++)
        u[i][j] = v[i][j] = initial(N, i, j);
  }

  double t0 = now();
  for (int s = 0; s < sweeps; s++) {
    for (int b = 0; b < nb; b++) {
      int r0 = 1 + b * bs, rows = r0 + bs <= N - 1 ? bs : N - 1 - r0;
#pragma dag task in(u[r0 - 1:rows + 2][0:N]) out(v[r0:rows][1:n])            \
    label("jacobi") firstprivate(h2)
      sweep_rows(N, u, v, r0, rows, h2);
    }
    double(*t)[N] = u;
    u = v;
    v = t;
  }
#pragma dag taskwait on(u[0:N][0:N])
  double t = now() - t0;

  /* Partial sums per block, added in block order: the same bits whatever
   * ran them. */
  double res[nb], sum[nb];
  for (int b = 0; b < nb; b++) {
    int r0 = 1 + b * bs, rows = r0 + bs <= N - 1 ? bs : N - 1 - r0;
#pragma dag task in(u[r0 - 1:rows + 2][0:N]) out(res[b]) label("residual")
    res[b] = residual_rows(N, u, r0, rows, h2);
#pragma dag task in(u[r0:rows]) out(sum[b]) label("checksum")
    sum[b] = checksum_rows(N, u, r0, rows);
  }
#pragma dag taskwait
  double r = 0, c = checksum_rows(N, u, 0, 1) + checksum_rows(N, u, N - 1, 1);
  for (int b = 0; b < nb; b++) {
    r += res[b];
    c += sum[b];
  }

  printf("stencil n=%d sweeps=%d rows=%d blocks=%d checksum=%.17g "
         "residual=%.17g center=%.17g\n",
         n, sweeps, bs, nb, c, sqrt(r), u[N / 2][N / 2]);
  printf("time: %.4f s, %.1f Mpoint-updates/s\n", t,
         (double)n * n * sweeps / t * 1e-6);
  free(u);
  free(v);
  return 0;
}
