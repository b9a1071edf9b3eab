/* check_deps.c — the dependency tracker (runtime/deps.c) against a
 * brute-force oracle.
 *
 * Random sequences of tasks with random accesses (contiguous and strided,
 * every mode) go through the tracker without running; the edges it adds are
 * recorded through dag__edge_hook and compared with byte-level truth:
 *  - every edge joins two tasks whose accesses conflict (share a byte, and
 *    not read/read or commutative/commutative);
 *  - every conflicting pair is ordered, directly or through other edges,
 *    unless the earlier task was already complete when the later came.
 * Then the history must stay small: a chain on one variable keeps one
 * record, and completed tasks on ever-new data are forgotten.
 */
#include "core/internal.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

#define ARENA 96
#define MAX_TASKS 48
#define MAX_ACC 3

/* The arena starts at a random offset in arena_memory for each sequence, so
 * that tiles start at every phase of their stride (the index puts rows of
 * one stride into bands of rows numbered from address 0). */
static char arena_memory[ARENA + 16];
static char *arena;

struct oracle_task {
  struct task *t;
  int nacc;
  enum dag_mode mode[MAX_ACC];
  struct region reg[MAX_ACC];
  bool bytes[MAX_ACC][ARENA];
  bool complete_before[MAX_TASKS]; /* task i complete when this came */
};

static struct oracle_task tasks[MAX_TASKS];
static uint64_t edges[MAX_TASKS]; /* edges[s]: bit p set for edge p -> s */
static int ntasks;
static int nsubmitted; /* tasks[0..nsubmitted) are this sequence's */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

static void record_edge(const struct task *pred, const struct task *succ) {
  int p = -1, s = -1;
  for (int i = 0; i < nsubmitted; i++) {
    if (tasks[i].t == pred)
      p = i;
    if (tasks[i].t == succ)
      s = i;
  }
  ck_assert_msg(p >= 0 && s >= 0, "edge between unknown tasks");
  ck_assert_msg(p < s, "edge %d -> %d goes backwards", p, s);
  /* The tracker links a pair once, however many accesses conflict. */
  ck_assert_msg(!(edges[s] >> p & 1), "edge %d -> %d added twice", p, s);
  edges[s] |= 1ull << p;
}

static struct task *fake_task(void) {
  struct task *t = dag__pool_get(POOL_TASK);
  memset(t, 0, sizeof *t);
  atomic_init(&t->refs, 1);
  atomic_init(&t->pending, 1);
  atomic_init(&t->unfinished, 1);
  t->id = atomic_fetch_add(&dag__next_task_id, 1);
  return t;
}

static void random_access(struct oracle_task *o, int k) {
  static const enum dag_mode modes[] = {DAG_IN, DAG_IN, DAG_OUT, DAG_INOUT,
                                        DAG_COMMUTATIVE};
  /* Tiles of the small matrix below, reused often: the same region again
   * is what real programs do most (and what reader groups are for). */
  static const size_t tiles[][4] = {
      {0, 0, 4, 6}, {0, 6, 4, 6}, {4, 0, 4, 6}, {4, 6, 4, 6}, {2, 3, 2, 3}};
  struct dag_region r;
  memset(o->bytes[k], 0, ARENA);
  uint32_t shape = rnd(10);
  if (shape < 4) {
    const size_t *tl = tiles[rnd(5)];
    size_t ld = 12;
    r = dag_region_2d(arena + tl[0] * ld + tl[1], tl[2], tl[3], ld);
    for (size_t i = 0; i < tl[2]; i++)
      memset(o->bytes[k] + (tl[0] + i) * ld + tl[1], 1, tl[3]);
  } else if (shape < 7) {
    size_t off = rnd(ARENA - 8), len = 1 + rnd((uint32_t)(ARENA - off - 1));
    if (len > 24)
      len = 1 + len % 24;
    r = dag_region_1d(arena + off, len);
    memset(o->bytes[k] + off, 1, len);
  } else {
    /* A block of a matrix with 8-, 12- or 16-byte rows. */
    static const size_t strides[] = {8, 12, 16};
    size_t ld = strides[rnd(3)], rows = 1 + rnd(4), span = 1 + rnd(6);
    if (span > ld)
      span = ld;
    size_t row0 = rnd((uint32_t)(ARENA / ld - rows + 1)),
           col0 = rnd((uint32_t)(ld - span + 1));
    r = dag_region_2d(arena + row0 * ld + col0, rows, span, ld);
    for (size_t i = 0; i < rows; i++)
      memset(o->bytes[k] + (row0 + i) * ld + col0, 1, span);
  }
  const char *why;
  ck_assert_int_eq(dag__region_make(&r, &o->reg[k], &why), 0);
  o->mode[k] = modes[rnd(5)];
}

static bool conflict(const struct oracle_task *a, const struct oracle_task *b) {
  for (int i = 0; i < a->nacc; i++)
    for (int j = 0; j < b->nacc; j++) {
      enum dag_mode ma = a->mode[i], mb = b->mode[j];
      if ((ma == DAG_IN && mb == DAG_IN) ||
          (ma == DAG_COMMUTATIVE && mb == DAG_COMMUTATIVE))
        continue;
      for (int x = 0; x < ARENA; x++)
        if (a->bytes[i][x] && b->bytes[j][x])
          return true;
    }
  return false;
}

/* One random sequence; with `complete_some`, tasks whose predecessors are
 * all complete are sometimes completed between submissions. */
static void run_sequence(uint64_t seed, bool complete_some) {
  rng_state = seed;
  arena = arena_memory + rnd(16);
  ntasks = 1 + (int)rnd(MAX_TASKS);
  memset(edges, 0, sizeof edges);
  struct deps *d = dag__deps_new();
  uint64_t complete = 0;

  for (int s = 0; s < ntasks; s++) {
    struct oracle_task *o = &tasks[s];
    o->t = fake_task();
    nsubmitted = s + 1;
    o->nacc = 1 + (int)rnd(MAX_ACC);
    for (int k = 0; k < o->nacc; k++)
      random_access(o, k);
    for (int p = 0; p < s; p++)
      o->complete_before[p] = complete >> p & 1;
    dag__deps_add(d, o->t, o->reg, o->mode, (size_t)o->nacc);

    if (complete_some)
      for (int p = 0; p <= s; p++)
        if (!(complete >> p & 1) && (edges[p] & ~complete) == 0 &&
            rnd(3) == 0) {
          atomic_store(&tasks[p].t->succ, DAG_SUCC_CLOSED);
          complete |= 1ull << p;
        }
    if (complete_some && rnd(8) == 0)
      dag__deps_sweep(d); /* the index is built anew from what is left */
  }

  /* reach[s]: every task with a path to s. */
  uint64_t reach[MAX_TASKS];
  for (int s = 0; s < ntasks; s++) {
    reach[s] = edges[s];
    for (int p = 0; p < s; p++)
      if (edges[s] >> p & 1)
        reach[s] |= reach[p];
  }
  for (int s = 0; s < ntasks; s++)
    for (int p = 0; p < s; p++) {
      bool c = conflict(&tasks[p], &tasks[s]);
      if (edges[s] >> p & 1)
        ck_assert_msg(c, "seed %llu: edge %d -> %d without a conflict",
                      (unsigned long long)seed, p, s);
      if (c && !tasks[s].complete_before[p])
        ck_assert_msg(reach[s] >> p & 1,
                      "seed %llu: conflicting %d and %d are not ordered",
                      (unsigned long long)seed, p, s);
    }

  dag__deps_free(d);
  for (int s = 0; s < ntasks; s++) {
    ck_assert_int_eq(atomic_load(&tasks[s].t->refs), 1); /* records gone */
    dag__task_unref(tasks[s].t);
  }
}

static void setup(void) {
  dag__pools_init();
  dag__edge_hook = record_edge;
}

static void teardown(void) {
  dag__edge_hook = NULL;
  dag__pools_release();
}

START_TEST(oracle_random_sequences) {
  for (int i = 0; i < 2500; i++)
    run_sequence(1000003ull * (uint64_t)_i + (uint64_t)i, false);
}
END_TEST

START_TEST(oracle_with_completions) {
  for (int i = 0; i < 2500; i++)
    run_sequence(7919ull * (uint64_t)_i + (uint64_t)i + 99, true);
}
END_TEST

/* ------------------------------------------------------ history growth */

static void ignore_edge(const struct task *pred, const struct task *succ) {
  (void)pred;
  (void)succ;
}

START_TEST(chain_keeps_one_record) {
  dag__edge_hook = ignore_edge;
  struct deps *d = dag__deps_new();
  double x;
  struct region g;
  const char *why;
  struct dag_region r = dag_region_1d(&x, sizeof x);
  ck_assert_int_eq(dag__region_make(&r, &g, &why), 0);
  enum dag_mode m = DAG_INOUT;
  struct task *prev = NULL;
  for (int i = 0; i < 10000; i++) {
    struct task *t = fake_task();
    dag__deps_add(d, t, &g, &m, 1);
    ck_assert_uint_eq(dag__deps_records(d), 1);
    if (prev)
      dag__task_unref(prev);
    prev = t;
  }
  dag__deps_free(d);
  dag__task_unref(prev);
}
END_TEST

START_TEST(completed_history_is_forgotten) {
  dag__edge_hook = ignore_edge;
  struct deps *d = dag__deps_new();
  static double data[100000];
  size_t most = 0;
  for (int i = 0; i < 100000; i++) {
    struct task *t = fake_task();
    struct region g;
    const char *why;
    struct dag_region r = dag_region_1d(&data[i], sizeof data[i]);
    ck_assert_int_eq(dag__region_make(&r, &g, &why), 0);
    enum dag_mode m = DAG_OUT;
    dag__deps_add(d, t, &g, &m, 1);
    atomic_store(&t->succ, DAG_SUCC_CLOSED); /* it ran */
    dag__task_unref(t);
    if (dag__deps_records(d) > most)
      most = dag__deps_records(d);
  }
  ck_assert_msg(most <= 2048, "history grew to %zu records", most);
  dag__deps_free(d);
}
END_TEST

/* ------------------------------------------- whether a task may run now */

/* One case of dag__deps_ready: an earlier task's access, whether that task
 * is complete, and a later access; `ready` is whether the later one may run
 * now (the check behind running a task inline). Regions are bytes of
 * ready_data: `count` rows of `len` bytes, `stride` apart, from `lo`. */
struct ready_access {
  enum dag_mode mode;
  size_t lo, len, count, stride;
};

struct ready_case {
  const char *name;
  struct ready_access earlier;
  bool earlier_complete;
  struct ready_access later;
  bool ready;
};

static const struct ready_case ready_cases[] = {
    {"read after an unfinished write",
     {DAG_OUT, 0, 8, 1, 0},
     false,
     {DAG_IN, 0, 8, 1, 0},
     false},
    {"read after a finished write",
     {DAG_OUT, 0, 8, 1, 0},
     true,
     {DAG_IN, 0, 8, 1, 0},
     true},
    {"read after an unfinished read",
     {DAG_IN, 0, 8, 1, 0},
     false,
     {DAG_IN, 0, 8, 1, 0},
     true},
    {"write after an unfinished read",
     {DAG_IN, 0, 8, 1, 0},
     false,
     {DAG_OUT, 0, 8, 1, 0},
     false},
    {"inout after an unfinished read",
     {DAG_IN, 0, 8, 1, 0},
     false,
     {DAG_INOUT, 0, 8, 1, 0},
     false},
    {"write after an unfinished write",
     {DAG_OUT, 0, 8, 1, 0},
     false,
     {DAG_OUT, 0, 8, 1, 0},
     false},
    {"write after a finished write",
     {DAG_INOUT, 0, 8, 1, 0},
     true,
     {DAG_OUT, 0, 8, 1, 0},
     true},
    {"disjoint bytes",
     {DAG_OUT, 0, 8, 1, 0},
     false,
     {DAG_INOUT, 8, 8, 1, 0},
     true},
    {"one shared byte",
     {DAG_OUT, 0, 8, 1, 0},
     false,
     {DAG_IN, 7, 8, 1, 0},
     false},
    {"a section inside",
     {DAG_OUT, 0, 64, 1, 0},
     false,
     {DAG_IN, 16, 4, 1, 0},
     false},
    {"commutative after unfinished commutative",
     {DAG_COMMUTATIVE, 0, 8, 1, 0},
     false,
     {DAG_COMMUTATIVE, 0, 8, 1, 0},
     false},
    {"commutative after finished commutative",
     {DAG_COMMUTATIVE, 0, 8, 1, 0},
     true,
     {DAG_COMMUTATIVE, 0, 8, 1, 0},
     true},
    {"commutative after an unfinished read",
     {DAG_IN, 0, 8, 1, 0},
     false,
     {DAG_COMMUTATIVE, 0, 8, 1, 0},
     false},
    {"read after unfinished commutative",
     {DAG_COMMUTATIVE, 0, 8, 1, 0},
     false,
     {DAG_IN, 0, 8, 1, 0},
     false},
    {"tiles side by side",
     {DAG_OUT, 0, 16, 4, 64},
     false,
     {DAG_IN, 16, 16, 4, 64},
     true},
    {"tiles sharing a column",
     {DAG_OUT, 0, 16, 4, 64},
     false,
     {DAG_IN, 8, 16, 4, 64},
     false},
    {"a tile and a row between its rows",
     {DAG_OUT, 0, 16, 4, 64},
     false,
     {DAG_INOUT, 16, 48, 1, 0},
     true},
    {"a tile and a run across its rows",
     {DAG_OUT, 0, 16, 4, 64},
     false,
     {DAG_IN, 32, 64, 1, 0},
     false},
};

static char ready_data[512];

static struct region ready_region(const struct ready_access *a) {
  struct dag_region r =
      a->count > 1
          ? dag_region_2d(ready_data + a->lo, a->count, a->len, a->stride)
          : dag_region_1d(ready_data + a->lo, a->len);
  struct region g;
  const char *why;
  ck_assert_int_eq(dag__region_make(&r, &g, &why), 0);
  return g;
}

START_TEST(ready_table) {
  const struct ready_case *c = &ready_cases[_i];
  dag__edge_hook = ignore_edge;
  struct deps *d = dag__deps_new();
  struct task *t = fake_task();
  struct region g = ready_region(&c->earlier);
  dag__deps_add(d, t, &g, &c->earlier.mode, 1);
  if (c->earlier_complete)
    atomic_store(&t->succ, DAG_SUCC_CLOSED);
  struct region later = ready_region(&c->later);
  ck_assert_msg(dag__deps_ready(d, &later, &c->later.mode, 1) == c->ready,
                "%s: ready should be %d", c->name, c->ready);
  /* Among other accesses, the answer is the same. */
  struct region far = {0};
  struct dag_region fr = dag_region_1d(ready_data + 400, 8);
  const char *why;
  ck_assert_int_eq(dag__region_make(&fr, &far, &why), 0);
  struct region both[2] = {far, later};
  enum dag_mode modes[2] = {DAG_INOUT, c->later.mode};
  ck_assert_msg(dag__deps_ready(d, both, modes, 2) == c->ready,
                "%s, second of two accesses: ready should be %d", c->name,
                c->ready);
  dag__deps_free(d);
  dag__task_unref(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("deps");
  TCase *tc = tcase_create("oracle");
  tcase_add_checked_fixture(tc, setup, teardown);
  /* 4 x 2,500 sequences each way: 20,000 random sequences in all. */
  tcase_add_loop_test(tc, oracle_random_sequences, 0, 4);
  tcase_add_loop_test(tc, oracle_with_completions, 0, 4);
  tcase_add_test(tc, chain_keeps_one_record);
  tcase_add_test(tc, completed_history_is_forgotten);
  tcase_set_timeout(tc, 300);
  suite_add_tcase(s, tc);
  tc = tcase_create("ready");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, ready_table, 0,
                      (int)(sizeof ready_cases / sizeof ready_cases[0]));
  suite_add_tcase(s, tc);
  return run_suite(s);
}
