/* mpi_device: device tasks on every rank's emulated device, with data that
 * travels between ranks (host staging) and a working set four times each
 * device's memory. A vector of `blocks` blocks of `block` doubles is
 * dag_alloc'd block-cyclic; in each round a device task adds to each block
 * at its home, then a host task at each block's home sums that block and
 * the next one (whose home is another rank when there are several): the
 * next block's holder copies it back from its device before sending it.
 * Run under mpiexec with DAG_DEVICES=emul and DAG_EMUL_MEM set small:
 *
 *   mpi_device [blocks [block]]
 *
 * Checks the sums of every round and, after a taskwait on the whole vector,
 * every element on every rank; prints the figures and exits 1 on a wrong value.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <dag.h>

enum { ROUNDS = 3 };

struct add_args {
  double *x;
  size_t n;
};

/* The pointer a device body gets as a device address. */
static const struct dag_pointers add_pointers[] = {
    {offsetof(struct add_args, x), 1}};

static void add_one(void *p) {
  struct add_args *a = p;
  for (size_t i = 0; i < a->n; i++)
    a->x[i] += 1;
}

/* The device body: queues add_one on the emulated device. */
static void add_one_on_device(void *p) {
  dag_check(dag_emul_launch(add_one, p, sizeof(struct add_args)));
}

struct sum_args {
  const double *a, *b;
  size_t n;
  double *out;
};

static void sum_two(void *p) {
  struct sum_args *s = p;
  double t = 0;
  for (size_t i = 0; i < s->n; i++)
    t += s->a[i] + s->b[i];
  *s->out = t;
}

static struct dag_access whole(enum dag_mode mode, const void *p,
                               size_t bytes) {
  return (struct dag_access){mode, {p, bytes, 0, {{0, 0}}}};
}

int main(int argc, char **argv) {
  size_t blocks = argc > 1 ? strtoul(argv[1], NULL, 10) : 32;
  size_t block = argc > 2 ? strtoul(argv[2], NULL, 10) : 16384;
  size_t bytes = block * sizeof(double);
  double *x =
      dag_alloc(blocks * bytes, dag_dist_block_cyclic(sizeof(double), block));
  double *sums = calloc(ROUNDS * blocks, sizeof *sums); /* per round */
  if (!x || !sums) {
    fprintf(stderr, "mpi_device: no memory\n");
    return 1;
  }
  static struct dag_task_info fill = {.fn = add_one, .label = "fill"};
  static struct dag_task_info add = {.fn = add_one_on_device,
                                     .label = "add on device",
                                     .device = DAG_DEVICE_CUDA,
                                     .pointers = add_pointers,
                                     .npointers = 1};
  static struct dag_task_info sum = {.fn = sum_two, .label = "sum"};
  /* Block b starts at b % 5: that many additions on the host. */
  for (size_t b = 0; b < blocks; b++)
    for (size_t k = 0; k < b % 5; k++) {
      struct add_args a = {x + b * block, block};
      struct dag_access acc = whole(DAG_INOUT, a.x, bytes);
      dag_check(dag_submit(&fill, &a, sizeof a, &acc, 1));
    }
  for (int r = 0; r < ROUNDS; r++) {
    for (size_t b = 0; b < blocks; b++) {
      struct add_args a = {x + b * block, block};
      struct dag_access acc = whole(DAG_INOUT, a.x, bytes);
      dag_check(dag_submit(&add, &a, sizeof a, &acc, 1));
    }
    for (size_t b = 0; b < blocks; b++) {
      size_t next = (b + 1) % blocks;
      struct sum_args s = {x + b * block, x + next * block, block,
                           &sums[r * blocks + b]};
      struct dag_access acc[] = {whole(DAG_IN, s.a, bytes),
                                 whole(DAG_IN, s.b, bytes),
                                 whole(DAG_OUT, s.out, sizeof *s.out)};
      dag_check(dag_submit(&sum, &s, sizeof s, acc, 3));
    }
  }
  struct dag_access all = whole(DAG_IN, x, blocks * bytes);
  dag_check(dag_taskwait_on(&all, 1));
  dag_check(dag_taskwait());
  long bad = 0;
  for (size_t b = 0; b < blocks; b++) {
    double want = (double)(b % 5 + ROUNDS);
    double next = (double)((b + 1) % blocks % 5 + ROUNDS);
    for (size_t i = 0; i < block; i++)
      bad += x[b * block + i] != want;
    for (int r = 0; r < ROUNDS; r++) /* after round r, ROUNDS - r - 1 less */
      bad += sums[r * blocks + b] !=
             (want + next - 2.0 * (ROUNDS - r - 1)) * (double)block;
  }
  printf("rank %d of %d: %zu blocks of %zu KiB, %ld wrong\n", dag_rank(),
         dag_nranks(), blocks, bytes >> 10, bad);
  dag_free(x);
  free(sums);
  return bad != 0;
}
