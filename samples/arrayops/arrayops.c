/* arrayops.c — array operations as tasks: fill, map (axpy), reduce (sum,
 * count, max), norm, and a tiled transpose.
 *
 * Vectors of n doubles are cut into chunks; every operation is one task per
 * chunk, and the runtime chains them by the chunks they share: the axpy of
 * chunk c starts as soon as the fills of x and y for chunk c are done, the
 * sum of chunk c as soon as its axpy is, and so on, with no barrier between
 * the operations.
 *
 * - fill and axpy are task functions: a `#pragma dag task` before the
 *   prototype makes every call of the function a task.
 * - The sum is reduced into one partial per chunk, then the partials are
 *   added in chunk order after `taskwait on(...)` on them: the same bits as
 *   the sequential program, whatever ran in parallel. The count of positive
 *   elements and the maximum use `commutative(...)`: the chunks' tasks
 *   update them one at a time in any order, which is exact here (integer
 *   sum, maximum).
 * - The norm is one task with nested tasks: its body submits a task per
 *   chunk, waits for its own children and combines their partials in order.
 * - The transpose reads a rows x cols matrix held in a plain `double *`,
 *   seen through OpenMP array shaping `([rows][cols])m`, and writes its
 *   cols x rows transpose `double (*mt)[rows]`, one task per tile, with
 *   2-D sections on both.
 *
 *   arrayops [n [chunk [rows [cols [tile]]]]]
 *            default 4000000, 65536, 1500, 1000, 64
 *
 * Prints the results to the last bit, the same with any number of threads
 * and with plain cc (pragmas ignored); the time is on its own line starting
 * with "time:".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* --------------------------------------------------- task functions */

/* x[i] = a pseudo-random value in [-1, 1) from the global index lo + i. */
#pragma dag task out(x[0:len]) label("fill")
static void fill(double *x, long lo, long len, unsigned seed);

/* y = a x + y on one chunk. */
#pragma dag task in(x[0:len]) inout(y[0:len]) label("axpy")
static void axpy(double a, const double *x, double *y, long len);

/* x[i] for global indices lo .. lo + len - 1: a plain function (no pragma),
 * called by the task function fill and by the tasks that fill m. */
static void fill_values(double *x, long lo, long len, unsigned seed) {
  for (long i = 0; i < len; i++) {
    unsigned long z = (unsigned long)(lo + i) * 2654435761u + seed;
    z ^= z >> 15;
    z *= 0x2c1b3c6dul;
    z ^= z >> 12;
    x[i] = (double)(z & 0xffffff) / 8388608.0 - 1.0;
  }
}

static void fill(double *x, long lo, long len, unsigned seed) {
  fill_values(x, lo, len, seed);
}

static void axpy(double a, const double *x, double *y, long len) {
  for (long i = 0; i < len; i++)
    y[i] += a * x[i];
}

/* ------------------------------------------------------ plain kernels */

static double sum_of(const double *x, long len) {
  double s = 0;
  for (long i = 0; i < len; i++)
    s += x[i];
  return s;
}

static double sumsq_of(const double *x, long len) {
  double s = 0;
  for (long i = 0; i < len; i++)
    s += x[i] * x[i];
  return s;
}

static long count_positive(const double *x, long len) {
  long c = 0;
  for (long i = 0; i < len; i++)
    c += x[i] > 0;
  return c;
}

static double max_of(const double *x, long len) {
  double m = x[0];
  for (long i = 1; i < len; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

/* ---------------------------------------------------------- the norm */

/* ||x||_2 as a task whose body submits one task per chunk (its children),
 * waits for them, and adds their partials in chunk order. */
static void norm2(const double *x, long n, long chunk, double *result) {
  long nc = (n + chunk - 1) / chunk;
#pragma dag task in(x[0:n]) out(*result) label("norm")
  {
    double *part = malloc(sizeof(double) * nc);
    for (long c = 0; c < nc; c++) {
      long lo = c * chunk, len = lo + chunk <= n ? chunk : n - lo;
#pragma dag task in(x[lo:len]) out(part[c]) label("norm_chunk")
      part[c] = sumsq_of(x + lo, len);
    }
#pragma dag taskwait
    double s = 0;
    for (long c = 0; c < nc; c++)
      s += part[c];
    *result = sqrt(s);
    free(part);
  }
}

/* ------------------------------------------------------ the transpose */

/* mt = m^T, m a rows x cols matrix in a plain pointer, in tiles. */
static void transpose(int rows, int cols, const double *m, double (*mt)[rows],
                      int tile) {
  for (int i0 = 0; i0 < rows; i0 += tile)
    for (int j0 = 0; j0 < cols; j0 += tile) {
      int bi = i0 + tile <= rows ? tile : rows - i0;
      int bj = j0 + tile <= cols ? tile : cols - j0;
#pragma dag task in(([rows][cols])m[i0:bi][j0:bj]) out(mt[j0:bj][i0:bi])     \
    label("transpose")
      for (int i = i0; i < i0 + bi; i++)
        for (int j = j0; j < j0 + bj; j++)
          mt[j][i] = m[(long)i * cols + j];
    }
}

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4000000;
  long chunk = argc > 2 ? atol(argv[2]) : 65536;
  int rows = argc > 3 ? atoi(argv[3]) : 1500;
  int cols = argc > 4 ? atoi(argv[4]) : 1000;
  int tile = argc > 5 ? atoi(argv[5]) : 64;
  if (n < 1 || chunk < 1 || rows < 1 || cols < 1 || tile < 1) {
    fprintf(stderr, "usage: %s [n [chunk [rows [cols [tile]]]]]\n", argv[0]);
    return 2;
  }
  long nc = (n + chunk - 1) / chunk;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  double *part = malloc(sizeof(double) * nc);
  double *m = malloc(sizeof(double) * rows * cols);
  double(*mt)[rows] = malloc(sizeof(double[cols][rows]));
  if (!x || !y || !part || !m || !mt) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 1;
  }
  double t0 = now();

  /* fill, then map: y = 0.5 x + y, chunk by chunk */
  const double a = 0.5;
  for (long c = 0; c < nc; c++) {
    long lo = c * chunk, len = lo + chunk <= n ? chunk : n - lo;
    fill(x + lo, lo, len, 1);
    fill(y + lo, lo, len, 2);
    axpy(a, x + lo, y + lo, len);
  }

  /* reduce: a partial sum per chunk; the count and the maximum are
   * commutative updates of one variable each */
  long positives = 0;
  double ymax = -INFINITY;
  for (long c = 0; c < nc; c++) {
    long lo = c * chunk, len = lo + chunk <= n ? chunk : n - lo;
#pragma dag task in(y[lo:len]) out(part[c]) label("sum")
    part[c] = sum_of(y + lo, len);
#pragma dag task in(y[lo:len]) commutative(positives) label("count")
    positives += count_positive(y + lo, len);
#pragma dag task in(y[lo:len]) commutative(ymax) label("max")
    {
      double cm = max_of(y + lo, len);
      if (cm > ymax)
        ymax = cm;
    }
  }

  /* the norm of y, a task with nested tasks */
  double ynorm = 0;
  norm2(y, n, chunk, &ynorm);

  /* the transpose: fill m by block rows (shaped), then transpose by tiles */
  for (int i0 = 0; i0 < rows; i0 += tile) {
    int bi = i0 + tile <= rows ? tile : rows - i0;
#pragma dag task out(([rows][cols])m[i0:bi][0:cols]) label("fill_m")
    fill_values(m + (long)i0 * cols, (long)i0 * cols, (long)bi * cols, 3);
  }
  transpose(rows, cols, m, mt, tile);

  /* the sum: wait only for the partials (the rest keeps running) */
#pragma dag taskwait on(part[0:nc])
  double ysum = 0;
  for (long c = 0; c < nc; c++)
    ysum += part[c];

#pragma dag taskwait
  double t = now() - t0;

  /* check the transpose, and a position-weighted checksum of it */
  long wrong = 0;
  double tsum = 0;
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      wrong += mt[j][i] != m[(long)i * cols + j];
      tsum += mt[j][i] * (double)(1 + (j * rows + i) % 11);
    }

  printf("arrayops n=%ld chunk=%ld chunks=%ld\n", n, chunk, nc);
  printf("axpy: y[0]=%.17g y[n/2]=%.17g y[n-1]=%.17g\n", y[0], y[n / 2],
         y[n - 1]);
  printf("sum: %.17g\n", ysum);
  printf("positives: %ld max: %.17g\n", positives, ymax);
  printf("norm: %.17g\n", ynorm);
  printf("transpose %dx%d tile %d: checksum %.17g, %s\n", rows, cols, tile,
         tsum, wrong ? "WRONG" : "ok");
  printf("time: %.4f s\n", t);
  free(x);
  free(y);
  free(part);
  free(m);
  free(mt);
  return wrong != 0;
}
