/* stencil.c — the stencil group of the suite on dag: 3 x 3 box sums under
 * four boundary rules, Jacobi sweeps and B = B + A on n x n matrices of
 * doubles, one task per band of b rows of the result.
 *
 *   stencil_dag -k box_wrap|box_zero|box_clamp|box_reflect|jacobi|update
 *               [-n N] [-b B] [-r REPS] [-t SECONDS]
 *
 * The kernels themselves are plain C functions in stencil_kernels.h, shared
 * with the OpenMP peer (stencil_omp.c); this file says which blocks each
 * task reads and writes, and the runtime does the rest.
 *
 * Distribution: both matrices come from suite_bands, dag_alloc memory in
 * bands of b whole rows, each rank holding a contiguous run of bands
 * (calloc with plain cc), and every task writes one band (or the interior
 * part of one), so it runs at that band's home. Bands rather than b x b
 * tiles: a kernel streams whole rows, which measured up to 40% faster than
 * short row segments, and a halo is one row above and one below. The
 * runtime tracks the matrices row by row, so a task that reads its
 * neighbour's edge row receives that row, not the neighbour's band. Each task names exactly the input it
 * reads, so the runtime orders and moves no more than needed:
 *
 * - box sums: the block of X, plus the row above and below it, the column
 *   left and right and the four corners, each mapped by the boundary rule
 *   (box_halo_of): under wrap a block on the edge reads the far side of the
 *   matrix; under zero, clamp and reflect it reads nothing outside on that
 *   side. A side that falls back into the block, or that the rule turns
 *   into zeros, is a section of length 0, which orders nothing.
 * - jacobi: JACOBI_SWEEPS sweeps, u -> v then v -> u, with no barrier
 *   between sweeps. A task writes the interior points of its block of the
 *   new grid and reads the same rectangle of the old one plus its four
 *   edges (a cross, no corners). The runtime starts a block of sweep s + 1
 *   once the blocks of sweep s it overlaps are done, so sweeps pipeline as
 *   in samples/stencil.
 * - update: a task per block reads A's block and updates B's.
 *
 * Inputs come from suite_random, filled by a task per block at its home.
 * The box input X and update's A are filled once; update's B and jacobi's
 * u and v again before every repetition (untimed), so every repetition does
 * the same work. The bandwidth counts 16 bytes an element (24 for update,
 * 16 per sweep for jacobi).
 *
 * The check runs a task per block at its home, never gathering the matrix:
 * it compares the block with the exact result, computed again the same way
 * (0 difference), and sums it. Each task writes its block's entry of a
 * replicated array; after the taskwait every rank holds them all and adds
 * them in block order, so sum= has the same bits serially and on any
 * number of ranks. For jacobi the exact check is on the last sweep (u
 * against one more sweep from v, which holds the iterate before); the sum
 * of u covers all the sweeps.
 *
 * When -b is not given: b = ceil(n / (8 ranks workers)): about eight bands
 * per worker.
 */
#include "stencil_kernels.h"

/* ------------------------------------------------------------- the tasks */

/* X = suite_random(seed, .), a task per block at its home. */
static void fill(long n, long b, double (*X)[n], uint64_t seed) {
  long blocks = suite_nblocks(n, b);
  for (long k = 0; k < blocks; k++) {
    struct stencil_block blk = stencil_block_at(n, b, k);
#pragma dag task out(X[blk.i0:blk.rows][blk.j0:blk.cols]) label("fill")
    fill_block(n, X, seed, blk);
  }
}

/* Y = the box sums of X under rule. The nine items: the block, the rows
 * above and below it, the columns left and right, the corners. */
static void box(long n, long b, enum box_rule rule, double (*X)[n],
                double (*Y)[n]) {
  long blocks = suite_nblocks(n, b);
  for (long k = 0; k < blocks; k++) {
    struct stencil_block blk = stencil_block_at(n, b, k);
    struct box_halo h = box_halo_of(n, rule, blk);
    (void)h; /* used by the pragma only: unused when plain cc ignores it */
#pragma dag task out(Y[blk.i0:blk.rows][blk.j0:blk.cols])                     \
    in(X[blk.i0:blk.rows][blk.j0:blk.cols],                                    \
       X[h.up.at:h.up.len][blk.j0:blk.cols],                                   \
       X[h.down.at:h.down.len][blk.j0:blk.cols],                               \
       X[blk.i0:blk.rows][h.left.at:h.left.len],                               \
       X[blk.i0:blk.rows][h.right.at:h.right.len],                             \
       X[h.up.at:h.up.len][h.left.at:h.left.len],                              \
       X[h.up.at:h.up.len][h.right.at:h.right.len],                            \
       X[h.down.at:h.down.len][h.left.at:h.left.len],                          \
       X[h.down.at:h.down.len][h.right.at:h.right.len]) label("box")
    box_block(n, X, Y, rule, blk);
  }
}

/* JACOBI_SWEEPS sweeps u -> v -> u ...; the last one writes u (an even
 * number of sweeps). A block with no interior point (a one-row block on
 * the edge) has no task. */
static void jacobi(long n, long b, double (*u)[n], double (*v)[n]) {
  long blocks = suite_nblocks(n, b);
  for (int s = 0; s < JACOBI_SWEEPS; s++) {
    for (long k = 0; k < blocks; k++) {
      struct stencil_block c = stencil_interior(n, stencil_block_at(n, b, k));
      if (!c.rows)
        continue;
#pragma dag task out(v[c.i0:c.rows][c.j0:c.cols])                             \
    in(u[c.i0 - 1:c.rows + 2][c.j0:c.cols], u[c.i0:c.rows][c.j0 - 1],          \
       u[c.i0:c.rows][c.j0 + c.cols]) label("jacobi")
      jacobi_block(n, u, v, c);
    }
    double(*t)[n] = u;
    u = v;
    v = t;
  }
}

/* B = B + A. */
static void update(long n, long b, double (*A)[n], double (*B)[n]) {
  long blocks = suite_nblocks(n, b);
  for (long k = 0; k < blocks; k++) {
    struct stencil_block blk = stencil_block_at(n, b, k);
#pragma dag task inout(B[blk.i0:blk.rows][blk.j0:blk.cols])                   \
    in(A[blk.i0:blk.rows][blk.j0:blk.cols]) label("update")
    update_block(n, A, B, blk);
  }
}

/* ------------------------------------------------------------ the checks */

/* res[k] = the check of block k of the result Y (of a box kernel, or B
 * of update), at the block's home. */
static void result_checks(enum stencil_kernel kernel, long n, long b,
                          double (*Y)[n], struct block_result *res) {
  long blocks = suite_nblocks(n, b);
  for (long k = 0; k < blocks; k++) {
    struct stencil_block blk = stencil_block_at(n, b, k);
#pragma dag task in(Y[blk.i0:blk.rows][blk.j0:blk.cols]) out(res[k])          \
    label("check")
    {
      res[k].err = kernel == UPDATE
                       ? update_error(n, Y, blk)
                       : box_error(n, Y, (enum box_rule)kernel, blk);
      res[k].sum = block_sum(n, Y, blk);
    }
  }
}

/* The exact check on the interior c of u's block, the sum on the whole
 * block: u's block, and the cross of v around c (empty if the block has
 * no interior point), what the last sweep read. */
static void jacobi_checks(long n, long b, double (*u)[n], double (*v)[n],
                          struct block_result *res) {
  long blocks = suite_nblocks(n, b);
  for (long k = 0; k < blocks; k++) {
    struct stencil_block blk = stencil_block_at(n, b, k);
    struct stencil_block c = stencil_interior(n, blk);
#pragma dag task in(u[blk.i0:blk.rows][blk.j0:blk.cols],                      \
                    v[c.i0 - 1:c.rows + 2][c.j0:c.cols],                       \
                    v[c.i0:c.rows][c.j0 - 1], v[c.i0:c.rows][c.j0 + c.cols])   \
    out(res[k]) label("check")
    {
      res[k].err = jacobi_error(n, u, v, c);
      res[k].sum = block_sum(n, u, blk);
    }
  }
}

/* -------------------------------------------------------- the kernels */

/* The untimed part of a repetition: the inputs (see stencil_seed_p). */
static void prepare(enum stencil_kernel kernel, long n, long b, double (*P)[n],
                    double (*Q)[n], int first) {
  uint64_t sp = stencil_seed_p(kernel, first), sq = stencil_seed_q(kernel);
  if (sp)
    fill(n, b, P, sp);
  if (sq)
    fill(n, b, Q, sq);
#pragma dag taskwait
}

/* The timed part: the kernel on P (X, u or A) and Q (Y, v or B). */
static void run(enum stencil_kernel kernel, long n, long b, double (*P)[n],
                double (*Q)[n]) {
  if (kernel == JACOBI)
    jacobi(n, b, P, Q);
  else if (kernel == UPDATE)
    update(n, b, P, Q);
  else
    box(n, b, (enum box_rule)kernel, P, Q);
#pragma dag taskwait
}

/* The check of the result, combined in block order. */
static struct block_result check(enum stencil_kernel kernel, long n, long b,
                                 double (*P)[n], double (*Q)[n],
                                 struct block_result *res) {
  if (kernel == JACOBI)
    jacobi_checks(n, b, P, Q, res);
  else
    result_checks(kernel, n, b, Q, res);
#pragma dag taskwait
  return stencil_combine(res, suite_nblocks(n, b));
}

static void *matrix(long n, long b) { return suite_bands(n, n, b, 1); }

static void release(void *m) { suite_free_matrix(m); }

int main(int argc, char **argv) {
  return stencil_main(argc, argv, SUITE_DAG_RUNTIME, suite_dag_workers);
}
