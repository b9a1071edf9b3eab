/* model_check.c — checks the timed device model against this machine: a
 * tiled GEMM whose tasks run on the CPU, really (OpenBLAS, one thread a
 * task) or charged by the model (DAG_EMUL_MODEL with this core's own dgemm
 * rate), so that the two wall times can be compared (model_check.sh).
 *
 *   model_check calibrate [-b tile]   one core's dgemm rate on a tile, flop/s
 *   model_check run [-n N] [-b tile]  the tiled GEMM; prints its wall time
 *                                     and the process's CPU time in it
 *
 * The tasks are CPU tasks that declare their work (2 m n k flops, label
 * "gemm"): in a normal run they compute; on the timed model
 * (DAG_DEVICES=emul DAG_EMUL_MODEL=...) their workers sleep what the model
 * says, and nothing computes.
 */
#define _GNU_SOURCE
#include "tiles.h"
#include <cblas.h>

#include <dag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int num_threads);

static void gemm(void *p) {
  const struct gemm_args *g = p;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0,
              g->a, g->ld, g->b, g->ld, 1.0, g->c, g->ld);
}

static const struct dag_task_info gemm_info = {.fn = gemm,
                                               .label = "gemm",
                                               .file = __FILE__,
                                               .line = __LINE__,
                                               .work = gemm_work};

static double *matrix(int n) {
  double *m = malloc((size_t)n * n * sizeof *m);
  if (!m) {
    fprintf(stderr, "model_check: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < (size_t)n * n; i++)
    m[i] = (double)(i % 7) / 7;
  return m;
}

/* The median rate of 15 products of b x b tiles on one thread, each timed
 * in the thread's CPU time: what the core does when it has it (on a shared
 * machine, a product's wall time also counts others holding the core).
 * Tiles of the run's n x n matrices instead, a different one each time,
 * gave rates from 0.55 to 0.95 of these under load (memory shared with
 * other processes' compilers), where the run's own tasks, which reuse
 * their tiles, were steady. */
static double calibrate(int b) {
  enum { PRODUCTS = 15 };
  double *a = matrix(b), *bm = matrix(b), *c = matrix(b), rates[PRODUCTS];
  for (int r = 0; r < PRODUCTS; r++) {
    double t0 = bench_cpu(0);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, b, b, 1.0, a, b,
                bm, b, 1.0, c, b);
    rates[r] = 2.0 * b * b * b / (bench_cpu(0) - t0);
  }
  qsort(rates, PRODUCTS, sizeof *rates, by_value);
  free(a);
  free(bm);
  free(c);
  return rates[PRODUCTS / 2];
}

/* The tiled GEMM's wall time, and the CPU time of every thread of the
 * process during it into *cpu. */
static double run(int n, int b, double *cpu) {
  double *a = matrix(n), *bm = matrix(n), *c = matrix(n);
  dag_check(dag_init()); /* its start-up is in neither time */
  double cpu0 = bench_cpu(1);
  double wall = timed_gemm(&gemm_info, a, bm, c, n, b);
  *cpu = bench_cpu(1) - cpu0;
  free(a);
  free(bm);
  free(c);
  return wall;
}

int main(int argc, char **argv) {
  int n = 4096, b = 512;
  const struct bench_opt opts[] = {TILE_OPTS(&n, &b), BENCH_OPT_END};
  /* The options after the command. */
  int bad =
      argc < 2 || bench_parse("model_check", argc - 1, argv + 1, opts, stderr);
  openblas_set_num_threads(1); /* one thread a task, as the model's core */
  int calibrating = !bad && !strcmp(argv[1], "calibrate");
  if (bad || (!calibrating && (strcmp(argv[1], "run") || n % b))) {
    fprintf(stderr, "usage: model_check calibrate [-b tile] | run [-n N] "
                    "[-b tile dividing N]\n");
    return 2;
  }
  if (calibrating) {
    printf("model_check calibrate b=%d rate=%.4g\n", b, calibrate(b));
    return 0;
  }
  double cpu, wall = run(n, b, &cpu);
  printf("model_check run n=%d b=%d tasks=%d workers=%d wall=%.4f cpu=%.4f\n",
         n, b, (n / b) * (n / b) * (n / b), dag_num_workers(), wall, cpu);
  dag_check(dag_finalize());
  return 0;
}
