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
 * returns (an undeferred task waits for the tasks it depends on first, so
 * the products go in an order where those are long done). The host's work
 * for a task is the CPU time the submitting thread spends in dag_submit:
 * all of it for a task that moves no data, and for one that brings a new
 * tile (the first use of each, 721 of 4096 at N = 32768) its choice,
 * device memory and copies queued, but not the model's time for packing
 * the tile's rows (3.5 ms of sleep at the h200 model's 9.4 GB/s a core:
 * a copy's cost, which the model's bounds count) nor waits for a turn.
 * Prints the median over all tasks, the quartiles and the mean, in
 * microseconds, as host_us_per_task=X, then the median of the tasks that moved
 * data, in CPU time and in wall time (the packing in it).
 */
#define _GNU_SOURCE
#include "tiles.h"

#include <dag.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

MODEL_BODY(gemm_device)

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

int main(int argc, char **argv) {
  int n = 32768, b = 2048;
  const char *usage = "host_overhead [-n N] [-b tile dividing N]";
  const struct bench_opt opts[] = {TILE_OPTS(&n, &b), BENCH_OPT_END};
  int rc = bench_args(argc, argv, opts, usage);
  if (rc >= 0 || n % b)
    return bench_usage(rc, usage);
  double *a = untouched(n), *bm = untouched(n), *c = untouched(n);
  int nt = n / b, tasks = nt * nt * nt, k = 0, moving = 0;
  /* Each task's CPU time, then those of the tasks that moved data, and
   * their wall times. */
  double *us = malloc(3 * (size_t)tasks * sizeof *us);
  double *moving_us = us + tasks, *moving_wall = moving_us + tasks;
  /* l outermost: the task before one on the same tile of C was submitted
   * nt * nt tasks earlier, long done, so that no submission waits for it. */
  for (int l = 0; l < nt; l++)
    for (int i = 0; i < nt; i++)
      for (int j = 0; j < nt; j++) {
        struct dag_access acc[3];
        struct gemm_args g = gemm_tile(a, bm, c, n, b, i, j, l, acc);
        double wall = bench_now(), cpu = bench_cpu(0);
        dag_check(dag_submit(&gemm_info, &g, sizeof g, acc, 3));
        us[k++] = 1e6 * (bench_cpu(0) - cpu);
        if (!l || !i || !j) { /* the first use of C(i,j), B(l,j) or A(i,l) */
          moving_us[moving] = us[k - 1];
          moving_wall[moving++] = 1e6 * (bench_now() - wall);
        }
      }
  dag_check(dag_taskwait());
  dag_check(dag_finalize());
  double sum = 0;
  for (k = 0; k < tasks; k++)
    sum += us[k];
  qsort(us, (size_t)tasks, sizeof *us, by_value);
  qsort(moving_us, (size_t)moving, sizeof *us, by_value);
  qsort(moving_wall, (size_t)moving, sizeof *us, by_value);
  printf("host_overhead n=%d b=%d tasks=%d host_us_per_task=%.1f "
         "(quartiles %.1f, %.1f; mean %.1f) moving=%d moving_us=%.1f "
         "moving_wall_us=%.1f\n",
         n, b, tasks, us[tasks / 2], us[tasks / 4], us[3 * tasks / 4],
         sum / tasks, moving, moving_us[moving / 2], moving_wall[moving / 2]);
  free(us);
  return 0;
}
