/* check_workers.c — dag_on_each_worker: the set-up a program runs on every
 * worker before its tasks (a cuBLAS handle per worker and stream). It runs
 * once on each worker, the caller included, and is done on all of them
 * when the call returns, before any task submitted after; sleeping workers
 * are woken for it. Misuse (NULL, from a task body, from another thread)
 * returns DAG_EINVAL with a message; dag_device_streams refuses a kind
 * that is not a GPU's and answers 0 where there is none.
 */
#include <check.h>
#include <dag.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "run_suite.h"

enum { WORKERS = 6, TASKS = 200 };

static atomic_int runs[WORKERS], strangers;
static _Thread_local bool set_up;

static void start(void) {
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", "6", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
  ck_assert_int_eq(dag_num_workers(), WORKERS);
}

static void count_run(void *arg) {
  ck_assert_ptr_eq(arg, runs);
  int w = dag_worker_id();
  if (w >= 0 && w < WORKERS)
    atomic_fetch_add(&runs[w], 1);
  else
    atomic_fetch_add(&strangers, 1);
  set_up = true;
}

static atomic_int tasks_before_set_up;

static void uses_set_up(void *p) {
  (void)p;
  if (!set_up)
    atomic_fetch_add(&tasks_before_set_up, 1);
  usleep(100);
}

/* Once on each worker, the caller included, and on every one before it
 * returns: every task after it finds its worker set up. The workers have
 * gone to sleep first (nothing to do for 50 ms). */
START_TEST(runs_once_on_each_worker_before_tasks) {
  start();
  usleep(50000);
  ck_assert_int_eq(dag_on_each_worker(count_run, runs), 0);
  for (int w = 0; w < WORKERS; w++)
    ck_assert_msg(atomic_load(&runs[w]) == 1, "worker %d ran it %d times", w,
                  atomic_load(&runs[w]));
  ck_assert_int_eq(atomic_load(&strangers), 0);
  static const struct dag_task_info info = {.fn = uses_set_up,
                                            .label = "after set-up"};
  for (int t = 0; t < TASKS; t++)
    ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&tasks_before_set_up), 0);
  /* A second call runs it once more on each, with tasks run between. */
  ck_assert_int_eq(dag_on_each_worker(count_run, runs), 0);
  for (int w = 0; w < WORKERS; w++)
    ck_assert_int_eq(atomic_load(&runs[w]), 2);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

static void nothing(void *arg) { (void)arg; }

START_TEST(null_is_refused) {
  start();
  ck_assert_int_eq(dag_on_each_worker(NULL, NULL), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "fn is NULL"));
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

static atomic_int from_body;
static char body_message[512];

static void calls_it(void *p) {
  (void)p;
  atomic_store(&from_body, dag_on_each_worker(nothing, NULL));
  strncpy(body_message, dag_last_error(), sizeof body_message - 1);
}

/* From a task body it would wait for workers busy in bodies (its own
 * among them): refused, saying why. */
START_TEST(from_a_task_is_refused) {
  start();
  static const struct dag_task_info info = {.fn = calls_it,
                                            .label = "calls it"};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&from_body), DAG_EINVAL);
  ck_assert_msg(strstr(body_message, "from a task body") != NULL, "said: %s",
                body_message);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

static int from_thread;
static char thread_message[512];

static void *other_thread(void *p) {
  (void)p;
  from_thread = dag_on_each_worker(nothing, NULL);
  strncpy(thread_message, dag_last_error(), sizeof thread_message - 1);
  return NULL;
}

START_TEST(from_another_thread_is_refused) {
  start();
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, other_thread, NULL), 0);
  pthread_join(t, NULL);
  ck_assert_int_eq(from_thread, DAG_EINVAL);
  ck_assert_msg(strstr(thread_message, "not the one that started") != NULL,
                "said: %s", thread_message);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

START_TEST(after_finalize_is_refused) {
  start();
  ck_assert_int_eq(dag_finalize(), 0);
  ck_assert_int_eq(dag_on_each_worker(nothing, NULL), DAG_ESHUTDOWN);
}
END_TEST

/* No GPU here: no stream of either kind; the CPU is not a GPU. */
START_TEST(device_streams) {
  start();
  struct dag_stream s[4];
  ck_assert_int_eq(dag_device_streams(DAG_DEVICE_CUDA, s, 4), 0);
  ck_assert_int_eq(dag_device_streams(DAG_DEVICE_CPU, s, 4), DAG_EINVAL);
  ck_assert_int_eq(dag_device_streams(DAG_DEVICE_CUDA, NULL, 4), DAG_EINVAL);
  ck_assert_int_eq(dag_device_streams(DAG_DEVICE_CUDA, NULL, 0), 0);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("workers");
  TCase *tc = tcase_create("dag_on_each_worker");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, runs_once_on_each_worker_before_tasks);
  tcase_add_test(tc, null_is_refused);
  tcase_add_test(tc, from_a_task_is_refused);
  tcase_add_test(tc, from_another_thread_is_refused);
  tcase_add_test(tc, after_finalize_is_refused);
  tcase_add_test(tc, device_streams);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(suite()); }
