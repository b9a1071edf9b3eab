/* threads.h — what the Check suites that run tasks share: the worker
 * counts their loop tests run with (1, 2 and 4; each test forks, so each
 * starts the runtime afresh with its own), and a monotonic clock. */
#ifndef DAG_TEST_THREADS_H
#define DAG_TEST_THREADS_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const int nthreads_table[] = {1, 2, 4};
#define NTHREADS (int)(sizeof nthreads_table / sizeof nthreads_table[0])

/* DAG_NUM_THREADS=n for the runtime this test starts. */
static inline void use_threads(int n) {
  char buf[16];
  snprintf(buf, sizeof buf, "%d", n);
  ck_assert_int_eq(setenv("DAG_NUM_THREADS", buf, 1), 0);
}

static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
