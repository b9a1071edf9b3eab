/* dag port of a stencil whose kernels a script generates into a header
 * (stencil_kernels.h, no pragma there): this file declares the kernels
 * again, after the header, each with a task pragma that names what it
 * reads and writes. Every direct call of them in this file is a task. */
#include <stdio.h>
#include <stdlib.h>

#include "stencil_kernels.h"

#pragma dag task in(in[(lo - 1) * n : (hi - lo + 2) * n]) \
                 inout(out[lo * n : (hi - lo) * n])
static void star1(int n, int lo, int hi, const double *restrict in,
                  double *restrict out);
#pragma dag task in(in[(lo - 2) * n : (hi - lo + 4) * n]) \
                 inout(out[lo * n : (hi - lo) * n])
static void star2(int n, int lo, int hi, const double *restrict in,
                  double *restrict out);

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
  for (int it = 0; it < ITERS; it++) {
    for (int lo = r; lo < N - r; lo += B) {
      int hi = lo + B < N - r ? lo + B : N - r;
      if (r == 1)
        star1(N, lo, hi, in, out); /* a task */
      else
        star2(N, lo, hi, in, out); /* a task */
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
