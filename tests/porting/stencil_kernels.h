/* Stencil kernels, written by a generator script as the Parallel Research
 * Kernels write theirs (stencil_seq.h): plain C, no pragma. Each adds the
 * stencil of `in` to rows [lo, hi) of `out`, n x n grids, row-major; the
 * rows read reach the kernel's radius above and below. */
#ifndef STENCIL_KERNELS_H
#define STENCIL_KERNELS_H

typedef void stencil_fn(int n, int lo, int hi, const double *restrict in,
                        double *restrict out);

static void star1(int n, int lo, int hi, const double *restrict in,
                  double *restrict out) {
  for (int i = lo; i < hi; i++)
    for (int j = 1; j < n - 1; j++)
      out[i * n + j] += -0.5 * in[(i - 1) * n + j] + 0.5 * in[(i + 1) * n + j] -
                        0.5 * in[i * n + j - 1] + 0.5 * in[i * n + j + 1];
}

static void star2(int n, int lo, int hi, const double *restrict in,
                  double *restrict out) {
  for (int i = lo; i < hi; i++)
    for (int j = 2; j < n - 2; j++)
      out[i * n + j] +=
          -0.125 * in[(i - 2) * n + j] - 0.25 * in[(i - 1) * n + j] +
          0.25 * in[(i + 1) * n + j] + 0.125 * in[(i + 2) * n + j] -
          0.125 * in[i * n + j - 2] - 0.25 * in[i * n + j - 1] +
          0.25 * in[i * n + j + 1] + 0.125 * in[i * n + j + 2];
}

#endif
