/* check_registered.c — host memory registered with the devices
 * (dag_register, and dag_alloc memory while a device is in use), on the
 * emulated device: copies of it go straight, with no staging buffer and no
 * packing; a copy across the edges of registrations is split there, row by
 * row and inside a row, and computes the same; dag_unregister lets no
 * copy of the memory run after it (the emulated device fails a copy of
 * page-locked memory that was unregistered meanwhile); and misuse is
 * refused with a message. Each test runs in a process of its own (Check
 * forks). ctest runs the suite with the device's jitter too.
 */
#include <check.h>
#include <dag.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_each.h"
#include "device/devices.h"
#include "run_suite.h"

static void start(void) {
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", "64M", 1), 0);
  if (!getenv("DAG_EMUL_DELAY_US"))
    ck_assert_int_eq(setenv("DAG_EMUL_DELAY_US", "50", 1), 0);
  /* Write-backs on speculation are staged apart from the copies counted. */
  ck_assert_int_eq(setenv("DAG_DEVICE_WRITEBACK", "0", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
}

/* Bytes of copies that went through staging buffers. */
static uint64_t packed(void) { return dag__devices[0].bytes_packed; }

/* ------------------------------------------------------ a tile, doubled */

struct tile_args {
  double *t;
  size_t ld, rows, cols; /* ld and cols in doubles */
};

static const struct dag_pointers tile_pointers[] = {
    {offsetof(struct tile_args, t), 1}};

static void double_tile(void *p) {
  struct tile_args *a = p;
  for (size_t i = 0; i < a->rows; i++)
    for (size_t j = 0; j < a->cols; j++)
      a->t[i * a->ld + j] = 2 * a->t[i * a->ld + j] + 1;
}

static void double_on_device(void *p) {
  ck_assert_int_eq(dag_emul_launch(double_tile, p, sizeof(struct tile_args)),
                   0);
}

static void submit_double(double *t, size_t ld, size_t rows, size_t cols) {
  static const struct dag_task_info info = {.fn = double_on_device,
                                            .label = "double",
                                            .device = DAG_DEVICE_CUDA,
                                            .pointers = tile_pointers,
                                            .npointers = 1};
  struct tile_args a = {t, ld, rows, cols};
  struct dag_access acc = {
      DAG_INOUT,
      {t, cols * sizeof(double), 1, {{rows, (ptrdiff_t)(ld * sizeof *t)}}}};
  ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
}

static double *filled(size_t n) {
  double *x = aligned_alloc(4096, n * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < n; i++)
    x[i] = (double)i;
  return x;
}

/* Two arrays alike, one registered: only the other's copies are packed,
 * in and back. */
START_TEST(registered_memory_goes_straight) {
  start();
  enum { N = 1 << 19 }; /* 4 MiB */
  double *reg = filled(N), *plain = filled(N);
  ck_assert_int_eq(dag_register(reg, N * sizeof *reg), 0);
  submit_double(reg, 1024, N / 1024, 1024);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(packed(), 0);
  submit_double(plain, 1024, N / 1024, 1024);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(packed(), 2 * N * sizeof *plain);
  CHECK_EACH(i, N, reg[i] == 2.0 * i + 1 && plain[i] == 2.0 * i + 1);
  ck_assert_int_eq(dag_unregister(reg), 0);
  free(reg);
  free(plain);
}
END_TEST

/* A 64-row matrix of rows of 8 KiB: rows 0-15 one registration, 16-31
 * another, 32-63 not but for C, which starts half-way through row 40 and
 * ends half-way through row 44. A tile of the middle 4 KiB of every row
 * crosses all their edges: whole rows in runs of each kind, rows 40 and 44
 * in two pieces. Only the unregistered bytes are packed, and every byte
 * comes out right. */
START_TEST(copy_across_registrations_is_split) {
  start();
  enum { LD = 1024, ROWS = 64, ROW = LD * sizeof(double) };
  double *m = filled(LD * ROWS);
  char *at = (char *)m;
  ck_assert_int_eq(dag_register(at, 16 * ROW), 0);
  ck_assert_int_eq(dag_register(at + 16 * ROW, 16 * ROW), 0);
  ck_assert_int_eq(dag_register(at + 40 * ROW + ROW / 2, 4 * ROW), 0);
  submit_double(m + LD / 4, LD, ROWS, LD / 2);
  ck_assert_int_eq(dag_taskwait(), 0);
  /* Rows 32-39 and 45-63 whole (4 KiB each), half of 40 and of 44; in and
   * back. */
  ck_assert_int_eq(packed(), 2 * (27 * ROW / 2 + 2 * ROW / 4));
  CHECK_EACH_2D(i, ROWS, j, LD,
                m[i * LD + j] == (j >= LD / 4 && j < 3 * LD / 4
                                      ? 2.0 * (i * LD + j) + 1
                                      : (double)(i * LD + j)));
  ck_assert_int_eq(dag_unregister(at), 0);
  ck_assert_int_eq(dag_unregister(at + 16 * ROW), 0);
  ck_assert_int_eq(dag_unregister(at + 40 * ROW + ROW / 2), 0);
  free(m);
}
END_TEST

/* dag_unregister while device tasks on the memory are under way: it waits
 * for their copies, and the tasks after it pack theirs. Had a copy of the
 * memory run after it, the emulated device would fail the copy, and the
 * task with it. */
START_TEST(unregister_waits_for_copies_in_flight) {
  ck_assert_int_eq(setenv("DAG_EMUL_DELAY_US", "500", 1), 0);
  start();
  enum { N = 1 << 18, ROUNDS = 8 };
  double *x = filled(N);
  ck_assert_int_eq(dag_register(x, N * sizeof *x), 0);
  for (int r = 0; r < ROUNDS; r++) {
    for (size_t b = 0; b < 4; b++)
      submit_double(x + b * N / 4, 512, N / 4 / 512, 512);
    if (r != ROUNDS / 2)
      continue;
    /* Once the device has work, and copies, under way. */
    for (int spins = 0; !atomic_load(&dag__devices[0].in_flight); spins++) {
      ck_assert_int_lt(spins, 100000);
      usleep(10);
    }
    ck_assert_int_eq(dag_unregister(x), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_gt(packed(), 0);
  double times = (double)(1 << ROUNDS);
  CHECK_EACH(i, N, x[i] == times * i + (times - 1));
  free(x);
}
END_TEST

/* dag_alloc memory is registered while a device is in use: none of its
 * copies is packed; freed, it is unregistered with it. */
START_TEST(dag_alloc_memory_is_registered) {
  start();
  enum { N = 1 << 18 };
  for (int round = 0; round < 2; round++) {
    double *x = dag_alloc(N * sizeof *x, dag_dist_block(sizeof(double), N));
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < N; i++)
      x[i] = (double)i;
    submit_double(x, 512, N / 512, 512);
    ck_assert_int_eq(dag_taskwait(), 0);
    CHECK_EACH(i, N, x[i] == 2.0 * i + 1);
    ck_assert_int_eq(dag_free(x), 0);
  }
  ck_assert_int_eq(packed(), 0);
}
END_TEST

static void register_inside(void *p) {
  (void)p;
  static double y[16];
  ck_assert_int_eq(dag_register(y, sizeof y), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "dag_register"));
}

START_TEST(misuse_is_refused) {
  start();
  double *x = filled(4096);
  ck_assert_int_eq(dag_register(NULL, 64), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "no memory to register"));
  ck_assert_int_eq(dag_register(x, 0), DAG_EINVAL);
  ck_assert_int_eq(dag_register(x, 4096 * sizeof *x), 0);
  ck_assert_int_eq(dag_register(x + 100, 64), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "overlap"));
  ck_assert_int_eq(dag_unregister(x + 100), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "not the start"));
  ck_assert_int_eq(dag_unregister(x), 0);
  ck_assert_int_eq(dag_unregister(x), DAG_EINVAL);
  double *d = dag_alloc(1 << 16, dag_dist_block(sizeof(double), 1 << 13));
  ck_assert_int_eq(dag_register(d + 8, 64), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "dag_alloc memory"));
  static const struct dag_task_info info = {.fn = register_inside,
                                            .label = "inside"};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(dag_free(d), 0);
  free(x);
}
END_TEST

/* With no device in use, registering records the memory and asks nothing
 * of a driver; unregistering forgets it. */
START_TEST(no_device_needs_nothing) {
  ck_assert_int_eq(unsetenv("DAG_DEVICES"), 0);
  ck_assert_int_eq(dag_init(), 0);
  double *x = filled(512);
  ck_assert_int_eq(dag_register(x, 512 * sizeof *x), 0);
  ck_assert_int_eq(dag_unregister(x), 0);
  free(x);
}
END_TEST

static Suite *registered_suite(void) {
  Suite *s = suite_create("registered");
  TCase *tc = tcase_create("registered");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, registered_memory_goes_straight);
  tcase_add_test(tc, copy_across_registrations_is_split);
  tcase_add_test(tc, unregister_waits_for_copies_in_flight);
  tcase_add_test(tc, dag_alloc_memory_is_registered);
  tcase_add_test(tc, misuse_is_refused);
  tcase_add_test(tc, no_device_needs_nothing);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(registered_suite()); }
