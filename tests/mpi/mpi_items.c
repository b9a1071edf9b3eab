/* mpi_items: DAG_CHECK_ITEMS catches a task body that writes bytes outside
 * its items (issue 48). Built with dagcc; run under mpiexec on 1 or more
 * ranks, with DAG_CHECK_ITEMS=1:
 *
 *   mpi_items tokens      the PRK p2p wavefront as a port had it: each task
 *                         names one element of its tile ("tokens"), the
 *                         corner, and writes the whole tile. Under MPI
 *                         only the corners travel and the answer is wrong,
 *                         with exit status 0; checked, the run stops at
 *                         the first tile, naming 'sweep' and its bytes;
 *   mpi_items tiles       the same wavefront with whole tiles and halos as
 *                         items: strided tiles whose rows share pages with
 *                         their neighbours'. Runs clean, checked or not,
 *                         and checks its answer;
 *   mpi_items inwrite     'tamper' declares in(x[0:N]) and writes x[3];
 *   mpi_items replicated  'spill' declares out(r[0:N/2]) of a malloc'd array
 *                         and writes all of it; 'reader' declares the other
 *                         half;
 *   mpi_items nested      a body's child 'inner' writes 8 bytes past its
 *                         half of the tile; the parent, and the other
 *                         child, write only their items;
 *   mpi_items nested_ok   the same with every child honest: runs clean;
 *   mpi_items blocks      honest tasks that read blocks of 128 KiB homed on
 *                         other ranks: large receives, which Open MPI's
 *                         shared memory copies with process_vm_readv (a
 *                         protected page would fail it) while the
 *                         receiving rank runs other bodies. Runs clean;
 *   mpi_items nullwrite   a body writes through NULL: the process still
 *                         dies of SIGSEGV, not swallowed by the guard.
 *
 * The lines the messages must name are marked with @markers@. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

#define B 32   /* tile side, in elements */
#define NT 6   /* tiles per side */
#define M (1 + NT * B) /* the grid, with a boundary row and column */

/* Row i of tile row I is grid row 1 + I * B + i; the same for columns. */
static void sweep_tile(double (*A)[M], int I, int J) {
  for (int i = 1 + I * B; i <= (I + 1) * B; i++)
    for (int j = 1 + J * B; j <= (J + 1) * B; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1] - A[i - 1][j - 1];
}

/* A[i][j] = i + j when every tile saw its neighbours' values. */
static int wavefront(double (*A)[M], int tokens) {
#pragma dag task out(A[0][0:M], A[0:M][0]) label("boundary")
  {
    for (int k = 0; k < M; k++)
      A[0][k] = A[k][0] = k;
  }
  for (int I = 0; I < NT; I++)
    for (int J = 0; J < NT; J++) {
      if (tokens) {
        /* WRONG: one element of each tile, its corner, stands for the
         * tile (the boundary's first element for the boundary) */
        double *up = I ? &A[1 + (I - 1) * B][1 + J * B] : &A[0][0];
        double *left = J ? &A[1 + I * B][1 + (J - 1) * B] : &A[0][0];
#pragma dag task inout(A[1 + I * B][1 + J * B]) in(*up, *left) label("sweep") /* @sweep@ */
        sweep_tile(A, I, J);
      } else {
#pragma dag task inout(A[1 + I * B : B][1 + J * B : B]) in(A[I * B][J * B : B + 1], A[1 + I * B : B][J * B]) label("sweep")
        sweep_tile(A, I, J);
      }
    }
#pragma dag taskwait on(A[0:M][0:M])
  int wrong = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      wrong += A[i][j] != i + j;
  return wrong;
}

#define N 4096 /* doubles: 32 KiB, whole pages */

static void inwrite(void) {
  double *x = dag_alloc(N * sizeof *x, dag_dist_block(sizeof *x, N)); /* @x@ */
#pragma dag task out(x[0:N]) label("fill")
  for (int i = 0; i < N; i++)
    x[i] = i;
  double sum = 0;
#pragma dag task in(x[0:N]) out(sum) label("tamper") /* @tamper@ */
  {
    for (int i = 0; i < N; i++)
      sum += x[i];
    x[3] = -1; /* WRONG: x is only read */
  }
#pragma dag taskwait
  printf("inwrite: sum %g\n", sum);
  dag_free(x);
}

static void replicated(void) {
  double *r = calloc(N, sizeof *r); /* replicated: every rank has one */
  double half = 0;
#pragma dag task out(r[0:N / 2]) label("spill") /* @spill@ */
  for (int i = 0; i < N; i++)
    r[i] = i; /* WRONG: the second half is not declared */
#pragma dag task in(r[N / 2:N / 2]) out(half) label("reader")
  for (int i = N / 2; i < N; i++)
    half += r[i];
#pragma dag taskwait
  printf("replicated: %g\n", half);
  free(r);
}

static void children(double *t, int honest) {
#pragma dag task inout(t[0:N / 2]) label("inner") /* @inner@ */
  for (int i = 0; i < N / 2 + (honest ? 0 : 1); i++)
    t[i] += 1;
#pragma dag task inout(t[N / 2:N / 2]) label("other")
  for (int i = N / 2; i < N; i++)
    t[i] += 2;
#pragma dag taskwait
}

static int nested(int honest) {
  double *t = dag_alloc(N * sizeof *t, dag_dist_block(sizeof *t, N));
#pragma dag task out(t[0:N]) label("outer")
  {
    for (int i = 0; i < N; i++)
      t[i] = 1;
    children(t, honest);
    for (int i = 0; i < N; i++)
      t[i] *= 10; /* after its children: checked again */
  }
#pragma dag taskwait on(t[0:N])
  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += t[i] != (i < N / 2 ? 20 : 30);
  dag_free(t);
  return wrong;
}

#define BLOCK 16384 /* doubles: 128 KiB */
#define NBLOCKS 8

/* x's blocks grow each round; y's block c adds x's block c - 1, which
 * lives on another rank. */
static int blocks(void) {
  double *x = dag_alloc(NBLOCKS * BLOCK * sizeof *x,
                        dag_dist_block(sizeof *x, BLOCK));
  double *y = dag_alloc(NBLOCKS * BLOCK * sizeof *y,
                        dag_dist_block(sizeof *y, BLOCK));
  for (int round = 0; round < 4; round++)
    for (int b = 0; b < NBLOCKS; b++) {
      int c = (b + 1) % NBLOCKS;
#pragma dag task inout(x[b * BLOCK : BLOCK]) label("grow")
      for (int i = 0; i < BLOCK; i++)
        x[b * BLOCK + i] += i + round;
#pragma dag task in(x[b * BLOCK : BLOCK]) inout(y[c * BLOCK : BLOCK]) label("add")
      for (int i = 0; i < BLOCK; i++)
        y[c * BLOCK + i] += x[b * BLOCK + i];
    }
#pragma dag taskwait on(y[0:NBLOCKS * BLOCK])
  int wrong = 0;
  for (int i = 0; i < BLOCK; i++) {
    double xi = 0, yi = 0;
    for (int round = 0; round < 4; round++) {
      xi += i + round;
      yi += xi;
    }
    for (int c = 0; c < NBLOCKS; c++)
      wrong += y[c * BLOCK + i] != yi;
  }
  dag_free(x);
  dag_free(y);
  return wrong;
}

static void nullwrite(void) {
  double *x = dag_alloc(N * sizeof *x, dag_dist_block(sizeof *x, N));
  volatile int *nowhere = NULL;
#pragma dag task out(x[0:N]) label("crash")
  {
    x[0] = 1;
    *nowhere = 1; /* a real bug: must crash as without the check */
  }
#pragma dag taskwait
  dag_free(x);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int rank = dag_rank(), wrong = 0;
  if (!strcmp(mode, "tokens") || !strcmp(mode, "tiles")) {
    double(*A)[M] =
        dag_alloc(sizeof(double[M][M]),
                  dag_dist_2d(sizeof(double), M, B, B, 1, dag_nranks()));
    wrong = wavefront(A, !strcmp(mode, "tokens"));
    printf("rank %d: %s: %d wrong elements, A[%d][%d] = %g\n", rank, mode,
           wrong, M - 1, M - 1, A[M - 1][M - 1]);
    dag_free(A);
  } else if (!strcmp(mode, "inwrite")) {
    inwrite();
  } else if (!strcmp(mode, "replicated")) {
    replicated();
  } else if (!strcmp(mode, "nested") || !strcmp(mode, "nested_ok")) {
    wrong = nested(!strcmp(mode, "nested_ok"));
    printf("rank %d: %s: %d wrong elements\n", rank, mode, wrong);
  } else if (!strcmp(mode, "blocks")) {
    wrong = blocks();
    printf("rank %d: %s: %d wrong elements\n", rank, mode, wrong);
  } else if (!strcmp(mode, "nullwrite")) {
    nullwrite();
  } else {
    fprintf(stderr, "usage: mpi_items tokens|tiles|inwrite|replicated|"
                    "nested|nested_ok|blocks|nullwrite\n");
    return 2;
  }
  return wrong != 0;
}
