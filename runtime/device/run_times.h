/* run_times.h — what the chooser knows of each candidate (run_times.c),
 * shared by choose.c, which decides with it.
 */
#ifndef DAG_DEVICE_RUN_TIMES_H
#define DAG_DEVICE_RUN_TIMES_H

#include "device/choose.h"

/* A candidate's measured times: a function on data of one size class. */
struct run_times {
  dag_task_fn fn;
  int size_class;
  uint32_t runs;      /* counted in its mean */
  uint32_t under_way; /* chosen, not finished */
  double mean_ns;
  /* What DAG_HISTORY knows it by, from its first choice on. */
  bool named;
  const char *label, *file;
  int line, variant;
  const char *place;
};

/* Guards what run_times.c keeps; the calls below are made under it. */
extern pthread_mutex_t dag__run_times_lock;

/* The slot of (fn, bytes' size class), claimed if free; NULL when the
 * table is full. */
struct run_times *dag__run_times_slot(dag_task_fn fn, size_t bytes);
/* Names s, at its first choice, as variant `variant` of c on d (NULL: the
 * CPU), and takes what earlier runs measured of it. */
void dag__run_times_name(struct run_times *s, const struct call *c, int variant,
                         const struct device *d);
/* A run finished: a choice waiting blind looks again. */
void dag__run_times_moved(void);
/* Waits until a run finishes or until `until` (dag__now_ns); false if it
 * had passed. */
bool dag__run_times_wait(uint64_t until);

#endif /* DAG_DEVICE_RUN_TIMES_H */
