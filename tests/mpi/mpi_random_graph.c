/* mpi_random_graph: a pseudo-random task graph, the same on every rank
 * (same seed), checked bit for bit against a sequential execution of the
 * same task bodies on every rank. Written against the API; run under
 * mpiexec with any number of ranks:
 *
 *   mpi_random_graph [tasks [seed [commutative]]]
 *
 * The data, 64-bit words:
 *   D1  dag_alloc, 1-D block-cyclic in blocks of 64 words (24 blocks);
 *   D2  dag_alloc, a 48 x 40 matrix, 2-D block-cyclic in 8 x 10 tiles on
 *       the grid dag_grid picks;
 *   R0..R5  replicated arrays of 32 words (malloc), and R6, a static one.
 * Each task has 1 to 4 accesses on disjoint data, each IN, OUT or INOUT
 * (with `commutative` also COMMUTATIVE, at a low rate): a range of D1 (a
 * block, or a random range across blocks), a rectangle of D2 (a tile, or a
 * random one across tiles: a strided region), or a range of a replicated
 * array. A quarter of the tasks carry on(rank). The body is a
 * deterministic function of what the task reads: it hashes its task number
 * and the words of its IN and INOUT regions, then writes every word of its
 * OUT and INOUT regions from that hash (and, for INOUT, the old word); a
 * COMMUTATIVE region gets a value added to each word, which commutes.
 *
 * Now and then the program waits: a taskwait (then the replicated arrays
 * must equal the sequential run's at that point), a taskwait noflush, or a
 * taskwait on a random region of D1 or D2 (then that region must equal
 * it). After some of the taskwaits D1 moves: it is collected, freed, and
 * allocated again with smaller blocks, then filled back by tasks. At the
 * end, taskwait, then taskwait on all of D1 and D2: everything must equal
 * the sequential run. Exits non-zero on the first difference. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

enum {
  D1_BLOCK = 64,
  D1_BLOCKS = 24,
  D1_WORDS = D1_BLOCK * D1_BLOCKS,
  D2_ROWS = 48,
  D2_COLS = 40,
  D2_MB = 8,
  D2_NB = 10,
  R_WORDS = 32,
  NREP = 7, /* R0..R5 malloc, R6 static */
  NARRAYS = 2 + NREP,
  MAX_ACC = 4
};

/* ------------------------------------------------------------ hashing */

static uint64_t mix(uint64_t h, uint64_t v) {
  uint64_t z = h ^ (v * 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state += 0x9E3779B97F4A7C15u;
  return mix(rng_state, 0);
}
static int rnd_below(int n) { return (int)(rnd() % (uint64_t)n); }

/* --------------------------------------------------------------- graph */

/* An access in abstract terms: which array, where, what shape (rows of
 * `cols` words, `ld` words apart). */
struct item {
  int array; /* 0: D1, 1: D2, 2 + k: Rk */
  int off;   /* first word */
  int rows, cols, ld;
  enum dag_mode mode;
};

struct task {
  int naccs;
  struct item acc[MAX_ACC];
  int on; /* -1: placed by the runtime */
};

/* The body's view: pointers into one copy of the data. */
struct access_args {
  enum dag_mode mode;
  uint64_t *base;
  int rows, cols, ld;
};

struct body_args {
  uint64_t id;
  int naccs;
  struct access_args acc[MAX_ACC];
};

static void body(void *p) {
  const struct body_args *a = p;
  uint64_t h = mix(0x5EED, a->id);
  for (int k = 0; k < a->naccs; k++) {
    const struct access_args *x = &a->acc[k];
    if (x->mode != DAG_IN && x->mode != DAG_INOUT)
      continue;
    for (int i = 0; i < x->rows; i++)
      for (int j = 0; j < x->cols; j++)
        h = mix(h, x->base[(size_t)i * x->ld + j]);
  }
  for (int k = 0; k < a->naccs; k++) {
    const struct access_args *x = &a->acc[k];
    for (int i = 0; i < x->rows; i++)
      for (int j = 0; j < x->cols; j++) {
        uint64_t *w = &x->base[(size_t)i * x->ld + j];
        uint64_t at = (uint64_t)(i * x->cols + j);
        switch (x->mode) {
        case DAG_OUT:
          *w = mix(h, at);
          break;
        case DAG_INOUT:
          *w = mix(h, *w ^ at);
          break;
        case DAG_COMMUTATIVE:
          *w += mix(h, at);
          break;
        case DAG_IN:
        case DAG_REDUCTION: /* not drawn */
          break;
        }
      }
  }
}

static int array_words(int array) {
  return array == 0 ? D1_WORDS : array == 1 ? D2_ROWS * D2_COLS : R_WORDS;
}

/* A random item on a random array. */
static struct item random_item(bool commutative) {
  struct item it = {0};
  int kind = rnd_below(10);
  if (kind < 3) { /* D1 */
    it.array = 0;
    it.rows = 1;
    it.ld = D1_WORDS;
    if (rnd_below(2)) {
      it.off = rnd_below(D1_BLOCKS) * D1_BLOCK;
      it.cols = D1_BLOCK;
    } else {
      it.cols = 1 + rnd_below(2 * D1_BLOCK);
      it.off = rnd_below(D1_WORDS - it.cols + 1);
    }
  } else if (kind < 6) { /* D2 */
    it.array = 1;
    it.ld = D2_COLS;
    int r0, c0;
    if (rnd_below(2)) {
      r0 = rnd_below(D2_ROWS / D2_MB) * D2_MB;
      c0 = rnd_below(D2_COLS / D2_NB) * D2_NB;
      it.rows = D2_MB;
      it.cols = D2_NB;
    } else {
      it.rows = 1 + rnd_below(12);
      it.cols = 1 + rnd_below(16);
      r0 = rnd_below(D2_ROWS - it.rows + 1);
      c0 = rnd_below(D2_COLS - it.cols + 1);
    }
    it.off = r0 * D2_COLS + c0;
  } else { /* a replicated array */
    it.array = 2 + rnd_below(NREP);
    it.rows = 1;
    it.ld = R_WORDS;
    it.cols = 1 + rnd_below(R_WORDS);
    if (rnd_below(3) == 0)
      it.cols = R_WORDS;
    it.off = rnd_below(R_WORDS - it.cols + 1);
  }
  int m = rnd_below(commutative ? 10 : 9);
  it.mode = m < 4   ? DAG_IN
            : m < 6 ? DAG_OUT
            : m < 9 ? DAG_INOUT
                    : DAG_COMMUTATIVE;
  return it;
}

/* Whether two items share a word. */
static bool overlap(const struct item *a, const struct item *b) {
  if (a->array != b->array)
    return false;
  int ar = a->off / a->ld, ac = a->off % a->ld;
  int br = b->off / b->ld, bc = b->off % b->ld;
  if (a->array != 1) { /* one row of words */
    return a->off < b->off + b->cols && b->off < a->off + a->cols;
  }
  return ar < br + b->rows && br < ar + a->rows && ac < bc + b->cols &&
         bc < ac + a->cols;
}

static struct task random_task(bool commutative, int nranks) {
  struct task t = {0};
  int want = 1 + rnd_below(MAX_ACC);
  for (int tries = 0; t.naccs < want && tries < 20; tries++) {
    struct item it = random_item(commutative);
    bool clash = false;
    for (int k = 0; k < t.naccs; k++)
      clash |= overlap(&it, &t.acc[k]);
    if (!clash)
      t.acc[t.naccs++] = it;
  }
  t.on = rnd_below(4) == 0 ? rnd_below(nranks) : -1;
  return t;
}

/* ------------------------------------------------------------- running */

/* One copy of the data: the distributed one or the sequential one. */
struct data {
  uint64_t *array[NARRAYS];
};

static struct body_args args_of(const struct task *t, uint64_t id,
                                const struct data *d) {
  struct body_args a = {id, t->naccs, {{0}}};
  for (int k = 0; k < t->naccs; k++) {
    const struct item *it = &t->acc[k];
    a.acc[k] = (struct access_args){it->mode, d->array[it->array] + it->off,
                                    it->rows, it->cols, it->ld};
  }
  return a;
}

static struct dag_region region_of(const struct item *it,
                                   const struct data *d) {
  const uint64_t *base = d->array[it->array] + it->off;
  if (it->rows == 1)
    return dag_region_1d(base, (size_t)it->cols * 8);
  return dag_region_2d(base, (size_t)it->rows, (size_t)it->cols * 8,
                       (size_t)it->ld * 8);
}

static void submit(const struct task *t, uint64_t id, const struct data *d) {
  struct body_args a = args_of(t, id, d);
  struct dag_access acc[MAX_ACC];
  for (int k = 0; k < t->naccs; k++)
    acc[k] = dag_access_of(t->acc[k].mode, region_of(&t->acc[k], d));
  struct dag_task_info info = {
      .fn = body, .label = "random", .file = __FILE__, .line = __LINE__};
  if (t->on >= 0) {
    info.flags = DAG_TASK_ON_RANK;
    info.rank = t->on;
  }
  dag_check(dag_submit(&info, &a, sizeof a, acc, (size_t)t->naccs));
}

static int rank_, nranks_;

static int compare_words(const char *what, int task, const uint64_t *got,
                         const uint64_t *want, const struct item *it) {
  for (int i = 0; i < it->rows; i++)
    for (int j = 0; j < it->cols; j++) {
      size_t k = (size_t)it->off + (size_t)i * it->ld + j;
      if (got[k] != want[k]) {
        fprintf(stderr,
                "mpi_random_graph: rank %d of %d: after task %d, %s word %zu "
                "is %016llx, the sequential run gives %016llx\n",
                rank_, nranks_, task, what, k, (unsigned long long)got[k],
                (unsigned long long)want[k]);
        return 1;
      }
    }
  return 0;
}

static int compare_replicated(int task, const struct data *got,
                              const struct data *want) {
  static const char *const names[] = {"R0", "R1", "R2", "R3", "R4", "R5", "R6"};
  struct item all = {0, 0, 1, R_WORDS, R_WORDS, DAG_IN};
  for (int r = 0; r < NREP; r++)
    if (compare_words(names[r], task, got->array[2 + r], want->array[2 + r],
                      &all))
      return 1;
  return 0;
}

static uint64_t r6[R_WORDS];

/* D1 moves: collected, freed, allocated again with blocks of `block`
 * words (the runtime must forget the old allocation's history, and the new
 * one may well get the same addresses), and filled back by tasks. */
static uint64_t d1_copy[D1_WORDS];

struct restore_args {
  uint64_t *dst;
  const uint64_t *src;
  int n;
};

static void restore(void *p) {
  const struct restore_args *a = p;
  memcpy(a->dst, a->src, (size_t)a->n * 8);
}

static int move_d1(struct data *d, int block) {
  struct dag_access all = {DAG_IN, dag_region_1d(d->array[0], D1_WORDS * 8)};
  dag_check(dag_taskwait_on(&all, 1));
  memcpy(d1_copy, d->array[0], sizeof d1_copy);
  dag_check(dag_free(d->array[0]));
  d->array[0] =
      dag_alloc(D1_WORDS * 8, dag_dist_block_cyclic(8, (size_t)block));
  if (!d->array[0]) {
    fprintf(stderr, "mpi_random_graph: dag_alloc: %s\n", dag_last_error());
    return 1;
  }
  for (int lo = 0; lo < D1_WORDS; lo += 100) {
    int n = lo + 100 <= D1_WORDS ? 100 : D1_WORDS - lo;
    struct restore_args a = {d->array[0] + lo, d1_copy + lo, n};
    struct dag_access acc[2] = {{DAG_OUT, dag_region_1d(a.dst, (size_t)n * 8)},
                                {DAG_IN, dag_region_1d(a.src, (size_t)n * 8)}};
    struct dag_task_info info = {.fn = restore, .label = "restore"};
    dag_check(dag_submit(&info, &a, sizeof a, acc, 2));
  }
  /* d1_copy is read by tasks: wait for them before it is used again. */
  dag_check(dag_taskwait());
  return 0;
}

int main(int argc, char **argv) {
  int ntasks = argc > 1 ? atoi(argv[1]) : 2000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20240611;
  bool commutative = argc > 3 && strcmp(argv[3], "commutative") == 0;
  if (ntasks < 1 || (argc > 3 && !commutative)) {
    fprintf(stderr, "usage: mpi_random_graph [tasks [seed [commutative]]]\n");
    return 2;
  }
  rank_ = dag_rank();
  nranks_ = dag_nranks();
  int p, q;
  dag_grid(nranks_, &p, &q);

  struct data dist, seq;
  dist.array[0] = dag_alloc(D1_WORDS * 8, dag_dist_block_cyclic(8, D1_BLOCK));
  dist.array[1] = dag_alloc(D2_ROWS * D2_COLS * 8,
                            dag_dist_2d(8, D2_COLS, D2_MB, D2_NB, p, q));
  for (int r = 0; r < NREP - 1; r++)
    dist.array[2 + r] = calloc(R_WORDS, 8);
  dist.array[2 + NREP - 1] = r6;
  for (int a = 0; a < NARRAYS; a++)
    seq.array[a] = calloc((size_t)array_words(a), 8);
  for (int a = 0; a < NARRAYS; a++)
    if (!dist.array[a] || !seq.array[a]) {
      fprintf(stderr, "mpi_random_graph: rank %d: out of memory: %s\n", rank_,
              dag_last_error());
      return 1;
    }

  rng_state = seed;
  int counts[4] = {0}, waits[3] = {0}, moves = 0;
  for (int i = 0; i < ntasks; i++) {
    struct task t = random_task(commutative, nranks_);
    submit(&t, (uint64_t)i, &dist);
    struct body_args a = args_of(&t, (uint64_t)i, &seq);
    body(&a);
    for (int k = 0; k < t.naccs; k++)
      counts[t.acc[k].array == 0 ? 0 : t.acc[k].array == 1 ? 1 : 2]++;
    counts[3] += t.on >= 0;
    if (rnd_below(150) != 0)
      continue;
    switch (rnd_below(3)) {
    case 0:
      dag_check(dag_taskwait());
      if (compare_replicated(i, &dist, &seq))
        return 1;
      waits[0]++;
      if (rnd_below(2) == 0) {
        moves++;
        if (move_d1(&dist, D1_BLOCK >> rnd_below(3)))
          return 1;
      }
      break;
    case 1:
      dag_check(dag_taskwait_noflush());
      waits[1]++;
      break;
    default: {
      struct item it = random_item(false);
      if (it.array > 1) /* replicated: all of D1 instead */
        it = (struct item){0, 0, 1, D1_WORDS, D1_WORDS, DAG_IN};
      struct dag_access acc = dag_access_of(DAG_IN, region_of(&it, &dist));
      dag_check(dag_taskwait_on(&acc, 1));
      if (compare_words(it.array ? "D2" : "D1", i, dist.array[it.array],
                        seq.array[it.array], &it))
        return 1;
      waits[2]++;
    }
    }
  }
  dag_check(dag_taskwait());
  if (compare_replicated(ntasks - 1, &dist, &seq))
    return 1;
  struct dag_access all[2] = {
      {DAG_IN, dag_region_1d(dist.array[0], D1_WORDS * 8)},
      {DAG_IN, dag_region_1d(dist.array[1], D2_ROWS * D2_COLS * 8)}};
  dag_check(dag_taskwait_on(all, 2));
  struct item d1 = {0, 0, 1, D1_WORDS, D1_WORDS, DAG_IN};
  struct item d2 = {1, 0, D2_ROWS, D2_COLS, D2_COLS, DAG_IN};
  if (compare_words("D1", ntasks - 1, dist.array[0], seq.array[0], &d1) ||
      compare_words("D2", ntasks - 1, dist.array[1], seq.array[1], &d2))
    return 1;
  printf("mpi_random_graph: rank %d of %d: %d tasks (seed %llu%s; accesses "
         "D1 %d, D2 %d, replicated %d; %d with on(rank)); %d taskwaits, %d "
         "noflush, %d taskwait on, %d moves of D1: the same bits as the "
         "sequential run\n",
         rank_, nranks_, ntasks, (unsigned long long)seed,
         commutative ? ", commutative" : "", counts[0], counts[1], counts[2],
         counts[3], waits[0], waits[1], waits[2], moves);
  for (int r = 0; r < NREP - 1; r++)
    free(dist.array[2 + r]);
  for (int a = 0; a < NARRAYS; a++)
    free(seq.array[a]);
  dag_free(dist.array[0]);
  dag_free(dist.array[1]);
  return 0;
}
