/* space_checks.h — checks that every memory space passes, the emulated
 * device and a GPU alike, through the dag__space_* wrappers: a round trip,
 * a strided tile with the host's pitch on both sides, a queue that runs in
 * order around a device body, a request the device cannot hold. They read
 * device memory only through copies. Shared by tests/unit/check_space.c
 * (the emulated device, under Check) and tests/gpu/gpu_space.c (CUDA and
 * HIP, a plain program).
 *
 * The includer may define SPACE_CHECK(cond) first (Check: ck_assert); by
 * default a failed condition is printed and the program exits with 1. The
 * functions are static inline, so that a file may use some of them.
 */
#ifndef DAG_SPACE_CHECKS_H
#define DAG_SPACE_CHECKS_H

#include "mem/space.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SPACE_CHECK
#define SPACE_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#endif

/* Completions, in the order their done functions ran. */
static int order[16], norder;
static inline void note(void *arg) { order[norder++] = (int)(intptr_t)arg; }

static inline void drain(struct space *s, int expected) {
  while (norder < expected)
    dag__space_poll(s);
}

/* What the body of space_check_queue_in_order gets: it moves `bytes` from
 * src to dst, both in the device's memory, as device work. */
struct space_move {
  void *dst;
  const void *src;
  size_t bytes;
};

/* What a copy brings to the device comes back unchanged, and the device's
 * copy is its own: changing the host's leaves it alone. */
static inline void space_check_round_trip(struct space *s) {
  enum { N = 1000 };
  double host[N], back[N];
  for (int i = 0; i < N; i++)
    host[i] = i * 0.5;
  double *d = dag__space_alloc(s, sizeof host);
  SPACE_CHECK(d != NULL);
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){d, host, sizeof host, 1, 0},
                  note, (void *)1);
  drain(s, 1);
  memset(host, 0, sizeof host);
  dag__space_copy(s, false, &(struct space_copy){back, d, sizeof back, 1, 0},
                  note, (void *)2);
  drain(s, 2);
  for (int i = 0; i < N; i++)
    SPACE_CHECK(back[i] == i * 0.5);
  dag__space_free(s, d, sizeof host);
}

/* A 4 x 3 tile of a 6 x 8 matrix moves as 4 spans, 8 doubles apart on both
 * sides: the bytes between its rows stay as they were, on the device (-2,
 * from a first copy of the whole matrix) and on the host (-1). */
static inline void space_check_strided_tile(struct space *s) {
  enum { ROWS = 6, COLS = 8 };
  double a[ROWS][COLS], b[ROWS][COLS], fill[ROWS][COLS], seen[ROWS][COLS];
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      a[i][j] = 100 * i + j;
      b[i][j] = -1;
      fill[i][j] = -2;
    }
  double(*d)[COLS] = dag__space_alloc(s, sizeof a);
  SPACE_CHECK(d != NULL);
  size_t span = 3 * sizeof(double), ld = COLS * sizeof(double);
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){d, fill, sizeof fill, 1, 0},
                  note, (void *)1);
  dag__space_copy(s, true,
                  &(struct space_copy){&d[1][2], &a[1][2], span, 4, ld}, note,
                  (void *)2);
  dag__space_copy(s, false,
                  &(struct space_copy){&b[1][2], &d[1][2], span, 4, ld}, note,
                  (void *)3);
  dag__space_copy(s, false, &(struct space_copy){seen, d, sizeof seen, 1, 0},
                  note, (void *)4);
  drain(s, 4);
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      bool inside = i >= 1 && i < 5 && j >= 2 && j < 5;
      SPACE_CHECK(b[i][j] == (inside ? a[i][j] : -1));
      SPACE_CHECK(seen[i][j] == (inside ? a[i][j] : -2));
    }
  dag__space_free(s, d, sizeof a);
}

/* A body queued between copies sees the earlier copies' data and the later
 * copy sees its result; the done functions run in the queue's order.
 * `move` is a device body that moves a struct space_move's bytes. */
static inline void space_check_queue_in_order(struct space *s,
                                              dag_task_fn move) {
  enum { N = 64 };
  double host[N], back[N];
  for (int i = 0; i < N; i++) {
    host[i] = i;
    back[i] = -1;
  }
  double *d = dag__space_alloc(s, 2 * sizeof host);
  SPACE_CHECK(d != NULL);
  struct space_move m = {d + N, d, sizeof host};
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){d + N, back, sizeof back, 1, 0},
                  note, (void *)1);
  dag__space_copy(s, true, &(struct space_copy){d, host, sizeof host, 1, 0},
                  note, (void *)2);
  dag__space_launch(s, move, &m, note, (void *)3);
  dag__space_copy(s, false,
                  &(struct space_copy){back, d + N, sizeof back, 1, 0}, note,
                  (void *)4);
  drain(s, 4);
  for (int i = 0; i < 4; i++)
    SPACE_CHECK(order[i] == i + 1);
  for (int i = 0; i < N; i++)
    SPACE_CHECK(back[i] == i);
  dag__space_free(s, d, 2 * sizeof host);
}

/* A request larger than any device (1 PiB) answers NULL, and the device
 * serves as before. */
static inline void space_check_out_of_memory(struct space *s) {
  SPACE_CHECK(dag__space_alloc(s, (size_t)1 << 50) == NULL);
  space_check_round_trip(s);
}

#endif /* DAG_SPACE_CHECKS_H */
