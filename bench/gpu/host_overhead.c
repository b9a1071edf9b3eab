/* host_overhead.c — the host's work per device task: what dag spends on the
 * CPU to place a GEMM tile task on a device (choice, device memory, copies
 * queued, coherence), measured on the emulated device's timed model so that
 * no body computes and no byte moves.
 *
 *   DAG_DEVICES=emul DAG_EMUL_MODEL=h200 DAG_NUM_THREADS=1 \
 *       host_overhead [-n N] [-b tile]
 *
 * Each tile product C(i,j) += A(i,l) B(l,j) of an N x N row-major matrix
 * (never touched) is submitted undeferred (`if(0)`), so the submitting
 * thread runs its wrapped body, which queues the work on the device and
 * returns: the time of each dag_submit is the host's work for that task
 * (an undeferred task waits for the tasks it depends on first, so the
 * products go in an order where those are long done).
 * Prints the median and the quartiles, in microseconds, as
 * host_us_per_task=X.
 */
#define _GNU_SOURCE
#include <dag.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct gemm_args {
  const double *a, *b;
  double *c;
  int m, n, k, ld;
};

static void gemm_device(void *p) {
  (void)p;
  fprintf(stderr, "host_overhead: a body ran: run it with DAG_EMUL_MODEL\n");
  exit(1);
}

static double gemm_work(const void *p) {
  const struct gemm_args *g = p;
  return 2.0 * g->m * g->n * g->k;
}

static const struct dag_pointers gemm_pointers[] = {
    {offsetof(struct gemm_args, a), 3}};
static const struct dag_task_info gemm_info = {.fn = gemm_device,
                                               .label = "gemm",
                                               .file = __FILE__,
                                               .line = __LINE__,
                                               .flags = DAG_TASK_UNDEFERRED,
                                               .device = DAG_DEVICE_CUDA,
                                               .pointers = gemm_pointers,
                                               .npointers = 1,
                                               .work = gemm_work};

static double *untouched(int n) {
  void *p = mmap(NULL, (size_t)n * n * sizeof(double), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("host_overhead: mmap");
    exit(1);
  }
  return p;
}

static struct dag_access tile(enum dag_mode mode, const double *m, int n, int b,
                              int i, int j) {
  const double *at = m + (size_t)i * b * n + (size_t)j * b;
  return (struct dag_access){mode,
                             dag_region_2d(at, (size_t)b, (size_t)b * sizeof *m,
                                           (size_t)n * sizeof *m)};
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + 1e-3 * (double)t.tv_nsec;
}

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  int n = 32768, b = 2048;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n"))
      n = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-b"))
      b = atoi(argv[i + 1]);
  }
  if (b <= 0 || n <= 0 || n % b) {
    fprintf(stderr, "usage: host_overhead [-n N] [-b tile dividing N]\n");
    return 2;
  }
  double *a = untouched(n), *bm = untouched(n), *c = untouched(n);
  int nt = n / b, tasks = nt * nt * nt, k = 0;
  double *us = malloc((size_t)tasks * sizeof *us);
  /* l outermost: the task before one on the same tile of C was submitted
   * nt * nt tasks earlier, long done, so that no submission waits for it. */
  for (int l = 0; l < nt; l++)
    for (int i = 0; i < nt; i++)
      for (int j = 0; j < nt; j++) {
        struct gemm_args g = {a + (size_t)i * b * n + (size_t)l * b,
                              bm + (size_t)l * b * n + (size_t)j * b,
                              c + (size_t)i * b * n + (size_t)j * b,
                              b,
                              b,
                              b,
                              n};
        struct dag_access acc[3] = {tile(DAG_IN, a, n, b, i, l),
                                    tile(DAG_IN, bm, n, b, l, j),
                                    tile(DAG_INOUT, c, n, b, i, j)};
        double t0 = now_us();
        dag_check(dag_submit(&gemm_info, &g, sizeof g, acc, 3));
        us[k++] = now_us() - t0;
      }
  dag_check(dag_taskwait());
  dag_check(dag_finalize());
  qsort(us, (size_t)tasks, sizeof *us, by_value);
  printf("host_overhead n=%d b=%d tasks=%d host_us_per_task=%.1f "
         "(quartiles %.1f, %.1f)\n",
         n, b, tasks, us[tasks / 2], us[tasks / 4], us[3 * tasks / 4]);
  free(us);
  return 0;
}
