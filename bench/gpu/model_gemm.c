/* model_gemm.c — tiled GEMM C += A B on the timed device model
 * (DAG_EMUL_MODEL, docs/gpu.md): what dag would make of a GPU that is not
 * here. One task per tile product, a CPU variant and a device variant,
 * their work declared (2 m n k flops, label "gemm"); nothing is computed
 * and the matrices are never touched, so N = 32768 (three 8 GiB matrices)
 * runs on a laptop.
 *
 *   DAG_DEVICES=emul DAG_EMUL_MODEL=h200 DAG_NUM_THREADS=16 \
 *       model_gemm [-n N] [-b tile]
 *
 * prints the wall time and the model's own bounds for the device alone:
 * its work (every product at the model's gemm rate, passed as -r), the
 * copies that cannot be avoided (A, B and C in, C out, at -w bytes per
 * second) and the critical path (one tile of C's products in a row); the
 * runtime's report line says what the device did.
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

/* The bodies, one per variant (the chooser keeps a history per function),
 * never run on the model. */
static void never_runs(void) {
  fprintf(stderr, "model_gemm: a body ran: run it with DAG_EMUL_MODEL\n");
  exit(1);
}
static void gemm_cpu(void *p) {
  (void)p;
  never_runs();
}
static void gemm_device(void *p) {
  (void)p;
  never_runs();
}

static double gemm_work(const void *p) {
  const struct gemm_args *g = p;
  return 2.0 * g->m * g->n * g->k;
}

static const struct dag_pointers gemm_pointers[] = {
    {offsetof(struct gemm_args, a), 3}};
static const struct dag_variant on_device[] = {{gemm_device, DAG_DEVICE_CUDA}};
static const struct dag_task_info gemm_info = {.fn = gemm_cpu,
                                               .label = "gemm",
                                               .file = __FILE__,
                                               .line = __LINE__,
                                               .variants = on_device,
                                               .nvariants = 1,
                                               .pointers = gemm_pointers,
                                               .npointers = 1,
                                               .work = gemm_work};

/* n x n doubles of address space, never touched. */
static double *untouched(int n) {
  void *p = mmap(NULL, (size_t)n * n * sizeof(double), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("model_gemm: mmap");
    exit(1);
  }
  return p;
}

/* Tile (i, j) of an n x n row-major matrix, b x b. */
static struct dag_access tile(enum dag_mode mode, const double *m, int n, int b,
                              int i, int j) {
  const double *at = m + (size_t)i * b * n + (size_t)j * b;
  return (struct dag_access){mode,
                             dag_region_2d(at, (size_t)b, (size_t)b * sizeof *m,
                                           (size_t)n * sizeof *m)};
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int n = 8192, b = 2048;
  double rate = 60e12, bandwidth = 55e9;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n"))
      n = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-b"))
      b = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-r"))
      rate = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-w"))
      bandwidth = atof(argv[i + 1]);
  }
  if (b <= 0 || n <= 0 || n % b) {
    fprintf(stderr, "usage: model_gemm [-n N] [-b tile dividing N] "
                    "[-r device flop/s] [-w copy bytes/s]\n");
    return 2;
  }
  double *a = untouched(n), *bm = untouched(n), *c = untouched(n);
  int nt = n / b;
  double t0 = now();
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++)
      for (int l = 0; l < nt; l++) {
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
        dag_check(dag_submit(&gemm_info, &g, sizeof g, acc, 3));
      }
  dag_check(dag_taskwait());
  double wall = now() - t0;
  double work = 2.0 * n * n * (double)n / rate;
  double copies = 4.0 * n * n * sizeof(double) / bandwidth;
  double path = nt * 2.0 * b * b * (double)b / rate;
  double bound = work > copies ? work : copies;
  bound = bound > path ? bound : path;
  int workers = dag_num_workers();
  dag_check(dag_finalize()); /* its report line comes first */
  printf("model_gemm n=%d b=%d tasks=%d workers=%d wall=%.4f bound=%.4f "
         "(work %.4f, copies %.4f, path %.4f) bound/wall=%.3f\n",
         n, b, nt * nt * nt, workers, wall, bound, work, copies, path,
         bound / wall);
  return 0;
}
