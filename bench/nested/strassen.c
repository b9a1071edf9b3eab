/* strassen.c — C = A B by Strassen's algorithm, for n x n matrices.
 *
 * strassen splits A, B and C into quadrants and computes the seven products
 * M1 .. M7 of sums of quadrants as seven tasks, each into its own slice of a
 * buffer of the caller (a product forms its two sums in temporaries of its
 * own and multiplies them recursively); it waits for them and adds them up
 * into C. Matrices of order at most the cutoff are multiplied by the plain
 * triple loop. n must be a power of two. Checked with Freivalds' test:
 * C x against A (B x) for a random vector x.
 */
#include "nested.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static long size, cutoff;
static double *A, *B, *C;

/* C = A B, the plain triple loop (i, k, j). */
static void mm_seq(long n, const double *a, long lda, const double *b, long ldb,
                   double *c, long ldc) {
  for (long i = 0; i < n; i++) {
    double *ci = c + i * ldc;
    for (long j = 0; j < n; j++)
      ci[j] = 0;
    for (long k = 0; k < n; k++) {
      double aik = a[i * lda + k];
      const double *bk = b + k * ldb;
      for (long j = 0; j < n; j++)
        ci[j] += aik * bk[j];
    }
  }
}

/* s = x + sign y, all n x n; s has leading dimension n. */
static void add(long n, const double *x, long ldx, const double *y, long ldy,
                double sign, double *s) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      s[i * n + j] = x[i * ldx + j] + sign * y[i * ldy + j];
}

static void strassen(long n, const double *a, long lda, const double *b,
                     long ldb, double *c, long ldc);

/* Strassen's seven products, M = S T: each factor is a quadrant x of A (or
 * B), plus sign times quadrant y when y >= 0. Quadrants: 0 = 11, 1 = 12,
 * 2 = 21, 3 = 22. */
struct factor {
  int x, y;
  double sign;
};
static const struct factor products[7][2] = {
    {{0, 3, 1}, {0, 3, 1}},   /* M1 = (A11 + A22)(B11 + B22) */
    {{2, 3, 1}, {0, -1, 0}},  /* M2 = (A21 + A22) B11 */
    {{0, -1, 0}, {1, 3, -1}}, /* M3 = A11 (B12 - B22) */
    {{3, -1, 0}, {2, 0, -1}}, /* M4 = A22 (B21 - B11) */
    {{0, 1, 1}, {3, -1, 0}},  /* M5 = (A11 + A12) B22 */
    {{2, 0, -1}, {0, 1, 1}},  /* M6 = (A21 - A11)(B11 + B12) */
    {{1, 3, -1}, {2, 3, 1}},  /* M7 = (A12 - A22)(B21 + B22) */
};

static const double *quadrant(const double *a, long lda, long h, int q) {
  return a + (q / 2) * h * lda + (q % 2) * h;
}

/* Factor f of the h x h quadrants of a: a quadrant in place (*ld = lda), or
 * the sum of two formed in tmp (*ld = h). */
static const double *factor(const struct factor *f, const double *a, long lda,
                            long h, double *tmp, long *ld) {
  const double *x = quadrant(a, lda, h, f->x);
  *ld = lda;
  if (f->y < 0)
    return x;
  add(h, x, lda, quadrant(a, lda, h, f->y), lda, f->sign, tmp);
  *ld = h;
  return tmp;
}

/* Product k (0 to 6) of Strassen's seven for the h x h quadrants of a and b,
 * into m (leading dimension h). */
static void product(int k, long h, const double *a, long lda, const double *b,
                    long ldb, double *m) {
  double *tmp = malloc(2 * (size_t)(h * h) * sizeof *tmp);
  if (!tmp) {
    fprintf(stderr, "strassen: out of memory\n");
    exit(1);
  }
  long lds, ldt;
  const double *s = factor(&products[k][0], a, lda, h, tmp, &lds);
  const double *t = factor(&products[k][1], b, ldb, h, tmp + h * h, &ldt);
  strassen(h, s, lds, t, ldt, m, h);
  free(tmp);
}

/* c = a b for n x n matrices with leading dimensions lda, ldb, ldc. */
static void strassen(long n, const double *a, long lda, const double *b,
                     long ldb, double *c, long ldc) {
  if (n <= cutoff) {
    mm_seq(n, a, lda, b, ldb, c, ldc);
    return;
  }
  long h = n / 2, hh = h * h;
  double *m = malloc(7 * (size_t)hh * sizeof *m);
  if (!m) {
    fprintf(stderr, "strassen: out of memory\n");
    exit(1);
  }
  for (int k = 0; k < 7; k++) {
#pragma omp task
#pragma dag task out(m[k * hh:hh])
    product(k, h, a, lda, b, ldb, m + k * hh);
  }
#pragma omp taskwait
#pragma dag taskwait
  const double *m1 = m, *m2 = m + hh, *m3 = m + 2 * hh, *m4 = m + 3 * hh,
               *m5 = m + 4 * hh, *m6 = m + 5 * hh, *m7 = m + 6 * hh;
  for (long i = 0; i < h; i++) {
    double *c11 = c + i * ldc, *c12 = c11 + h, *c21 = c11 + h * ldc,
           *c22 = c21 + h;
    for (long j = 0, x = i * h; j < h; j++, x++) {
      c11[j] = m1[x] + m4[x] - m5[x] + m7[x];
      c12[j] = m3[x] + m5[x];
      c21[j] = m2[x] + m4[x];
      c22[j] = m1[x] - m2[x] + m3[x] + m6[x];
    }
  }
  free(m);
}

static int setup(long n, long c) {
  if (n < 1 || (n & (n - 1))) {
    fprintf(stderr, "strassen: n = %ld, expected a power of two\n", n);
    return 1;
  }
  size = n;
  cutoff = c < 1 ? 1 : c;
  size_t nn = (size_t)(n * n);
  A = malloc(nn * sizeof *A);
  B = malloc(nn * sizeof *B);
  C = malloc(nn * sizeof *C);
  if (!A || !B || !C) {
    fprintf(stderr, "strassen: out of memory for n = %ld\n", n);
    return 1;
  }
  for (size_t i = 0; i < nn; i++) {
    A[i] = 2 * nested_unit(i) - 1;
    B[i] = 2 * nested_unit(nn + i) - 1;
    C[i] = 0;
  }
  return 0;
}

static void run(void) { strassen(size, A, size, B, size, C, size); }

static void matvec(long n, const double *m, const double *x, double *y) {
  for (long i = 0; i < n; i++) {
    double s = 0;
    for (long j = 0; j < n; j++)
      s += m[i * n + j] * x[j];
    y[i] = s;
  }
}

static int check(char *what, size_t len) {
  long n = size;
  double *x = malloc(4 * (size_t)n * sizeof *x), *bx = x + n, *abx = bx + n,
         *cx = abx + n;
  if (!x)
    return 1;
  for (long i = 0; i < n; i++)
    x[i] = 2 * nested_unit(~(uint64_t)i) - 1;
  matvec(n, B, x, bx);
  matvec(n, A, bx, abx);
  matvec(n, C, x, cx);
  double err = 0, norm = 0;
  for (long i = 0; i < n; i++) {
    err = fmax(err, fabs(cx[i] - abx[i]));
    norm = fmax(norm, fabs(abx[i]));
  }
  free(x);
  free(A);
  free(B);
  free(C);
  double rel = err / (norm > 0 ? norm : 1);
  snprintf(what, len, "freivalds=%.1e", rel);
  if (!(rel < 1e-10)) {
    fprintf(stderr, "strassen: |Cx - ABx| / |ABx| = %g, expected < 1e-10\n",
            rel);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "strassen",
    .size = 1024,
    .cutoff = 64,
    .size_means = "n, the matrices' order (a power of two)",
    .cutoff_means =
        "matrices of order at most CUTOFF multiply by the triple loop",
    .setup = setup,
    .run = run,
    .check = check,
};
