/* check_reduce.c — task reductions (runtime/reduce/reduce.c) on one rank,
 * through the public API: sums, histograms and every operator against the
 * serial loop; the initial value kept; a group ended by a reader, by
 * taskwait on and by a strided neighbour left alone; the same bits from
 * run to run; the tasks of a group running at once; and the mistakes
 * refused with a message; the children of a task body reducing, the
 * group ended by the body's return, its taskwait, taskwait on or a
 * reader. Each test runs in a process of its own (Check forks), with 2
 * workers.
 */
#include <check.h>
#include <dag.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_suite.h"

static void start(void) {
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", "2", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
}

/* ------------------------------------------------------------- sums */

enum { N = 1 << 14, BLOCK = 256, NB = 16 };

struct dot_args {
  double *s;
  const double *x;
};

static const struct dag_pointers dot_pointers[] = {
    {offsetof(struct dot_args, s), 1}};

/* The item itself, which no task of a group may touch: each reaches its
 * private copy. */
static const double *dot_item;
static atomic_bool touched_item;

static void dot_body(void *p) {
  struct dot_args *a = p;
  if (a->s == dot_item)
    atomic_store(&touched_item, true);
  for (int i = 0; i < BLOCK; i++)
    *a->s += a->x[i] * a->x[i];
}

static const struct dag_task_info dot_info = {
    .fn = dot_body, .label = "dot", .pointers = dot_pointers, .npointers = 1};

static const enum dag_mode SUM_DOUBLE =
    DAG_REDUCE(DAG_REDUCE_SUM, DAG_REDUCE_DOUBLE);

static void submit_dots(double *s, const double *x) {
  for (int b = 0; b < N / BLOCK; b++) {
    struct dot_args a = {s, &x[b * BLOCK]};
    struct dag_access acc[] = {
        {DAG_IN, dag_region_1d(&x[b * BLOCK], BLOCK * sizeof *x)},
        {SUM_DOUBLE, dag_region_1d(s, sizeof *s)}};
    ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, acc, 2), 0);
  }
}

static double *filled(void) {
  double *x = malloc(N * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (int i = 0; i < N; i++)
    x[i] = 1.0 / (i + 1);
  return x;
}

static double serial_dot(const double *x, double from) {
  for (int i = 0; i < N; i++)
    from += x[i] * x[i];
  return from;
}

START_TEST(sum_keeps_the_initial_value_and_the_same_bits) {
  start();
  double *x = filled();
  double first = 0;
  for (int round = 0; round < 4; round++) {
    double s = 100;
    dot_item = &s;
    submit_dots(&s, x);
    ck_assert_int_eq(dag_taskwait(), 0);
    ck_assert_double_eq_tol(s, serial_dot(x, 100), 1e-12);
    if (round == 0)
      first = s;
    ck_assert_mem_eq(&s, &first, sizeof s); /* the same bits each time */
  }
  ck_assert(!atomic_load(&touched_item));
  free(x);
}
END_TEST

/* A reader of the item ends the group and sees the whole sum; the
 * reductions after it form a new group that starts from its value. */
struct scale_args {
  double *s;
  double *seen;
};

static void scale_body(void *p) {
  struct scale_args *a = p;
  *a->seen = *a->s;
  *a->s *= 2;
}

START_TEST(a_reader_ends_the_group) {
  start();
  double *x = filled();
  double s = 0, seen = 0;
  submit_dots(&s, x);
  static const struct dag_task_info scale_info = {.fn = scale_body,
                                                  .label = "scale"};
  struct scale_args a = {&s, &seen};
  struct dag_access acc[] = {{DAG_INOUT, dag_region_1d(&s, sizeof s)},
                             {DAG_OUT, dag_region_1d(&seen, sizeof seen)}};
  ck_assert_int_eq(dag_submit(&scale_info, &a, sizeof a, acc, 2), 0);
  submit_dots(&s, x);
  struct dag_access on = {DAG_IN, dag_region_1d(&s, sizeof s)};
  ck_assert_int_eq(dag_taskwait_on(&on, 1), 0); /* ends the second group */
  double once = serial_dot(x, 0);
  ck_assert_double_eq_tol(seen, once, 1e-12);
  ck_assert_double_eq_tol(s, 3 * once, 1e-12);
  ck_assert_int_eq(dag_taskwait(), 0);
  free(x);
}
END_TEST

/* ------------------------------------------------------- histograms */

enum { BINS = 37, VALUES = 1 << 15, CHUNK = 1 << 10 };

struct hist_args {
  long *hist;
  const unsigned *v;
};

static const struct dag_pointers hist_pointers[] = {
    {offsetof(struct hist_args, hist), 1}};

static void hist_body(void *p) {
  struct hist_args *a = p;
  for (int i = 0; i < CHUNK; i++)
    a->hist[a->v[i] % BINS]++;
}

START_TEST(histogram_counts_exactly) {
  start();
  unsigned *v = malloc(VALUES * sizeof *v);
  long hist[BINS] = {0}, want[BINS] = {0};
  for (int i = 0; i < VALUES; i++) {
    v[i] = (unsigned)i * 2654435761u;
    want[v[i] % BINS]++;
  }
  static const struct dag_task_info info = {.fn = hist_body,
                                            .label = "histogram",
                                            .pointers = hist_pointers,
                                            .npointers = 1};
  for (int c = 0; c < VALUES / CHUNK; c++) {
    struct hist_args a = {hist, &v[c * CHUNK]};
    struct dag_access acc[] = {
        {DAG_IN, dag_region_1d(&v[c * CHUNK], CHUNK * sizeof *v)},
        {DAG_REDUCE(DAG_REDUCE_SUM, DAG_REDUCE_LONG),
         dag_region_1d(hist, sizeof hist)}};
    ck_assert_int_eq(dag_submit(&info, &a, sizeof a, acc, 2), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_mem_eq(hist, want, sizeof want);
  free(v);
}
END_TEST

/* -------------------------------------------------------- operators */

enum { OPS_TASKS = 40 };

struct op_args {
  int *into;
  int value;
  int op;
};

static const struct dag_pointers op_pointers[] = {
    {offsetof(struct op_args, into), 1}};

static int apply(int op, int a, int b) {
  switch (op) {
  case DAG_REDUCE_SUM:
    return a + b;
  case DAG_REDUCE_PROD:
    return a * b;
  case DAG_REDUCE_MIN:
    return b < a ? b : a;
  case DAG_REDUCE_MAX:
    return b > a ? b : a;
  case DAG_REDUCE_BAND:
    return a & b;
  case DAG_REDUCE_BOR:
    return a | b;
  case DAG_REDUCE_BXOR:
    return a ^ b;
  case DAG_REDUCE_LAND:
    return a && b;
  default:
    return a || b;
  }
}

static void op_body(void *p) {
  struct op_args *a = p;
  *a->into = apply(a->op, *a->into, a->value);
}

START_TEST(every_operator_on_int) {
  start();
  static const struct dag_task_info info = {
      .fn = op_body, .label = "op", .pointers = op_pointers, .npointers = 1};
  for (int op = DAG_REDUCE_SUM; op <= DAG_REDUCE_LOR; op++) {
    int into = op == DAG_REDUCE_PROD ? 3 : 5, want = into;
    for (int t = 0; t < OPS_TASKS; t++) {
      /* values whose product stays small and whose AND/OR are not trivial */
      int value = op == DAG_REDUCE_PROD   ? (t % 7 == 0 ? -1 : 1)
                  : op >= DAG_REDUCE_LAND ? (t != 17)
                                          : (t * 37) % 101 - 20;
      want = apply(op, want, value);
      struct op_args a = {&into, value, op};
      struct dag_access acc = {DAG_REDUCE(op, DAG_REDUCE_INT),
                               dag_region_1d(&into, sizeof into)};
      ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
    }
    ck_assert_int_eq(dag_taskwait(), 0);
    ck_assert_msg(into == want, "operator %d: %d, want %d", op, into, want);
  }
}
END_TEST

/* ------------------------------------------------- strided items */

enum { ROWS = 64, COLS = 8 };

struct column_args {
  int (*m)[COLS];
  int col;
  int by;
};

static const struct dag_pointers column_pointers[] = {
    {offsetof(struct column_args, m), 1}};

static void column_body(void *p) {
  struct column_args *a = p;
  for (int i = 0; i < ROWS; i++)
    a->m[i][a->col] += a->by * (i + 1);
}

/* Column 0 is reduced into while tasks write column 1 of the same rows
 * (which the reductions' copies must leave alone). */
START_TEST(a_strided_item_leaves_its_neighbours_alone) {
  start();
  static int m[ROWS][COLS];
  static const struct dag_task_info info = {.fn = column_body,
                                            .label = "column",
                                            .pointers = column_pointers,
                                            .npointers = 1};
  struct dag_region column0 = {
      &m[0][0], sizeof(int), 1, {{ROWS, COLS * sizeof(int)}}};
  struct dag_region column1 = {
      &m[0][1], sizeof(int), 1, {{ROWS, COLS * sizeof(int)}}};
  for (int t = 0; t < 30; t++) {
    struct column_args r = {m, 0, t};
    struct dag_access red = {DAG_REDUCE(DAG_REDUCE_SUM, DAG_REDUCE_INT),
                             column0};
    ck_assert_int_eq(dag_submit(&info, &r, sizeof r, &red, 1), 0);
    struct column_args w = {m, 1, 1};
    struct dag_access inout = {DAG_INOUT, column1};
    ck_assert_int_eq(dag_submit(&info, &w, sizeof w, &inout, 1), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  for (int i = 0; i < ROWS; i++) {
    ck_assert_int_eq(m[i][0], 435 * (i + 1)); /* 0 + 1 + ... + 29 */
    ck_assert_int_eq(m[i][1], 30 * (i + 1));
    for (int j = 2; j < COLS; j++)
      ck_assert_int_eq(m[i][j], 0);
  }
}
END_TEST

/* ------------------------------------------------------ parallelism */

static atomic_int running, most_running;

struct slow_args {
  double *s;
};

static const struct dag_pointers slow_pointers[] = {
    {offsetof(struct slow_args, s), 1}};

static void slow_body(void *p) {
  struct slow_args *a = p;
  int now = atomic_fetch_add(&running, 1) + 1;
  int most = atomic_load(&most_running);
  while (now > most && !atomic_compare_exchange_weak(&most_running, &most, now))
    ;
  nanosleep(&(struct timespec){0, 30 * 1000 * 1000}, NULL);
  *a->s += 1;
  atomic_fetch_sub(&running, 1);
}

START_TEST(the_tasks_of_a_group_run_at_once) {
  start();
  static const struct dag_task_info info = {.fn = slow_body,
                                            .label = "slow",
                                            .pointers = slow_pointers,
                                            .npointers = 1};
  double s = 0;
  for (int t = 0; t < 8; t++) {
    struct slow_args a = {&s};
    struct dag_access acc = {SUM_DOUBLE, dag_region_1d(&s, sizeof s)};
    ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_double_eq(s, 8);
  ck_assert_int_eq(atomic_load(&most_running), 2);
}
END_TEST

/* --------------------------------------------------------- devices */

/* Where each dot ran: kernels on the emulated device, the CPU variant. */
static atomic_int on_device, on_host;

static void dot_kernel(void *p) {
  dot_body(p);
  atomic_fetch_add(&on_device, 1);
}

static void dot_on_device(void *p) {
  ck_assert_int_eq(dag_emul_launch(dot_kernel, p, sizeof(struct dot_args)), 0);
}

static void dot_on_host(void *p) {
  dot_body(p);
  atomic_fetch_add(&on_host, 1);
}

/* On the emulated device, with its jitter: each task's copy travels to
 * the device and back, its pointer translated twice (to the copy, then
 * to the device's address of it); a CPU variant beside it runs some of
 * the tasks on the host, on the same copies. Each variant runs (the
 * chooser tries both), and every task runs once. */
START_TEST(device_tasks_reduce) {
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_JITTER_US", "100", 1), 0);
  start();
  static const struct dag_variant cpu[] = {{dot_on_host, DAG_DEVICE_CPU}};
  static const struct dag_task_info device_info = {.fn = dot_on_device,
                                                   .label = "dot on the device",
                                                   .device = DAG_DEVICE_CUDA,
                                                   .variants = cpu,
                                                   .nvariants = 1,
                                                   .pointers = dot_pointers,
                                                   .npointers = 1};
  double *x = filled();
  for (int round = 0; round < 3; round++) {
    double s = 1;
    dot_item = &s;
    for (int b = 0; b < N / BLOCK; b++) {
      struct dot_args a = {&s, &x[b * BLOCK]};
      struct dag_access acc[] = {
          {DAG_IN, dag_region_1d(&x[b * BLOCK], BLOCK * sizeof *x)},
          {SUM_DOUBLE, dag_region_1d(&s, sizeof s)}};
      ck_assert_int_eq(dag_submit(&device_info, &a, sizeof a, acc, 2), 0);
    }
    ck_assert_int_eq(dag_taskwait(), 0);
    ck_assert_double_eq_tol(s, serial_dot(x, 1), 1e-12);
  }
  ck_assert(!atomic_load(&touched_item));
  int device = atomic_load(&on_device), host = atomic_load(&on_host);
  printf("check_reduce: device_tasks_reduce: %d dots on the device, %d on "
         "the host\n",
         device, host);
  ck_assert_int_ge(device, 1);
  ck_assert_int_ge(host, 1);
  ck_assert_int_eq(device + host, 3 * (N / BLOCK));
  free(x);
}
END_TEST

/* --------------------------------------------------------- mistakes */

START_TEST(mistakes_are_refused) {
  start();
  double s = 0, t = 0;
  struct dot_args a = {&t, &s}; /* points elsewhere */
  struct dag_access acc = {SUM_DOUBLE, dag_region_1d(&s, sizeof s)};
  ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, &acc, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "private copy"));

  a.s = &s;
  acc.mode = DAG_REDUCE(DAG_REDUCE_BXOR, DAG_REDUCE_DOUBLE);
  ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, &acc, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "integer type"));

  acc.mode = DAG_REDUCE(DAG_REDUCE_SUM, DAG_REDUCE_NO_TYPE);
  ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, &acc, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "arithmetic type"));

  acc.mode = DAG_REDUCE(DAG_REDUCE_SUM, DAG_REDUCE_LDOUBLE);
  ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, &acc, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "whole elements"));

  struct dag_access two[] = {{SUM_DOUBLE, dag_region_1d(&s, sizeof s)},
                             {DAG_REDUCE(DAG_REDUCE_MAX, DAG_REDUCE_DOUBLE),
                              dag_region_1d(&s, sizeof s)}};
  ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, two, 2), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "overlaps"));

  /* After an empty access, the message names the access as written. */
  a.s = &t;
  struct dag_access after_empty[] = {{DAG_IN, dag_region_1d(&t, 0)},
                                     {SUM_DOUBLE, dag_region_1d(&s, sizeof s)}};
  ck_assert_int_eq(dag_submit(&dot_info, &a, sizeof a, after_empty, 2),
                   DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "access 1: no pointer"));

  /* A listed pointer past the argument block is refused, not read. */
  a.s = &s;
  size_t short_size = offsetof(struct dot_args, s) + sizeof a.s - 1;
  ck_assert_int_eq(dag_submit(&dot_info, &a, short_size, &after_empty[1], 1),
                   DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "past its argument block"));
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_double_eq(s, 0); /* nothing was submitted */
}
END_TEST

/* ------------------------------------------------- in a task body */

/* A task body whose children reduce into its item: how it ends them. */
enum nested_end { BY_RETURN, BY_TASKWAIT, BY_READER, BY_TASKWAIT_ON };

struct parent_args {
  double *s;
  const double *x;
  enum nested_end end;
  double seen; /* what the body or its reader child saw, BY_... */
  double *seen_at;
};

static void reader_body(void *p) {
  struct scale_args *a = p;
  *a->seen = *a->s;
}

static void parent_body(void *p) {
  struct parent_args *a = p;
  submit_dots(a->s, a->x);
  struct dag_access on = {DAG_IN, dag_region_1d(a->s, sizeof *a->s)};
  switch (a->end) {
  case BY_RETURN:
    return;
  case BY_TASKWAIT:
    ck_assert_int_eq(dag_taskwait(), 0);
    *a->seen_at = *a->s;
    return;
  case BY_READER: {
    static const struct dag_task_info reader = {.fn = reader_body,
                                                .label = "reader"};
    struct scale_args r = {a->s, a->seen_at};
    struct dag_access acc[] = {
        {DAG_IN, dag_region_1d(a->s, sizeof *a->s)},
        {DAG_OUT, dag_region_1d(a->seen_at, sizeof *a->seen_at)}};
    ck_assert_int_eq(dag_submit(&reader, &r, sizeof r, acc, 2), 0);
    return;
  }
  case BY_TASKWAIT_ON:
    ck_assert_int_eq(dag_taskwait_on(&on, 1), 0);
    *a->seen_at = *a->s;
  }
}

static const struct dag_task_info parent_info = {.fn = parent_body,
                                                 .label = "parent"};

/* Parents side by side, each with its children reducing into its own
 * item and ending the group one way (_i): the item holds the sum when
 * the parent is complete, and what the body or a reader saw after the
 * group's end is the sum too; the same bits each round. */
START_TEST(a_task_body_reduces) {
  start();
  enum { PARENTS = 6 };
  double *x = filled();
  static double s[PARENTS], seen[PARENTS], first[PARENTS];
  for (int round = 0; round < 3; round++) {
    for (int p = 0; p < PARENTS; p++) {
      s[p] = p;
      seen[p] = -1;
      struct parent_args a = {&s[p], x, (enum nested_end)_i, 0, &seen[p]};
      struct dag_access acc[] = {
          {DAG_INOUT, dag_region_1d(&s[p], sizeof s[p])},
          {DAG_OUT, dag_region_1d(&seen[p], sizeof seen[p])},
          {DAG_IN, dag_region_1d(x, N * sizeof *x)}};
      ck_assert_int_eq(dag_submit(&parent_info, &a, sizeof a, acc, 3), 0);
    }
    ck_assert_int_eq(dag_taskwait(), 0);
    for (int p = 0; p < PARENTS; p++) {
      ck_assert_double_eq_tol(s[p], serial_dot(x, p), 1e-12);
      if (_i != BY_RETURN)
        ck_assert_mem_eq(&seen[p], &s[p], sizeof s[p]);
      if (round == 0)
        first[p] = s[p];
      ck_assert_mem_eq(&s[p], &first[p], sizeof s[p]);
    }
  }
  free(x);
}
END_TEST

/* A successor of a parent that returned with its children's group open
 * reads the combined item. */
START_TEST(a_parents_successor_sees_the_sum) {
  start();
  double *x = filled();
  double s = 0, seen = -1;
  dot_item = &s;
  struct parent_args a = {&s, x, BY_RETURN, 0, NULL};
  struct dag_access acc[] = {{DAG_INOUT, dag_region_1d(&s, sizeof s)},
                             {DAG_IN, dag_region_1d(x, N * sizeof *x)}};
  ck_assert_int_eq(dag_submit(&parent_info, &a, sizeof a, acc, 2), 0);
  static const struct dag_task_info reader = {.fn = reader_body,
                                              .label = "reader"};
  struct scale_args r = {&s, &seen};
  struct dag_access racc[] = {{DAG_IN, dag_region_1d(&s, sizeof s)},
                              {DAG_OUT, dag_region_1d(&seen, sizeof seen)}};
  ck_assert_int_eq(dag_submit(&reader, &r, sizeof r, racc, 2), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_double_eq_tol(seen, serial_dot(x, 0), 1e-12);
  ck_assert_mem_eq(&seen, &s, sizeof s);
  ck_assert(!atomic_load(&touched_item));
  free(x);
}
END_TEST

static Suite *reduce_suite(void) {
  Suite *s = suite_create("reduce");
  TCase *tc = tcase_create("reduce");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, sum_keeps_the_initial_value_and_the_same_bits);
  tcase_add_test(tc, a_reader_ends_the_group);
  tcase_add_test(tc, histogram_counts_exactly);
  tcase_add_test(tc, every_operator_on_int);
  tcase_add_test(tc, a_strided_item_leaves_its_neighbours_alone);
  tcase_add_test(tc, the_tasks_of_a_group_run_at_once);
  tcase_add_test(tc, device_tasks_reduce);
  tcase_add_test(tc, mistakes_are_refused);
  tcase_add_loop_test(tc, a_task_body_reduces, BY_RETURN, BY_TASKWAIT_ON + 1);
  tcase_add_test(tc, a_parents_successor_sees_the_sum);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(reduce_suite()); }
