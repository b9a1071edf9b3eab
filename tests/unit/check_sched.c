/* check_sched.c — where a thread waiting inside a task finds the tasks it
 * may run (runtime/core/policy.h: policy_next_descendant,
 * over the queues of sched.c).
 *
 * Such a thread runs only descendants of the task it waits in. It takes the
 * newest of its own ring, and failing that the best descendant of the
 * priority heap, the oldest of the injection list and the oldest in another
 * worker's ring, even behind tasks it may not run, which stay where they
 * were, in their order. Built by hand on two rings, without worker threads,
 * so every case is deterministic.
 */
#include "core/policy.h"

#include <check.h>
#include <string.h>

#include "run_suite.h"

static struct worker w0, w1;

/* The task tree: root -> a, b; a -> a1..; b -> x.. */
static struct task root, a, b;

static struct task *task_of(struct task *parent, int priority) {
  struct task *t = dag__pool_get(POOL_TASK);
  memset(t, 0, sizeof *t);
  t->parent = parent;
  t->priority = priority;
  t->id = atomic_fetch_add(&dag__next_task_id, 1);
  return t;
}

static void setup(void) {
  dag__pools_init();
  ck_assert_int_eq(dag__sched_init(2), 0);
  w0 = (struct worker){.id = 0, .queue = dag__sched_queue(0), .rng = 1};
  w1 = (struct worker){.id = 1, .queue = dag__sched_queue(1), .rng = 2};
  a.parent = &root;
  b.parent = &root;
}

static void teardown(void) {
  dag__sched_release();
  dag__pools_release();
}

START_TEST(descends) {
  struct task *a1 = task_of(&a, 0), *a11 = task_of(a1, 0);
  ck_assert(dag__task_descends(a1, &a));
  ck_assert(dag__task_descends(a11, &a));
  ck_assert(dag__task_descends(a11, &root));
  ck_assert(!dag__task_descends(a11, &b));
  ck_assert(!dag__task_descends(&a, &a)); /* not its own descendant */
}
END_TEST

/* Its own ring: the newest first (depth first, as the serial program). */
START_TEST(own_ring_newest_first) {
  struct task *a1 = task_of(&a, 0), *a2 = task_of(&a, 0);
  dag__sched_push(&w0, a1);
  dag__sched_push(&w0, a2);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a2);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a1);
  ck_assert_ptr_null(policy_next_descendant(&w0, &a));
}
END_TEST

/* Another worker's ring: the oldest descendant, wherever it lies; the
 * tasks it may not run stay, in their order, for their owner. */
START_TEST(other_ring_behind_others) {
  struct task *x1 = task_of(&b, 0), *a1 = task_of(&a, 0);
  struct task *x2 = task_of(&b, 0), *a2 = task_of(&a, 0);
  dag__sched_push(&w1, x1);
  dag__sched_push(&w1, a1);
  dag__sched_push(&w1, x2);
  dag__sched_push(&w1, a2);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a1);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a2);
  ck_assert_ptr_null(policy_next_descendant(&w0, &a));
  ck_assert_ptr_eq(policy_next_task(&w1, false), x1);
  ck_assert_ptr_eq(policy_next_task(&w1, false), x2);
  ck_assert_ptr_null(policy_next_task(&w1, false));
}
END_TEST

/* The priority heap: the best descendant, however far down. */
START_TEST(heap_best_descendant) {
  struct task *x = task_of(&b, 9), *a1 = task_of(&a, 2), *a2 = task_of(&a, 5);
  dag__sched_push(&w0, x);
  dag__sched_push(&w0, a1);
  dag__sched_push(&w0, a2);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a2);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a1);
  ck_assert_ptr_null(policy_next_descendant(&w0, &a));
  ck_assert_ptr_eq(policy_next_task(&w0, false), x); /* still the heap's */
}
END_TEST

/* The injection list (tasks made ready by threads that are not workers):
 * the oldest descendant; the others keep their order. */
START_TEST(injection_list) {
  struct task *x1 = task_of(&b, 0), *a1 = task_of(&a, 0);
  struct task *x2 = task_of(&b, 0);
  dag__sched_push(NULL, x1);
  dag__sched_push(NULL, a1);
  dag__sched_push(NULL, x2);
  ck_assert_ptr_eq(policy_next_descendant(&w0, &a), a1);
  ck_assert_ptr_null(policy_next_descendant(&w0, &a));
  ck_assert_ptr_eq(policy_next_task(&w0, false), x1);
  ck_assert_ptr_eq(policy_next_task(&w0, false), x2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sched");
  TCase *tc = tcase_create("descendants");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, descends);
  tcase_add_test(tc, own_ring_newest_first);
  tcase_add_test(tc, other_ring_behind_others);
  tcase_add_test(tc, heap_best_descendant);
  tcase_add_test(tc, injection_list);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
