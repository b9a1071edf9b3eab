/* mpi_traffic: programs that move far more data between ranks than their
 * tasks need, each for its own reason; the traffic advisor must say so at
 * the end of the run, naming the array's dag_alloc call (or the item that
 * named replicated memory), the task's pragma line and what to change. The
 * run itself goes right: every mode checks its results and exits 0 (1 when
 * a result is wrong). Run under mpiexec with 2 or more ranks to see advice
 * (one rank moves nothing):
 *
 *   mpi_traffic columns     tasks write column strips of a matrix that
 *                           dag_dist_block cuts in row strips: each task
 *                           fetches every block it touches, whole;
 *   mpi_traffic parts       tasks read single elements of another rank's
 *                           block, more of them than a block keeps parts
 *                           of: past the limit the block moves whole;
 *   mpi_traffic replicated  arrays left in malloc memory, written in
 *                           blocks by tasks on every rank: each taskwait
 *                           sends every rank's blocks to every other;
 *   mpi_traffic cyclic      a stencil whose tiles are the blocks of
 *                           dag_dist_block_cyclic: every halo comes from
 *                           another rank;
 *   mpi_traffic runs        the same stencil on dag_dist_block: only the
 *                           halos between ranks' runs move (no advice);
 *   mpi_traffic tiles       tiles that are the blocks of a 2-D block-cyclic
 *                           distribution, read whole (no advice).
 *
 * The pragma lines and dag_alloc calls the advice must name are marked
 * with @markers@ (tests/mpi/expect_failure.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

static int wrong; /* results on this rank that differ from the expected */

static void expect(double got, double want) {
  if (got != want)
    wrong++;
}

/* ------------------------------------------------------------ columns */

enum { CN = 1024, CROWS = 64, CW = 64 }; /* 8 MiB, 16 row strips */

static void fill_columns(double *a, int j0) {
  for (int i = 0; i < CN; i++)
    for (int j = j0; j < j0 + CW; j++)
      a[(size_t)i * CN + j] = i + 0.5 * j;
}

static void columns(void) {
  double *a = dag_alloc((size_t)CN * CN * sizeof(double), /* @columns_alloc@ */
                        dag_dist_block(sizeof(double), CROWS * CN));
  double(*A)[CN] = (double(*)[CN])a;
  for (int j = 0; j < CN; j += CW) {
#pragma dag task out(A[0 : CN][j : CW]) label("column") /* @columns@ */
    fill_columns(a, j);
  }
#pragma dag taskwait
  for (int i = 0; i < CN; i++)
    for (int j = 0; j < CN; j++)
      if (dag_owner(&A[i][j]) == dag_rank())
        expect(A[i][j], i + 0.5 * j);
  dag_free(a);
}

/* -------------------------------------------------------------- parts */

enum { PBLOCK = 1 << 17, PREADS = 300, PROUNDS = 4 }; /* blocks of 1 MiB */

static void set_all(double *b, double v) {
  for (int k = 0; k < PBLOCK; k++)
    b[k] = v + k;
}

static void parts(void) {
  double *b = dag_alloc(2 * PBLOCK * sizeof(double), /* @parts_alloc@ */
                        dag_dist_block(sizeof(double), PBLOCK));
  double *got = dag_alloc(PREADS * sizeof(double),
                          dag_dist_block(sizeof(double), PREADS));
  double *far = b + PBLOCK; /* the second block: another rank's */
  for (int round = 0; round < PROUNDS; round++) {
#pragma dag task out(far[0 : PBLOCK])
    set_all(far, round);
    for (int k = 0; k < PREADS; k++) {
      int at = k * (PBLOCK / PREADS);
#pragma dag task in(far[at]) out(got[k]) label("pick") /* @parts@ */
      got[k] = far[at];
    }
#pragma dag taskwait on(got[0 : PREADS])
    for (int k = 0; k < PREADS; k++)
      expect(got[k], round + k * (PBLOCK / PREADS));
  }
  dag_free(got);
  dag_free(b);
}

/* --------------------------------------------------------- replicated */

enum { RBLK = 1 << 14, RBLOCKS = 8, RSTEPS = 4 }; /* 1 MiB arrays */

static void scale_block(double *u, const double *v, int lo, double by) {
  for (int i = lo; i < lo + RBLK; i++)
    u[i] = v[i] * by;
}

static void replicated(void) {
  double *u = malloc(RBLK * RBLOCKS * sizeof *u);
  double *v = malloc(RBLK * RBLOCKS * sizeof *v);
  for (int i = 0; i < RBLK * RBLOCKS; i++)
    v[i] = i;
  for (int step = 0; step < RSTEPS; step++) {
    for (int b = 0; b < RBLOCKS; b++) {
      int lo = b * RBLK;
#pragma dag task in(v[lo : RBLK]) out(u[lo : RBLK]) label("scale") /* @replicated@ */
      scale_block(u, v, lo, 2.0);
    }
#pragma dag taskwait
    double *t = u;
    u = v;
    v = t;
  }
  for (int i = 0; i < RBLK * RBLOCKS; i++) /* 4 steps: 16 times i, in v */
    expect(v[i], 16.0 * i);
  free(u);
  free(v);
}

/* ------------------------------------------------------------ stencil */

enum { SN = 1024, SROWS = 16, SBLOCKS = 64, SSTEPS = 4 }; /* 8 KiB rows */

/* Rows [i0, i0 + SROWS) of y: each row of x plus the rows around it. */
static void smooth(const double *x, double *y, int i0) {
  for (int i = i0; i < i0 + SROWS; i++)
    for (int j = 0; j < SN; j++)
      y[(size_t)i * SN + j] = x[(size_t)i * SN + j] +
                              (i > 0 ? x[(size_t)(i - 1) * SN + j] : 0) +
                              (i < SROWS * SBLOCKS - 1
                                   ? x[(size_t)(i + 1) * SN + j]
                                   : 0);
}

static double start_value(int i, int j) { return (i * 7 + j) % 5; }

static void stencil(struct dag_dist dist) {
  size_t rows = SROWS * SBLOCKS, bytes = rows * SN * sizeof(double);
  double *x = dag_alloc(bytes, dist); /* @stencil_alloc@ */
  double *y = dag_alloc(bytes, dist); /* @stencil_alloc_y@ */
  double(*X)[SN] = (double(*)[SN])x;
  for (int b = 0; b < SBLOCKS; b++) {
#pragma dag task out(X[b * SROWS : SROWS][0 : SN])
    for (int i = b * SROWS; i < (b + 1) * SROWS; i++)
      for (int j = 0; j < SN; j++)
        X[i][j] = start_value(i, j);
  }
  for (int step = 0; step < SSTEPS; step++) {
    double(*In)[SN] = (double(*)[SN])x;
    double(*Out)[SN] = (double(*)[SN])y;
    for (int b = 0; b < SBLOCKS; b++) {
      int lo = b > 0 ? b * SROWS - 1 : 0;
      int hi = b < SBLOCKS - 1 ? (b + 1) * SROWS + 1 : (int)rows;
#pragma dag task in(In[lo : hi - lo][0 : SN]) out(Out[b * SROWS : SROWS][0 : SN]) label("smooth") /* @stencil@ */
      smooth(&In[0][0], &Out[0][0], b * SROWS);
    }
    double *t = x;
    x = y;
    y = t;
  }
#pragma dag taskwait
  /* The same sweeps, sequentially. */
  double *a = malloc(bytes), *c = malloc(bytes);
  for (size_t i = 0; i < rows; i++)
    for (int j = 0; j < SN; j++)
      a[i * SN + j] = start_value((int)i, j);
  for (int step = 0; step < SSTEPS; step++) {
    for (int b = 0; b < SBLOCKS; b++)
      smooth(a, c, b * SROWS);
    double *t = a;
    a = c;
    c = t;
  }
  for (size_t k = 0; k < rows * SN; k++)
    if (dag_owner(&x[k]) == dag_rank())
      expect(x[k], a[k]);
  free(a);
  free(c);
  dag_free(x);
  dag_free(y);
}

/* -------------------------------------------------------------- tiles */

enum { TN = 512, TT = 64 };

static void tiles(void) {
  int p, q;
  dag_grid(dag_nranks(), &p, &q);
  double *a = dag_alloc((size_t)TN * TN * sizeof(double),
                        dag_dist_block_cyclic_2d(sizeof(double), TN, TT, TT, p,
                                                 q));
  double(*A)[TN] = (double(*)[TN])a;
  for (int i = 0; i < TN; i += TT)
    for (int j = 0; j < TN; j += TT) {
#pragma dag task out(A[i : TT][j : TT])
      for (int r = i; r < i + TT; r++)
        for (int c = j; c < j + TT; c++)
          A[r][c] = 1.0;
    }
  /* Each tile adds the whole tile on its left, as a factorization's
   * updates read whole tiles. */
  for (int step = 0; step < 3; step++)
    for (int i = 0; i < TN; i += TT)
      for (int j = TT; j < TN; j += TT) {
#pragma dag task in(A[i : TT][j - TT : TT]) inout(A[i : TT][j : TT])
        for (int r = i; r < i + TT; r++)
          for (int c = j; c < j + TT; c++)
            A[r][c] += A[r][c - TT] * 0.0;
      }
#pragma dag taskwait
  for (int i = 0; i < TN; i++)
    for (int j = 0; j < TN; j++)
      if (dag_owner(&A[i][j]) == dag_rank())
        expect(A[i][j], 1.0);
  dag_free(a);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  size_t tile = (size_t)SROWS * SN;
  if (!strcmp(mode, "columns"))
    columns();
  else if (!strcmp(mode, "parts"))
    parts();
  else if (!strcmp(mode, "replicated"))
    replicated();
  else if (!strcmp(mode, "cyclic"))
    stencil(dag_dist_block_cyclic(sizeof(double), tile));
  else if (!strcmp(mode, "runs"))
    stencil(dag_dist_block(sizeof(double), tile));
  else if (!strcmp(mode, "tiles"))
    tiles();
  else {
    fprintf(stderr, "usage: mpi_traffic "
                    "columns|parts|replicated|cyclic|runs|tiles\n");
    return 2;
  }
  if (wrong) {
    fprintf(stderr, "mpi_traffic: rank %d: %d results wrong\n", dag_rank(),
            wrong);
    return 1;
  }
  printf("mpi_traffic: rank %d: %s: results right\n", dag_rank(), mode);
  return 0;
}
