/* choose.h — where a task with a choice runs (choose.c), by the measured
 * times of its candidates, kept across runs in DAG_HISTORY's file
 * (history_file.c).
 */
#ifndef DAG_DEVICE_CHOOSE_H
#define DAG_DEVICE_CHOOSE_H

#include "device/devices.h"

struct call;
/* Records that c's body took ns, run by worker `worker` (any thread): the
 * first run of a function on each worker is not counted, as it pays the
 * set-up of the libraries its body calls. */
void dag__history_note(const struct call *c, int worker, uint64_t ns);

/* Chooses where c, ready, runs: sets its fn, device (NULL: the CPU) and
 * expected time, counted as work queued there until dag__choice_done. */
void dag__choose(struct call *c);
void dag__choice_done(const struct call *c);
/* DAG_HISTORY (by default a file in the user's cache folder; off: none):
 * reads the measured times of earlier runs (at start), writes them back
 * with this run's (at the end), and says which in DAG_STATS. */
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

/* Reads the file at path: returns the records read, -1 when there is no
 * file. */
long dag__history_file_load(const char *path);
/* The record with key's size class, variant, place and name, or NULL. */
const struct history_record *
dag__history_file_find(const struct history_record *key);
/* Writes rs (n of them) and the records loaded that they do not replace.
 * Returns 0 or DAG_EINVAL (with a message). */
int dag__history_file_save(const char *path, const struct history_record *rs,
                           size_t n);
void dag__history_file_release(void);

/* The default file of DAG_HISTORY, in the user's cache folder, for this
 * machine and these devices, into buf (history_path.c); false, with a
 * message logged, when there is none (no cache folder). */
bool dag__history_default_path(char *buf, size_t len);

/* Estimates (estimate.c): what c's work should take with body fn on d
 * (NULL: a core), in ns, from the place's rate; < 0 when it cannot say. */
double dag__estimate_ns(const struct call *c, dag_task_fn fn,
                        const struct device *d);
/* fn did `work` in ns: the rate it achieved replaces the peak. */
void dag__estimate_note(dag_task_fn fn, double work, uint64_t ns);
/* Measures a core's peak (about a millisecond) where a device's is known
 * and no model gives the rates; at the end, forgets what was achieved. */
void dag__estimate_start(void);
void dag__estimate_stop(void);
/* One core's peak in flops per second, measured now (a millisecond). */
double dag__estimate_core_peak(void);

#endif /* DAG_DEVICE_CHOOSE_H */
