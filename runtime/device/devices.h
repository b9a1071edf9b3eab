/* devices.h — the open devices of this rank (device.c), what the device
 * layer keeps of each, and the turns its device tasks take (turns.c). One
 * mutex, dag__devices_lock, guards the layer's state; the spaces' own
 * threads, which call the done functions, never take it.
 */
#ifndef DAG_DEVICE_DEVICES_H
#define DAG_DEVICE_DEVICES_H

#include "device/staging.h"
#include "device/validity.h"
#include "mem/space.h"

#include <pthread.h>

struct granule;
struct known_region;
struct window;
struct writeback;

/* Turns of device tasks whose copies are remembered (run_device.c). */
#define TURN_COPIES 1024

/* Turns taken in order (turns.c): count is the number passed, and the
 * thread waiting for turn t sleeps on next[t % TURN_SLOTS], which passing
 * turn t - 1 wakes. */
#define TURN_SLOTS 64
struct turns {
  _Atomic uint64_t count;
  pthread_mutex_t lock;
  pthread_cond_t next[TURN_SLOTS];
};
void dag__turns_init(struct turns *t);
void dag__turns_destroy(struct turns *t);
/* Waits until t->count reaches `turn`. */
void dag__turns_wait(struct turns *t, uint64_t turn);
/* Counts turn `turn` (the count was `turn`), waking those waiting for it
 * to be passed. */
void dag__turns_pass(struct turns *t, uint64_t turn);

struct device {
  struct space space;
  enum dag_device kind; /* the bodies it runs (any: dag__device_runs) */
  holders_t bit;
  size_t granule; /* bytes; a power of two */
  size_t memory;  /* bytes */
  struct window **windows;
  size_t nwindows, windows_cap;
  struct granule *granules; /* an open-addressing table by host granule */
  size_t granules_size, granules_used;
  uint64_t epoch;              /* granules used in this epoch are pinned */
  struct known_region **known; /* regions wholly backed (residency.c) */
  size_t known_size, known_used;
  bool poisons_host; /* it runs kernels of host code: see run_device.c */
  bool staging;      /* copies go through staging.c's buffers */
  bool writeback;    /* writes back on speculation (writeback.c) */
  char place[64];    /* its name in DAG_HISTORY: "cuda", "emul:h200" */
  pthread_mutex_t stage_lock;
  struct stage *stages[STAGE_CLASSES]; /* idle, per size class */
  uint64_t stages_put;                 /* buffers that came back */
  pthread_cond_t stage_back;           /* ... signalled */
  size_t stage_bytes;                  /* of all its buffers */
  atomic_long in_flight;               /* queued operations not yet done */
  /* Write-backs on speculation (writeback.c): candidates pushed when a
   * body ends, then, under the devices' lock, candidates and copies in
   * flight, oldest first; bytes of staging buffers they hold. */
  _Atomic(struct writeback *) writeback_inbox;
  struct writeback *writebacks;
  atomic_size_t writeback_staged;
  /* Device tasks that took a turn (under the devices' lock), and those of
   * them that have queued their copies and body (run_device.c). */
  uint64_t turns_taken;
  struct turns turns_done;
  struct turns stages_turn; /* the turn taking its staging buffers */
  /* The number of the last copy to it queued (space.h), and of the last
   * one when each of the last TURN_COPIES turns had queued its copies. */
  _Atomic uint64_t last_copy_in;
  uint64_t turn_copies[TURN_COPIES];
  _Atomic uint64_t last_done_ns; /* when the last body finished */
  /* The expected time of the work chosen for it and not finished
   * (choose.c). */
  _Atomic int64_t expected_work_ns;
  _Atomic int64_t expected_copy_ns; /* ... of its copies in */
  /* Bytes copied in and the time its copy engine took for them, and when
   * the last copy in ended (copies.c: count_copy_in). */
  _Atomic uint64_t copy_in_bytes, copy_in_ns, copy_in_last_ns;
  /* DAG_STATS */
  uint64_t copies_in, bytes_in, copies_out, bytes_out, tasks, evicted;
  uint64_t written_back, written_back_bytes, writebacks_voided;
  uint64_t bytes_packed; /* copied through staging buffers (copy_route.c) */
  struct dag_task_info first_packed; /* ... first for this task */
  _Atomic uint64_t direct_sends, direct_bytes;
  atomic_size_t direct_pinned;                /* bytes that direct sends hold */
  size_t committed, committed_peak;           /* granules */
  size_t resident_at_wait, committed_at_wait; /* bytes: see device.c */
};

extern pthread_mutex_t dag__devices_lock;
extern struct device dag__devices[MAX_DEVICES];
extern int dag__ndevices;
/* Whether GPU data may leave for other ranks straight from device memory
 * (dag__comm_gpu_direct, read when devices are discovered). */
extern bool dag__devices_direct;
/* Timed mode (a device open whose space a model times): that space, which
 * charges declared work instead of running bodies; NULL: off. */
extern const struct space *dag__devices_timed;

static inline struct device *dag__device_of_bit(holders_t bit) {
  return &dag__devices[__builtin_ctz(bit) - 1];
}

/* Whether device d runs bodies written for `kind`: those of its own kind,
 * or any where its kernels are host code (the emulated device). */
bool dag__device_runs(const struct device *d, enum dag_device kind);

#endif /* DAG_DEVICE_DEVICES_H */
