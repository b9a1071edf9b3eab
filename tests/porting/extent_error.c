/* An item whose length is in bytes where elements were meant: it reaches
 * past its dag_alloc allocation, and dag stops the program, naming the
 * task and the item. */
#include <dag.h>
#include <stdio.h>

#define NB 4
#define BS 256

static void fill(double *v, int n, double value) {
  for (int i = 0; i < n; i++)
    v[i] = value;
}

int main(void) {
  double *x = dag_alloc(NB * BS * sizeof(double),
                        dag_dist_block(sizeof(double), BS));
  for (int b = 0; b < NB; b++) {
#pragma dag task out(x[b * BS : BS * sizeof(double)]) /* WRONG: bytes */
    fill(&x[b * BS], BS, b);
  }
#pragma dag taskwait
  printf("x[%d] = %g\n", NB * BS - 1, x[NB * BS - 1]);
  dag_free(x);
  return 0;
}
