/* device_tiles: tiles of a matrix updated by a task with a device variant
 * (device(cuda), here on the emulated device: DAG_DEVICES=emul) and a CPU
 * one (implements), row sums taken on the host between sweeps. The device
 * body indexes its tile with the host's leading dimension. The test gives
 * the emulated device a quarter of the matrix (32 MiB; tiles of 2 MiB of
 * address range, the emulated device's granule), so tiles are evicted and
 * written back. Prints the row sums of every sweep: the same as the
 * program built without dagcc. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _DAG
#include <dag.h>
#endif

enum { N = 2048, BS = 128, SWEEPS = 4 };

/* The device kernel, and the device body that queues it on the emulated
 * device (built without dagcc, the body runs the kernel itself). */
struct step_args {
  double (*t)[N];
  double by;
};

static void step_kernel(void *p) {
  struct step_args *a = p;
  for (int i = 0; i < BS; i++)
    for (int j = 0; j < BS; j++)
      a->t[i][j] = a->t[i][j] * 0.5 + a->by;
}

#pragma dag task device(cuda) inout(t[0:BS][0:BS])
void step(double (*t)[N], double by);
void step(double (*t)[N], double by) {
  struct step_args a = {t, by};
#ifdef _DAG
  dag_emul_launch(step_kernel, &a, sizeof a);
#else
  step_kernel(&a);
#endif
}

#pragma dag task implements(step) device(cpu)
void step_cpu(double (*t)[N], double by);
void step_cpu(double (*t)[N], double by) {
  for (int i = 0; i < BS; i++)
    for (int j = 0; j < BS; j++)
      t[i][j] = t[i][j] * 0.5 + by;
}

#pragma dag task in(a[0:BS][0:N]) out(*sum)
void row_sum(double (*a)[N], double *sum);
void row_sum(double (*a)[N], double *sum) {
  double s = 0;
  for (int i = 0; i < BS; i++)
    for (int j = 0; j < N; j++)
      s += a[i][j];
  *sum = s;
}

int main(void) {
  double(*a)[N] = malloc(N * sizeof *a);
  double sums[N / BS];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = (i * 7 + j * 3) % 11;
  for (int s = 0; s < SWEEPS; s++) {
    for (int i = 0; i < N; i += BS)
      for (int j = 0; j < N; j += BS)
        step((double(*)[N]) & a[i][j], s + 1);
    for (int i = 0; i < N; i += BS)
      row_sum(&a[i], &sums[i / BS]);
#pragma dag taskwait
    printf("sweep %d:", s);
    for (int b = 0; b < N / BS; b++)
      printf(" %.6f", sums[b]);
    printf("\n");
  }
  free(a);
  return 0;
}
