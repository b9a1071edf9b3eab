/* model_work.c — a task function that declares its work (`work(...)`), run
 * on the emulated device's timed model (DAG_EMUL_MODEL=model_work.model):
 * no body runs, the data is left as it was, and the run takes at least
 * what the model charges (8 tasks of 8e6 units at 1e9 a second, on the
 * device or a CPU core: at least 8 ms, whatever the split). What the
 * model charges is also read back through dag_model_seconds and
 * dag_model_copy_seconds, as the benchmarks' bounds read it. */
#define _POSIX_C_SOURCE 200809L
#include <dag.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static atomic_int bodies_run;

#pragma dag task inout(x [0:n]) work(1e6 * n) label("scale")
void scale(double *x, int n);

#pragma dag task implements(scale) device(cuda)
void scale_on_device(double *x, int n);

void scale(double *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] *= 2;
  atomic_fetch_add(&bodies_run, 1);
}

void scale_on_device(double *x, int n) {
  (void)x;
  (void)n;
  atomic_fetch_add(&bodies_run, 1);
}

int main(void) {
  enum { BLOCKS = 8, N = 8 };
  static double x[BLOCKS * N];
  for (int i = 0; i < BLOCKS * N; i++)
    x[i] = i;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int b = 0; b < BLOCKS; b++)
    scale(x + b * N, N);
#pragma dag taskwait
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double took =
      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  int intact = 1;
  for (int i = 0; i < BLOCKS * N; i++)
    intact &= x[i] == i;
  /* model_work.model: 1e9 a second and a launch of 1 us; copies at 10 GB/s
   * and 1 us each way; no rate for any other label. */
  int reads = fabs(dag_model_seconds("scale", 8e6) - 0.008001) < 1e-12 &&
              fabs(dag_model_copy_seconds(1, 1e9) - 0.100001) < 1e-12 &&
              fabs(dag_model_copy_seconds(0, 0) - 1e-6) < 1e-12 &&
              dag_model_seconds("other", 1) == DAG_EINVAL;
  printf("bodies run: %d; data intact: %s; at least the model's 8 ms: %s; "
         "the model read back: %s\n",
         atomic_load(&bodies_run), intact ? "yes" : "no",
         took >= 0.008 ? "yes" : "no", reads ? "yes" : "no");
  return 0;
}
