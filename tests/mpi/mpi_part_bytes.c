/* mpi_part_bytes: a task that reads part of a block another rank holds
 * receives that part only. Counts the bytes the runtime hands to MPI (its
 * MPI_Isend, wrapped here through the profiling interface) and checks them
 * against the least the reads need:
 *
 *   rows     blocks of ROWS whole rows of an N x N matrix, dealt to the
 *            ranks in turn; the task of block b reads its rows and the row
 *            above and below (a halo), and writes block b of another
 *            matrix at its home: one row from each neighbour's rank;
 *   column   T x T tiles, 2-D block-cyclic; the task of tile (i, j) reads
 *            the last column of tile (i, j - 1), a strided column of T
 *            doubles, and writes tile (i, j) of another matrix at its home;
 *   triangle the same tiles; each diagonal tile has its lower triangle
 *            and its strict upper one rewritten by two tasks (which may
 *            run at once), then the tiles of its column read
 *            lower(diagonal tile) and those of its row
 *            unit_upper(diagonal tile): T(T+1)/2 and T(T-1)/2 doubles;
 *   merged   a replicated array: tasks on ranks 0 and 1 write its two
 *            halves, with a gap between them that no task writes; a task
 *            on rank 0 reads the whole (the runtime merges the three into
 *            one unit and brings rank 0 rank 1's half), then a task on
 *            every other rank reads the whole: rank 1 receives rank 0's
 *            half only, the others both halves, never the gap;
 *   strips   the blocks of rows again, each read in STRIPS column strips
 *            of SW doubles by tasks on the next rank: more parts than a
 *            block kept before (8, past which it moved whole), each
 *            travels alone;
 *   corner   taskwait on(A[N - 1][N - 1]): that one element travels to
 *            every rank, not its tile.
 *
 * Every rank checks the results it is the home of against the same
 * computation done sequentially.
 * Built with dagcc (-rdynamic, so that libdag's MPI_Isend is this one);
 * run under mpiexec with any number of ranks. Exits non-zero when the
 * bytes are not the least, or a result differs. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

enum { N = 96, ROWS = 8, T = 16, SW = 8, STRIPS = 10 };

static uint64_t sent_bytes; /* by the runtime, through MPI_Isend */

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm, MPI_Request *req) {
  int size = 0;
  MPI_Type_size(type, &size);
  __atomic_fetch_add(&sent_bytes, (uint64_t)count * (uint64_t)size,
                     __ATOMIC_RELAXED);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

static double value(int i, int j) { return (double)((i * 131 + j * 17) % 97); }

/* merged: the halves of `halves` and the gap between them. */
enum { HALF = 512, GAP = 256 };
static double halves[2 * HALF + GAP];
static int merged_wrong; /* on this rank, by the reading tasks */

static int strips_wrong; /* on this rank, by the strips' tasks */

/* Checks the strip of SW columns from column j0 of the rows from i0. */
static void check_strip(const double *s, int i0, int j0) {
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < SW; j++)
      if (s[(size_t)i * N + j] != value(i0 + i, j0 + j))
        strips_wrong = 1;
}

static void fill_half(double *h, int which) {
  for (int k = 0; k < HALF; k++)
    h[k] = value(which, k);
}

static void check_halves(const double *h) {
  for (int k = 0; k < 2 * HALF + GAP; k++) {
    double want = k < HALF           ? value(0, k)
                  : k >= HALF + GAP ? value(1, k - HALF - GAP)
                                    : -1.0;
    if (h[k] != want)
      merged_wrong = 1;
  }
}

static void fill(double *m, int i0, int rows, int j0, int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      m[(size_t)i * N + j] = value(i0 + i, j0 + j);
}

/* Row i of the result: row i plus the rows above and below (those that
 * exist). */
static void smooth(const double *x, double *y, int i0, int rows) {
  for (int i = i0; i < i0 + rows; i++)
    for (int j = 0; j < N; j++)
      y[(size_t)(i - i0) * N + j] = x[(size_t)i * N + j] +
                                    (i > 0 ? x[(size_t)(i - 1) * N + j] : 0) +
                                    (i < N - 1 ? x[(size_t)(i + 1) * N + j] : 0);
}

/* Tile of the result: each row scaled by the entry of the column left of
 * it (the last column of the tile on the left, wrapping). */
static void scale(const double *column, double *tile) {
  for (int i = 0; i < T; i++)
    for (int j = 0; j < T; j++)
      tile[(size_t)i * N + j] *= column[(size_t)i * N];
}

/* Triangles of a T x T tile of rows N apart: the lower one (with the
 * diagonal) doubled, or the strict upper one negated; and their sums. */
static void double_lower(double *t) {
  for (int i = 0; i < T; i++)
    for (int j = 0; j <= i; j++)
      t[(size_t)i * N + j] *= 2;
}

static void negate_unit_upper(double *t) {
  for (int i = 0; i < T; i++)
    for (int j = i + 1; j < T; j++)
      t[(size_t)i * N + j] = -t[(size_t)i * N + j];
}

static double triangle_sum(const double *t, bool lower) {
  double s = 0;
  for (int i = 0; i < T; i++)
    for (int j = lower ? 0 : i + 1; j < (lower ? i + 1 : T); j++)
      s += t[(size_t)i * N + j];
  return s;
}

static void add_to_tile(double *tile, double v) {
  for (int i = 0; i < T; i++)
    for (int j = 0; j < T; j++)
      tile[(size_t)i * N + j] += v;
}

/* Whether the entries of m this rank is the home of are want's. */
static bool same_here(const double *m, const double *want) {
  for (size_t k = 0; k < (size_t)N * N; k++)
    if (dag_owner(&m[k]) == dag_rank() && m[k] != want[k])
      return false;
  return true;
}

static uint64_t total(uint64_t mine) {
  uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static int check(const char *what, uint64_t got, uint64_t least,
                 uint64_t blocks) {
  if (dag_rank() == 0)
    printf("mpi_part_bytes: %s: %llu bytes sent, the least %llu (whole "
           "blocks: %llu)\n",
           what, (unsigned long long)got, (unsigned long long)least,
           (unsigned long long)blocks);
  if (got == least)
    return 0;
  fprintf(stderr, "mpi_part_bytes: %s: %llu bytes sent, not %llu\n", what,
          (unsigned long long)got, (unsigned long long)least);
  return 1;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  size_t bytes = sizeof(double) * N * N;
  int failed = 0;

  /* rows */
  double *x = dag_alloc(bytes, dag_dist_block_cyclic(sizeof(double), ROWS * N));
  double *y = dag_alloc(bytes, dag_dist_block_cyclic(sizeof(double), ROWS * N));
  double(*X)[N] = (double(*)[N])x, (*Y)[N] = (double(*)[N])y;
  for (int b = 0; b < N / ROWS; b++) {
#pragma dag task out(X[b * ROWS:ROWS][0:N])
    fill(&X[b * ROWS][0], b * ROWS, ROWS, 0, N);
  }
#pragma dag taskwait
  uint64_t before = sent_bytes, least = 0;
  for (int b = 0; b < N / ROWS; b++) {
    int lo = b > 0 ? b * ROWS - 1 : 0;
    int hi = b < N / ROWS - 1 ? (b + 1) * ROWS + 1 : N;
#pragma dag task in(X[lo:hi - lo][0:N]) out(Y[b * ROWS:ROWS][0:N])
    smooth(&X[0][0], &Y[b * ROWS][0], b * ROWS, ROWS);
    int home = dag_owner(&Y[b * ROWS][0]);
    if (b > 0 && dag_owner(&X[lo][0]) != home)
      least += N * sizeof(double);
    if (b < N / ROWS - 1 && dag_owner(&X[hi - 1][0]) != home)
      least += N * sizeof(double);
  }
#pragma dag taskwait
  failed |= check("rows", total(sent_bytes - before), least,
                  least / (N * sizeof(double)) * ROWS * N * sizeof(double));
  double *want = malloc(bytes), *seq = malloc(bytes);
  fill(seq, 0, N, 0, N);
  smooth(seq, want, 0, N);
  if (!same_here(y, want)) {
    fprintf(stderr, "mpi_part_bytes: rank %d: rows differ\n", dag_rank());
    failed = 1;
  }

  /* column */
  int p, q;
  dag_grid(dag_nranks(), &p, &q);
  double *a = dag_alloc(bytes, dag_dist_2d(sizeof(double), N, T, T, p, q));
  double *c = dag_alloc(bytes, dag_dist_2d(sizeof(double), N, T, T, p, q));
  double(*A)[N] = (double(*)[N])a, (*C)[N] = (double(*)[N])c;
  for (int i = 0; i < N; i += T)
    for (int j = 0; j < N; j += T) {
#pragma dag task out(A[i:T][j:T], C[i:T][j:T])
      {
        fill(&A[i][j], i, T, j, T);
        fill(&C[i][j], i, T, j, T);
      }
    }
#pragma dag taskwait
  before = sent_bytes;
  least = 0;
  for (int i = 0; i < N; i += T)
    for (int j = 0; j < N; j += T) {
      int left = (j + N - 1) % N;
#pragma dag task in(A[i:T][left:1]) inout(C[i:T][j:T])
      scale(&A[i][left], &C[i][j]);
      if (dag_owner(&A[i][left]) != dag_owner(&C[i][j]))
        least += T * sizeof(double);
    }
#pragma dag taskwait
  failed |= check("column", total(sent_bytes - before), least,
                  least / sizeof(double) * T * sizeof(double));
  fill(seq, 0, N, 0, N);
  memcpy(want, seq, bytes);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      want[(size_t)i * N + j] *= seq[(size_t)i * N + (j / T * T + N - 1) % N];
  if (!same_here(c, want)) {
    fprintf(stderr, "mpi_part_bytes: rank %d: columns differ\n", dag_rank());
    failed = 1;
  }

  /* triangle: the runtime's copies of a diagonal tile's parts on a rank
   * stay until the tile is written, so each part travels once to each rank
   * that reads it. */
  enum { TILES = N / T };
  bool got[TILES][2][64] = {{{false}}}; /* tile, part, rank */
  for (int k = 0; k < N; k += T) {
#pragma dag task inout(lower(A[k:T][k:T]))
    double_lower(&A[k][k]);
#pragma dag task inout(unit_upper(A[k:T][k:T]))
    negate_unit_upper(&A[k][k]);
  }
#pragma dag taskwait
  before = sent_bytes;
  least = 0;
  uint64_t parts = 0;
  for (int k = 0; k < N; k += T)
    for (int o = 0; o < N; o += T) {
      if (o == k)
        continue;
#pragma dag task in(lower(A[k:T][k:T])) inout(C[o:T][k:T])
      add_to_tile(&C[o][k], triangle_sum(&A[k][k], true));
#pragma dag task in(unit_upper(A[k:T][k:T])) inout(C[k:T][o:T])
      add_to_tile(&C[k][o], triangle_sum(&A[k][k], false));
      int home = dag_owner(&A[k][k]), below = dag_owner(&C[o][k]),
          right = dag_owner(&C[k][o]);
      if (below != home && !got[k / T][0][below]) {
        got[k / T][0][below] = true;
        least += T * (T + 1) / 2 * sizeof(double);
        parts++;
      }
      if (right != home && !got[k / T][1][right]) {
        got[k / T][1][right] = true;
        least += T * (T - 1) / 2 * sizeof(double);
        parts++;
      }
    }
#pragma dag taskwait
  failed |= check("triangle", total(sent_bytes - before), least,
                  parts * T * T * sizeof(double));
  for (int k = 0; k < N; k += T) { /* seq: A now, want: C now */
    double_lower(&seq[(size_t)k * N + k]);
    negate_unit_upper(&seq[(size_t)k * N + k]);
  }
  for (int k = 0; k < N; k += T)
    for (int o = 0; o < N; o += T)
      if (o != k) {
        add_to_tile(&want[(size_t)o * N + k],
                    triangle_sum(&seq[(size_t)k * N + k], true));
        add_to_tile(&want[(size_t)k * N + o],
                    triangle_sum(&seq[(size_t)k * N + k], false));
      }
  if (!same_here(a, seq) || !same_here(c, want)) {
    fprintf(stderr, "mpi_part_bytes: rank %d: triangles differ\n",
            dag_rank());
    failed = 1;
  }
  /* merged */
  for (int k = 0; k < 2 * HALF + GAP; k++)
    halves[k] = -1.0;
  int nranks = dag_nranks(), second = 1 % nranks;
  before = sent_bytes;
#pragma dag task out(halves[0:HALF]) on(0)
  fill_half(&halves[0], 0);
#pragma dag task out(halves[HALF + GAP:HALF]) on(second)
  fill_half(&halves[HALF + GAP], 1);
  for (int r = 0; r < nranks; r++) {
#pragma dag task in(halves[0:2 * HALF + GAP]) on(r)
    check_halves(halves);
  }
#pragma dag taskwait
  uint64_t half = HALF * sizeof(double), whole = sizeof halves;
  least = nranks > 1 ? 2 * half + (nranks - 2) * 2 * half : 0;
  failed |= check("merged", total(sent_bytes - before), least,
                  nranks > 1 ? half + whole + (nranks - 2) * whole : 0);
  int wrong_anywhere = 0;
  MPI_Allreduce(&merged_wrong, &wrong_anywhere, 1, MPI_INT, MPI_MAX,
                MPI_COMM_WORLD);
  if (wrong_anywhere) {
    if (dag_rank() == 0)
      fprintf(stderr, "mpi_part_bytes: the merged array differs\n");
    failed = 1;
  }

  /* strips (X holds fill's values again) */
  for (int b = 0; b < N / ROWS; b++) {
#pragma dag task out(X[b * ROWS:ROWS][0:N])
    fill(&X[b * ROWS][0], b * ROWS, ROWS, 0, N);
  }
#pragma dag taskwait
  before = sent_bytes;
  for (int b = 0; b < N / ROWS; b++) {
    int reader = (dag_owner(&X[b * ROWS][0]) + 1) % nranks;
    for (int s = 0; s < STRIPS; s++) {
#pragma dag task in(X[b * ROWS:ROWS][s * SW:SW]) on(reader)
      check_strip(&X[b * ROWS][s * SW], b * ROWS, s * SW);
    }
  }
#pragma dag taskwait
  uint64_t strip = ROWS * SW * sizeof(double);
  least = nranks > 1 ? (uint64_t)(N / ROWS) * STRIPS * strip : 0;
  failed |= check("strips", total(sent_bytes - before), least,
                  least / STRIPS / strip * ROWS * N * sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, &strips_wrong, 1, MPI_INT, MPI_MAX,
                MPI_COMM_WORLD);
  if (strips_wrong) {
    if (dag_rank() == 0)
      fprintf(stderr, "mpi_part_bytes: a strip differs\n");
    failed = 1;
  }

  /* corner */
  before = sent_bytes;
#pragma dag taskwait on(A[N - 1][N - 1])
  failed |= check("corner", total(sent_bytes - before),
                  (uint64_t)(nranks - 1) * sizeof(double),
                  (uint64_t)(nranks - 1) * T * T * sizeof(double));
  if (A[N - 1][N - 1] != seq[(size_t)N * N - 1]) {
    fprintf(stderr, "mpi_part_bytes: rank %d: the corner differs\n",
            dag_rank());
    failed = 1;
  }

  free(want);
  free(seq);
  dag_free(x);
  dag_free(y);
  dag_free(a);
  dag_free(c);
  MPI_Finalize();
  return failed;
}
