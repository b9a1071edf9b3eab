/* check_writeback.c — write-backs on speculation (runtime/device/
 * writeback.c) on the emulated device, through the public API: a region a
 * device task wrote last goes back while the device works on, once; one
 * written again is not written back until its last writer; a write-back
 * overtaken by a new writer is voided and never seen; a host task that
 * reads the region waits for its write-back rather than copy it again; and
 * all of it holds with evictions. What moved is read from DAG_STATS's line
 * for the device. Each test runs in a process of its own (Check forks).
 */
#include <check.h>
#include <dag.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_each.h"
#include "run_suite.h"

/* A region of 8 MiB: written back as one staging buffer's copy. */
enum { N = 1 << 20 };

static void start(const char *mem, const char *delay_us) {
  ck_assert_int_eq(setenv("DAG_DEVICES", "emul", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", mem, 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_DELAY_US", delay_us, 1), 0);
  ck_assert_int_eq(setenv("DAG_STATS", "1", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
}

struct add_args {
  double *x;
  double by;
};

static const struct dag_pointers add_pointers[] = {
    {offsetof(struct add_args, x), 1}};

static void add_kernel(void *p) {
  struct add_args *a = p;
  for (size_t i = 0; i < N; i++)
    a->x[i] += a->by;
}

static void add_on_device(void *p) {
  ck_assert_int_eq(dag_emul_launch(add_kernel, p, sizeof(struct add_args)), 0);
}

static struct dag_access whole(enum dag_mode mode, double *x) {
  return (struct dag_access){mode, {x, N * sizeof *x, 0, {{0, 0}}}};
}

/* x += by on the device; also reads `token`, if not NULL, so that a task
 * that writes the token waits for it. */
static void submit_add(double *x, double by, int *token) {
  static struct dag_task_info info = {.fn = add_on_device,
                                      .label = "add",
                                      .device = DAG_DEVICE_CUDA,
                                      .pointers = add_pointers,
                                      .npointers = 1};
  struct add_args a = {x, by};
  struct dag_access acc[2] = {whole(DAG_INOUT, x),
                              {DAG_IN, {token, sizeof *token, 0, {{0, 0}}}}};
  ck_assert_int_eq(dag_submit(&info, &a, sizeof a, acc, token ? 2 : 1), 0);
}

static double *vector(double first) {
  double *x = malloc(N * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < N; i++)
    x[i] = first + (double)i;
  return x;
}

/* What the device's stats line says at dag_finalize. */
struct moved {
  unsigned long long copies_out, written_back, voided;
};

static struct moved finalize_and_read(void) {
  FILE *log = tmpfile();
  ck_assert_ptr_nonnull(log);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  ck_assert_int_ne(dup2(fileno(log), STDERR_FILENO), -1);
  dag_finalize();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  rewind(log);
  char line[2048];
  struct moved m = {~0ull, ~0ull, ~0ull};
  while (fgets(line, sizeof line, log)) {
    const char *out = strstr(line, "copies in (");
    const char *back = strstr(line, "regions written back");
    if (!strstr(line, "stats: device emul 0:") || !out || !back)
      continue;
    ck_assert_int_eq(
        sscanf(out, "copies in (%*f MiB), %llu out", &m.copies_out), 1);
    while (back > line && back[-1] != ';')
      back--;
    ck_assert_int_eq(sscanf(back,
                            " %llu regions written back on speculation "
                            "(%*f MiB), %llu more voided",
                            &m.written_back, &m.voided),
                     2);
  }
  fclose(log);
  ck_assert(m.copies_out != ~0ull);
  return m;
}

/* A region written last by a device task goes back on its own: the wait
 * copies nothing more. */
START_TEST(last_write_goes_back_beside_the_work) {
  start("64M", "50");
  double *x = vector(0);
  submit_add(x, 1, NULL);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == (double)i + 1);
  struct moved m = finalize_and_read();
  ck_assert_int_eq(m.written_back, 1);
  ck_assert_int_eq(m.copies_out, 1);
  free(x);
}
END_TEST

/* Five writers in a row: only the last one's data is written back (the
 * first may be, and voided, if it ends before the second is submitted). */
START_TEST(rewritten_region_goes_back_once) {
  start("64M", "50");
  double *x = vector(0);
  for (int k = 1; k <= 5; k++)
    submit_add(x, k, NULL);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == (double)i + 15);
  struct moved m = finalize_and_read();
  ck_assert_int_eq(m.written_back, 1);
  ck_assert_int_eq(m.copies_out, 1 + m.voided);
  free(x);
}
END_TEST

/* Sets the flag: the task before it is done. */
static atomic_int first_done;
static void mark(void *p) {
  (void)p;
  atomic_store(&first_done, 1);
}

/* A second writer submitted after the first is done, while the first's
 * write-back is still in flight (every operation takes 100 ms): the
 * write-back is voided, and the host ends with the second's data. */
START_TEST(overtaken_write_back_is_voided) {
  start("64M", "100000");
  double *x = vector(0);
  int token = 0;
  submit_add(x, 1, &token);
  static struct dag_task_info after = {.fn = mark, .label = "mark"};
  struct dag_access acc = {DAG_INOUT, {&token, sizeof token, 0, {{0, 0}}}};
  ck_assert_int_eq(dag_submit(&after, NULL, 0, &acc, 1), 0);
  while (!atomic_load(&first_done))
    usleep(100);
  submit_add(x, 2, NULL);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == (double)i + 3);
  struct moved m = finalize_and_read();
  ck_assert_int_eq(m.voided, 1);
  ck_assert_int_eq(m.written_back, 1);
  free(x);
}
END_TEST

/* A host task reading the region waits for its write-back (or takes it
 * over), and sees the device's data; it is copied once. */
static int wrong_seen = -1;
static void check_vector(void *p) {
  double *x = *(double **)p;
  wrong_seen = 0;
  for (size_t i = 0; i < N; i++)
    wrong_seen += x[i] != (double)i + 1;
}

START_TEST(host_reader_waits_for_write_back) {
  start("64M", "2000");
  double *x = vector(0);
  submit_add(x, 1, NULL);
  static struct dag_task_info reader = {.fn = check_vector, .label = "read"};
  struct dag_access acc = whole(DAG_IN, x);
  ck_assert_int_eq(dag_submit(&reader, &x, sizeof x, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(wrong_seen, 0);
  struct moved m = finalize_and_read();
  ck_assert_int_eq(m.copies_out, 1);
  free(x);
}
END_TEST

/* Twelve regions of 8 MiB through a device of 32 MiB, twice over: the
 * evictions that make room write back what only the device holds, while
 * write-backs on speculation go on; every byte ends right. */
START_TEST(write_backs_with_evictions) {
  start("32M", "50");
  enum { REGIONS = 12 };
  double *x[REGIONS];
  for (int r = 0; r < REGIONS; r++)
    x[r] = vector(r);
  for (int round = 1; round <= 2; round++)
    for (int r = 0; r < REGIONS; r++)
      submit_add(x[r], round, NULL);
  ck_assert_int_eq(dag_taskwait(), 0);
  for (int r = 0; r < REGIONS; r++)
    CHECK_EACH(i, N, x[r][i] == (double)r + (double)i + 3);
  finalize_and_read();
  for (int r = 0; r < REGIONS; r++)
    free(x[r]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("writeback");
  TCase *tc = tcase_create("emulated device");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, last_write_goes_back_beside_the_work);
  tcase_add_test(tc, rewritten_region_goes_back_once);
  tcase_add_test(tc, overtaken_write_back_is_voided);
  tcase_add_test(tc, host_reader_waits_for_write_back);
  tcase_add_test(tc, write_backs_with_evictions);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
