/* The port of extents_omp.c with its depend items kept as they were:
 * A[k:BS * BS] names BS * BS pointers, not tile k. dagcc warns. */
#include <stdio.h>
#include <stdlib.h>

#define NT 8
#define BS 32

static void add(float *dst, const float *src, int n) {
  for (int i = 0; i < n; i++)
    dst[i] += src[i];
}

int main(void) {
  float **A = malloc(NT * sizeof *A);
  for (int k = 0; k < NT; k++)
    A[k] = malloc(BS * BS * sizeof **A);
  for (int k = 0; k < NT; k++) {
#pragma dag task out(A[k:BS * BS]) /* WRONG: the pointers, not the tile */
    for (int i = 0; i < BS * BS; i++)
      A[k][i] = 1;
  }
  for (int k = 1; k < NT; k++) {
#pragma dag task in(A[k - 1:BS * BS]) inout(A[k:BS * BS]) /* WRONG */
    add(A[k], A[k - 1], BS * BS);
  }
#pragma dag taskwait
  printf("A[%d][0] = %g\n", NT - 1, A[NT - 1][0]);
  for (int k = 0; k < NT; k++)
    free(A[k]);
  free(A);
  return 0;
}
