/* device_triangles: a tiled Cholesky factorization whose tasks on diagonal
 * tiles name only the triangle they touch: syrk on the device
 * (device(cuda), here on the emulated device: DAG_DEVICES=emul), potrf on
 * the device or the host (a CPU variant), trsm on the host. The strict
 * upper triangle of each diagonal tile, which the factorization leaves
 * alone, counts the steps: a host task adds to it while syrk updates the
 * lower triangle of the same tile on the device, at the same time. Neither
 * may carry the other's bytes.
 * Prints a checksum of each block column, the same as the program built
 * without dagcc, and checks L L^T against A and the counts (exit 1 if
 * wrong): tests/mpi runs it on 1-4 ranks too. */
#include <stdio.h>
#ifdef _DAG
#include <dag.h>
#endif

enum { N = 384, BS = 64, NT = N / BS };

static double A[N][N];

/* The device kernels, and the device bodies that queue them on the
 * emulated device (built without dagcc, the body runs the kernel). */
struct tile_args {
  double (*c)[N];
  double (*a)[N]; /* syrk: C -= A A^T on C's lower triangle */
};

/* sqrt by Newton's steps, a fixed number of them: no libm to link. */
static double root(double x) {
  double r = x > 1 ? x : 1;
  for (int i = 0; i < 60; i++)
    r = 0.5 * (r + x / r);
  return r;
}

static void potrf_kernel(void *p) {
  double(*t)[N] = ((struct tile_args *)p)->c;
  for (int j = 0; j < BS; j++) {
    for (int m = 0; m < j; m++)
      t[j][j] -= t[j][m] * t[j][m];
    t[j][j] = root(t[j][j]);
    for (int i = j + 1; i < BS; i++) {
      for (int m = 0; m < j; m++)
        t[i][j] -= t[i][m] * t[j][m];
      t[i][j] /= t[j][j];
    }
  }
}

static void syrk_kernel(void *p) {
  struct tile_args *s = p;
  for (int i = 0; i < BS; i++)
    for (int j = 0; j <= i; j++)
      for (int m = 0; m < BS; m++)
        s->c[i][j] -= s->a[i][m] * s->a[j][m];
}

static void launch(void (*kernel)(void *), struct tile_args *a) {
#ifdef _DAG
  dag_emul_launch(kernel, a, sizeof *a);
#else
  kernel(a);
#endif
}

#pragma dag task device(cuda) inout(lower(t[0:BS][0:BS]))
void potrf(double (*t)[N]);
void potrf(double (*t)[N]) { launch(potrf_kernel, &(struct tile_args){t, 0}); }

#pragma dag task implements(potrf) device(cpu)
void potrf_cpu(double (*t)[N]);
void potrf_cpu(double (*t)[N]) { potrf_kernel(&(struct tile_args){t, 0}); }

#pragma dag task device(cuda) in(a[0:BS][0:BS]) inout(lower(c[0:BS][0:BS]))
void syrk(double (*a)[N], double (*c)[N]);
void syrk(double (*a)[N], double (*c)[N]) {
  launch(syrk_kernel, &(struct tile_args){c, a});
}

/* B = B L^-T, L the lower triangle of the diagonal tile. */
#pragma dag task in(lower(l[0:BS][0:BS])) inout(b[0:BS][0:BS])
void trsm(double (*l)[N], double (*b)[N]);
void trsm(double (*l)[N], double (*b)[N]) {
  for (int i = 0; i < BS; i++)
    for (int j = 0; j < BS; j++) {
      for (int m = 0; m < j; m++)
        b[i][j] -= b[i][m] * l[j][m];
      b[i][j] /= l[j][j];
    }
}

/* C -= A B^T. */
#pragma dag task in(a[0:BS][0:BS], b[0:BS][0:BS]) inout(c[0:BS][0:BS])
void gemm(double (*a)[N], double (*b)[N], double (*c)[N]);
void gemm(double (*a)[N], double (*b)[N], double (*c)[N]) {
  for (int i = 0; i < BS; i++)
    for (int j = 0; j < BS; j++)
      for (int m = 0; m < BS; m++)
        c[i][j] -= a[i][m] * b[j][m];
}

/* The step count kept above the diagonal. */
#pragma dag task inout(unit_upper(t[0:BS][0:BS]))
void count_step(double (*t)[N], int k);
void count_step(double (*t)[N], int k) {
  for (int i = 0; i < BS; i++)
    for (int j = i + 1; j < BS; j++)
      t[i][j] += k + 1;
}

static double (*tile(int i, int j))[N] {
  return (double(*)[N]) & A[i * BS][j * BS];
}

static double initial(int i, int j) {
  return 1.0 / (1 + (i > j ? i - j : j - i)) + (i == j ? N : 0);
}

/* Whether L L^T is A within rounding, and every diagonal tile's strict
 * upper triangle counted its steps. */
static int check(void) {
  double worst = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int m = 0; m <= j; m++)
        s += A[i][m] * A[j][m];
      double e = s - initial(i, j);
      worst = e > worst ? e : -e > worst ? -e : worst;
    }
  int wrong = worst > 1e-9 * N;
  for (int t = 0; t < NT; t++)
    for (int i = t * BS; i < (t + 1) * BS; i++)
      for (int j = i + 1; j < (t + 1) * BS; j++) {
        double want = initial(i, j);
        for (int k = 0; k < t; k++)
          want += k + 1;
        wrong |= A[i][j] != want;
      }
  return wrong;
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = initial(i, j);
  for (int k = 0; k < NT; k++) {
    potrf(tile(k, k));
    for (int i = k + 1; i < NT; i++)
      trsm(tile(k, k), tile(i, k));
    for (int i = k + 1; i < NT; i++) {
      syrk(tile(i, k), tile(i, i));
      count_step(tile(i, i), k);
      for (int j = k + 1; j < i; j++)
        gemm(tile(i, k), tile(j, k), tile(i, j));
    }
  }
#pragma dag taskwait
  for (int j = 0; j < NT; j++) {
    double sum = 0;
    for (int i = j * BS; i < N; i++)
      for (int c = j * BS; c < (j + 1) * BS; c++)
        sum += A[i][c];
    printf("column %d: %.10e\n", j, sum);
  }
  int wrong = check();
  printf("check: %s\n", wrong ? "WRONG" : "ok");
  return wrong;
}
