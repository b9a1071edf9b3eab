/* dag port of a stencil whose kernels a script generates into a header
 * (stencil_kernels.h, no pragma there): the task pragma goes on the call,
 * in this file, which dagcc rewrites. The kernel is chosen through a
 * pointer, as the Parallel Research Kernels choose theirs. */
#include <stdio.h>
#include <stdlib.h>

#include "stencil_kernels.h"

#define N 200 /* grid points per side */
#define B 16  /* rows per task */
#define ITERS 5

static void bump(double *x, int n) {
  for (int k = 0; k < n; k++)
    x[k] += 1.0 + k % 3;
}

static double run(int r) {
  double *in = malloc(N * N * sizeof *in), *out = calloc(N * N, sizeof *out);
  for (int k = 0; k < N * N; k++)
    in[k] = k % 7 + k / N % 5;
  stencil_fn *stencil = r == 1 ? star1 : star2;
  for (int it = 0; it < ITERS; it++) {
    for (int lo = r; lo < N - r; lo += B) {
      int hi = lo + B < N - r ? lo + B : N - r;
#pragma dag task in(in[(lo - r) * N : (hi - lo + 2 * r) * N]) \
                 inout(out[lo * N : (hi - lo) * N])
      stencil(N, lo, hi, in, out);
    }
#pragma dag task inout(in[0 : N * N])
    bump(in, N * N);
  }
#pragma dag taskwait
  double sum = 0;
  for (int k = 0; k < N * N; k++)
    sum += out[k];
  free(in);
  free(out);
  return sum;
}

int main(void) {
  printf("star1: %.1f\nstar2: %.1f\n", run(1), run(2));
  return 0;
}
