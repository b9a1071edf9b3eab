/* check_exec.c — execution of task graphs through the public API (dag.h).
 *
 * Every task runs exactly once, whatever its accesses and argument size; a
 * 100,000-task random graph over contiguous, 2-D and strided sections of one
 * array, computing an order-sensitive hash, gives bit for bit the result of
 * running the same tasks in a plain loop (also nested in a parent task, and
 * with the queue kept full so that the submitter runs tasks inline);
 * commutative tasks on one variable or on partially overlapping regions never
 * run two at once and a reader after them sees all their updates; nested tasks
 * (with and without dag_taskwait in the parent) complete before the parent's
 * successors run; dag_taskwait_on waits only for what the listed data depends
 * on; ready tasks run by decreasing priority; undeferred tasks run in the
 * submitting thread after their predecessors; dag_num_workers and dag_worker_id
 * follow DAG_NUM_THREADS; DAG_TRACE, DAG_GRAPH and DAG_STATS write what they
 * should; a submitter far ahead of execution gets a bounded number of edges per
 * task.
 *
 * Each test runs in its own process (Check's fork mode), so each starts the
 * runtime afresh with the DAG_NUM_THREADS it sets; the loop tests run with 1,
 * 2 and 4 threads. Under sanitizers the long tests shrink (the random graph
 * to 25,000 tasks), and DAG_TEST_DIV=<n> divides the sizes of all but the
 * graph by n.
 */
#include "dag.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_suite.h"
#include "threads.h"

/* ------------------------------------------------------------- helpers */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEFAULT_DIV 10
#define GRAPH_DIV 4 /* the random graph: 25,000 tasks under sanitizers */
#else
#define DEFAULT_DIV 1
#define GRAPH_DIV 1 /* 100,000 tasks, whatever DAG_TEST_DIV says */
#endif

/* n divided by DAG_TEST_DIV (default 10 under sanitizers, else 1), >= 1. */
static long scaled(long n) {
  long div = DEFAULT_DIV;
  const char *v = getenv("DAG_TEST_DIV");
  if (v && atol(v) > 0)
    div = atol(v);
  return n / div > 0 ? n / div : 1;
}

static void spin_ns(uint64_t ns) {
  uint64_t end = now_ns() + ns;
  while (now_ns() < end)
    ;
}

/* Spins until *flag is set or `timeout_s` passes; returns whether set. */
static bool wait_flag(atomic_int *flag, double timeout_s) {
  uint64_t end = now_ns() + (uint64_t)(timeout_s * 1e9);
  while (!atomic_load(flag))
    if (now_ns() > end)
      return false;
  return true;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static uint64_t rng_next(uint64_t *s) {
  *s += 0x9e3779b97f4a7c15ull;
  return mix(*s);
}

#define INFO(body, lbl)                                                        \
  (&(const struct dag_task_info){                                              \
      .fn = (body), .label = (lbl), .file = __FILE__, .line = __LINE__})

/* ------------------------------------------- every task runs exactly once */

#define ONCE_N 100000
#define ONCE_MAX_ARGS 9000

static atomic_int once_count[ONCE_N];
static atomic_long once_total, once_bad_args;
static char once_dummy[64];

struct once_args {
  int i;
  int size;
  unsigned char bytes[]; /* (i + k) & 0xff */
};

static void once_body(void *p) {
  const struct once_args *a = p;
  for (int k = 0; k < a->size - (int)sizeof *a; k++)
    if (a->bytes[k] != (unsigned char)(a->i + k))
      atomic_fetch_add(&once_bad_args, 1);
  atomic_fetch_add(&once_count[a->i], 1);
  atomic_fetch_add(&once_total, 1);
}

START_TEST(test_every_task_once) {
  use_threads(nthreads_table[_i]);
  static const int sizes[] = {8, 40, 41, 128, 129, 500, 2048, 8192, 9000};
  static _Alignas(16) unsigned char buf[ONCE_MAX_ARGS];
  long n = scaled(ONCE_N);
  for (int i = 0; i < n; i++) {
    struct once_args *a = (struct once_args *)buf;
    int size = sizes[i % 9];
    if (i % 7 != 0)
      size = 8; /* mostly small */
    a->i = i;
    a->size = size;
    for (int k = 0; k < size - (int)sizeof *a; k++)
      a->bytes[k] = (unsigned char)(i + k);
    struct dag_access acc[2];
    size_t nacc = 0;
    switch (i % 6) {
    case 0:
      break;
    case 1:
      acc[nacc++] =
          dag_access_of(DAG_IN, dag_region_1d(&once_dummy[i % 64], 1));
      break;
    case 2:
      acc[nacc++] =
          dag_access_of(DAG_OUT, dag_region_1d(&once_dummy[i % 64], 1));
      break;
    case 3: /* whole 8-byte blocks: the writes that retire readers */
      acc[nacc++] = dag_access_of(
          DAG_INOUT, dag_region_1d(&once_dummy[(i / 6) % 8 * 8], 8));
      break;
    case 4:
      acc[nacc++] =
          dag_access_of(DAG_COMMUTATIVE, dag_region_1d(&once_dummy[i % 3], 1));
      break;
    case 5:
      acc[nacc++] =
          dag_access_of(DAG_IN, dag_region_1d(&once_dummy[(i / 6) % 8 * 8], 8));
      acc[nacc++] = dag_access_of(
          DAG_OUT, dag_region_1d(&once_count[i], sizeof once_count[i]));
      break;
    }
    ck_assert_int_eq(dag_submit(INFO(once_body, "once"), a, (size_t)size,
                                nacc ? acc : NULL, nacc),
                     0);
    memset(buf, 0xee, (size_t)size); /* the runtime copied it */
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  for (int i = 0; i < n; i++)
    ck_assert_msg(atomic_load(&once_count[i]) == 1, "task %d ran %d times", i,
                  atomic_load(&once_count[i]));
  ck_assert_int_eq(atomic_load(&once_total), n);
  ck_assert_int_eq(atomic_load(&once_bad_args), 0);
}
END_TEST

/* -------------------------------------------------- the random graph */

/* 256 words, also seen as a 16x16 row-major matrix. A section: `span`
 * contiguous words at off + i0*str[0] + i1*str[1], 0 <= i_d < cnt[d]. */
#define G_WORDS 256
#define G_TASKS 100000
#define G_MAX_SECS 4

struct sec {
  uint8_t mode;
  uint8_t ndims;
  uint16_t off, span;
  uint16_t cnt[2], str[2];
};

struct gtask {
  uint32_t idx;
  uint32_t n;
  struct sec s[G_MAX_SECS];
};

static uint64_t g_ref[G_WORDS], g_dag[G_WORDS];
static struct gtask *g_tasks;

/* The task: hash everything it reads (in order), then fill everything it
 * writes with values derived from the hash and the position. Any reordering
 * of conflicting tasks changes the final array. */
static void g_apply(uint64_t *a, const struct gtask *t) {
  uint64_t h = mix(0x5eedull ^ ((uint64_t)t->idx << 20));
  for (uint32_t s = 0; s < t->n; s++) {
    const struct sec *c = &t->s[s];
    if (c->mode != DAG_IN && c->mode != DAG_INOUT)
      continue;
    int c0 = c->ndims > 0 ? c->cnt[0] : 1, c1 = c->ndims > 1 ? c->cnt[1] : 1;
    for (int i0 = 0; i0 < c0; i0++)
      for (int i1 = 0; i1 < c1; i1++)
        for (int k = 0; k < c->span; k++)
          h = mix(h ^ a[c->off + i0 * c->str[0] + i1 * c->str[1] + k]);
  }
  for (uint32_t s = 0; s < t->n; s++) {
    const struct sec *c = &t->s[s];
    if (c->mode != DAG_OUT && c->mode != DAG_INOUT)
      continue;
    int c0 = c->ndims > 0 ? c->cnt[0] : 1, c1 = c->ndims > 1 ? c->cnt[1] : 1;
    uint64_t pos = s * 1000;
    for (int i0 = 0; i0 < c0; i0++)
      for (int i1 = 0; i1 < c1; i1++)
        for (int k = 0; k < c->span; k++)
          a[c->off + i0 * c->str[0] + i1 * c->str[1] + k] = mix(h + pos++);
  }
}

static void g_body(void *p) { g_apply(g_dag, p); }

static atomic_long g_fillers;
static void g_filler(void *p) {
  (void)p;
  atomic_fetch_add_explicit(&g_fillers, 1, memory_order_relaxed);
}
static bool g_with_fillers;

static unsigned rnd(uint64_t *s, unsigned n) {
  return (unsigned)(rng_next(s) % n);
}

static struct sec g_random_sec(uint64_t *s) {
  struct sec c = {0};
  unsigned m = rnd(s, 10);
  c.mode = m < 4 ? DAG_IN : m < 7 ? DAG_INOUT : DAG_OUT;
  switch (rnd(s, 5)) {
  case 0: { /* a[lo : len] */
    unsigned len = 1 + rnd(s, 24);
    c.off = (uint16_t)rnd(s, G_WORDS - len + 1);
    c.span = (uint16_t)len;
    break;
  }
  case 1: { /* block of the 16x16 view */
    unsigned rows = 1 + rnd(s, 6), cols = 1 + rnd(s, 6);
    unsigned r0 = rnd(s, 16 - rows + 1), c0 = rnd(s, 16 - cols + 1);
    c.off = (uint16_t)(r0 * 16 + c0);
    c.span = (uint16_t)cols;
    c.ndims = 1;
    c.cnt[0] = (uint16_t)rows;
    c.str[0] = 16;
    break;
  }
  case 2: { /* strided: span words every `step` words (interleaving) */
    unsigned step = 2 + rnd(s, 3), count = 1 + rnd(s, 24);
    c.span = (uint16_t)(1 + rnd(s, step - 1));
    c.off = (uint16_t)rnd(s, G_WORDS - ((count - 1) * step + c.span) + 1);
    c.ndims = 1;
    c.cnt[0] = (uint16_t)count;
    c.str[0] = (uint16_t)step;
    break;
  }
  case 3: { /* every other column of a block: two strided dimensions */
    unsigned rows = 1 + rnd(s, 6), cols = 1 + rnd(s, 6);
    unsigned r0 = rnd(s, 16 - rows + 1), c0 = rnd(s, 16 - (2 * cols - 1) + 1);
    c.off = (uint16_t)(r0 * 16 + c0);
    c.span = 1;
    c.ndims = 2;
    c.cnt[0] = (uint16_t)rows;
    c.str[0] = 16;
    c.cnt[1] = (uint16_t)cols;
    c.str[1] = 2;
    break;
  }
  default: { /* a column, or part of one */
    unsigned rows = 1 + rnd(s, 16);
    c.off = (uint16_t)(rnd(s, 16 - rows + 1) * 16 + rnd(s, 16));
    c.span = 1;
    c.ndims = 1;
    c.cnt[0] = (uint16_t)rows;
    c.str[0] = 16;
    break;
  }
  }
  return c;
}

static struct dag_access g_access(const struct sec *c) {
  struct dag_region r = {
      &g_dag[c->off], c->span * sizeof(uint64_t), c->ndims, {{0, 0}}};
  for (int d = 0; d < c->ndims; d++) {
    r.dim[d].count = c->cnt[d];
    r.dim[d].stride = (ptrdiff_t)(c->str[d] * sizeof(uint64_t));
  }
  return dag_access_of((enum dag_mode)c->mode, r);
}

/* Submits tasks [0, n), waiting for all every `wait_every` tasks (0: never). */
static void g_submit_all(long n, long wait_every) {
  for (long t = 0; t < n; t++) {
    if (wait_every && t > 0 && t % wait_every == 0)
      ck_assert_int_eq(dag_taskwait(), 0);
    struct dag_access acc[G_MAX_SECS];
    for (uint32_t s = 0; s < g_tasks[t].n; s++)
      acc[s] = g_access(&g_tasks[t].s[s]);
    ck_assert_int_eq(dag_submit(INFO(g_body, "graph"), &g_tasks[t],
                                sizeof g_tasks[t], acc, g_tasks[t].n),
                     0);
    /* Ready tasks without accesses keep the queue full, so that the
     * submitter runs graph tasks inline, waiting for their predecessors. */
    for (int f = 0; g_with_fillers && f < 3; f++)
      ck_assert_int_eq(dag_submit(INFO(g_filler, "filler"), NULL, 0, NULL, 0),
                       0);
  }
}

static long g_nested_n;
static void g_parent(void *p) {
  (void)p;
  g_submit_all(g_nested_n, 0); /* children; no wait: completes after them */
}

/* With one thread nothing runs before a wait (until 192 tasks are ready),
 * and the tracker then links each writer to every unfinished reader of a
 * non-contiguous section it does not cover (test_edges_far_ahead): one
 * uninterrupted 100,000-task graph costs about a minute. There the test waits
 * every `wait_every` tasks; with more threads tasks complete as they go. */
static const struct {
  int threads;
  uint64_t seed;
  bool nested;
  long wait_every;
  bool fillers;
} graph_table[] = {
    {1, 1, false, 1000, false},     {2, 1, false, 0, false},
    {4, 1, false, 0, false},        {4, 0xdecaf, false, 0, false},
    {2, 42, true, 0, false},        {4, 7, true, 0, false},
    {1, 0xf111, false, 1000, true}, {2, 0xf111, false, 0, true},
    {4, 0xf112, true, 0, true},
};

START_TEST(test_random_graph) {
  use_threads(graph_table[_i].threads);
  g_with_fillers = graph_table[_i].fillers;
  const long n = G_TASKS / GRAPH_DIV;
  g_tasks = malloc(n * sizeof *g_tasks);
  ck_assert_ptr_nonnull(g_tasks);
  uint64_t s = graph_table[_i].seed;
  for (long t = 0; t < n; t++) {
    g_tasks[t].idx = (uint32_t)t;
    g_tasks[t].n = 1 + rnd(&s, G_MAX_SECS);
    for (uint32_t k = 0; k < g_tasks[t].n; k++)
      g_tasks[t].s[k] = g_random_sec(&s);
  }
  for (int w = 0; w < G_WORDS; w++)
    g_ref[w] = g_dag[w] = mix((uint64_t)w + 1);
  for (long t = 0; t < n; t++)
    g_apply(g_ref, &g_tasks[t]);

  if (graph_table[_i].nested) {
    g_nested_n = n;
    struct dag_access all =
        dag_access_of(DAG_INOUT, dag_region_1d(g_dag, sizeof g_dag));
    ck_assert_int_eq(
        dag_submit(INFO(g_parent, "graph parent"), NULL, 0, &all, 1), 0);
  } else {
    g_submit_all(n, graph_table[_i].wait_every / GRAPH_DIV);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&g_fillers), g_with_fillers ? 3 * n : 0);
  for (int w = 0; w < G_WORDS; w++)
    ck_assert_msg(g_dag[w] == g_ref[w],
                  "word %d (row %d col %d) differs from the sequential run", w,
                  w / 16, w % 16);
  free(g_tasks);
}
END_TEST

/* ------------------------------------------------------- commutative */

static volatile long comm_sum;
static atomic_int comm_inside, comm_max_inside;
static long comm_seen[4];

static void note_inside(atomic_int *inside, atomic_int *max) {
  int now = atomic_fetch_add(inside, 1) + 1;
  int m = atomic_load(max);
  while (now > m && !atomic_compare_exchange_weak(max, &m, now))
    ;
}

static void comm_body(void *p) {
  long add = *(const long *)p;
  note_inside(&comm_inside, &comm_max_inside);
  long v = comm_sum;
  spin_ns(1000);
  comm_sum = v + add;
  atomic_fetch_sub(&comm_inside, 1);
}

static void comm_read(void *p) { comm_seen[*(const int *)p] = comm_sum; }

static void comm_double(void *p) {
  (void)p;
  comm_sum = 2 * comm_sum;
}

START_TEST(test_commutative_same_variable) {
  use_threads(nthreads_table[_i]);
  long n = scaled(10000);
  struct dag_access cm = dag_access_of(
      DAG_COMMUTATIVE, dag_region_1d((const void *)&comm_sum, sizeof comm_sum));
  struct dag_access rd = dag_access_of(
      DAG_IN, dag_region_1d((const void *)&comm_sum, sizeof comm_sum));
  struct dag_access rw = dag_access_of(
      DAG_INOUT, dag_region_1d((const void *)&comm_sum, sizeof comm_sum));
  long expect = 0;
  /* group 1, a reader, group 2 (with some undeferred members), a doubling,
   * group 3, a reader. */
  for (long i = 1; i <= n; i++) {
    ck_assert_int_eq(dag_submit(INFO(comm_body, "comm1"), &i, sizeof i, &cm, 1),
                     0);
    expect += i;
  }
  long seen0 = expect;
  int r = 0;
  ck_assert_int_eq(dag_submit(INFO(comm_read, "reader"), &r, sizeof r, &rd, 1),
                   0);
  for (long i = 1; i <= n; i++) {
    struct dag_task_info info = {.fn = comm_body,
                                 .label = "comm2",
                                 .file = __FILE__,
                                 .line = __LINE__,
                                 .flags =
                                     i % 100 == 0 ? DAG_TASK_UNDEFERRED : 0};
    long add = 3 * i;
    ck_assert_int_eq(dag_submit(&info, &add, sizeof add, &cm, 1), 0);
    expect += add;
  }
  ck_assert_int_eq(dag_submit(INFO(comm_double, "double"), NULL, 0, &rw, 1), 0);
  expect *= 2;
  for (long i = 1; i <= n; i++) {
    ck_assert_int_eq(dag_submit(INFO(comm_body, "comm3"), &i, sizeof i, &cm, 1),
                     0);
    expect += i;
  }
  r = 1;
  ck_assert_int_eq(dag_submit(INFO(comm_read, "reader"), &r, sizeof r, &rd, 1),
                   0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&comm_max_inside), 1);
  ck_assert_int_eq(comm_seen[0], seen0);
  ck_assert_int_eq(comm_seen[1], expect);
  ck_assert_int_eq(comm_sum, expect);
}
END_TEST

/* Commutative tasks on partially overlapping sections of a 64-word array,
 * seen also as 8x8: per word, at most one task inside at a time. */
#define OV_WORDS 64
static volatile long ov[OV_WORDS];
static atomic_int ov_inside[OV_WORDS], ov_max[OV_WORDS];
static long ov_seen[OV_WORDS];

struct ov_args {
  int off, span, rows; /* rows of `span` words, 8 apart */
  long add;
};

static void ov_body(void *p) {
  const struct ov_args *a = p;
  for (int r = 0; r < a->rows; r++)
    for (int k = 0; k < a->span; k++)
      note_inside(&ov_inside[a->off + 8 * r + k], &ov_max[a->off + 8 * r + k]);
  for (int r = 0; r < a->rows; r++)
    for (int k = 0; k < a->span; k++) {
      int w = a->off + 8 * r + k;
      long v = ov[w];
      spin_ns(200);
      ov[w] = v + a->add;
    }
  for (int r = 0; r < a->rows; r++)
    for (int k = 0; k < a->span; k++)
      atomic_fetch_sub(&ov_inside[a->off + 8 * r + k], 1);
}

static void ov_read(void *p) {
  (void)p;
  for (int w = 0; w < OV_WORDS; w++)
    ov_seen[w] = ov[w];
}

START_TEST(test_commutative_overlapping) {
  use_threads(nthreads_table[_i]);
  long expect[OV_WORDS] = {0};
  uint64_t s = 99;
  long n = scaled(5000);
  for (long t = 0; t < n; t++) {
    struct ov_args a;
    a.add = (long)t + 1;
    struct dag_region reg;
    if (rnd(&s, 2)) { /* contiguous words, crossing rows */
      a.span = 1 + (int)rnd(&s, 12);
      a.off = (int)rnd(&s, OV_WORDS - a.span + 1);
      a.rows = 1;
      reg = dag_region_1d((const void *)&ov[a.off], a.span * sizeof(long));
    } else { /* a block of the 8x8 view */
      a.rows = 1 + (int)rnd(&s, 4);
      a.span = 1 + (int)rnd(&s, 4);
      a.off = (int)(rnd(&s, 8 - a.rows + 1) * 8 + rnd(&s, 8 - a.span + 1));
      reg = dag_region_2d((const void *)&ov[a.off], (size_t)a.rows,
                          a.span * sizeof(long), 8 * sizeof(long));
    }
    for (int r = 0; r < a.rows; r++)
      for (int k = 0; k < a.span; k++)
        expect[a.off + 8 * r + k] += a.add;
    struct dag_access acc = dag_access_of(DAG_COMMUTATIVE, reg);
    ck_assert_int_eq(
        dag_submit(INFO(ov_body, "overlap"), &a, sizeof a, &acc, 1), 0);
  }
  struct dag_access all =
      dag_access_of(DAG_IN, dag_region_1d((const void *)ov, sizeof ov));
  ck_assert_int_eq(dag_submit(INFO(ov_read, "reader"), NULL, 0, &all, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  for (int w = 0; w < OV_WORDS; w++) {
    ck_assert_msg(atomic_load(&ov_max[w]) <= 1,
                  "word %d: %d commutative tasks at once", w,
                  atomic_load(&ov_max[w]));
    ck_assert_msg(ov_seen[w] == expect[w], "word %d: reader saw %ld, want %ld",
                  w, ov_seen[w], expect[w]);
    ck_assert_int_eq(ov[w], expect[w]);
  }
}
END_TEST

/* A commutative task whose body leaves part of its work to a child keeps
 * its siblings out until that child is done: exclusion lasts until the task
 * completes, children included. */
static double comm_child_x;
static atomic_int comm_child_active, comm_child_overlaps;

static void comm_child_body(void *p) {
  (void)p;
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  comm_child_x += 1;
  atomic_fetch_sub(&comm_child_active, 1);
}

static void comm_parent_body(void *p) {
  (void)p;
  if (atomic_fetch_add(&comm_child_active, 1) != 0)
    atomic_fetch_add(&comm_child_overlaps, 1);
  struct dag_access acc = dag_access_of(
      DAG_INOUT, dag_region_1d(&comm_child_x, sizeof comm_child_x));
  ck_assert_int_eq(
      dag_submit(INFO(comm_child_body, "comm child"), NULL, 0, &acc, 1), 0);
}

START_TEST(test_commutative_until_children_done) {
  use_threads(4);
  struct dag_access acc = dag_access_of(
      DAG_COMMUTATIVE, dag_region_1d(&comm_child_x, sizeof comm_child_x));
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(
        dag_submit(INFO(comm_parent_body, "comm parent"), NULL, 0, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&comm_child_overlaps), 0);
  ck_assert(comm_child_x == 4);
}
END_TEST

/* ----------------------------------------------------------- nesting */

struct fib_args {
  int n;
  long *out;
};

static long fib_seq(int n) {
  return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static atomic_int fib_wait_err;

static void fib_body(void *p) {
  struct fib_args a = *(const struct fib_args *)p;
  if (a.n < 2) {
    *a.out = a.n;
    return;
  }
  long x = -1, y = -1;
  struct fib_args ax = {a.n - 1, &x}, ay = {a.n - 2, &y};
  struct dag_access accx = dag_access_of(DAG_OUT, dag_region_1d(&x, sizeof x));
  struct dag_access accy = dag_access_of(DAG_OUT, dag_region_1d(&y, sizeof y));
  ck_assert_int_eq(dag_submit(INFO(fib_body, "fib"), &ax, sizeof ax, &accx, 1),
                   0);
  ck_assert_int_eq(dag_submit(INFO(fib_body, "fib"), &ay, sizeof ay, &accy, 1),
                   0);
  if (dag_taskwait() != 0)
    atomic_fetch_add(&fib_wait_err, 1);
  *a.out = x + y;
}

START_TEST(test_nested_fib) {
  use_threads(nthreads_table[_i]);
  int n = scaled(10) > 1 ? 20 : 15; /* ~22,000 tasks, ~2,000 scaled */
  long result = 0;
  struct fib_args a = {n, &result};
  struct dag_access acc =
      dag_access_of(DAG_OUT, dag_region_1d(&result, sizeof result));
  ck_assert_int_eq(dag_submit(INFO(fib_body, "fib"), &a, sizeof a, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(result, fib_seq(n));
  ck_assert_int_eq(atomic_load(&fib_wait_err), 0);
}
END_TEST

/* A parent with out(px) whose children (and grandchildren) write px; none of
 * them waits. A later top-level in(px) task must see every write. */
#define PX 64
static long px[PX], px_seen[PX];
static atomic_int px_done, px_done_seen;

static void px_grandchild(void *p) {
  int k = *(const int *)p;
  spin_ns(20000);
  px[k] = 7L * k + 1;
  atomic_fetch_add(&px_done, 1);
}

static void px_child(void *p) {
  int j = *(const int *)p;
  for (int m = 0; m < 8; m++) {
    int k = 8 * j + m;
    struct dag_access acc =
        dag_access_of(DAG_OUT, dag_region_1d(&px[k], sizeof(long)));
    ck_assert_int_eq(
        dag_submit(INFO(px_grandchild, "px grandchild"), &k, sizeof k, &acc, 1),
        0);
  }
}

static void px_parent(void *p) {
  (void)p;
  for (int j = 0; j < 8; j++) {
    struct dag_access acc =
        dag_access_of(DAG_OUT, dag_region_1d(&px[8 * j], 8 * sizeof(long)));
    ck_assert_int_eq(
        dag_submit(INFO(px_child, "px child"), &j, sizeof j, &acc, 1), 0);
  }
}

static void px_reader(void *p) {
  (void)p;
  atomic_store(&px_done_seen, atomic_load(&px_done));
  memcpy(px_seen, px, sizeof px);
}

/* Loop index: threads 1, 2, 4 (index % 3); from 3 on the parent is
 * undeferred: run before dag_submit returns, it still completes only after
 * its children. */
START_TEST(test_nested_parent_completes_after_children) {
  use_threads(nthreads_table[_i % NTHREADS]);
  struct dag_access out = dag_access_of(DAG_OUT, dag_region_1d(px, sizeof px));
  struct dag_access in = dag_access_of(DAG_IN, dag_region_1d(px, sizeof px));
  const struct dag_task_info parent = {
      .fn = px_parent,
      .label = "px parent",
      .file = __FILE__,
      .line = __LINE__,
      .flags = _i >= NTHREADS ? DAG_TASK_UNDEFERRED : 0};
  ck_assert_int_eq(dag_submit(&parent, NULL, 0, &out, 1), 0);
  ck_assert_int_eq(dag_submit(INFO(px_reader, "px reader"), NULL, 0, &in, 1),
                   0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&px_done_seen), PX);
  for (int k = 0; k < PX; k++)
    ck_assert_int_eq(px_seen[k], 7L * k + 1);
}
END_TEST

/* ------------------------------------------------------- taskwait_on */

static long two_x, two_u;
static atomic_int long_release, long_started, long_done, long_timed_out;
static int long_worker = -2;

static void writer_body(void *p) {
  (void)p;
  spin_ns(2000000);
  two_x = 42;
}

static void long_body(void *p) {
  (void)p;
  long_worker = dag_worker_id();
  atomic_store(&long_started, 1);
  if (!wait_flag(&long_release, 20.0))
    atomic_store(&long_timed_out, 1);
  two_u = 1;
  atomic_store(&long_done, 1);
}

/* A long task L (on u, unrelated to x) that may not finish before we let it,
 * a writer W of x; dag_taskwait_on(x) must return with W done and L not.
 * The waiting thread runs ready tasks meanwhile, so L must not be one it can
 * pick: with several threads L is already running on another worker before
 * we wait; with one thread L has a negative priority, which runs only when
 * nothing else is ready, and W is ready. */
START_TEST(test_taskwait_on) {
  int n = nthreads_table[_i];
  use_threads(n);
  struct dag_access on_u =
      dag_access_of(DAG_INOUT, dag_region_1d(&two_u, sizeof two_u));
  struct dag_access on_x =
      dag_access_of(DAG_OUT, dag_region_1d(&two_x, sizeof two_x));
  struct dag_task_info long_info = {.fn = long_body,
                                    .label = "long",
                                    .file = __FILE__,
                                    .line = __LINE__,
                                    .priority = n == 1 ? -1 : 0};
  ck_assert_int_eq(dag_submit(&long_info, NULL, 0, &on_u, 1), 0);
  if (n > 1) {
    ck_assert_msg(wait_flag(&long_started, 10.0), "no worker picked up L");
    ck_assert_int_gt(long_worker, 0);
  }
  ck_assert_int_eq(dag_submit(INFO(writer_body, "writer"), NULL, 0, &on_x, 1),
                   0);
  struct dag_access wait_x =
      dag_access_of(DAG_IN, dag_region_1d(&two_x, sizeof two_x));
  ck_assert_int_eq(dag_taskwait_on(&wait_x, 1), 0);
  ck_assert_int_eq(two_x, 42);
  ck_assert_msg(atomic_load(&long_done) == 0,
                "dag_taskwait_on waited for an unrelated task");
  atomic_store(&long_release, 1);
  /* Waiting on u waits for L. */
  struct dag_access wait_u =
      dag_access_of(DAG_IN, dag_region_1d(&two_u, sizeof two_u));
  ck_assert_int_eq(dag_taskwait_on(&wait_u, 1), 0);
  ck_assert_int_eq(atomic_load(&long_done), 1);
  ck_assert_int_eq(two_u, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&long_timed_out), 0);
}
END_TEST

/* ---------------------------------------------------------- priority */

#define PRIO_N 1000
static int prio_log[PRIO_N];
static atomic_int prio_pos;
static int prio_gate;

static void prio_body(void *p) {
  prio_log[atomic_fetch_add(&prio_pos, 1)] = *(const int *)p;
}

static void gate_body(void *p) {
  (void)p;
  spin_ns(100000); /* not a tiny task the submitter might run at once */
  prio_gate = 1;
}

/* One thread, which runs tasks only while it waits, or inline while it
 * submits when it is far ahead: then only tasks that are ready at once.
 * Loop index 0: 1000 tasks with priorities -20..20 behind a gate task, made
 * ready together by its completion in dag_taskwait; 1: the same without
 * priority 0; 2: 40 independent tasks, ready at once (too few for the
 * submitter to be far ahead). They must run by decreasing priority. */
static const struct {
  int n;
  bool gated, with_zero;
} prio_table[] = {
    {PRIO_N, true, true}, {PRIO_N, true, false}, {40, false, true}};

START_TEST(test_priority_order) {
  use_threads(1);
  const int total = prio_table[_i].n;
  const bool gated = prio_table[_i].gated, with_zero = prio_table[_i].with_zero;
  struct dag_access gate_out =
      dag_access_of(DAG_OUT, dag_region_1d(&prio_gate, sizeof prio_gate));
  struct dag_access gate_in =
      dag_access_of(DAG_IN, dag_region_1d(&prio_gate, sizeof prio_gate));
  if (gated)
    ck_assert_int_eq(dag_submit(INFO(gate_body, "gate"), NULL, 0, &gate_out, 1),
                     0);
  int n = 0;
  for (int i = 0; n < total; i++) {
    int prio = (int)((i * 7919L) % 41) - 20;
    if (prio == 0 && !with_zero)
      continue;
    struct dag_task_info info = {.fn = prio_body,
                                 .label = "prio",
                                 .file = __FILE__,
                                 .line = __LINE__,
                                 .priority = prio};
    ck_assert_int_eq(
        dag_submit(&info, &prio, sizeof prio, gated ? &gate_in : NULL, gated),
        0);
    n++;
  }
  ck_assert_int_eq(atomic_load(&prio_pos), 0); /* nothing ran yet */
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&prio_pos), total);
  for (int k = 1; k < total; k++)
    ck_assert_msg(prio_log[k - 1] >= prio_log[k],
                  "task %d ran with priority %d after one with priority %d", k,
                  prio_log[k], prio_log[k - 1]);
}
END_TEST

/* -------------------------------------------------------- undeferred */

static long ud_x, ud_y, ud_seen_x, ud_q_seen;
static atomic_int ud_ran;
static pthread_t ud_thread;
static int ud_worker;

static void ud_pred(void *p) {
  (void)p;
  spin_ns(5000000);
  ud_x = 7;
}

static void ud_body(void *p) {
  (void)p;
  ud_seen_x = ud_x;
  ud_y = ud_x + 1;
  ud_thread = pthread_self();
  ud_worker = dag_worker_id();
  atomic_store(&ud_ran, 1);
}

static void ud_later(void *p) {
  (void)p;
  ud_q_seen = ud_y;
}

/* Undeferred tasks submitted from inside a task body run in that thread. */
static atomic_int ud_nested_bad;
static void ud_inner(void *p) {
  if (!pthread_equal(pthread_self(), *(const pthread_t *)p))
    atomic_fetch_add(&ud_nested_bad, 1);
}
static void ud_outer(void *p) {
  (void)p;
  pthread_t me = pthread_self();
  const struct dag_task_info info = {.fn = ud_inner,
                                     .label = "inner undeferred",
                                     .flags = DAG_TASK_UNDEFERRED};
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(dag_submit(&info, &me, sizeof me, NULL, 0), 0);
}

START_TEST(test_undeferred) {
  use_threads(nthreads_table[_i]);
  struct dag_access x_out =
      dag_access_of(DAG_OUT, dag_region_1d(&ud_x, sizeof ud_x));
  struct dag_access acc[2] = {
      dag_access_of(DAG_IN, dag_region_1d(&ud_x, sizeof ud_x)),
      dag_access_of(DAG_OUT, dag_region_1d(&ud_y, sizeof ud_y))};
  struct dag_access y_in =
      dag_access_of(DAG_IN, dag_region_1d(&ud_y, sizeof ud_y));
  ck_assert_int_eq(dag_submit(INFO(ud_pred, "pred"), NULL, 0, &x_out, 1), 0);
  const struct dag_task_info info = {.fn = ud_body,
                                     .label = "undeferred",
                                     .file = __FILE__,
                                     .line = __LINE__,
                                     .flags = DAG_TASK_UNDEFERRED};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, acc, 2), 0);
  ck_assert_int_eq(atomic_load(&ud_ran), 1); /* before dag_submit returned */
  ck_assert_int_eq(ud_seen_x, 7);            /* after its predecessor */
  ck_assert(pthread_equal(ud_thread, pthread_self()));
  ck_assert_int_eq(ud_worker, 0);
  ck_assert_int_eq(dag_submit(INFO(ud_later, "later"), NULL, 0, &y_in, 1), 0);
  for (int i = 0; i < 20; i++)
    ck_assert_int_eq(dag_submit(INFO(ud_outer, "outer"), NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(ud_q_seen, 8);
  ck_assert_int_eq(atomic_load(&ud_nested_bad), 0);
}
END_TEST

/* ---------------------------------------------------- workers and ids */

static atomic_int id_bad, id_max_seen, id_count;
static int id_n;

static void id_body(void *p) {
  (void)p;
  int id = dag_worker_id();
  if (id < 0 || id >= id_n)
    atomic_fetch_add(&id_bad, 1);
  int m = atomic_load(&id_max_seen);
  while (id > m && !atomic_compare_exchange_weak(&id_max_seen, &m, id))
    ;
  atomic_fetch_add(&id_count, 1);
  spin_ns(2000);
}

static void *foreign_thread(void *p) {
  *(int *)p = dag_worker_id();
  return NULL;
}

static const int workers_table[] = {1, 2, 3, 4, 8};

START_TEST(test_num_workers_and_ids) {
  int n = workers_table[_i];
  use_threads(n);
  ck_assert_int_eq(dag_worker_id(), -1); /* not started yet */
  ck_assert_int_eq(dag_num_workers(), n);
  ck_assert_int_eq(dag_worker_id(), 0); /* the starting thread is worker 0 */
  ck_assert_int_eq(dag_init(), 0);      /* already running: fine */
  ck_assert_int_eq(dag_num_workers(), n);
  id_n = n;
  int foreign = 123;
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, foreign_thread, &foreign), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(foreign, -1);
  for (int i = 0; i < 2000; i++)
    ck_assert_int_eq(dag_submit(INFO(id_body, "id"), NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&id_count), 2000);
  ck_assert_int_eq(atomic_load(&id_bad), 0);
  ck_assert_int_lt(atomic_load(&id_max_seen), n);
}
END_TEST

START_TEST(test_num_workers_bad_env) {
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", "lots", 1), 0);
  ck_assert_int_eq(dag_num_workers(), DAG_EINVAL); /* never a guess */
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "DAG_NUM_THREADS='lots'"));
}
END_TEST

/* ------------------------------------------------- trace, graph, stats */

static long tr_x;
static void tr_produce(void *p) {
  (void)p;
  tr_x = 5;
}
static void tr_consume(void *p) {
  (void)p;
  ck_assert_int_eq(tr_x, 5);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

START_TEST(test_trace_graph_stats) {
  use_threads(1); /* nothing runs before taskwait: the edge is always made */
  char dir[] = "/tmp/check_exec_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char trace[300], graph[300], stats[300];
  snprintf(trace, sizeof trace, "%s/trace.json", dir);
  snprintf(graph, sizeof graph, "%s/graph.dot", dir);
  snprintf(stats, sizeof stats, "%s/stats.txt", dir);
  setenv("DAG_TRACE", trace, 1);
  setenv("DAG_GRAPH", graph, 1);
  setenv("DAG_STATS", "1", 1);

  struct dag_access out =
      dag_access_of(DAG_OUT, dag_region_1d(&tr_x, sizeof tr_x));
  struct dag_access in =
      dag_access_of(DAG_IN, dag_region_1d(&tr_x, sizeof tr_x));
  ck_assert_int_eq(dag_submit(INFO(tr_produce, "producer"), NULL, 0, &out, 1),
                   0);
  ck_assert_int_eq(dag_submit(INFO(tr_consume, "consumer"), NULL, 0, &in, 1),
                   0);
  const struct dag_task_info unnamed = {
      .fn = tr_consume, .file = "unnamed.c", .line = 77};
  ck_assert_int_eq(dag_submit(&unnamed, NULL, 0, &in, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);

  /* Stats go to stderr: catch them in a file. */
  fflush(stderr);
  int saved = dup(2);
  FILE *sf = fopen(stats, "w");
  ck_assert_ptr_nonnull(sf);
  dup2(fileno(sf), 2);
  ck_assert_int_eq(dag_finalize(), 0);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(sf);

  char *t = slurp(trace), *g = slurp(graph), *st = slurp(stats);
  ck_assert_ptr_nonnull(t);
  ck_assert_ptr_nonnull(g);
  ck_assert_ptr_nonnull(st);
  ck_assert_msg(strncmp(t, "{\"displayTimeUnit\"", 18) == 0, "trace: %.60s", t);
  ck_assert_ptr_nonnull(strstr(t, "\"ph\":\"X\""));
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"producer\""));
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"consumer\""));
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"unnamed.c:77\""));
  ck_assert_ptr_nonnull(strstr(t, "check_exec.c:"));
  ck_assert_msg(strncmp(g, "digraph", 7) == 0, "graph: %.60s", g);
  ck_assert_ptr_nonnull(strstr(g, "->"));
  ck_assert_ptr_nonnull(strstr(g, "producer"));
  ck_assert_ptr_nonnull(strstr(g, "consumer"));
  /* The edge goes from the producer's node to the consumer's. */
  const char *pn = strstr(g, "[label=\"producer");
  const char *cn = strstr(g, "[label=\"consumer");
  ck_assert_ptr_nonnull(pn);
  ck_assert_ptr_nonnull(cn);
  /* "  t<id> [label=...": the node name is the word before the label. */
  const char *pl = pn - 1, *cl = cn - 1;
  while (pl > g && pl[-1] != ' ')
    pl--;
  while (cl > g && cl[-1] != ' ')
    cl--;
  char edge[128];
  snprintf(edge, sizeof edge, "%.*s -> %.*s;", (int)(pn - 1 - pl), pl,
           (int)(cn - 1 - cl), cl);
  ck_assert_msg(strstr(g, edge), "no edge '%s' in\n%s", edge, g);
  ck_assert_ptr_nonnull(strstr(st, "dag: stats:"));
  ck_assert_ptr_nonnull(strstr(st, "dag: stats: 1 workers"));
  ck_assert_ptr_nonnull(strstr(st, "worker 0: 3 tasks")); /* all ran there */
  free(t);
  free(g);
  free(st);
  unlink(trace);
  unlink(graph);
  unlink(stats);
  rmdir(dir);
}
END_TEST

/* ------------------------------------------------ submitting far ahead */

/* The one internal hook used here (runtime/internal.h): called for every
 * edge the dependency tracker adds. */
struct task;
extern void (*dag__edge_hook)(const struct task *pred, const struct task *succ);

static atomic_long far_edges;
static void far_count_edge(const struct task *pred, const struct task *succ) {
  (void)pred;
  (void)succ;
  atomic_fetch_add_explicit(&far_edges, 1, memory_order_relaxed);
}

static char far_x[64];
static double far_m[16][32]; /* the left 16x16 half is the tile */
static void far_nop(void *p) { (void)p; }

/* Readers of all of a region, each followed by a writer of a part of it.
 * With one thread nothing runs before dag_taskwait (until 192 tasks are
 * ready), so the tracker can forget no reader by completion. A writer needs
 * to follow only the readers since the last writer of its bytes (the older
 * ones are ordered before that writer already): a bounded number of edges
 * per task. Linking it to every unfinished reader instead gives n^2/2 edges,
 * and time and memory to match. With P distinct parts written in turn, the
 * least a correct tracker can do is about P edges per task: a writer
 * follows the P readers since the last write of its part, and a reader
 * follows the last writer of each of the P parts (they are not ordered
 * among themselves). The test allows P + 8 per task.
 * 0: x[0:64] and one byte of it; 1: a 16x16 tile of a 16x32 matrix of
 * doubles (non-contiguous) and one element of it; 2: the tile and a column
 * of it. */
START_TEST(test_edges_far_ahead) {
  use_threads(1);
  dag__edge_hook = far_count_edge;
  const long pairs = 3000;
  struct dag_region whole =
      _i == 0 ? dag_region_1d(far_x, sizeof far_x)
              : dag_region_2d(far_m, 16, 16 * sizeof(double), sizeof far_m[0]);
  struct dag_access r = dag_access_of(DAG_IN, whole);
  for (long i = 0; i < pairs; i++) {
    struct dag_region part;
    if (_i == 0)
      part = dag_region_1d(&far_x[i % 64], 1);
    else if (_i == 1)
      part = dag_region_1d(&far_m[i / 16 % 16][i % 16], sizeof(double));
    else
      part =
          dag_region_2d(&far_m[0][i % 16], 16, sizeof(double), sizeof far_m[0]);
    struct dag_access w = dag_access_of(DAG_OUT, part);
    ck_assert_int_eq(dag_submit(INFO(far_nop, "reader"), NULL, 0, &r, 1), 0);
    ck_assert_int_eq(dag_submit(INFO(far_nop, "writer"), NULL, 0, &w, 1), 0);
  }
  long edges = atomic_load(&far_edges);
  ck_assert_int_eq(dag_taskwait(), 0);
  dag__edge_hook = NULL;
  const long parts = _i == 0 ? 64 : _i == 1 ? 256 : 16;
  ck_assert_msg(edges <= (parts + 8) * 2 * pairs,
                "%ld edges for %ld tasks: writers linked to every unfinished "
                "reader",
                edges, 2 * pairs);
}
END_TEST

/* -------------------------------------------------------- DAG_INLINE */

static atomic_int inline_ran;
static void inline_body(void *p) {
  (void)p;
  atomic_fetch_add_explicit(&inline_ran, 1, memory_order_relaxed);
}

/* One thread submits 2000 ready tasks, far more than THROTTLE_READY: by
 * default it runs some of them itself as it submits; with DAG_INLINE=0
 * (loop index 1) none runs before dag_taskwait. */
START_TEST(test_inline_setting) {
  bool off = _i == 1;
  if (off)
    setenv("DAG_INLINE", "0", 1);
  use_threads(1);
  for (int i = 0; i < 2000; i++)
    ck_assert_int_eq(dag_submit(INFO(inline_body, "tiny"), NULL, 0, NULL, 0),
                     0);
  int before = atomic_load(&inline_ran);
  if (off)
    ck_assert_int_eq(before, 0);
  else
    ck_assert_int_gt(before, 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&inline_ran), 2000);
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *exec_suite(void) {
  Suite *s = suite_create("exec");
  TCase *tc;

  tc = tcase_create("once");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_every_task_once, 0, NTHREADS);
  suite_add_tcase(s, tc);

  tc = tcase_create("random graph");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_random_graph, 0,
                      (int)(sizeof graph_table / sizeof graph_table[0]));
  suite_add_tcase(s, tc);

  tc = tcase_create("commutative");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_commutative_same_variable, 0, NTHREADS);
  tcase_add_loop_test(tc, test_commutative_overlapping, 0, NTHREADS);
  tcase_add_test(tc, test_commutative_until_children_done);
  suite_add_tcase(s, tc);

  tc = tcase_create("nested");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_nested_fib, 0, NTHREADS);
  tcase_add_loop_test(tc, test_nested_parent_completes_after_children, 0,
                      2 * NTHREADS);
  suite_add_tcase(s, tc);

  tc = tcase_create("waiting");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_taskwait_on, 0, NTHREADS);
  tcase_add_loop_test(tc, test_undeferred, 0, NTHREADS);
  suite_add_tcase(s, tc);

  tc = tcase_create("priority");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_priority_order, 0,
                      (int)(sizeof prio_table / sizeof prio_table[0]));
  suite_add_tcase(s, tc);

  tc = tcase_create("workers");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_num_workers_and_ids, 0,
                      (int)(sizeof workers_table / sizeof workers_table[0]));
  tcase_add_test(tc, test_num_workers_bad_env);
  suite_add_tcase(s, tc);

  tc = tcase_create("far ahead");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_edges_far_ahead, 0, 3);
  tcase_add_loop_test(tc, test_inline_setting, 0, 2);
  suite_add_tcase(s, tc);

  tc = tcase_create("outputs");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_trace_graph_stats);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(exec_suite()); }
