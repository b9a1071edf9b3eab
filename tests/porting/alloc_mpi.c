/* Memory under MPI: data that tasks share comes from dag_alloc, called on
 * every rank outside tasks. malloc in a task body is memory of the rank
 * that runs it: scratch, freed before the body ends. */
#include <dag.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
#define BLK (1 << 12)
#define NB (N / BLK)

int main(void) {
  double *x = dag_alloc(N * sizeof(double), dag_dist_block(sizeof(double), BLK));
  double *part = dag_alloc(NB * sizeof(double), dag_dist_block(sizeof(double), 1));
  for (int b = 0; b < NB; b++) {
    int lo = b * BLK;
#pragma dag task out(x[lo : BLK])
    {
      double *tmp = malloc(BLK * sizeof *tmp); /* scratch of this task */
      for (int i = 0; i < BLK; i++)
        tmp[i] = lo + i;
      for (int i = 0; i < BLK; i++)
        x[lo + i] = 2 * tmp[i];
      free(tmp);
    }
#pragma dag task in(x[lo : BLK]) out(part[b])
    {
      double s = 0;
      for (int i = 0; i < BLK; i++)
        s += x[lo + i];
      part[b] = s;
    }
  }
  double total = 0;
#pragma dag task in(part[0:NB]) out(total)
  {
    double s = 0;
    for (int b = 0; b < NB; b++)
      s += part[b];
    total = s;
  }
#pragma dag taskwait
  printf("rank %d: total = %.0f\n", dag_rank(), total);
  dag_free(part);
  dag_free(x);
  return total == (double)N * (N - 1) ? 0 : 1;
}
