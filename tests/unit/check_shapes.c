/* check_shapes.c — triangles and diagonals of a block (DAG_LOWER...)
 * through the public API, on one rank: tasks on parts of one tile that
 * share no byte run at once, those that share the diagonal one after the
 * other, a write of the whole tile waits for both, and a block that is
 * not square is refused (check_device has them on a device). Each test
 * runs in a process of its own (Check forks), with 2 workers. */
#include <check.h>
#include <dag.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_suite.h"

enum { B = 8, LD = 16 };

static double m[B][LD];

static atomic_int running, most_running, finished;

/* Counts the tasks running at once; each stays 40 ms, then notes its
 * order at the int its argument points to. */
static void slow_body(void *p) {
  int *order = *(int **)p;
  int now = atomic_fetch_add(&running, 1) + 1;
  int most = atomic_load(&most_running);
  while (now > most && !atomic_compare_exchange_weak(&most_running, &most, now))
    ;
  nanosleep(&(struct timespec){0, 40 * 1000 * 1000}, NULL);
  atomic_fetch_sub(&running, 1);
  *order = atomic_fetch_add(&finished, 1);
}

static const struct dag_task_info slow_info = {.fn = slow_body,
                                               .label = "slow"};

static struct dag_access part(enum dag_mode mode, unsigned shape) {
  return (struct dag_access){
      DAG_SHAPED(mode, shape),
      dag_region_2d(&m[0][0], B, B * sizeof(double), LD * sizeof(double))};
}

/* Two tasks on parts of the tile, each told where to note its order. */
static void submit_pair(unsigned first, unsigned second, int order[2]) {
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", "2", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
  struct dag_access a = part(DAG_INOUT, first), b = part(DAG_INOUT, second);
  int *p0 = &order[0], *p1 = &order[1];
  ck_assert_int_eq(dag_submit(&slow_info, &p0, sizeof p0, &a, 1), 0);
  ck_assert_int_eq(dag_submit(&slow_info, &p1, sizeof p1, &b, 1), 0);
}

START_TEST(disjoint_parts_run_at_once) {
  static const unsigned pairs[][2] = {{DAG_UNIT_LOWER, DAG_UPPER},
                                      {DAG_LOWER, DAG_UNIT_UPPER},
                                      {DAG_UNIT_LOWER, DAG_DIAGONAL}};
  int order[2];
  submit_pair(pairs[_i][0], pairs[_i][1], order);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&most_running), 2);
}
END_TEST

START_TEST(parts_sharing_the_diagonal_are_ordered) {
  static const unsigned pairs[][2] = {{DAG_LOWER, DAG_UPPER},
                                      {DAG_DIAGONAL, DAG_UPPER},
                                      {DAG_UNIT_LOWER, DAG_LOWER}};
  int order[2];
  submit_pair(pairs[_i][0], pairs[_i][1], order);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&most_running), 1);
  ck_assert_int_lt(order[0], order[1]);
}
END_TEST

/* A write of the whole tile waits for both parts, and a read of a part
 * after it waits for it. */
START_TEST(the_whole_tile_waits_for_its_parts) {
  int order[4];
  submit_pair(DAG_UNIT_LOWER, DAG_UPPER, order);
  struct dag_access whole = {
      DAG_INOUT,
      dag_region_2d(&m[0][0], B, B * sizeof(double), LD * sizeof(double))};
  struct dag_access lower = part(DAG_IN, DAG_LOWER);
  int *p2 = &order[2], *p3 = &order[3];
  ck_assert_int_eq(dag_submit(&slow_info, &p2, sizeof p2, &whole, 1), 0);
  ck_assert_int_eq(dag_submit(&slow_info, &p3, sizeof p3, &lower, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(order[2], 2);
  ck_assert_int_eq(order[3], 3);
}
END_TEST

START_TEST(refused_uses) {
  ck_assert_int_eq(dag_init(), 0);
  int order;
  int *p = &order;
  struct dag_access not_square = {
      DAG_SHAPED(DAG_IN, DAG_UPPER),
      /* the runtime sees bytes: 7 rows of 24 cannot be 7 equal elements */
      dag_region_2d(&m[0][0], 7, 3 * sizeof(double), LD * sizeof(double))};
  ck_assert_int_eq(dag_submit(&slow_info, &p, sizeof p, &not_square, 1),
                   DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "square"));
}
END_TEST

static Suite *shapes_suite(void) {
  Suite *s = suite_create("shapes");
  TCase *tc = tcase_create("shapes");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, disjoint_parts_run_at_once, 0, 3);
  tcase_add_loop_test(tc, parts_sharing_the_diagonal_are_ordered, 0, 3);
  tcase_add_test(tc, the_whole_tile_waits_for_its_parts);
  tcase_add_test(tc, refused_uses);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(shapes_suite()); }
