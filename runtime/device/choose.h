/* choose.h — where a task with a choice runs (choose.c), by the measured
 * times of its candidates, kept across runs in DAG_HISTORY's file
 * (history_file.c).
 */
#ifndef DAG_DEVICE_CHOOSE_H
#define DAG_DEVICE_CHOOSE_H

#include "device/devices.h"

/* Records that fn took ns on data of `bytes` bytes (any thread). */
void dag__history_note(dag_task_fn fn, size_t bytes, uint64_t ns);

struct call;
/* Chooses where c, ready, runs: sets its fn, device (NULL: the CPU) and
 * expected time, counted as work queued there until dag__choice_done. */
void dag__choose(struct call *c);
void dag__choice_done(const struct call *c);
/* DAG_HISTORY: reads the measured times of earlier runs (at start), writes
 * them back with this run's (at the end). */
void dag__history_start(void);
void dag__history_stop(void);

/* One measured candidate, as the file keeps it (history_file.c). */
struct history_record {
  int size_class, variant;
  char place[64]; /* "cpu", or a device's (struct device.place) */
  uint32_t runs;
  double mean_ns;
  char name[256]; /* the task's label, or file:line */
};

void dag__history_file_load(const char *path);
/* The record with key's size class, variant, place and name, or NULL. */
const struct history_record *
dag__history_file_find(const struct history_record *key);
/* Writes rs (n of them) and the records loaded that they do not replace.
 * Returns 0 or DAG_EINVAL (with a message). */
int dag__history_file_save(const char *path, const struct history_record *rs,
                           size_t n);
void dag__history_file_release(void);

#endif /* DAG_DEVICE_CHOOSE_H */
