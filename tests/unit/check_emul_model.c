/* check_emul_model.c — device models and the emulated device's timed mode
 * (runtime/mem/emul_model.c, DAG_EMUL_MODEL): a model reads as written or
 * is refused with its file and line; in timed mode a task's declared work
 * is charged at the model's rate where it runs, its body never runs, its
 * copies move no byte, and a task the model cannot time ends the run
 * naming it. Each test runs in a process of its own (Check forks).
 */
#include "device/devices.h"
#include "mem/emul_model.h"

#include <check.h>
#include <dag.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "child.h"
#include "run_suite.h"

/* Writes `text` to a file of its own; returns its path. */
static const char *model_file(const char *text) {
  static char path[] = "/tmp/check_emul_model_XXXXXX";
  strcpy(path, "/tmp/check_emul_model_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

START_TEST(builtin_h200_reads) {
  struct emul_model m;
  ck_assert_int_eq(dag__emul_model_load("h200", &m), 0);
  ck_assert_str_eq(m.name, "h200");
  ck_assert_uint_eq(m.memory, 141000000000u);
  ck_assert_double_eq_tol(m.in_bytes_per_s, 53e9, 1);
  ck_assert_double_eq_tol(m.in_latency, 10e-6, 1e-12);
  /* One core packs 94 MB in 10 ms. */
  ck_assert_double_eq_tol(dag__emul_model_pack_seconds(&m, 94000000), 10e-3,
                          1e-12);
  /* dgemm of a 2048 tile: 2 * 2048^3 flops at 60 TFLOP/s, plus launch. */
  double flops = 2.0 * 2048 * 2048 * 2048;
  ck_assert_double_eq_tol(dag__emul_model_seconds(&m, "gemm", true, flops),
                          flops / 60e12 + 5e-6, 1e-12);
  ck_assert_double_eq_tol(dag__emul_model_seconds(&m, "gemm", false, flops),
                          flops / 40e9, 1e-9);
  ck_assert_double_lt(dag__emul_model_seconds(&m, "stencil", true, 1), 0);
  ck_assert_double_eq_tol(
      dag__emul_model_copy_seconds(&m, false, 55000000, true), 10e-6 + 1e-3,
      1e-12);
  /* From memory that is not page-locked: the pageable rate, 7.7 GB/s. */
  ck_assert_double_eq_tol(
      dag__emul_model_copy_seconds(&m, true, 77000000, false), 10e-6 + 1e-2,
      1e-12);
  ck_assert_double_eq_tol(m.pack_all_bytes_per_s, 40e9, 1);
}
END_TEST

START_TEST(file_reads_with_units_and_comments) {
  struct emul_model m;
  const char *path = model_file("# a slow device\n"
                                "name slow\n"
                                "memory 4G\n"
                                "copy in 1G 1ms   # host to device\n"
                                "copy out 2G 500us\n"
                                "pack 3G 5G\n"
                                "pageable 3G\n"
                                "launch 20ns\n"
                                "rate device axpy 2G\n"
                                "rate cpu axpy 1k\n");
  ck_assert_int_eq(dag__emul_model_load(path, &m), 0);
  ck_assert_str_eq(m.name, "slow");
  ck_assert_uint_eq(m.memory, 4000000000u);
  ck_assert_double_eq_tol(m.out_latency, 5e-4, 1e-12);
  ck_assert_double_eq_tol(m.launch, 2e-8, 1e-15);
  ck_assert_double_eq_tol(m.pack_bytes_per_s, 3e9, 1);
  ck_assert_double_eq_tol(m.pack_all_bytes_per_s, 5e9, 1);
  /* A pageable rate above the link's is the link's. */
  ck_assert_double_eq_tol(dag__emul_model_copy_seconds(&m, false, 2000, false),
                          5e-4 + 1e-6, 1e-12);
  ck_assert_double_eq_tol(dag__emul_model_copy_seconds(&m, true, 3000, false),
                          1e-3 + 3e-6, 1e-12);
  ck_assert_double_eq_tol(dag__emul_model_seconds(&m, "axpy", true, 4e9),
                          2 + 2e-8, 1e-9);
  ck_assert_double_eq_tol(dag__emul_model_seconds(&m, "axpy", false, 3000), 3,
                          1e-12);
  remove(path);
}
END_TEST

/* Each malformed model is refused, its message naming file and line. */
START_TEST(malformed_models_are_refused) {
  static const struct {
    const char *text, *says;
  } cases[] = {
      {"memory 1G\ncopy sideways 1G 1us\n", ":2: copy: expected in or out"},
      {"memory 1G\ncopy in 1G 1\n", ":2: copy: expected a latency"},
      {"memory -1G\n", ":1: memory: expected bytes"},
      {"rate gpu x 1G\n", ":1: rate: expected device or cpu"},
      {"rate cpu x fast\n", ":1: rate: expected work per second"},
      {"pack -3G\n", ":1: pack: expected bytes per second"},
      {"pack 3G all\n", ":1: pack: expected all cores' bytes per second"},
      {"pageable 0\n", ":1: pageable: expected bytes per second"},
      {"speed 1G\n", ":1: expected 'name N'"},
      {"memory 1G\ncopy in 1G 1us\n", "it needs 'memory', 'copy in' and"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct emul_model m;
    const char *path = model_file(cases[i].text);
    ck_assert_int_eq(dag__emul_model_load(path, &m), DAG_EINVAL);
    ck_assert_msg(strstr(dag_last_error(), cases[i].says) &&
                      strstr(dag_last_error(), path),
                  "case %zu: %s", i, dag_last_error());
    remove(path);
  }
  struct emul_model m;
  ck_assert_int_eq(dag__emul_model_load("/nonexistent/model", &m), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "no such file"));
}
END_TEST

/* ------------------------------------------------------------ timed mode */

/* A device of 1 GB/s each way and no latency; a `scale` task does
 * 1 Gwork/s on it, 10 Mwork/s on a CPU core. */
static void start_timed(void) {
  const char *path = model_file("name test\n"
                                "memory 1G\n"
                                "copy in 1G 0us\n"
                                "copy out 1G 0us\n"
                                "launch 0us\n"
                                "rate device scale 1G\n"
                                "rate cpu scale 10M\n");
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MODEL", path, 1), 0);
  ck_assert_int_eq(dag_init(), 0);
  remove(path); /* read by dag_init */
}

struct scale_args {
  double *x;
  size_t n;
};

static double scale_work(const void *p) {
  const struct scale_args *a = p;
  return (double)a->n * 80; /* 80 units per element */
}

static atomic_int bodies_run;

static void scale(void *p) {
  (void)p;
  atomic_fetch_add(&bodies_run, 1);
}

static const struct dag_pointers scale_pointers[] = {
    {offsetof(struct scale_args, x), 1}};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A device task on 1 MB: 1 ms to copy in, 10 ms of work (1e7 units at
 * 1 G/s), 1 ms to copy back at the wait. Its body never runs and its data
 * is not touched. */
START_TEST(device_work_is_charged_not_run) {
  start_timed();
  size_t n = 125000; /* 1 MB of doubles */
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++)
    x[i] = (double)i;
  struct scale_args a = {x, n};
  struct dag_task_info info = {.fn = scale,
                               .label = "scale",
                               .file = __FILE__,
                               .line = __LINE__,
                               .device = DAG_DEVICE_CUDA,
                               .pointers = scale_pointers,
                               .npointers = 1,
                               .work = scale_work};
  struct dag_access acc = {DAG_INOUT, {x, n * sizeof *x, 0, {{0, 0}}}};
  double t0 = now();
  ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  double took = now() - t0;
  ck_assert_int_eq(atomic_load(&bodies_run), 0);
  for (size_t i = 0; i < n; i++)
    ck_assert(x[i] == (double)i);
  /* The model's times are sleeps: a lower bound that cannot fail early. */
  ck_assert_msg(took >= 0.012, "took %.6f s, the model says 0.012", took);
  ck_assert_int_eq(dag_finalize(), 0);
  free(x);
}
END_TEST

/* Copies without staging (the model gives no pack rate): from registered
 * memory at the link's 1 GB/s, from other memory at the pageable 100 MB/s,
 * as a GPU's driver stages it. A task on each of two 1 MB arrays: 1 ms and
 * 10 ms on each copy engine, by the model's own count. */
START_TEST(pageable_copies_go_at_the_pageable_rate) {
  const char *path = model_file("memory 1G\n"
                                "copy in 1G 0us\n"
                                "copy out 1G 0us\n"
                                "pageable 100M\n"
                                "rate device scale 1G\n");
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MODEL", path, 1), 0);
  ck_assert_int_eq(dag_init(), 0);
  remove(path);
  size_t n = 125000; /* 1 MB of doubles */
  double *reg = malloc(n * sizeof *reg), *plain = malloc(n * sizeof *plain);
  ck_assert_int_eq(dag_register(reg, n * sizeof *reg), 0);
  struct dag_task_info info = {.fn = scale,
                               .label = "scale",
                               .device = DAG_DEVICE_CUDA,
                               .pointers = scale_pointers,
                               .npointers = 1,
                               .work = scale_work};
  double *arrays[] = {reg, plain};
  for (int i = 0; i < 2; i++) {
    struct scale_args a = {arrays[i], n};
    struct dag_access acc = {DAG_INOUT,
                             {arrays[i], n * sizeof(double), 0, {{0, 0}}}};
    ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  struct space_timing t;
  dag__space_timing(&dag__devices[0].space, &t);
  ck_assert_uint_eq(t.bytes_in, 2 * n * sizeof(double));
  ck_assert_msg(t.copy_in_busy_ns >= 10999000 && t.copy_in_busy_ns <= 11001000,
                "copying in took %llu ns, the model says 11 ms",
                (unsigned long long)t.copy_in_busy_ns);
  ck_assert_msg(t.copy_out_busy_ns >= 10999000 &&
                    t.copy_out_busy_ns <= 11001000,
                "copying out took %llu ns, the model says 11 ms",
                (unsigned long long)t.copy_out_busy_ns);
  ck_assert_int_eq(dag_unregister(reg), 0);
  ck_assert_int_eq(dag_finalize(), 0);
  free(reg);
  free(plain);
}
END_TEST

/* A CPU task of 2e5 units (n = 2500): 20 ms on one core at 10 M/s; its
 * body never runs. */
START_TEST(cpu_work_is_charged_not_run) {
  start_timed();
  double x[4] = {0};
  struct scale_args a = {x, 2500};
  struct dag_task_info info = {.fn = scale,
                               .label = "scale",
                               .file = __FILE__,
                               .line = __LINE__,
                               .work = scale_work};
  struct dag_access acc = {DAG_INOUT, {x, sizeof x, 0, {{0, 0}}}};
  double t0 = now();
  ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&bodies_run), 0);
  ck_assert_msg(now() - t0 >= 0.02, "took %.6f s", now() - t0);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

/* A device task whose label the model has no rate for ends the run. */
static void unknown_label(void) {
  start_timed();
  double x[4] = {0};
  struct scale_args a = {x, 4};
  struct dag_task_info info = {.fn = scale,
                               .label = "stencil",
                               .file = __FILE__,
                               .line = __LINE__,
                               .device = DAG_DEVICE_CUDA,
                               .pointers = scale_pointers,
                               .npointers = 1,
                               .work = scale_work};
  struct dag_access acc = {DAG_INOUT, {x, sizeof x, 0, {{0, 0}}}};
  dag_submit(&info, &a, sizeof a, &acc, 1);
  dag_taskwait();
}

START_TEST(unknown_label_ends_the_run) {
  ck_assert_child_exits(
      unknown_label, 1,
      "the device model test has no rate for label 'stencil' on the device");
}
END_TEST

/* A device task that declares no work ends the run. */
static void undeclared_work(void) {
  start_timed();
  double x[4] = {0};
  struct scale_args a = {x, 4};
  struct dag_task_info info = {.fn = scale,
                               .label = "scale",
                               .file = __FILE__,
                               .line = __LINE__,
                               .device = DAG_DEVICE_CUDA,
                               .pointers = scale_pointers,
                               .npointers = 1};
  struct dag_access acc = {DAG_INOUT, {x, sizeof x, 0, {{0, 0}}}};
  dag_submit(&info, &a, sizeof a, &acc, 1);
  dag_taskwait();
}

START_TEST(undeclared_work_ends_the_run) {
  ck_assert_child_exits(
      undeclared_work, 1,
      "it declares no work (dag_task_info.work), so the device model test "
      "cannot time it");
}
END_TEST

/* A model that cannot be read makes DAG_DEVICES=emul unusable, saying why. */
START_TEST(unreadable_model_refuses_the_device) {
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MODEL", "/nonexistent/model", 1), 0);
  ck_assert_int_eq(dag_init(), DAG_ENOSYS);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "/nonexistent/model"));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("emul_model");
  TCase *tc = tcase_create("models");
  tcase_add_test(tc, builtin_h200_reads);
  tcase_add_test(tc, file_reads_with_units_and_comments);
  tcase_add_test(tc, malformed_models_are_refused);
  suite_add_tcase(s, tc);
  TCase *timed = tcase_create("timed");
  tcase_set_timeout(timed, 60);
  tcase_add_test(timed, device_work_is_charged_not_run);
  tcase_add_test(timed, cpu_work_is_charged_not_run);
  tcase_add_test(timed, pageable_copies_go_at_the_pageable_rate);
  tcase_add_test(timed, unknown_label_ends_the_run);
  tcase_add_test(timed, undeclared_work_ends_the_run);
  tcase_add_test(timed, unreadable_model_refuses_the_device);
  suite_add_tcase(s, timed);
  return s;
}

int main(void) { return run_suite(suite()); }
