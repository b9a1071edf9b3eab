/* tiles.h — what the timed-model benchmarks of bench/gpu share: their
 * options, task info and report line, the tile product's arguments and
 * work, bodies that never run, tiles of a row-major matrix as regions, the
 * timed tiled product, matrices that are never touched and a sort order.
 */
#ifndef DAG_BENCH_GPU_TILES_H
#define DAG_BENCH_GPU_TILES_H

#include <dag.h>
#include <errno.h>
#include <harness.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* C(m x n) += A(m x k) B(k x n), all with leading dimension ld. */
struct gemm_args {
  const double *a, *b;
  double *c;
  int m, n, k, ld;
};

/* Its flops, the work it declares (dag_task_info.work). */
static inline double gemm_work(const void *p) {
  const struct gemm_args *g = p;
  return 2.0 * g->m * g->n * g->k;
}

/* The options -n N and -b tile of the programs (harness.h). */
#define TILE_OPTS(n, b)                                                        \
  BENCH_OPT("-n", BENCH_INT, n, 1, 1 << 30),                                   \
      BENCH_OPT("-b", BENCH_INT, b, 1, 1 << 30)

/* The options of the timed-model programs: -n N and -b, a tile dividing
 * N, and -u, matrices left unregistered (their copies packed through
 * staging buffers); then starts dag, which must time a device (else it
 * says so and ends the run, before any body can run). Returns -1 to go on,
 * else the exit status. */
static inline int model_args(int argc, char **argv, int *n, int *b,
                             int *unregistered, const char *usage) {
  const struct bench_opt opts[] = {
      TILE_OPTS(n, b), BENCH_OPT("-u", BENCH_FLAG, unregistered, 0, 0),
      BENCH_OPT_END};
  int rc = bench_args(argc, argv, opts, usage);
  if (rc >= 0 || *n % *b)
    return bench_usage(rc, usage);
  if (dag_model_copy_seconds(1, 0) < 0) {
    fprintf(stderr, "%s: %s\n", argv[0], dag_last_error());
    return 1;
  }
  return -1;
}

/* What bounds a run on the timed model's device, in what the model
 * charges (dag_model_seconds, dag_model_copy_seconds): seconds of device
 * work for every task and for its longest chain, and bytes that must be
 * copied each way, before the first kernel can start (the first task's
 * inputs) and after the last one ends (its output). */
struct model_bound {
  double work, path;
  double in_bytes, out_bytes, first_bytes, last_bytes;
};

/* s, seconds that dag_model_seconds or dag_model_copy_seconds gave; ends
 * the run, saying why, where the model could not say (negative). */
static inline double model_checked(double s) {
  if (s < 0)
    dag_check((int)s);
  return s;
}

/* Prints the program's line and ends dag: the wall time beside the bound
 * for the device alone, the largest of its work and its critical path,
 * each after the first copy in and before the last copy out, and of its
 * copies, in and out on their own engines at once. Each is a lower bound
 * on the device's span in the model. Returns the exit status. */
static inline int model_report(const char *name, int n, int b, int tasks,
                               double wall, const struct model_bound *m) {
  double edges = model_checked(dag_model_copy_seconds(1, m->first_bytes)) +
                 model_checked(dag_model_copy_seconds(0, m->last_bytes));
  double in = model_checked(dag_model_copy_seconds(1, m->in_bytes)),
         out = model_checked(dag_model_copy_seconds(0, m->out_bytes));
  double copies = in > out ? in : out;
  double work = m->work + edges, path = m->path + edges;
  double bound = work > copies ? work : copies;
  bound = bound > path ? bound : path;
  int workers = dag_num_workers();
  dag_check(dag_finalize()); /* its report line comes first */
  printf("%s n=%d b=%d tasks=%d workers=%d wall=%.4f bound=%.4f "
         "(work %.4f, copies in %.4f out %.4f, path %.4f) bound/wall=%.3f\n",
         name, n, b, tasks, workers, wall, bound, work, in, out, path,
         bound / wall);
  return 0;
}

/* A tile task: body on the host, or its variant v on the device, on
 * arguments whose first pointer (pointers) leads to its data, declaring
 * work. */
static inline struct dag_task_info
model_task(const char *label, dag_task_fn body, const struct dag_variant *v,
           const struct dag_pointers *pointers, double (*work)(const void *)) {
  return (struct dag_task_info){.fn = body,
                                .label = label,
                                .file = __FILE__,
                                .line = __LINE__,
                                .variants = v,
                                .nvariants = 1,
                                .pointers = pointers,
                                .npointers = 1,
                                .work = work};
}

/* A body of a timed-model task, which never runs there (no body
 * computes): one function per kernel and variant, as the chooser keeps a
 * history per function. */
#define MODEL_BODY(fn)                                                         \
  static void fn(void *p) {                                                    \
    (void)p;                                                                   \
    fprintf(stderr, "%s: a body ran: run it with DAG_EMUL_MODEL\n",            \
            program_invocation_short_name);                                    \
    exit(1);                                                                   \
  }

/* Tile (i, j), b x b, of an n x n row-major matrix. */
static inline double *tile_at(const double *m, int n, int b, int i, int j) {
  return (double *)m + (size_t)i * b * n + (size_t)j * b;
}

static inline struct dag_access tile(enum dag_mode mode, const double *m, int n,
                                     int b, int i, int j) {
  return (struct dag_access){
      mode, dag_region_2d(tile_at(m, n, b, i, j), (size_t)b,
                          (size_t)b * sizeof *m, (size_t)n * sizeof *m)};
}

/* The product C(i, j) += A(i, l) B(l, j) of b x b tiles of n x n matrices:
 * its arguments, and its accesses into acc. */
static inline struct gemm_args gemm_tile(const double *a, const double *bm,
                                         double *c, int n, int b, int i, int j,
                                         int l, struct dag_access acc[3]) {
  acc[0] = tile(DAG_IN, a, n, b, i, l);
  acc[1] = tile(DAG_IN, bm, n, b, l, j);
  acc[2] = tile(DAG_INOUT, c, n, b, i, j);
  return (struct gemm_args){tile_at(a, n, b, i, l),
                            tile_at(bm, n, b, l, j),
                            tile_at(c, n, b, i, j),
                            b,
                            b,
                            b,
                            n};
}

/* The tiled product C += A B of n x n matrices in b x b tiles, each tile
 * product a task of info, after dag_init (its start-up, threads and devices,
 * is not timed): the seconds from the first submission to the end of the
 * taskwait. */
static inline double timed_gemm(const struct dag_task_info *info,
                                const double *a, const double *bm, double *c,
                                int n, int b) {
  int nt = n / b;
  dag_check(dag_init());
  double t0 = bench_now();
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++)
      for (int l = 0; l < nt; l++) {
        struct dag_access acc[3];
        struct gemm_args g = gemm_tile(a, bm, c, n, b, i, j, l, acc);
        dag_check(dag_submit(info, &g, sizeof g, acc, 3));
      }
  dag_check(dag_taskwait());
  return bench_now() - t0;
}

/* n x n doubles of address space, never touched: on the timed model no
 * body reads them and no copy moves them. */
static inline double *untouched(int n) {
  void *p = mmap(NULL, (size_t)n * n * sizeof(double), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

/* untouched(n), registered with the devices unless `unregistered`, before
 * the clock starts, as a GPU program registers its arrays once. */
static inline double *host_matrix(int n, int unregistered) {
  double *p = untouched(n);
  if (!unregistered)
    dag_check(dag_register(p, (size_t)n * n * sizeof(double)));
  return p;
}

/* qsort's order of doubles. */
static inline int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

#endif /* DAG_BENCH_GPU_TILES_H */
