/* space_checks.h — checks that every memory space passes, the emulated
 * device and a GPU alike, through the dag__space_* wrappers: a round trip,
 * a strided tile with the host's pitch on both sides, a packed tile, a
 * queue that runs in order around a device body, one granule seen at two
 * addresses. They read device memory only through copies. Shared by
 * tests/unit/check_space.c (the emulated device, under Check) and
 * tests/gpu/gpu_space.c (CUDA and HIP, a plain program).
 *
 * The includer may define SPACE_CHECK(cond) first (Check: ck_assert); by
 * default a failed condition is printed and the program exits with 1. The
 * functions are static inline, so that a file may use some of them.
 */
#ifndef DAG_SPACE_CHECKS_H
#define DAG_SPACE_CHECKS_H

#include "mem/space.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
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

/* Completions, in the order their done functions ran (on the space's
 * threads: the copy engines' own, two at once, hence the lock), and the
 * failures among them. norder counts a completion once it is written. */
static int order[16];
static atomic_int norder, nfailed;
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static inline void note(void *arg, const char *failure) {
  if (failure)
    atomic_fetch_add(&nfailed, 1);
  pthread_mutex_lock(&order_lock);
  order[atomic_load(&norder)] = (int)(intptr_t)arg;
  atomic_fetch_add(&norder, 1);
  pthread_mutex_unlock(&order_lock);
}

static inline void drain(int expected) {
  while (atomic_load(&norder) < expected)
    sched_yield();
}

/* `bytes` of device memory as one range: reserved, every granule committed
 * and mapped; NULL when the device is full. */
struct space_block {
  char *at;
  size_t bytes;
  uint64_t mem[64];
};

static inline void *space_block_new(struct space *s, struct space_block *b,
                                    size_t bytes) {
  size_t g = dag__space_granule(s);
  b->bytes = (bytes + g - 1) / g * g;
  SPACE_CHECK(b->bytes / g <= 64);
  b->at = dag__space_reserve(s, b->bytes);
  SPACE_CHECK(b->at != NULL);
  for (size_t i = 0; i < b->bytes / g; i++)
    if (dag__space_commit(s, &b->mem[i])) {
      while (i--)
        dag__space_decommit(s, b->mem[i]);
      dag__space_unreserve(s, b->at, b->bytes);
      return NULL;
    }
  /* All in one call, as the device layer maps a run of a tile's rows. */
  SPACE_CHECK(dag__space_map(s, b->at, b->mem, b->bytes / g) == 0);
  return b->at;
}

static inline void space_block_free(struct space *s, struct space_block *b) {
  size_t g = dag__space_granule(s);
  for (size_t i = 0; i < b->bytes / g; i++) {
    dag__space_unmap(s, b->at + i * g);
    dag__space_decommit(s, b->mem[i]);
  }
  dag__space_unreserve(s, b->at, b->bytes);
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
  struct space_block b;
  double *d = space_block_new(s, &b, sizeof host);
  SPACE_CHECK(d != NULL);
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){d, host, sizeof host, 1, 0, 0},
                  note, (void *)1);
  drain(1);
  memset(host, 0, sizeof host);
  dag__space_copy(s, false, &(struct space_copy){back, d, sizeof back, 1, 0, 0},
                  note, (void *)2);
  drain(2);
  for (int i = 0; i < N; i++)
    SPACE_CHECK(back[i] == i * 0.5);
  space_block_free(s, &b);
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
  struct space_block blk;
  double(*d)[COLS] = space_block_new(s, &blk, sizeof a);
  SPACE_CHECK(d != NULL);
  size_t span = 3 * sizeof(double), ld = COLS * sizeof(double);
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){d, fill, sizeof fill, 1, 0, 0},
                  note, (void *)1);
  dag__space_copy(s, true,
                  &(struct space_copy){&d[1][2], &a[1][2], span, 4, ld, ld},
                  note, (void *)2);
  drain(2); /* copies back need not wait for copies in */
  dag__space_copy(s, false,
                  &(struct space_copy){&b[1][2], &d[1][2], span, 4, ld, ld},
                  note, (void *)3);
  dag__space_copy(s, false, &(struct space_copy){seen, d, sizeof seen, 1, 0, 0},
                  note, (void *)4);
  drain(4);
  for (int i = 0; i < 4; i++) /* each way in order */
    SPACE_CHECK(order[i] == i + 1);
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      bool inside = i >= 1 && i < 5 && j >= 2 && j < 5;
      SPACE_CHECK(b[i][j] == (inside ? a[i][j] : -1));
      SPACE_CHECK(seen[i][j] == (inside ? a[i][j] : -2));
    }
  space_block_free(s, &blk);
}

/* A 4 x 3 tile packed in a buffer goes to its place in a 6 x 8 matrix on
 * the device (pitches 3 and 8 doubles) and back into another buffer: what
 * a copy through a staging buffer does. */
static inline void space_check_packed_tile(struct space *s) {
  enum { ROWS = 6, COLS = 8 };
  double packed[4][3], back[4][3], seen[ROWS][COLS], fill[ROWS][COLS];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) {
      packed[i][j] = 10 * i + j;
      back[i][j] = -1;
    }
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      fill[i][j] = -2;
  struct space_block blk;
  double(*d)[COLS] = space_block_new(s, &blk, sizeof fill);
  SPACE_CHECK(d != NULL);
  size_t span = sizeof packed[0], ld = sizeof fill[0];
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){d, fill, sizeof fill, 1, 0, 0},
                  note, (void *)1);
  dag__space_copy(s, true,
                  &(struct space_copy){&d[1][2], packed, span, 4, ld, span},
                  note, (void *)2);
  drain(2);
  dag__space_copy(s, false,
                  &(struct space_copy){back, &d[1][2], span, 4, span, ld}, note,
                  (void *)3);
  dag__space_copy(s, false, &(struct space_copy){seen, d, sizeof seen, 1, 0, 0},
                  note, (void *)4);
  drain(4);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      SPACE_CHECK(back[i][j] == packed[i][j]);
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      bool inside = i >= 1 && i < 5 && j >= 2 && j < 5;
      SPACE_CHECK(seen[i][j] == (inside ? packed[i - 1][j - 2] : -2));
    }
  space_block_free(s, &blk);
}

/* A body launched after the copy it waits for (its ticket) sees the data
 * of that copy and of those before it, and a copy queued once the body is
 * done sees its result; the done functions run in the queue's order. (A copy
 * does not wait for bodies queued before it: on a GPU it overlaps them; nor a
 * copy back for copies in.) `move` is a device body that moves a struct
 * space_move's bytes. */
static inline void space_check_queue_in_order(struct space *s,
                                              dag_task_fn move) {
  enum { N = 64 };
  double host[N], back[N];
  for (int i = 0; i < N; i++) {
    host[i] = i;
    back[i] = -1;
  }
  struct space_block b;
  double *d = space_block_new(s, &b, 2 * sizeof host);
  SPACE_CHECK(d != NULL);
  struct space_move m = {d + N, d, sizeof host};
  norder = 0;
  dag__space_copy(s, true,
                  &(struct space_copy){d + N, back, sizeof back, 1, 0, 0}, note,
                  (void *)1);
  uint64_t ticket = dag__space_copy(
      s, true, &(struct space_copy){d, host, sizeof host, 1, 0, 0}, note,
      (void *)2);
  dag__space_launch(s, move, &m, ticket, false, note, (void *)3);
  drain(3);
  dag__space_copy(s, false,
                  &(struct space_copy){back, d + N, sizeof back, 1, 0, 0}, note,
                  (void *)4);
  drain(4);
  for (int i = 0; i < 4; i++)
    SPACE_CHECK(order[i] == i + 1);
  for (int i = 0; i < N; i++)
    SPACE_CHECK(back[i] == i);
  space_block_free(s, &b);
}

/* One granule mapped at two addresses is one memory: what a copy brings
 * through one comes back through the other (how a device copy keeps the
 * host's layout for regions whose ranges overlap). */
static inline void space_check_alias(struct space *s) {
  size_t g = dag__space_granule(s);
  char *one = dag__space_reserve(s, g), *two = dag__space_reserve(s, g);
  uint64_t mem;
  SPACE_CHECK(one && two && dag__space_commit(s, &mem) == 0);
  SPACE_CHECK(dag__space_map(s, one, &mem, 1) == 0);
  SPACE_CHECK(dag__space_map(s, two, &mem, 1) == 0);
  char host[64] = "one memory, two addresses", back[64] = "";
  norder = 0;
  dag__space_copy(s, true, &(struct space_copy){one + 8, host, 64, 1, 0, 0},
                  note, (void *)1);
  drain(1);
  dag__space_copy(s, false, &(struct space_copy){back, two + 8, 64, 1, 0, 0},
                  note, (void *)2);
  drain(2);
  SPACE_CHECK(strcmp(back, host) == 0);
  dag__space_unmap(s, one);
  dag__space_unmap(s, two);
  dag__space_decommit(s, mem);
  dag__space_unreserve(s, one, g);
  dag__space_unreserve(s, two, g);
}

/* Granules mapped as one run land in the order given, whichever they are:
 * four granules mapped at `run` as m2, m0, m1, m3 (two of them one after the
 * other wherever the space keeps them) each show, through their own
 * address, what was copied into its place in the run. */
static inline void space_check_map_run(struct space *s) {
  enum { K = 4 };
  static const int order_given[K] = {2, 0, 1, 3};
  size_t g = dag__space_granule(s);
  char *run = dag__space_reserve(s, K * g), *own[K];
  uint64_t mem[K], given[K];
  SPACE_CHECK(run != NULL);
  for (int i = 0; i < K; i++) {
    own[i] = dag__space_reserve(s, g);
    SPACE_CHECK(own[i] && dag__space_commit(s, &mem[i]) == 0);
    SPACE_CHECK(dag__space_map(s, own[i], &mem[i], 1) == 0);
  }
  for (int i = 0; i < K; i++)
    given[i] = mem[order_given[i]];
  SPACE_CHECK(dag__space_map(s, run, given, K) == 0);
  char host[K][16], back[K][16];
  norder = 0;
  for (int i = 0; i < K; i++) {
    snprintf(host[i], sizeof host[i], "place %d", i);
    dag__space_copy(s, true,
                    &(struct space_copy){run + i * g, host[i], 16, 1, 0, 0},
                    note, (void *)(intptr_t)(i + 1));
  }
  drain(K);
  for (int i = 0; i < K; i++)
    dag__space_copy(
        s, false,
        &(struct space_copy){back[i], own[order_given[i]], 16, 1, 0, 0}, note,
        (void *)(intptr_t)(K + i + 1));
  drain(2 * K);
  for (int i = 0; i < K; i++)
    SPACE_CHECK(strcmp(back[i], host[i]) == 0);
  for (int i = 0; i < K; i++) {
    dag__space_unmap(s, run + i * g);
    dag__space_unmap(s, own[i]);
    dag__space_decommit(s, mem[i]);
    dag__space_unreserve(s, own[i], g);
  }
  dag__space_unreserve(s, run, K * g);
}

#endif /* DAG_SPACE_CHECKS_H */
