/* check_chooser.c — where the variant chooser (runtime/device/device.c)
 * sends tasks, on the emulated device's timed model (DAG_EMUL_MODEL): the
 * model fixes how long each variant takes, so the right choice is known.
 * Independent tasks with a CPU body and a device variant: with a device a
 * hundred times faster than a core, nearly all run on the device; with one
 * a hundred times slower, nearly all stay on the CPU; while nothing is
 * measured, the declared work over the model's rates says where a task
 * belongs, and a first run sends none to a core ten thousand times slower.
 * The first run of a function on each worker is not counted. With
 * DAG_HISTORY, a second run starts from what the first measured; by
 * default that file is in the user's cache folder, and DAG_HISTORY=off
 * keeps none. Each test runs in a process of its own (Check forks), in
 * order.
 */
#include "device/call.h"
#include "device/choose.h"
#include "device/run_times.h"

#include <check.h>
#include <dag.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_suite.h"

enum { WORKERS = 4, TASKS = 400, BLOCK = 8192 /* doubles: 64 KiB */ };

/* A model whose device does `device_rate` and whose cores `cpu_rate` work
 * of label "block" per second; copies at `copy_rate` bytes a second. */
static void start_timed_copying(const char *device_rate, const char *cpu_rate,
                                const char *copy_rate) {
  char path[] = "/tmp/check_chooser_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  dprintf(fd,
          "name chooser\nmemory 1G\ncopy in %s 1us\ncopy out %s 1us\n"
          "launch 1us\n"
          "rate device block %s\nrate cpu block %s\n",
          copy_rate, copy_rate, device_rate, cpu_rate);
  close(fd);
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MODEL", path, 1), 0);
  char workers[8];
  snprintf(workers, sizeof workers, "%d", WORKERS);
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", workers, 1), 0);
  ck_assert_int_eq(dag_init(), 0);
  unlink(path); /* read by dag_init */
}

static void start_timed(const char *device_rate, const char *cpu_rate) {
  start_timed_copying(device_rate, cpu_rate, "10G");
}

struct block_args {
  double *x;
};

static void never_runs(void *p) {
  (void)p;
  ck_abort_msg("a body ran on the timed model");
}
static void on_cpu(void *p) { never_runs(p); }
static void on_device(void *p) { never_runs(p); }

/* 1e5 units a task: 0.1 ms at 1G/s, 10 ms at 10M/s. */
static double block_work(const void *p) {
  (void)p;
  return 1e5;
}

static const struct dag_pointers block_pointers[] = {
    {offsetof(struct block_args, x), 1}};
static const struct dag_variant device_variant[] = {
    {on_device, DAG_DEVICE_CUDA}};
static const struct dag_task_info block_info = {.fn = on_cpu,
                                                .label = "block",
                                                .file = __FILE__,
                                                .line = __LINE__,
                                                .variants = device_variant,
                                                .nvariants = 1,
                                                .pointers = block_pointers,
                                                .npointers = 1,
                                                .work = block_work};

/* Runs TASKS independent tasks, each on a block of its own; returns how
 * many ran on the device. */
static uint64_t run_blocks(void) {
  double *x = calloc((size_t)TASKS * BLOCK, sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (int t = 0; t < TASKS; t++) {
    struct block_args a = {x + (size_t)t * BLOCK};
    struct dag_access acc = {DAG_INOUT, dag_region_1d(a.x, BLOCK * sizeof *x)};
    ck_assert_int_eq(dag_submit(&block_info, &a, sizeof a, &acc, 1), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  uint64_t on_device = dag__devices[0].tasks;
  free(x);
  return on_device;
}

/* The device 100 times faster than a core, 25 times faster than the four
 * of them: all but a few explorations of the CPU belong on the device. */
START_TEST(fast_device_gets_the_work) {
  start_timed("1G", "10M");
  uint64_t n = run_blocks();
  ck_assert_msg(n >= TASKS * 95 / 100, "%llu of %d tasks on the device",
                (unsigned long long)n, TASKS);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

/* While nothing is measured, the estimates (0.1 ms on the device, 1 s on a
 * core) keep the work on the device: at most a task or two on the CPU
 * (none, as first_run_explores_no_core checks). Taken blind, each free
 * worker would run one. */
START_TEST(blind_choices_wait_for_the_device) {
  start_timed("1G", "100k");
  uint64_t n = run_blocks();
  ck_assert_msg(TASKS - n <= 2, "%llu of %d tasks on the CPU",
                (unsigned long long)(TASKS - n), TASKS);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

/* The device 100 times slower than a core: the CPU keeps the work. */
START_TEST(slow_device_leaves_the_work) {
  start_timed("10M", "1G");
  uint64_t n = run_blocks();
  ck_assert_msg(n <= TASKS * 5 / 100, "%llu of %d tasks on the device",
                (unsigned long long)n, TASKS);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

/* DAG_HISTORY's file, shared by the two tests of a suite run (their parent
 * is the runner). */
static void use_history(char *path, size_t size) {
  snprintf(path, size, "/tmp/check_chooser_history_%d", (int)getppid());
  ck_assert_int_eq(setenv("DAG_HISTORY", path, 1), 0);
}

/* A first run with a device ten thousand times faster than a core: it
 * explores the CPU, and writes what it measured. */
/* Whether the DAG_HISTORY file at path has the CPU variant of "block", and
 * the device's. */
static void variants_kept(const char *path, bool *cpu, bool *device) {
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "no file %s", path);
  char line[512];
  *cpu = *device = false;
  while (fgets(line, sizeof line, f)) {
    *cpu |= strstr(line, " 0 cpu ") && strstr(line, " block\n");
    *device |= strstr(line, " 1 emul:chooser ") && strstr(line, " block\n");
  }
  fclose(f);
}

START_TEST(history_is_written) {
  char path[64];
  use_history(path, sizeof path);
  remove(path);
  start_timed("1G", "100k");
  run_blocks();
  ck_assert_int_eq(dag_finalize(), 0);
  bool cpu, device;
  variants_kept(path, &cpu, &device);
  ck_assert_msg(device && !cpu, "only the device measured in %s", path);
}
END_TEST

/* A first run with no history: the CPU, estimated at 1 s a task against
 * 0.1 ms on the device, is settled, never explored: no task runs there.
 * (Explored, it would take EXPLORING tasks.) */
START_TEST(first_run_explores_no_core) {
  start_timed("1G", "100k");
  uint64_t n = run_blocks();
  ck_assert_msg(n == TASKS, "%llu of %d tasks on the CPU",
                (unsigned long long)(TASKS - n), TASKS);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

static void measured_fn(void *p) { (void)p; }

/* The first run of a function on each worker is not counted; the later
 * ones are: two first runs of 1 ms (set-up), three of 1 us. */
START_TEST(first_run_on_each_worker_not_counted) {
  struct call c = {.fn = measured_fn, .bytes = 4096, .work = -1};
  dag__history_note(&c, 0, 1000000);
  dag__history_note(&c, 0, 1000);
  dag__history_note(&c, 1, 1000000);
  dag__history_note(&c, 1, 1000);
  dag__history_note(&c, 0, 1000);
  pthread_mutex_lock(&dag__run_times_lock);
  struct run_times *s = dag__run_times_slot(measured_fn, c.bytes);
  uint32_t runs = s->runs;
  double mean = s->mean_ns;
  pthread_mutex_unlock(&dag__run_times_lock);
  ck_assert_uint_eq(runs, 3);
  ck_assert_msg(mean > 999 && mean < 1001, "mean %.0f ns", mean);
}
END_TEST

/* A fresh cache folder (XDG_CACHE_HOME) into dir. */
static void fresh_cache(char *dir, size_t size) {
  snprintf(dir, size, "/tmp/check_chooser_cache_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(setenv("XDG_CACHE_HOME", dir, 1), 0);
}

/* With DAG_HISTORY unset, the file is <cache>/dag/<host>-<devices>.history,
 * written by the first run, read by the second. */
START_TEST(history_kept_in_the_cache_folder) {
  char dir[64], host[256] = "", path[512];
  fresh_cache(dir, sizeof dir);
  ck_assert_int_eq(unsetenv("DAG_HISTORY"), 0);
  start_timed("1G", "100k");
  run_blocks();
  ck_assert_int_eq(dag_finalize(), 0);
  gethostname(host, sizeof host - 1);
  snprintf(path, sizeof path, "%s/dag/%s-emul-chooser.history", dir, host);
  bool cpu, device;
  variants_kept(path, &cpu, &device);
  ck_assert_msg(device, "the device measured in %s", path);
  remove(path);
  snprintf(path, sizeof path, "%s/dag", dir);
  ck_assert_int_eq(rmdir(path), 0); /* nothing else in it */
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* DAG_HISTORY=off: no file, in the cache folder or anywhere. */
START_TEST(history_off_keeps_none) {
  char dir[64], path[128];
  fresh_cache(dir, sizeof dir);
  ck_assert_int_eq(setenv("DAG_HISTORY", "off", 1), 0);
  start_timed("1G", "100k");
  run_blocks();
  ck_assert_int_eq(dag_finalize(), 0);
  snprintf(path, sizeof path, "%s/dag", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The second run knows the device from the first, and the CPU's estimate
 * settles it: every task goes to the device (a task on a core takes 1 s;
 * the device's whole queue, 40 ms as modelled, stays below it even if its
 * measured times grow tenfold on a loaded machine). */
START_TEST(history_is_read) {
  char path[64];
  use_history(path, sizeof path);
  start_timed("1G", "100k");
  uint64_t n = run_blocks();
  ck_assert_int_eq(dag_finalize(), 0);
  remove(path);
  ck_assert_msg(n == TASKS, "%llu of %d tasks on the device",
                (unsigned long long)n, TASKS);
}
END_TEST

/* The mean DAG_HISTORY's file at path gives the device variant of
 * "block", in ns. */
static double device_mean(const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  double mean = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned runs;
    double ns;
    if (sscanf(line, "%*d %*d emul:chooser %u %lf block", &runs, &ns) == 2)
      mean = ns;
  }
  fclose(f);
  return mean;
}

static double big_block_work(const void *p) {
  (void)p;
  return 5e6; /* 5 ms at 1G/s */
}

/* A device task's measured time is its own, not the wait for its copies:
 * with copies of 10 ms (10 MB at 1 GB/s) before kernels of 5 ms, the
 * compute queue waits for each copy, and the history must say 5 ms. */
START_TEST(device_time_leaves_out_its_copies) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/check_chooser_copies_%d", (int)getpid());
  ck_assert_int_eq(setenv("DAG_HISTORY", path, 1), 0);
  start_timed_copying("1G", "1G", "1G");
  enum { N = 40, DOUBLES = 1250000 /* 10 MB */ };
  double *x = calloc((size_t)N * DOUBLES, sizeof *x);
  ck_assert_ptr_nonnull(x);
  struct dag_task_info info = block_info;
  info.fn = on_device;
  info.device = DAG_DEVICE_CUDA;
  info.nvariants = 0;
  info.variants = NULL;
  info.work = big_block_work;
  for (int t = 0; t < N; t++) {
    struct block_args a = {x + (size_t)t * DOUBLES};
    struct dag_access acc = {DAG_IN, dag_region_1d(a.x, DOUBLES * sizeof *x)};
    ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(dag_finalize(), 0);
  free(x);
  double mean = device_mean(path);
  remove(path);
  /* Wake-ups on a loaded machine move it by a millisecond or so; waiting
   * for the copies would make it 10 ms. */
  ck_assert_msg(mean > 2.5e6 && mean < 7.5e6,
                "the device's mean is %.0f ns for kernels of 5 ms", mean);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("chooser");
  TCase *tc = tcase_create("timed model");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fast_device_gets_the_work);
  tcase_add_test(tc, blind_choices_wait_for_the_device);
  tcase_add_test(tc, slow_device_leaves_the_work);
  tcase_add_test(tc, first_run_explores_no_core);
  tcase_add_test(tc, first_run_on_each_worker_not_counted);
  tcase_add_test(tc, history_kept_in_the_cache_folder);
  tcase_add_test(tc, history_off_keeps_none);
  tcase_add_test(tc, history_is_written);
  tcase_add_test(tc, history_is_read);
  tcase_add_test(tc, device_time_leaves_out_its_copies);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(suite()); }
