/* mpi_stencil: Jacobi sweeps of the 5-point stencil with halo exchange, as
 * a pragma program, on two grids distributed by row blocks over the ranks
 * (dag_alloc, 1-D block-cyclic with a block of `rows` whole rows), checked
 * bit for bit against the same sweeps run sequentially on every rank.
 * Built with dagcc; run under mpiexec with any number of ranks:
 *
 *   mpi_stencil [n [sweeps [rows [rows|2d|tiles]]]]
 *
 * The grid is N x N points, N = n + 2, the outer ring being the boundary.
 * A block's task reads its rows and one halo row on each side,
 * in(u[r0 - 1:rows + 2][0:N]), and writes its rows of the other grid,
 * out(v[r0:rows][0:N]) (the boundary columns copied from u). It runs at the
 * home of its rows of v; the halo rows come from the neighbours' homes.
 * Between sweeps u and v swap; a taskwait in the middle flushes and the
 * sweeps go on. With `2d` the grids are 2-D block-cyclic instead, blocks
 * of `rows` rows and about N / 3 columns on the grid dag_grid picks, so a
 * task's rows span several homes. With `tiles`, the same 2-D grids, and a
 * task per tile that reads the tile with a ring of halo points,
 * in(u[r0 - 1:rows + 2][c0 - 1:cols + 2]) out(v[r0:rows][c0:cols]):
 * strided regions, and copies of tiles that go stale every sweep next to
 * tiles a rank owns. Exits non-zero on the first difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

/* One sweep over rows r0 .. r0 + rows - 1 (r0 >= 1, r0 + rows <= N - 1). */
static __attribute__((noinline)) void sweep_rows(int N, const double *u,
                                                 double *v, int r0, int rows,
                                                 double h2) {
  for (int i = r0; i < r0 + rows; i++) {
    const double *up = u + (size_t)(i - 1) * N, *mid = u + (size_t)i * N,
                 *down = u + (size_t)(i + 1) * N;
    double *out = v + (size_t)i * N;
    out[0] = mid[0];
    out[N - 1] = mid[N - 1];
    for (int j = 1; j < N - 1; j++)
      out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1] + h2);
  }
}

/* The same for the interior points of rows r0 .. r0 + rows - 1 and columns
 * c0 .. c0 + cols - 1 (1 <= c0, c0 + cols <= N - 1): each point is computed
 * as sweep_rows computes it, so the bits do not depend on the shapes. */
static __attribute__((noinline)) void sweep_box(int N, const double *u,
                                                double *v, int r0, int rows,
                                                int c0, int cols, double h2) {
  for (int i = r0; i < r0 + rows; i++) {
    const double *up = u + (size_t)(i - 1) * N, *mid = u + (size_t)i * N,
                 *down = u + (size_t)(i + 1) * N;
    double *out = v + (size_t)i * N;
    for (int j = c0; j < c0 + cols; j++)
      out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1] + h2);
  }
}

/* Initial value of point (i, j): a boundary that varies along the ring,
 * and an interior that is not zero, so every sweep changes every point. */
static double initial(int N, int i, int j) {
  if (i == 0)
    return 1.0 + (double)j / N;
  if (j == 0)
    return 0.5 - (double)i / (4.0 * N);
  if (j == N - 1 || i == N - 1)
    return 0.0;
  return (double)((i * 7 + j * 13) % 17) / 16.0;
}

static __attribute__((noinline)) void init_rows(int N, double *u, double *v,
                                                int r0, int rows) {
  for (int i = r0; i < r0 + rows; i++)
    for (int j = 0; j < N; j++)
      u[(size_t)i * N + j] = v[(size_t)i * N + j] = initial(N, i, j);
}

/* The rows of block b: [r0, r0 + rows) of the interior, rows 1 .. N - 2.
 * The distribution's blocks are [b * bs, (b + 1) * bs) of all the rows. */
static void block_rows(int N, int bs, int b, int *r0, int *rows) {
  int lo = b * bs, hi = (b + 1) * bs;
  if (lo < 1)
    lo = 1;
  if (hi > N - 1)
    hi = N - 1;
  *r0 = lo;
  *rows = hi > lo ? hi - lo : 0;
}

/* cb: 0 for tasks on row blocks; else tasks on tiles of bs rows and cb
 * columns, each reading its tile and a ring of halo points around it. */
static void run(int N, int bs, int cb, int sweeps, double *u0, double *v0) {
  double(*u)[N] = (double(*)[N])u0, (*v)[N] = (double(*)[N])v0;
  double h2 = 1.0 / ((double)(N - 1) * (N - 1));
  int nb = (N + bs - 1) / bs, ncb = cb ? (N + cb - 1) / cb : 1;
  for (int b = 0; b < nb; b++) {
    int r0 = b * bs, rows = r0 + bs <= N ? bs : N - r0;
#pragma dag task out(u[r0:rows][0:N], v[r0:rows][0:N]) label("init")
    init_rows(N, &u[0][0], &v[0][0], r0, rows);
  }
  for (int s = 0; s < sweeps; s++) {
    for (int b = 0; b < nb; b++) {
      int r0, rows;
      block_rows(N, bs, b, &r0, &rows);
      if (rows == 0)
        continue;
      if (!cb) {
#pragma dag task in(u[r0 - 1:rows + 2][0:N]) out(v[r0:rows][0:N])           \
    label("jacobi")
        sweep_rows(N, &u[0][0], &v[0][0], r0, rows, h2);
        continue;
      }
      for (int t = 0; t < ncb; t++) {
        int c0, cols;
        block_rows(N, cb, t, &c0, &cols); /* the same clipping, by columns */
        if (cols == 0)
          continue;
#pragma dag task in(u[r0 - 1:rows + 2][c0 - 1:cols + 2])                      \
    out(v[r0:rows][c0:cols]) label("jacobi_tile")
        sweep_box(N, &u[0][0], &v[0][0], r0, rows, c0, cols, h2);
      }
    }
    double(*t)[N] = u;
    u = v;
    v = t;
    if (s == sweeps / 2) {
#pragma dag taskwait
    }
  }
  /* The last sweep wrote u (after the swap): make both readable here. */
#pragma dag taskwait on(u[0:N][0:N], v[0:N][0:N])
}

static void reference(int N, int bs, int sweeps, double *u, double *v) {
  double h2 = 1.0 / ((double)(N - 1) * (N - 1));
  init_rows(N, u, v, 0, N);
  for (int s = 0; s < sweeps; s++) {
    int nb = (N + bs - 1) / bs;
    for (int b = 0; b < nb; b++) {
      int r0, rows;
      block_rows(N, bs, b, &r0, &rows);
      if (rows)
        sweep_rows(N, u, v, r0, rows, h2);
    }
    double *t = u;
    u = v;
    v = t;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 190;
  int sweeps = argc > 2 ? atoi(argv[2]) : 24;
  int bs = argc > 3 ? atoi(argv[3]) : 16;
  const char *mode = argc > 4 ? argv[4] : "rows";
  int two_d = strcmp(mode, "2d") == 0, tiles = strcmp(mode, "tiles") == 0;
  if (n < 1 || sweeps < 1 || bs < 1 ||
      !(two_d || tiles || strcmp(mode, "rows") == 0)) {
    fprintf(stderr, "usage: mpi_stencil [n [sweeps [rows [rows|2d|tiles]]]]\n");
    return 2;
  }
  int N = n + 2, cb = (N + 2) / 3;
  size_t bytes = (size_t)N * N * sizeof(double);
  struct dag_dist d = dag_dist_block(sizeof(double), (size_t)bs * N);
  if (two_d || tiles) {
    int p, q;
    dag_grid(dag_nranks(), &p, &q);
    d = dag_dist_2d(sizeof(double), (size_t)N, (size_t)bs, (size_t)cb, p, q);
  }
  double *u = dag_alloc(bytes, d), *v = dag_alloc(bytes, d);
  double *ru = malloc(bytes), *rv = malloc(bytes);
  if (!u || !v || !ru || !rv) {
    fprintf(stderr, "mpi_stencil: rank %d: out of memory: %s\n", dag_rank(),
            dag_last_error());
    return 1;
  }
  run(N, bs, tiles ? cb : 0, sweeps, u, v);
  reference(N, bs, sweeps, ru, rv);
  /* After an even number of swaps the result is in u, else in v; both
   * grids must match anyway. */
  const double *got[2] = {u, v}, *want[2] = {ru, rv};
  for (int g = 0; g < 2; g++)
    for (size_t k = 0; k < (size_t)N * N; k++)
      if (memcmp(&got[g][k], &want[g][k], sizeof(double))) {
        fprintf(stderr,
                "mpi_stencil: rank %d of %d: grid %c point (%zu, %zu) is "
                "%.17g, the sequential sweeps give %.17g\n",
                dag_rank(), dag_nranks(), "uv"[g], k / N, k % N, got[g][k],
                want[g][k]);
        return 1;
      }
  printf("mpi_stencil: rank %d of %d: n=%d sweeps=%d rows=%d%s: the same "
         "bits as the sequential sweeps\n",
         dag_rank(), dag_nranks(), n, sweeps, bs,
         two_d ? " 2d" : tiles ? " tiles" : "");
  free(ru);
  free(rv);
  dag_free(u);
  dag_free(v);
  return 0;
}
