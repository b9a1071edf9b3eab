/* cholesky.c — tiled Cholesky factorization on the dag runtime, by hand.
 *
 * The program the pragma rewriter will one day produce from an annotated
 * loop nest: each tile kernel (potrf, trsm, syrk, gemm from tiles.c) becomes
 * a task submitted with dag_submit, whose accesses are the 2-D tiles it
 * reads (DAG_IN) and updates (DAG_INOUT), addressed in place in the full
 * row-major matrix. The runtime derives every dependency from those regions;
 * potrf and trsm on the critical path get higher priorities.
 *
 *   cholesky [-n N] [-b tile] [-r reps] [--check]
 *
 * prints one line (size, tile, workers, time, GFLOP/s, residual) and exits
 * non-zero if the factor is wrong. DAG_NUM_THREADS sets the workers.
 */
#include "tiles.h"

#include <dag.h>
#include <stdio.h>

/* What one task needs: the tiles it touches, their sizes, the leading
 * dimension. Copied into the task when it is submitted. */
struct tile_task {
  double *a, *b, *c; /* kernel operands in tile_* argument order */
  int m, n, k, ld;
};

struct chol {
  double *a;
  int n, bs, nt;
  int error; /* first dag_submit failure */
};

static void potrf_body(void *p) {
  struct tile_task *t = p;
  tile_potrf(t->a, t->k, t->ld);
}

static void trsm_body(void *p) {
  struct tile_task *t = p;
  tile_trsm(t->a, t->b, t->m, t->k, t->ld);
}

static void syrk_body(void *p) {
  struct tile_task *t = p;
  tile_syrk(t->a, t->b, t->m, t->k, t->ld);
}

static void gemm_body(void *p) {
  struct tile_task *t = p;
  tile_gemm(t->a, t->b, t->c, t->m, t->n, t->k, t->ld);
}

/* The region of tile (i, j). */
static struct dag_region tile_region(const struct chol *c, int i, int j) {
  return dag_region_2d(chol_tile(c->a, c->n, c->bs, i, j),
                       (size_t)chol_tile_dim(c->n, c->bs, i),
                       (size_t)chol_tile_dim(c->n, c->bs, j) * sizeof(double),
                       (size_t)c->n * sizeof(double));
}

static void submit(struct chol *c, dag_task_fn fn, const char *label, int line,
                   int priority, const struct tile_task *args,
                   const struct dag_access *acc, size_t nacc) {
  struct dag_task_info info = {.fn = fn,
                               .label = label,
                               .file = __FILE__,
                               .line = line,
                               .priority = priority};
  int err = dag_submit(&info, args, sizeof *args, acc, nacc);
  if (err && !c->error) {
    fprintf(stderr, "cholesky: dag_submit(%s): %s\n", label, dag_strerror(err));
    c->error = err;
  }
}

static void potrf(void *ctx, int k) {
  struct chol *c = ctx;
  int dk = chol_tile_dim(c->n, c->bs, k);
  struct tile_task t = {
      chol_tile(c->a, c->n, c->bs, k, k), NULL, NULL, dk, dk, dk, c->n};
  struct dag_access acc[] = {dag_access_of(DAG_INOUT, tile_region(c, k, k))};
  submit(c, potrf_body, "potrf", __LINE__,
         chol_priority(CHOL_POTRF, k, k, k, c->nt), &t, acc, 1);
}

static void trsm(void *ctx, int i, int k) {
  struct chol *c = ctx;
  struct tile_task t = {chol_tile(c->a, c->n, c->bs, k, k),
                        chol_tile(c->a, c->n, c->bs, i, k),
                        NULL,
                        chol_tile_dim(c->n, c->bs, i),
                        0,
                        chol_tile_dim(c->n, c->bs, k),
                        c->n};
  struct dag_access acc[] = {dag_access_of(DAG_IN, tile_region(c, k, k)),
                             dag_access_of(DAG_INOUT, tile_region(c, i, k))};
  submit(c, trsm_body, "trsm", __LINE__,
         chol_priority(CHOL_TRSM, i, k, k, c->nt), &t, acc, 2);
}

static void syrk(void *ctx, int i, int k) {
  struct chol *c = ctx;
  struct tile_task t = {chol_tile(c->a, c->n, c->bs, i, k),
                        chol_tile(c->a, c->n, c->bs, i, i),
                        NULL,
                        chol_tile_dim(c->n, c->bs, i),
                        0,
                        chol_tile_dim(c->n, c->bs, k),
                        c->n};
  struct dag_access acc[] = {dag_access_of(DAG_IN, tile_region(c, i, k)),
                             dag_access_of(DAG_INOUT, tile_region(c, i, i))};
  submit(c, syrk_body, "syrk", __LINE__,
         chol_priority(CHOL_SYRK, i, i, k, c->nt), &t, acc, 2);
}

static void gemm(void *ctx, int i, int j, int k) {
  struct chol *c = ctx;
  struct tile_task t = {chol_tile(c->a, c->n, c->bs, i, k),
                        chol_tile(c->a, c->n, c->bs, j, k),
                        chol_tile(c->a, c->n, c->bs, i, j),
                        chol_tile_dim(c->n, c->bs, i),
                        chol_tile_dim(c->n, c->bs, j),
                        chol_tile_dim(c->n, c->bs, k),
                        c->n};
  struct dag_access acc[] = {dag_access_of(DAG_IN, tile_region(c, i, k)),
                             dag_access_of(DAG_IN, tile_region(c, j, k)),
                             dag_access_of(DAG_INOUT, tile_region(c, i, j))};
  submit(c, gemm_body, "gemm", __LINE__,
         chol_priority(CHOL_GEMM, i, j, k, c->nt), &t, acc, 3);
}

static const struct chol_ops dag_ops = {potrf, trsm, syrk, gemm};

static int dag_start(void) {
  int err = dag_init();
  if (err) {
    fprintf(stderr, "cholesky: dag_init: %s\n", dag_strerror(err));
    return err;
  }
  return dag_num_workers();
}

static int dag_factor(double *a, int n, int bs) {
  struct chol c = {a, n, bs, chol_ntiles(n, bs), 0};
  chol_walk(&dag_ops, &c, c.nt);
  int err = dag_taskwait();
  if (err && !c.error) {
    fprintf(stderr, "cholesky: dag_taskwait: %s\n", dag_strerror(err));
    c.error = err;
  }
  return c.error != 0;
}

static void dag_stop(void) { dag_finalize(); }

int main(int argc, char **argv) {
  static const struct chol_runtime rt = {.name = "dag",
                                         .start = dag_start,
                                         .factor = dag_factor,
                                         .stop = dag_stop};
  return chol_main(argc, argv, &rt);
}
