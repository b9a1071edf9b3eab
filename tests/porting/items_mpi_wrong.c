/* items_mpi.c without its item: under MPI the task runs on one rank, and
 * what it writes stays there. dagcc -Wdag-mpi flags it. */
#include <dag.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static void fill(double *a, int n, double v) {
  for (int i = 0; i < n; i++)
    a[i] = v;
}

int main(void) {
  double *a = calloc(N, sizeof *a); /* replicated: every rank has its own */
#pragma dag task /* WRONG under MPI: only one rank's a changes */
  fill(a, N, 1.0);
#pragma dag taskwait
  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += a[i] != 1.0;
  printf("rank %d of %d: %d wrong elements\n", dag_rank(), dag_nranks(), wrong);
  free(a);
  return wrong != 0;
}
