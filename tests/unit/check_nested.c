/* check_nested.c — tasks that submit tasks and wait for them, as recursive
 * OpenMP programs do.
 *
 * A waiting thread runs only descendants of the task it waits in, so the
 * bodies stacked on one thread never outnumber the program's own recursion
 * depth: fib without a cutoff (every call a task) never stacks more bodies
 * than n, and a chain 2,000 tasks deep runs on default thread stacks. A task
 * run inline in its submitter (undeferred, or tiny) that defers a child
 * does not hold its submitter until the child is done, yet later tasks that
 * depend on it still wait for its children. Busy time in DAG_STATS leaves
 * out the bodies run while a body waits.
 *
 * Each test runs in its own process (Check's fork mode) and starts the
 * runtime with the DAG_NUM_THREADS it sets: 1, 2 and 4.
 */
#include "core/internal.h"

#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "run_suite.h"
#include "threads.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define INFO(body, lbl)                                                        \
  (&(const struct dag_task_info){                                              \
      .fn = (body), .label = (lbl), .file = __FILE__, .line = __LINE__})

/* Submits body(args) writing *out, a task of the calling context. */
static void submit_out(dag_task_fn body, const void *args, size_t size,
                       void *out, size_t out_size) {
  struct dag_access acc = dag_access_of(DAG_OUT, dag_region_1d(out, out_size));
  ck_assert_int_eq(dag_submit(INFO(body, "nested"), args, size, &acc, 1), 0);
}

/* ------------------------------------------- bodies stacked on a thread */

/* How many bodies the calling thread has on its stack now, the most seen
 * on any thread, and the lowest stack address a body reached. */
static _Thread_local int stacked;
static atomic_int most_stacked;
static _Thread_local uintptr_t stack_top;
static atomic_uintptr_t deepest_bytes;

static void enter_body(void) {
  char here;
  if (++stacked == 1)
    stack_top = (uintptr_t)&here;
  int seen = atomic_load(&most_stacked);
  while (stacked > seen &&
         !atomic_compare_exchange_weak(&most_stacked, &seen, stacked))
    ;
  uintptr_t bytes = stack_top - (uintptr_t)&here;
  uintptr_t deepest = atomic_load(&deepest_bytes);
  while (bytes > deepest &&
         !atomic_compare_exchange_weak(&deepest_bytes, &deepest, bytes))
    ;
}

struct fib_args {
  int n;
  long *out;
};

static long fib_seq(int n) {
  return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

/* fib with every call a task and no cutoff: the repro of a stack overflow
 * (a waiting thread ran queued tasks that were not its descendants, and
 * bodies piled up thousands deep). */
static void fib_body(void *p) {
  struct fib_args a = *(const struct fib_args *)p;
  enter_body();
  if (a.n < 2) {
    *a.out = a.n;
  } else {
    long x, y;
    struct fib_args ax = {a.n - 1, &x}, ay = {a.n - 2, &y};
    submit_out(fib_body, &ax, sizeof ax, &x, sizeof x);
    submit_out(fib_body, &ay, sizeof ay, &y, sizeof y);
    ck_assert_int_eq(dag_taskwait(), 0);
    *a.out = x + y;
  }
  stacked--;
}

START_TEST(test_fib_stack_bounded) {
  use_threads(nthreads_table[_i]);
  int n = SANITIZED ? 18 : 25; /* 250,000 tasks; 8,000 under sanitizers */
  long result = 0;
  struct fib_args a = {n, &result};
  submit_out(fib_body, &a, sizeof a, &result, sizeof result);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(result, fib_seq(n));
  /* fib(n) recurses n deep: fib(n), fib(n - 1), ..., fib(1). */
  int most = atomic_load(&most_stacked);
  ck_assert_msg(most <= n, "%d bodies stacked on one thread, recursion is %d",
                most, n);
  printf("fib(%d), %d threads: at most %d bodies on a thread, %zu bytes of "
         "stack (%zu per level)\n",
         n, nthreads_table[_i], most, (size_t)atomic_load(&deepest_bytes),
         (size_t)atomic_load(&deepest_bytes) /
             (size_t)(most > 1 ? most - 1 : 1));
}
END_TEST

/* A chain: each task submits one child and waits for it. */
static void chain_body(void *p) {
  int depth = *(const int *)p;
  enter_body();
  if (depth > 0) {
    int child = depth - 1, done = 0;
    submit_out(chain_body, &child, sizeof child, &done, sizeof done);
    ck_assert_int_eq(dag_taskwait(), 0);
  }
  stacked--;
}

/* 2,000 levels on default 8 MiB thread stacks (a few KiB a level at most);
 * 500 under sanitizers, whose frames are larger. */
START_TEST(test_deep_chain) {
  use_threads(nthreads_table[_i]);
  int depth = SANITIZED ? 500 : 2000;
  int done = 0;
  submit_out(chain_body, &depth, sizeof depth, &done, sizeof done);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_le(atomic_load(&most_stacked), depth + 1);
}
END_TEST

/* ------------------------------------------------- inline tasks go on */

static atomic_int released, child_saw_release, child_ran;

static void waiting_child(void *p) {
  (void)p;
  uint64_t end = now_ns() + 10ull * 1000000000u;
  while (!atomic_load(&released) && now_ns() < end)
    ;
  atomic_store(&child_saw_release, atomic_load(&released));
  atomic_store(&child_ran, 1);
}

static void parent_of_waiting_child(void *p) {
  (void)p;
  ck_assert_int_eq(dag_submit(INFO(waiting_child, "child"), NULL, 0, NULL, 0),
                   0);
}

/* An undeferred task (run in its submitter before dag_submit returns) whose
 * body defers a child: dag_submit returns without waiting for the child,
 * which here waits until the submitter goes on. Before, the submitter
 * waited for the child, and the child for the submitter, for 10 s. */
START_TEST(test_inline_does_not_wait_for_children) {
  use_threads(nthreads_table[_i]);
  const struct dag_task_info parent = {.fn = parent_of_waiting_child,
                                       .label = "undeferred parent",
                                       .file = __FILE__,
                                       .line = __LINE__,
                                       .flags = DAG_TASK_UNDEFERRED};
  ck_assert_int_eq(dag_submit(&parent, NULL, 0, NULL, 0), 0);
  atomic_store(&released, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&child_ran), 1);
  ck_assert_int_eq(atomic_load(&child_saw_release), 1);
}
END_TEST

/* The same parent, inline, writing x through a child that takes its time:
 * a later reader of x must see the child's write, and an inline reader too
 * (the inline parent lives on as a task its siblings wait for). */
static long slow_x;

static void slow_writer(void *p) {
  (void)p;
  uint64_t end = now_ns() + 20000000u;
  while (now_ns() < end)
    ;
  slow_x = 42;
}

static void parent_of_slow_writer(void *p) {
  (void)p;
  submit_out(slow_writer, NULL, 0, &slow_x, sizeof slow_x);
}

static long seen_x;
static void read_x(void *p) {
  (void)p;
  seen_x = slow_x;
}

START_TEST(test_inline_parent_orders_siblings) {
  use_threads(nthreads_table[_i % NTHREADS]);
  struct dag_access x_out =
      dag_access_of(DAG_INOUT, dag_region_1d(&slow_x, sizeof slow_x));
  struct dag_access x_in =
      dag_access_of(DAG_IN, dag_region_1d(&slow_x, sizeof slow_x));
  const struct dag_task_info parent = {.fn = parent_of_slow_writer,
                                       .label = "undeferred parent",
                                       .file = __FILE__,
                                       .line = __LINE__,
                                       .flags = DAG_TASK_UNDEFERRED};
  ck_assert_int_eq(dag_submit(&parent, NULL, 0, &x_out, 1), 0);
  struct dag_task_info reader = {.fn = read_x,
                                 .label = "reader",
                                 .file = __FILE__,
                                 .line = __LINE__,
                                 /* from 3 on, the reader is undeferred */
                                 .flags =
                                     _i >= NTHREADS ? DAG_TASK_UNDEFERRED : 0};
  ck_assert_int_eq(dag_submit(&reader, NULL, 0, &x_in, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(seen_x, 42);
}
END_TEST

/* ---------------------------------------------------------- busy time */

/* With DAG_STATS, a worker's busy time is at most the wall time, however
 * many bodies waited on its stack (it was 135,454% before). */
START_TEST(test_busy_within_wall) {
  use_threads(nthreads_table[_i]);
  ck_assert_int_eq(setenv("DAG_STATS", "1", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
  uint64_t t0 = now_ns();
  long result = 0;
  struct fib_args a = {SANITIZED ? 15 : 20, &result};
  submit_out(fib_body, &a, sizeof a, &result, sizeof result);
  ck_assert_int_eq(dag_taskwait(), 0);
  uint64_t wall = now_ns() - t0;
  for (int w = 0; w < dag_num_workers(); w++) {
    uint64_t busy = dag__worker(w)->stats.busy_ns;
    ck_assert_msg(busy <= wall, "worker %d busy %llu ns in %llu ns", w,
                  (unsigned long long)busy, (unsigned long long)wall);
  }
  ck_assert_uint_gt(dag__worker(0)->stats.busy_ns, 0);
}
END_TEST

static Suite *nested_suite(void) {
  Suite *s = suite_create("nested");
  TCase *tc = tcase_create("stack");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_fib_stack_bounded, 0, NTHREADS);
  tcase_add_loop_test(tc, test_deep_chain, 0, NTHREADS);
  suite_add_tcase(s, tc);

  tc = tcase_create("inline");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_inline_does_not_wait_for_children, 0, NTHREADS);
  tcase_add_loop_test(tc, test_inline_parent_orders_siblings, 0, 2 * NTHREADS);
  suite_add_tcase(s, tc);

  tc = tcase_create("stats");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_busy_within_wall, 0, NTHREADS);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(nested_suite()); }
