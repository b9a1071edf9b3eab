/* check_space.c — the emulated device behind the memory-space table
 * (runtime/mem/space.h, space_emul.c), through the dag__space_* wrappers,
 * as the runtime will use a GPU: its memory is its own, capped and
 * poisoned; copies of runs and of strided tiles move exactly their bytes;
 * what is queued runs in order, on the device's own thread, and completes
 * later than it was queued (DAG_EMUL_DELAY_US), reported by polls in order.
 */
#include "mem/space.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

static struct space dev;

static void open_device(const char *mem, const char *delay_us) {
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", mem, 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_DELAY_US", delay_us, 1), 0);
  ck_assert_int_eq(dag__space_open(&dev, &dag__space_emul, 0), 0);
}

static void teardown(void) { dag__space_close(&dev); }

/* Completions, in the order their done functions ran. */
static int order[16], norder;
static void note(void *arg) { order[norder++] = (int)(intptr_t)arg; }

static void drain(int expected) {
  while (norder < expected)
    dag__space_poll(&dev);
}

START_TEST(memory_is_capped_and_poisoned) {
  open_device("64K", "0");
  unsigned char *a = dag__space_alloc(&dev, 40 << 10);
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_eq(a[0], 0xa5);
  ck_assert_uint_eq(a[(40 << 10) - 1], 0xa5);
  ck_assert_ptr_null(dag__space_alloc(&dev, 30 << 10)); /* 70K > 64K */
  void *b = dag__space_alloc(&dev, 24 << 10);           /* exactly full */
  ck_assert_ptr_nonnull(b);
  dag__space_free(&dev, a, 40 << 10);
  void *c = dag__space_alloc(&dev, 30 << 10); /* fits again */
  ck_assert_ptr_nonnull(c);
  dag__space_free(&dev, b, 24 << 10);
  dag__space_free(&dev, c, 30 << 10);
}
END_TEST

START_TEST(copies_round_trip) {
  open_device("1M", "0");
  enum { N = 1000 };
  double host[N], back[N];
  for (int i = 0; i < N; i++)
    host[i] = i * 0.5;
  double *d = dag__space_alloc(&dev, sizeof host);
  norder = 0;
  dag__space_copy(&dev, true, &(struct space_copy){d, host, sizeof host, 1, 0},
                  note, (void *)1);
  drain(1);
  /* The device's copy is its own: changing the host's leaves it alone. */
  memset(host, 0, sizeof host);
  dag__space_copy(&dev, false, &(struct space_copy){back, d, sizeof back, 1, 0},
                  note, (void *)2);
  drain(2);
  for (int i = 0; i < N; i++)
    ck_assert(back[i] == i * 0.5);
  dag__space_free(&dev, d, sizeof host);
}
END_TEST

/* A 4 x 3 tile of an 8-column matrix moves as 4 spans, 8 doubles apart on
 * both sides: the bytes between its rows stay as they were, on the device
 * (poison) and on the host. */
START_TEST(strided_tile) {
  open_device("1M", "0");
  enum { ROWS = 6, COLS = 8 };
  double a[ROWS][COLS], b[ROWS][COLS];
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      a[i][j] = 100 * i + j;
      b[i][j] = -1;
    }
  unsigned char *d = dag__space_alloc(&dev, sizeof a);
  double(*dm)[COLS] = (double(*)[COLS])d;
  struct space_copy in = {&dm[1][2], &a[1][2], 3 * sizeof(double), 4,
                          COLS * sizeof(double)};
  struct space_copy out = {&b[1][2], &dm[1][2], 3 * sizeof(double), 4,
                           COLS * sizeof(double)};
  norder = 0;
  dag__space_copy(&dev, true, &in, note, (void *)1);
  dag__space_copy(&dev, false, &out, note, (void *)2);
  drain(2);
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      bool inside = i >= 1 && i < 5 && j >= 2 && j < 5;
      ck_assert(b[i][j] == (inside ? a[i][j] : -1));
      if (!inside) /* never written on the device */
        ck_assert_uint_eq(d[(size_t)(i * COLS + j) * sizeof(double)], 0xa5);
    }
  dag__space_free(&dev, d, sizeof a);
}
END_TEST

/* A body queued between two copies sees the first's data and the second
 * sees its result; it runs on the device's thread. */
static pthread_t body_thread;
static void add_one(void *p) {
  double *x = p;
  for (int i = 0; i < 64; i++)
    x[i] += 1;
  body_thread = pthread_self();
}

START_TEST(queue_in_order) {
  open_device("1M", "0");
  double host[64];
  for (int i = 0; i < 64; i++)
    host[i] = i;
  double *d = dag__space_alloc(&dev, sizeof host);
  norder = 0;
  dag__space_copy(&dev, true, &(struct space_copy){d, host, sizeof host, 1, 0},
                  note, (void *)1);
  dag__space_launch(&dev, add_one, d, note, (void *)2);
  dag__space_copy(&dev, false, &(struct space_copy){host, d, sizeof host, 1, 0},
                  note, (void *)3);
  drain(3);
  ck_assert_int_eq(order[0], 1);
  ck_assert_int_eq(order[1], 2);
  ck_assert_int_eq(order[2], 3);
  for (int i = 0; i < 64; i++)
    ck_assert(host[i] == i + 1);
  ck_assert(!pthread_equal(body_thread, pthread_self()));
  dag__space_free(&dev, d, sizeof host);
}
END_TEST

/* With a delay, nothing has completed right after it was queued. */
START_TEST(asynchronous) {
  open_device("1M", "20000"); /* 20 ms an operation */
  char host[256] = "bytes", *d = dag__space_alloc(&dev, sizeof host);
  norder = 0;
  dag__space_copy(&dev, true, &(struct space_copy){d, host, sizeof host, 1, 0},
                  note, (void *)1);
  ck_assert(!dag__space_poll(&dev));
  ck_assert_int_eq(norder, 0);
  drain(1);
  ck_assert_str_eq(d, "bytes");
  dag__space_free(&dev, d, sizeof host);
}
END_TEST

/* What is still queued when the device closes completes first. */
START_TEST(close_drains) {
  open_device("1M", "5000");
  char host[16] = "drained", dst[16] = "";
  norder = 0;
  dag__space_copy(&dev, true,
                  &(struct space_copy){dst, host, sizeof host, 1, 0}, note,
                  (void *)7);
  dag__space_close(&dev);
  ck_assert_int_eq(norder, 1);
  ck_assert_int_eq(order[0], 7);
  ck_assert_str_eq(dst, "drained");
  open_device("1M", "0"); /* for the fixture's close */
}
END_TEST

int main(void) {
  Suite *s = suite_create("space");
  TCase *tc = tcase_create("emulated device");
  tcase_add_checked_fixture(tc, NULL, teardown);
  tcase_add_test(tc, memory_is_capped_and_poisoned);
  tcase_add_test(tc, copies_round_trip);
  tcase_add_test(tc, strided_tile);
  tcase_add_test(tc, queue_in_order);
  tcase_add_test(tc, asynchronous);
  tcase_add_test(tc, close_drains);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
