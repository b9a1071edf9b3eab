/* mpi_comm_halves: dag on communicators the program gives (dag_init_comm).
 * MPI_COMM_WORLD is cut in two halves, ranks [0, R/2) and [R/2, R) (one
 * half alone on 1 rank); each half starts its own dag run on its own
 * communicator, and the two runs go on side by side in one job: each half
 * computes `steps` rounds of a ring update on a distributed array of its
 * own (block k of round t + 1 reads blocks k - 1, k and k + 1 of round t,
 * so blocks travel between the half's ranks), from a seed of its own, and
 * every rank of the half checks the result bit for bit against the same
 * rounds run sequentially. The halves then swap their results over
 * MPI_COMM_WORLD, the program's own MPI, and check each other's.
 *
 *   mpi_comm_halves [outside]
 *
 * With `outside`, the last rank of 2 or more joins neither half: it never
 * calls dag, and its MPI_Finalize still ends the job. Before starting, each
 * rank checks dag_init_comm's refusals: MPI_COMM_NULL, and after the start
 * a communicator other than its half's. Built with dagcc; run under
 * mpiexec with any number of ranks. Exits non-zero on the first
 * difference. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag_mpi.h>

enum { BLOCKS = 12, BLOCK = 500, STEPS = 6 };

static int fail(int world_rank, const char *what) {
  fprintf(stderr, "mpi_comm_halves: rank %d: %s\n", world_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

/* Block k of the next round from blocks k - 1, k, k + 1 of this one. */
static void ring_update(const uint64_t *left, const uint64_t *mid,
                        const uint64_t *right, uint64_t *out) {
  for (int i = 0; i < BLOCK; i++)
    out[i] = mid[i] * 31 + left[BLOCK - 1 - i] + (right[i] ^ (uint64_t)i);
}

static void seed_block(uint64_t seed, int k, uint64_t *out) {
  for (int i = 0; i < BLOCK; i++)
    out[i] = seed * 1000003u + (uint64_t)k * BLOCK + (uint64_t)i;
}

/* The rounds run sequentially: the expected result, in x (BLOCKS blocks). */
static void sequential(uint64_t seed, uint64_t *x) {
  uint64_t *y = malloc(sizeof(uint64_t) * BLOCKS * BLOCK);
  for (int k = 0; k < BLOCKS; k++)
    seed_block(seed, k, x + k * BLOCK);
  for (int t = 0; t < STEPS; t++) {
    for (int k = 0; k < BLOCKS; k++)
      ring_update(x + ((k + BLOCKS - 1) % BLOCKS) * BLOCK, x + k * BLOCK,
                  x + ((k + 1) % BLOCKS) * BLOCK, y + k * BLOCK);
    memcpy(x, y, sizeof(uint64_t) * BLOCKS * BLOCK);
  }
  free(y);
}

/* The same rounds as tasks, on two arrays spread by blocks over the
 * half's ranks; the result in x, on every rank of the half. */
static void with_tasks(uint64_t seed, uint64_t *result) {
  size_t bytes = sizeof(uint64_t) * BLOCKS * BLOCK;
  struct dag_dist dist = dag_dist_block_cyclic(sizeof(uint64_t), BLOCK);
  uint64_t *x = dag_alloc(bytes, dist);
  uint64_t *y = dag_alloc(bytes, dist);
  for (int k = 0; k < BLOCKS; k++) {
#pragma dag task out(x[k * BLOCK:BLOCK])
    seed_block(seed, k, &x[k * BLOCK]);
  }
  for (int t = 0; t < STEPS; t++) {
    for (int k = 0; k < BLOCKS; k++) {
      int l = (k + BLOCKS - 1) % BLOCKS, r = (k + 1) % BLOCKS;
#pragma dag task in(x[l * BLOCK:BLOCK], x[k * BLOCK:BLOCK], x[r * BLOCK:BLOCK]) out(y[k * BLOCK:BLOCK])
      ring_update(&x[l * BLOCK], &x[k * BLOCK], &x[r * BLOCK], &y[k * BLOCK]);
    }
    uint64_t *swap = x;
    x = y;
    y = swap;
  }
#pragma dag task in(x[0:BLOCKS * BLOCK]) out(result[0:BLOCKS * BLOCK])
  memcpy(result, x, bytes);
#pragma dag taskwait
  dag_free(x);
  dag_free(y);
}

int main(int argc, char **argv) {
  int provided = 0, world_rank = 0, world_size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  bool outside_rank = argc > 1 && !strcmp(argv[1], "outside") &&
                      world_size > 1 && world_rank == world_size - 1;
  int inside = argc > 1 && !strcmp(argv[1], "outside") && world_size > 1
                   ? world_size - 1
                   : world_size;
  int half = world_rank < inside / 2 ? 0 : 1;
  int half_size = half == 0 ? inside / 2 : inside - inside / 2;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, outside_rank ? MPI_UNDEFINED : half,
                 world_rank, &comm);
  if (outside_rank) { /* no dag here: only the world's collectives */
    if (comm != MPI_COMM_NULL)
      return fail(world_rank, "the outside rank got a communicator");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    printf("mpi_comm_halves: rank %d outside: ok\n", world_rank);
    return 0;
  }

  if (dag_init_comm(MPI_COMM_NULL) != DAG_EINVAL)
    return fail(world_rank, "dag_init_comm(MPI_COMM_NULL) not refused");
  if (dag_init_comm(comm) != 0)
    return fail(world_rank, dag_last_error());
  if (dag_nranks() != half_size ||
      dag_rank() != world_rank - (half ? inside / 2 : 0))
    return fail(world_rank, "dag_rank or dag_nranks is not the half's");
  if (dag_init_comm(comm) != 0)
    return fail(world_rank, "a second dag_init_comm on the same "
                            "communicator refused");
  if (half_size < world_size && dag_init_comm(MPI_COMM_WORLD) != DAG_EINVAL)
    return fail(world_rank, "dag_init_comm on another communicator while "
                            "running not refused");
  MPI_Comm_free(&comm); /* the runtime has a duplicate */

  uint64_t seed = 17 + (uint64_t)half;
  size_t n = (size_t)BLOCKS * BLOCK;
  uint64_t *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
  with_tasks(seed, got);
  sequential(seed, want);
  if (memcmp(got, want, n * sizeof *got))
    return fail(world_rank, "the half's result differs from the sequential "
                            "one");
  if (dag_finalize() != 0)
    return fail(world_rank, "dag_finalize");

  /* The first rank of each half sends its result to the other's first
   * rank, over the program's own communicator. */
  int first[2] = {0, inside / 2};
  if (inside > 1 && world_rank == first[half]) {
    int peer = first[1 - half];
    MPI_Sendrecv(got, (int)n, MPI_UINT64_T, peer, 0, want, (int)n,
                 MPI_UINT64_T, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    uint64_t *theirs = malloc(n * sizeof *theirs);
    sequential(17 + (uint64_t)(1 - half), theirs);
    if (memcmp(theirs, want, n * sizeof *want))
      return fail(world_rank, "the other half's result differs");
    free(theirs);
  }
  free(got);
  free(want);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  printf("mpi_comm_halves: rank %d in half %d of %d ranks: ok\n", world_rank,
         half, half_size);
  return 0;
}
