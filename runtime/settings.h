/* settings.h — every DAG_* environment variable the runtime reads, in one
 * place (settings.c). They are read and checked once, the first time any
 * layer asks; dag_init then fails on a malformed value with a message that
 * names the variable and what it accepts, and warns about a DAG_* variable
 * that is no setting at all (a misspelt one). No other file calls getenv
 * for a setting. DAG_STATS prints the settings in force.
 */
#ifndef DAG_SETTINGS_H
#define DAG_SETTINGS_H

#include "dag.h" /* enum dag_device */

#include <stdbool.h>
#include <stddef.h>

/* DAG_LOG: how much the runtime says on stderr. A report is output asked
 * for (DAG_STATS, the watchdog): always said, without a level word. */
enum log_level {
  DAG_LOG_REPORT,
  DAG_LOG_ERROR,
  DAG_LOG_WARN, /* the default */
  DAG_LOG_INFO,
  DAG_LOG_DEBUG,
};

/* One entry of DAG_DEVICES. */
struct device_choice {
  bool emulated;        /* "emul": an emulated device (CPU bodies) */
  enum dag_device kind; /* otherwise: a GPU kind */
  int index;            /* -1: every device of the kind */
};

#define DAG_MAX_DEVICE_CHOICES 16

/* DAG_EMUL_FAIL: which operation of the emulated device fails. */
enum emul_fail {
  EMUL_FAIL_NONE,
  EMUL_FAIL_ALLOC,  /* committing device memory */
  EMUL_FAIL_COPY,   /* a queued copy */
  EMUL_FAIL_KERNEL, /* a queued kernel (a device body's work) */
};

struct settings {
  int num_threads;    /* DAG_NUM_THREADS; 0: one per core */
  int stats;          /* DAG_STATS: 0 or 1 */
  const char *trace;  /* DAG_TRACE: the file, or NULL */
  const char *graph;  /* DAG_GRAPH: the file, or NULL */
  const char *report; /* DAG_REPORT: the page, or NULL */
  enum log_level log; /* DAG_LOG */
  /* DAG_CHECK_UNIFORMITY: 1, compare after every task; values, also
   * compare the contents of replicated memory at taskwaits. */
  int check_every_task, check_values;
  int check_period; /* DAG_CHECK_EVERY: tasks; 0: only at waits */
  /* DAG_CHECK_ITEMS: task bodies run one at a time, each watched for
   * writes outside its items (core/guard.c). */
  int check_items;
  /* DAG_WATCHDOG=report[,end]: report waits longer than `report` seconds,
   * end the run after `end`; 0: off. */
  double watchdog_seconds, watchdog_end_seconds;
  /* DAG_DEVICES: the devices to open, in order (default cuda, hip). */
  int ndevice_choices;
  struct device_choice device_choices[DAG_MAX_DEVICE_CHOICES];
  int devices_named;    /* DAG_DEVICES was set (to other than none) */
  int inline_tasks;     /* DAG_INLINE: 0 or 1 */
  int device_staging;   /* DAG_DEVICE_STAGING: 0 or 1 */
  int device_writeback; /* DAG_DEVICE_WRITEBACK: 0 or 1 */
  int mpi_gpu_direct;   /* DAG_MPI_GPU_DIRECT: 0, 1, or -1: ask MPI */
  size_t emul_memory;   /* DAG_EMUL_MEM, bytes */
  size_t emul_granule;  /* DAG_EMUL_GRANULE, bytes */
  int emul_delay_us;    /* DAG_EMUL_DELAY_US */
  int emul_jitter_us;   /* DAG_EMUL_JITTER_US: most of a random extra delay */
  int emul_seed;        /* DAG_EMUL_SEED: of the jitter */
  /* DAG_EMUL_MODEL: timed mode, with this device model (a built-in one's
   * name or a file); NULL: off. */
  const char *emul_model;
  /* DAG_HISTORY: the chooser's measured times kept across runs; NULL: not
   * kept. */
  const char *history;
  /* DAG_EMUL_FAIL: the emul_fail_at-th operation of that kind fails. */
  enum emul_fail emul_fail;
  int emul_fail_at;
  int simulate_ranks; /* DAG_SIMULATE_RANKS; 0: a real run */
  int simulate_rank;  /* DAG_SIMULATE_RANK */
};

/* The settings, read from the environment on the first call. */
const struct settings *dag__settings(void);

/* Settings say nothing themselves (messages are made above them, with the
 * settings they read): they hand their words to the caller. */

/* Calls say(problem), if say is not NULL, for what is wrong with each
 * malformed variable; returns how many there are. */
int dag__settings_each_problem(void (*say)(const char *problem));

/* Calls say(name, nearest) for each DAG_* variable of the environment that
 * is no setting; nearest is the setting it looks like a typo of, or NULL. */
void dag__settings_each_unknown(void (*say)(const char *name,
                                            const char *nearest));

/* Every setting with its value in force: those the environment gave (" NAME=
 * value" each, or " none") into `given`, the others, at their defaults,
 * into `defaults`; each cut to its size. */
void dag__settings_describe(char *given, size_t given_size, char *defaults,
                            size_t defaults_size);

#endif /* DAG_SETTINGS_H */
