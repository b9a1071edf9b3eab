/* check_guard.c — DAG_CHECK_ITEMS (runtime/core/guard.c): a task body that
 * writes bytes outside its items stops the run with a message naming the
 * task, the bytes and the items; one that writes exactly its items runs
 * on, even where its tiles share pages with their neighbours'; a real
 * crash in a body still dies of SIGSEGV.
 *
 * Each scenario runs in a process of its own, forked by the test with
 * DAG_CHECK_ITEMS=1 and its stderr caught, so that the test can look at
 * how it ended and what it said.
 */
#include "dag.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "run_suite.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define INFO(body, lbl)                                                        \
  (&(const struct dag_task_info){                                              \
      .fn = (body), .label = (lbl), .file = "guard.c", .line = __LINE__})

/* The scenario a child runs with DAG_CHECK_ITEMS=1 (child.h). */
static void (*scenario_now)(void);

static void checked(void) {
  setenv("DAG_CHECK_ITEMS", "1", 1);
  scenario_now();
  dag_finalize();
  _exit(0);
}

/* The wait status of scenario(), run in a child process with
 * DAG_CHECK_ITEMS=1, and its stderr in out. */
static int run_checked(void (*scenario)(void), char *out, size_t size) {
  struct child c;
  scenario_now = scenario;
  child_run(checked, &c);
  snprintf(out, size, "%s", c.err);
  return c.status;
}

static void expect_stopped(void (*scenario)(void), const char *const *says,
                           size_t nsays) {
  char out[8192];
  int status = run_checked(scenario, out, sizeof out);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1,
                "status %#x, not exit 1; said: %s", status, out);
  for (size_t i = 0; i < nsays; i++)
    ck_assert_msg(strstr(out, says[i]), "'%s' not in: %s", says[i], out);
}

static void expect_clean(void (*scenario)(void)) {
  char out[8192];
  int status = run_checked(scenario, out, sizeof out);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "status %#x, not exit 0; said: %s", status, out);
  ck_assert_msg(!strstr(out, "error"), "said: %s", out);
}

/* ------------------------------------------------------------ bodies */

#define N 4096 /* doubles: 8 pages */

struct write {
  double *x;
  size_t lo, hi; /* x[lo:hi] */
  double value;
};

static void write_body(void *p) {
  const struct write *w = p;
  for (size_t i = w->lo; i < w->hi; i++)
    w->x[i] = w->value;
}

/* Submits write_body on x[lo:hi], declaring `mode` on x[dlo:dhi]. */
static void submit_write(const char *label, enum dag_mode mode, double *x,
                         size_t dlo, size_t dhi, size_t lo, size_t hi,
                         unsigned flags) {
  /* Each label its own value: a byte written with the value it held
   * already is no change (a sibling may have written it first). */
  struct write w = {x, lo, hi, (double)strlen(label)};
  struct dag_access acc =
      dag_access_of(mode, dag_region_1d(x + dlo, (dhi - dlo) * sizeof *x));
  struct dag_task_info info = {.fn = write_body,
                               .label = label,
                               .file = "guard.c",
                               .line = 1,
                               .flags = flags};
  ck_assert_int_eq(dag_submit(&info, &w, sizeof w, &acc, 1), 0);
}

static double *alloc(void) {
  double *x = dag_alloc(N * sizeof *x, dag_dist_block(sizeof *x, N));
  ck_assert_ptr_nonnull(x);
  return x;
}

/* -------------------------------------------- writes outside the items */

static void beyond_out(void) {
  double *x = alloc();
  submit_write("beyond", DAG_OUT, x, 0, 256, 0, 300, 0);
  dag_taskwait();
}

START_TEST(test_write_beyond_out_item) {
  static const char *const says[] = {
      "error: task ",
      "'beyond' (guard.c:1) wrote 352 bytes outside its items: bytes "
      "2048..2399 of the dag_alloc memory of 32768 bytes allocated at ",
      "check_guard.c:",
      "; its items: out item 0 (2048 bytes at offset 0); "
      "declare every byte the body writes"};
  expect_stopped(beyond_out, says, 4);
}
END_TEST

static void read_body(void *p) {
  struct write *w = p;
  double sum = 0;
  for (size_t i = w->lo; i < w->hi; i++)
    sum += w->x[i];
  w->x[w->lo + 100] = sum; /* WRONG: its item is in */
}

static void into_in(void) {
  double *x = alloc();
  submit_write("fill", DAG_OUT, x, 0, N, 0, N, 0);
  struct write w = {x, 0, 512, 0};
  struct dag_access acc =
      dag_access_of(DAG_IN, dag_region_1d(x, 512 * sizeof *x));
  ck_assert_int_eq(dag_submit(INFO(read_body, "reader"), &w, sizeof w, &acc, 1),
                   0);
  dag_taskwait();
}

START_TEST(test_write_into_in_item) {
  static const char *const says[] = {
      "'reader' (guard.c:", "wrote 8 bytes outside its items (8 of them in "
                            "its in items, which it may only read): bytes "
                            "800..807 of the dag_alloc memory"};
  expect_stopped(into_in, says, 2);
}
END_TEST

static void no_items_body(void *p) { (*(double **)p)[5] = 1; }

static void without_items(void) {
  double *x = alloc();
  ck_assert_int_eq(
      dag_submit(INFO(no_items_body, "bare"), &x, sizeof x, NULL, 0), 0);
  dag_taskwait();
}

START_TEST(test_task_without_items) {
  static const char *const says[] = {"'bare'", "bytes 40..47 of",
                                     "; it has no items;"};
  expect_stopped(without_items, says, 3);
}
END_TEST

/* An undeferred task runs inline, in its submitter: checked the same. */
static void undeferred(void) {
  double *x = alloc();
  submit_write("inline", DAG_INOUT, x, 8, 16, 8, 17, DAG_TASK_UNDEFERRED);
  dag_taskwait();
}

START_TEST(test_undeferred_task) {
  static const char *const says[] = {"'inline'", "bytes 128..135 of",
                                     "inout item 0 (64 bytes at offset 64)"};
  expect_stopped(undeferred, says, 3);
}
END_TEST

/* An empty access is left out of the task's regions: the items as
 * written would then name the wrong ones, so the message numbers them. */
static void empty_item(void) {
  double *x = alloc();
  static const char *const items[] = {"x[0:0]", "x[8:8]"};
  struct write w = {x, 8, 17, 2.0};
  struct dag_access acc[] = {
      dag_access_of(DAG_OUT, dag_region_1d(x, 0)),
      dag_access_of(DAG_INOUT, dag_region_1d(x + 8, 8 * sizeof *x))};
  struct dag_task_info info = {.fn = write_body,
                               .label = "empty",
                               .file = "guard.c",
                               .line = 1,
                               .items = items};
  ck_assert_int_eq(dag_submit(&info, &w, sizeof w, acc, 2), 0);
  dag_taskwait();
}

START_TEST(test_empty_item_left_out) {
  static const char *const says[] = {
      "'empty'", "bytes 128..135 of",
      "its items: inout item 0 (64 bytes at offset 64); declare"};
  expect_stopped(empty_item, says, 3);
}
END_TEST

/* Replicated memory: whole pages that tasks declare. 'spill' declares the
 * first half of a malloc'd array and writes all of it; 'other' declares
 * the second half. */
static void replicated(void) {
  double *r = calloc(2 * N, sizeof *r);
  submit_write("other", DAG_IN, r, N, 2 * N, N, N, 0);
  submit_write("spill", DAG_OUT, r, 0, N, 0, 2 * N, 0);
  dag_taskwait();
  free(r);
}

START_TEST(test_replicated_memory) {
  static const char *const says[] = {"'spill'",
                                     " of the replicated memory at 0x",
                                     "(the 65536 bytes tasks declare there)"};
  expect_stopped(replicated, says, 3);
}
END_TEST

/* ---------------------------------------------------- honest bodies */

/* A 100 x 100 grid of doubles in 10 x 10 tiles: a row is 800 bytes, so a
 * page holds rows of ten tiles side by side, written by different tasks. */
#define G 100
#define T 10

struct tile {
  double (*a)[G];
  int i, j;
};

static void tile_body(void *p) {
  const struct tile *t = p;
  for (int i = t->i; i < t->i + T; i++)
    for (int j = t->j; j < t->j + T; j++)
      t->a[i][j] = i * G + j;
}

static void tiles(void) {
  double(*a)[G] = dag_alloc(sizeof(double[G][G]),
                            dag_dist_2d(sizeof(double), G, T, T, 1, 1));
  for (int i = 0; i < G; i += T)
    for (int j = 0; j < G; j += T) {
      struct tile t = {a, i, j};
      struct dag_access acc =
          dag_access_of(DAG_OUT, dag_region_2d(&a[i][j], T, T * sizeof(double),
                                               G * sizeof(double)));
      ck_assert_int_eq(
          dag_submit(INFO(tile_body, "tile"), &t, sizeof t, &acc, 1), 0);
    }
  dag_taskwait();
  for (int i = 0; i < G; i++)
    for (int j = 0; j < G; j++)
      ck_assert(a[i][j] == i * G + j);
  dag_free(a);
}

START_TEST(test_exact_strided_tiles) { expect_clean(tiles); }
END_TEST

/* An item that is a local of the program (on its stack): never
 * protected, the program's own frame goes on writing beside it. */
static void stack_item(void) {
  double local[16] = {0};
  struct write w = {local, 0, 16, 3.0};
  struct dag_access acc =
      dag_access_of(DAG_OUT, dag_region_1d(local, sizeof local));
  ck_assert_int_eq(dag_submit(INFO(write_body, "local"), &w, sizeof w, &acc, 1),
                   0);
  dag_taskwait();
  ck_assert(local[15] == 3.0);
}

START_TEST(test_item_on_the_stack) { expect_clean(stack_item); }
END_TEST

/* --------------------------------------------------------- nesting */

struct parent {
  double *x;
  size_t child_hi;  /* the child writes x[0:child_hi], declares x[0:256] */
  size_t after_hi;  /* then the parent writes x[0:after_hi] */
  size_t parent_hi; /* the parent declares x[0:parent_hi] */
};

static void parent_body(void *p) {
  const struct parent *a = p;
  submit_write("child", DAG_INOUT, a->x, 0, 256, 0, a->child_hi, 0);
  submit_write("sibling", DAG_INOUT, a->x, 256, 512, 256, 512, 0);
  dag_taskwait();
  for (size_t i = 0; i < a->after_hi; i++)
    a->x[i] += 1;
}

static void nested(size_t child_hi, size_t after_hi) {
  double *x = alloc();
  struct parent a = {x, child_hi, after_hi, 512};
  struct dag_access acc =
      dag_access_of(DAG_OUT, dag_region_1d(x, a.parent_hi * sizeof *x));
  ck_assert_int_eq(
      dag_submit(INFO(parent_body, "parent"), &a, sizeof a, &acc, 1), 0);
  dag_taskwait();
}

static void nested_child_wrong(void) { nested(257, 512); }
static void nested_parent_wrong(void) { nested(256, 513); }
static void nested_honest(void) { nested(256, 512); }

START_TEST(test_nested_child_checked_against_its_items) {
  static const char *const says[] = {"'child'", "bytes 2048..2055 of"};
  expect_stopped(nested_child_wrong, says, 2);
}
END_TEST

START_TEST(test_nested_parent_checked_after_its_children) {
  static const char *const says[] = {"'parent'", "bytes 4096..4103 of"};
  expect_stopped(nested_parent_wrong, says, 2);
}
END_TEST

START_TEST(test_nested_honest) { expect_clean(nested_honest); }
END_TEST

/* ------------------------------------------------------- real crashes */

static void null_body(void *p) {
  (*(double **)p)[0] = 1; /* a dirty page first */
  *(volatile int *)(uintptr_t)0 = 1;
}

static void null_write(void) {
  double *x = alloc();
  struct dag_access acc = dag_access_of(DAG_OUT, dag_region_1d(x, 8));
  ck_assert_int_eq(dag_submit(INFO(null_body, "crash"), &x, sizeof x, &acc, 1),
                   0);
  dag_taskwait();
}

START_TEST(test_null_write_still_crashes) {
  char out[8192];
  int status = run_checked(null_write, out, sizeof out);
  ck_assert_msg(!strstr(out, "outside its items"), "said: %s", out);
  /* A sanitizer reports the crash itself, and exits. */
  ck_assert_msg((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
                    (SANITIZED && status != 0),
                "status %#x, not SIGSEGV; said: %s", status, out);
}
END_TEST

static Suite *guard_suite(void) {
  Suite *s = suite_create("guard");
  TCase *tc = tcase_create("guard");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_write_beyond_out_item);
  tcase_add_test(tc, test_write_into_in_item);
  tcase_add_test(tc, test_task_without_items);
  tcase_add_test(tc, test_undeferred_task);
  tcase_add_test(tc, test_empty_item_left_out);
  tcase_add_test(tc, test_replicated_memory);
  tcase_add_test(tc, test_exact_strided_tiles);
  tcase_add_test(tc, test_item_on_the_stack);
  tcase_add_test(tc, test_nested_child_checked_against_its_items);
  tcase_add_test(tc, test_nested_parent_checked_after_its_children);
  tcase_add_test(tc, test_nested_honest);
  tcase_add_test(tc, test_null_write_still_crashes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(guard_suite()); }
