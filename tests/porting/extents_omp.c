/* OpenMP original: tiles reached through an array of pointers, as in the
 * sparse LU of the BOTS suite. OpenMP matches depend items by their start
 * address, so A[k:BS * BS] stands for tile k although it names BS * BS
 * pointers. */
// clang-format off
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
#pragma omp parallel
#pragma omp single
  {
    for (int k = 0; k < NT; k++) {
#pragma omp task depend(out: A[k:BS * BS])
      for (int i = 0; i < BS * BS; i++)
        A[k][i] = 1;
    }
    for (int k = 1; k < NT; k++) {
#pragma omp task depend(in: A[k - 1:BS * BS]) depend(inout: A[k:BS * BS])
      add(A[k], A[k - 1], BS * BS);
    }
#pragma omp taskwait
  }
  printf("A[%d][0] = %g\n", NT - 1, A[NT - 1][0]);
  for (int k = 0; k < NT; k++)
    free(A[k]);
  free(A);
  return 0;
}
