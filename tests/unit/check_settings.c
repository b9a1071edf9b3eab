/* check_settings.c — the DAG_* environment variables (runtime/settings.c)
 * and the runtime's messages (runtime/log.c).
 *
 * Every malformed value makes dag_init fail with DAG_EINVAL and a message
 * that names the variable, the value and what it accepts; good values reach
 * the settings; a DAG_* variable that is no setting gets a warning naming
 * the setting it looks like (none for dagcc's own), which DAG_LOG=error
 * silences; DAG_STATS prints the settings in force; on several ranks a
 * message says which rank and thread spoke.
 *
 * Each test runs in its own process (Check's fork mode), so each starts
 * with a fresh runtime and environment.
 */
#include "settings.h"

#include "dag.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_suite.h"

/* Runs fn with stderr caught; returns what it wrote (to free). */
static char *stderr_of(void (*fn)(void)) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  fflush(stderr);
  int saved = dup(2);
  ck_assert_int_ne(dup2(fileno(f), 2), -1);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  long n = ftell(f);
  char *text = calloc(1, (size_t)n + 1);
  rewind(f);
  ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return text;
}

/* ---------------------------------------------------------- malformed */

static const struct {
  const char *name, *value;
} malformed[] = {
    {"DAG_NUM_THREADS", "0"},
    {"DAG_NUM_THREADS", "8x"},
    {"DAG_NUM_THREADS", "99999"},
    {"DAG_STATS", "yes"},
    {"DAG_LOG", "loud"},
    {"DAG_CHECK_UNIFORMITY", "2"},
    {"DAG_CHECK_UNIFORMITY", "value"},
    {"DAG_CHECK_EVERY", "-1"},
    {"DAG_CHECK_EVERY", "often"},
    {"DAG_CHECK_EVERY", "1073741825"},
    {"DAG_CHECK_ITEMS", "yes"},
    {"DAG_WATCHDOG", "-1"},
    {"DAG_WATCHDOG", "soon"},
    {"DAG_WATCHDOG", "0"},
    {"DAG_WATCHDOG", "5,2"},
    {"DAG_WATCHDOG", "5,"},
    {"DAG_WATCHDOG", "1,2,3"},
    {"DAG_WATCHDOG", "1e9"},
    {"DAG_DEVICES", "gpu"},
    {"DAG_DEVICES", "cuda:x"},
    {"DAG_DEVICES", "emul:1"},
    {"DAG_DEVICES", "cpu"},
    {"DAG_DEVICES", ","},
    {"DAG_INLINE", "off"},
    {"DAG_DEVICE_STAGING", "on"},
    {"DAG_DEVICE_WRITEBACK", "yes"},
    {"DAG_MPI_GPU_DIRECT", "2"},
    {"DAG_EMUL_MEM", "12Q"},
    {"DAG_EMUL_MEM", "0"},
    {"DAG_EMUL_MEM", "-1M"},
    {"DAG_EMUL_DELAY_US", "-5"},
    {"DAG_EMUL_JITTER_US", "lots"},
    {"DAG_EMUL_SEED", "-1"},
    {"DAG_EMUL_SEED", "seed"},
    {"DAG_EMUL_SEED", "2147483648"},
    {"DAG_EMUL_GRANULE", "3K"},
    {"DAG_EMUL_GRANULE", "2K"},
    {"DAG_EMUL_GRANULE", "2G"},
    {"DAG_EMUL_FAIL", "copy"},
    {"DAG_EMUL_FAIL", "copy:0"},
    {"DAG_EMUL_FAIL", "disk:3"},
    {"DAG_SIMULATE_RANKS", "0"},
    {"DAG_SIMULATE_RANK", "-1"},
};

START_TEST(test_malformed_value_stops_init) {
  const char *name = malformed[_i].name, *value = malformed[_i].value;
  ck_assert_int_eq(setenv(name, value, 1), 0);
  ck_assert_int_eq(dag_init(), DAG_EINVAL);
  char expected[128];
  snprintf(expected, sizeof expected, "%s='%s'", name, value);
  const char *msg = dag_last_error();
  ck_assert_msg(strstr(msg, expected), "'%s' does not name %s", msg, expected);
  ck_assert_msg(strstr(msg, ": expected "), "'%s' says not what is accepted",
                msg);
  /* Every later call fails the same way: nothing runs with a guess. */
  ck_assert_int_eq(dag_num_workers(), DAG_EINVAL);
}
END_TEST

/* A malformed setting is said once, in one plain line, however many calls
 * then find that the runtime could not start: each fails with the same
 * code, quietly, and dag_last_error() still names the setting. */
static const char bad_threads[] =
    "DAG_NUM_THREADS='two': expected a number of workers from 1 to 4096";

static void nothing(void *args) { (void)args; }

static void calls_after_a_bad_setting(void) {
  static int x;
  struct dag_task_info info = {.fn = nothing, .label = "nothing"};
  struct dag_access acc = {DAG_INOUT, dag_region_1d(&x, sizeof x)};
  ck_assert_ptr_null(dag_alloc(4096, dag_dist_block(sizeof x, 64)));
  ck_assert_str_eq(dag_last_error(), bad_threads);
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), DAG_EINVAL);
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), DAG_EINVAL);
  ck_assert_int_eq(dag_taskwait_on(&acc, 1), DAG_EINVAL);
  ck_assert_int_eq(dag_num_workers(), DAG_EINVAL);
  ck_assert_int_eq(dag_rank(), DAG_EINVAL);
  ck_assert_int_eq(dag_init(), DAG_EINVAL);
  ck_assert_str_eq(dag_last_error(), bad_threads);
}

START_TEST(test_malformed_value_said_once) {
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", "two", 1), 0);
  char *err = stderr_of(calls_after_a_bad_setting);
  char expected[160];
  snprintf(expected, sizeof expected, "dag: error: %s\n", bad_threads);
  ck_assert_str_eq(err, expected);
  free(err);
}
END_TEST

START_TEST(test_simulated_rank_beyond_ranks) {
  setenv("DAG_SIMULATE_RANKS", "2", 1);
  setenv("DAG_SIMULATE_RANK", "2", 1);
  ck_assert_int_eq(dag_init(), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "DAG_SIMULATE_RANK=2"));
}
END_TEST

/* ------------------------------------------------------- empty values */

/* An empty value is no value: the setting holds its default, and a file
 * name setting (DAG_TRACE, DAG_GRAPH, DAG_REPORT, DAG_HISTORY,
 * DAG_EMUL_MODEL) names no file: the run neither fails nor tries to write
 * or read a file named "". */
static const char *const every_setting[] = {
    "DAG_NUM_THREADS",
    "DAG_STATS",
    "DAG_TRACE",
    "DAG_GRAPH",
    "DAG_REPORT",
    "DAG_LOG",
    "DAG_CHECK_UNIFORMITY",
    "DAG_CHECK_EVERY",
    "DAG_WATCHDOG",
    "DAG_INLINE",
    "DAG_DEVICES",
    "DAG_DEVICE_STAGING",
    "DAG_DEVICE_WRITEBACK",
    "DAG_HISTORY",
    "DAG_MPI_GPU_DIRECT",
    "DAG_EMUL_MEM",
    "DAG_EMUL_DELAY_US",
    "DAG_EMUL_JITTER_US",
    "DAG_EMUL_SEED",
    "DAG_EMUL_GRANULE",
    "DAG_EMUL_MODEL",
    "DAG_EMUL_FAIL",
    "DAG_SIMULATE_RANKS",
    "DAG_SIMULATE_RANK",
};

static void run_one_task(void) {
  static int x;
  struct dag_task_info info = {.fn = nothing, .label = "one"};
  struct dag_access acc = {DAG_INOUT, dag_region_1d(&x, sizeof x)};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(dag_finalize(), 0);
}

START_TEST(test_empty_value_is_unset) {
  const char *name = every_setting[_i];
  ck_assert_int_eq(setenv(name, "", 1), 0);
  const struct settings *s = dag__settings();
  ck_assert_ptr_null(s->trace);
  ck_assert_ptr_null(s->graph);
  ck_assert_ptr_null(s->report);
  ck_assert_ptr_null(s->history);
  ck_assert_ptr_null(s->emul_model);
  char *err = stderr_of(run_one_task);
  ck_assert_msg(!strcmp(err, ""), "%s='': %s", name, err);
  free(err);
}
END_TEST

/* --------------------------------------------------------- good values */

START_TEST(test_good_values_are_taken) {
  setenv("DAG_NUM_THREADS", "3", 1);
  setenv("DAG_STATS", "0", 1);
  setenv("DAG_LOG", "debug", 1);
  setenv("DAG_WATCHDOG", "0.25", 1);
  setenv("DAG_DEVICES", "emul,emul", 1);
  setenv("DAG_INLINE", "0", 1);
  setenv("DAG_DEVICE_STAGING", "0", 1);
  setenv("DAG_DEVICE_WRITEBACK", "0", 1);
  setenv("DAG_MPI_GPU_DIRECT", "1", 1);
  setenv("DAG_EMUL_MEM", "8M", 1);
  setenv("DAG_EMUL_DELAY_US", "7", 1);
  setenv("DAG_EMUL_JITTER_US", "30", 1);
  setenv("DAG_EMUL_SEED", "5", 1);
  setenv("DAG_EMUL_GRANULE", "64K", 1);
  setenv("DAG_EMUL_FAIL", "kernel:12", 1);
  const struct settings *s = dag__settings();
  ck_assert_int_eq(s->num_threads, 3);
  ck_assert_int_eq(s->stats, 0);
  ck_assert_int_eq(s->log, DAG_LOG_DEBUG);
  ck_assert(s->watchdog_seconds == 0.25);
  ck_assert(s->watchdog_end_seconds == 0);
  ck_assert_int_eq(s->ndevice_choices, 2);
  ck_assert(s->device_choices[0].emulated);
  ck_assert(s->device_choices[1].emulated);
  ck_assert_int_eq(s->devices_named, 1);
  ck_assert_int_eq(s->inline_tasks, 0);
  ck_assert_int_eq(s->device_staging, 0);
  ck_assert_int_eq(s->device_writeback, 0);
  ck_assert_int_eq(s->mpi_gpu_direct, 1);
  ck_assert_uint_eq(s->emul_memory, 8u << 20);
  ck_assert_int_eq(s->emul_delay_us, 7);
  ck_assert_int_eq(s->emul_jitter_us, 30);
  ck_assert_int_eq(s->emul_seed, 5);
  ck_assert_uint_eq(s->emul_granule, 64u << 10);
  ck_assert_int_eq(s->emul_fail, EMUL_FAIL_KERNEL);
  ck_assert_int_eq(s->emul_fail_at, 12);
  ck_assert_int_eq(dag_num_workers(), 3);
}
END_TEST

/* A device named in DAG_DEVICES that cannot be used stops dag_init, saying
 * which and why; it is never silently replaced by the CPU. */
START_TEST(test_named_device_missing) {
  setenv("DAG_DEVICES", "emul,cuda:1,hip", 1);
  const struct settings *s = dag__settings();
  ck_assert_int_eq(s->ndevice_choices, 3);
  ck_assert(!s->device_choices[1].emulated);
  ck_assert_int_eq(s->device_choices[1].kind, DAG_DEVICE_CUDA);
  ck_assert_int_eq(s->device_choices[1].index, 1);
  ck_assert_int_eq(s->device_choices[2].kind, DAG_DEVICE_HIP);
  ck_assert_int_eq(s->device_choices[2].index, -1);
  ck_assert_int_eq(dag_init(), DAG_ENOSYS);
  ck_assert_ptr_nonnull(
      strstr(dag_last_error(), "DAG_DEVICES asks for cuda:1, which cannot"));
  ck_assert_int_eq(dag_num_workers(), DAG_ENOSYS);
}
END_TEST

START_TEST(test_defaults) {
  const struct settings *s = dag__settings();
  ck_assert_int_eq(s->num_threads, 0);
  ck_assert_int_eq(s->log, DAG_LOG_WARN);
  ck_assert_int_eq(s->ndevice_choices, 2);
  ck_assert_int_eq(s->inline_tasks, 1);
  ck_assert_int_eq(s->device_staging, 1);
  ck_assert_int_eq(s->device_writeback, 1);
  ck_assert_int_eq(s->mpi_gpu_direct, -1);
  ck_assert_uint_eq(s->emul_memory, (size_t)256 << 20);
  ck_assert_uint_eq(s->emul_granule, (size_t)2 << 20);
  ck_assert_int_eq(s->emul_jitter_us, 0);
  ck_assert_int_eq(s->emul_fail, EMUL_FAIL_NONE);
  ck_assert_int_eq(s->devices_named, 0);
  ck_assert_int_eq(s->simulate_ranks, 0);
  ck_assert_ptr_null(s->trace);
}
END_TEST

START_TEST(test_watchdog_with_deadline) {
  setenv("DAG_WATCHDOG", "2,30", 1);
  ck_assert(dag__settings()->watchdog_seconds == 2);
  ck_assert(dag__settings()->watchdog_end_seconds == 30);
}
END_TEST

START_TEST(test_devices_none) {
  setenv("DAG_DEVICES", "none", 1);
  ck_assert_int_eq(dag__settings()->ndevice_choices, 0);
}
END_TEST

/* DAG_CHECK_ITEMS runs a rank's bodies one at a time, on the host: a
 * setting that says otherwise is refused, not replaced. */
START_TEST(test_check_items_refuses_workers) {
  setenv("DAG_CHECK_ITEMS", "1", 1);
  setenv("DAG_NUM_THREADS", "2", 1);
  ck_assert_int_eq(dag_init(), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(),
                               "DAG_CHECK_ITEMS runs one worker per rank: "
                               "unset DAG_NUM_THREADS or set it to 1"));
}
END_TEST

START_TEST(test_check_items_refuses_devices) {
  setenv("DAG_CHECK_ITEMS", "1", 1);
  setenv("DAG_DEVICES", "emul", 1);
  ck_assert_int_eq(dag_init(), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(),
                               "DAG_CHECK_ITEMS checks the bodies that run "
                               "on the host: unset DAG_DEVICES or set it to "
                               "none"));
}
END_TEST

/* Unset, one worker and no device; DAG_NUM_THREADS=1 and DAG_DEVICES=none
 * say the same. */
START_TEST(test_check_items_alone) {
  setenv("DAG_CHECK_ITEMS", "1", 1);
  if (_i) {
    setenv("DAG_NUM_THREADS", "1", 1);
    setenv("DAG_DEVICES", "none", 1);
  }
  ck_assert_int_eq(dag__settings()->check_items, 1);
  ck_assert_int_eq(dag__settings()->ndevice_choices, 0);
  ck_assert_int_eq(dag_num_workers(), 1);
}
END_TEST

/* ----------------------------------------------------- unknown names */

static void start(void) { ck_assert_int_eq(dag_init(), 0); }

START_TEST(test_misspelt_setting_is_named) {
  setenv("DAG_TRACES", "t.json", 1);
  setenv("DAG_NUM_THREAD", "2", 1);
  setenv("DAG_ZEBRA", "1", 1);
  setenv("DAG_CC", "gcc", 1); /* dagcc's, not a typo */
  char *err = stderr_of(start);
  ck_assert_msg(strstr(err, "warning: DAG_TRACES is not a setting of dag "
                            "(did you mean DAG_TRACE?)"),
                "%s", err);
  ck_assert_msg(strstr(err, "DAG_NUM_THREAD is not a setting of dag (did you "
                            "mean DAG_NUM_THREADS?)"),
                "%s", err);
  ck_assert_msg(strstr(err, "DAG_ZEBRA is not a setting of dag; ignored"), "%s",
                err);
  ck_assert_msg(!strstr(err, "DAG_CC"), "%s", err);
  free(err);
}
END_TEST

START_TEST(test_log_error_silences_warnings) {
  setenv("DAG_TRACES", "t.json", 1);
  setenv("DAG_LOG", "error", 1);
  char *err = stderr_of(start);
  ck_assert_str_eq(err, "");
  free(err);
}
END_TEST

/* ------------------------------------------------------- what is said */

static void finalize(void) {
  ck_assert_int_eq(dag_init(), 0);
  dag_finalize();
}

START_TEST(test_stats_print_the_settings) {
  setenv("DAG_STATS", "1", 1);
  setenv("DAG_NUM_THREADS", "2", 1);
  char *err = stderr_of(finalize);
  ck_assert_msg(strstr(err, "dag: stats: settings from the environment: "
                            "DAG_NUM_THREADS=2 DAG_STATS=1\n"),
                "%s", err);
  ck_assert_msg(strstr(err, "dag: stats: settings by default: DAG_TRACE=off"),
                "%s", err);
  ck_assert_msg(strstr(err, " DAG_LOG=warn "), "%s", err);
  free(err);
}
END_TEST

static void misuse(void) {
  ck_assert_int_eq(dag_init(), 0);
  ck_assert_int_eq(dag_submit(NULL, NULL, 0, NULL, 0), DAG_EINVAL);
}

START_TEST(test_one_rank_prefix) {
  char *err = stderr_of(misuse);
  ck_assert_str_eq(err, "dag: error: dag_submit: no task info\n");
  free(err);
}
END_TEST

START_TEST(test_prefix_names_rank_and_worker) {
  setenv("DAG_SIMULATE_RANKS", "4", 1);
  setenv("DAG_SIMULATE_RANK", "2", 1);
  char *err = stderr_of(misuse);
  ck_assert_str_eq(err, "dag[r2 w0]: error: dag_submit: no task info\n");
  free(err);
}
END_TEST

static Suite *settings_suite(void) {
  Suite *s = suite_create("settings");
  TCase *tc = tcase_create("settings");
  tcase_add_loop_test(tc, test_malformed_value_stops_init, 0,
                      (int)(sizeof malformed / sizeof *malformed));
  tcase_add_test(tc, test_malformed_value_said_once);
  tcase_add_test(tc, test_simulated_rank_beyond_ranks);
  tcase_add_loop_test(tc, test_empty_value_is_unset, 0,
                      (int)(sizeof every_setting / sizeof *every_setting));
  tcase_add_test(tc, test_good_values_are_taken);
  tcase_add_test(tc, test_named_device_missing);
  tcase_add_test(tc, test_defaults);
  tcase_add_test(tc, test_watchdog_with_deadline);
  tcase_add_test(tc, test_devices_none);
  tcase_add_test(tc, test_check_items_refuses_workers);
  tcase_add_test(tc, test_check_items_refuses_devices);
  tcase_add_loop_test(tc, test_check_items_alone, 0, 2);
  tcase_add_test(tc, test_misspelt_setting_is_named);
  tcase_add_test(tc, test_log_error_silences_warnings);
  tcase_add_test(tc, test_stats_print_the_settings);
  tcase_add_test(tc, test_one_rank_prefix);
  tcase_add_test(tc, test_prefix_names_rank_and_worker);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(settings_suite()); }
