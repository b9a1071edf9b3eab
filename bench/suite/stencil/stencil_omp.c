/* stencil_omp.c — the stencil group with OpenMP, the peer of stencil.c:
 * the same kernels (stencil_kernels.h), the same inputs, checks and work
 * counts, with `#pragma omp parallel for schedule(static)` over the rows of
 * malloc'd matrices, as one would write it without a task runtime.
 *
 *   stencil_omp -k box_wrap|box_zero|box_clamp|box_reflect|jacobi|update
 *               [-n N] [-b B] [-r REPS] [-t SECONDS]
 *
 * Each kernel is one parallel loop over the rows (jacobi: one per sweep,
 * with the loop's barrier between sweeps). The check is a parallel loop
 * over b x b blocks running stencil.c's block checks, their results added
 * in block order; b follows stencil.c's rule with one rank and
 * omp_get_max_threads() workers (the kernels do not use it). With the
 * same b the sum is the same bits as stencil.c's.
 */
#include <omp.h>

#include "stencil_kernels.h"

/* Row i, all columns. */
static struct stencil_block row(long n, long i) {
  return (struct stencil_block){i, 1, 0, n};
}

static void fill(long n, double (*X)[n], uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    fill_block(n, X, seed, row(n, i));
}

static void box(long n, enum box_rule rule, double (*X)[n], double (*Y)[n]) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    box_block(n, X, Y, rule, row(n, i));
}

/* JACOBI_SWEEPS sweeps u -> v -> u ...; the last one writes u. */
static void jacobi(long n, double (*u)[n], double (*v)[n]) {
  for (int s = 0; s < JACOBI_SWEEPS; s++) {
#pragma omp parallel for schedule(static)
    for (long i = 1; i < n - 1; i++)
      jacobi_block(n, u, v, stencil_interior(n, row(n, i)));
    double(*t)[n] = u;
    u = v;
    v = t;
  }
}

static void update(long n, double (*A)[n], double (*B)[n]) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    update_block(n, A, B, row(n, i));
}

/* The untimed part of a repetition: the inputs (see stencil_seed_p). */
static void prepare(enum stencil_kernel kernel, long n, long b, double (*P)[n],
                    double (*Q)[n], int first) {
  uint64_t sp = stencil_seed_p(kernel, first), sq = stencil_seed_q(kernel);
  if (sp)
    fill(n, P, sp);
  if (sq)
    fill(n, Q, sq);
}

/* The timed part: the kernel on P (X, u or A) and Q (Y, v or B). */
static void run(enum stencil_kernel kernel, long n, long b, double (*P)[n],
                double (*Q)[n]) {
  if (kernel == JACOBI)
    jacobi(n, P, Q);
  else if (kernel == UPDATE)
    update(n, P, Q);
  else
    box(n, (enum box_rule)kernel, P, Q);
}

/* The check of the result in b x b blocks, combined in block order. */
static struct block_result check(enum stencil_kernel kernel, long n, long b,
                                 double (*P)[n], double (*Q)[n],
                                 struct block_result *res) {
  long blocks = suite_nblocks(n, b);
  double(*result)[n] = kernel == JACOBI ? P : Q; /* u, or Y or B */
#pragma omp parallel for schedule(dynamic)
  for (long k = 0; k < blocks; k++) {
    struct stencil_block blk = stencil_block_at(n, b, k);
    res[k].sum = block_sum(n, result, blk);
    res[k].err =
        kernel == JACOBI   ? jacobi_error(n, P, Q, stencil_interior(n, blk))
        : kernel == UPDATE ? update_error(n, Q, blk)
                           : box_error(n, Q, (enum box_rule)kernel, blk);
  }
  return stencil_combine(res, blocks);
}

static void *matrix(long n, long b) { return malloc(sizeof(double[n][n])); }

static void release(void *m) { free(m); }

int main(int argc, char **argv) {
  return stencil_main(argc, argv, "omp", omp_get_max_threads);
}
