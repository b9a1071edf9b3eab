/* emul.h — what the files of the emulated device share (space_emul.c: its
 * memory and its table; emul_queues.c: its engines, copies and launches;
 * emul_faults.c: the failures and faults it injects and catches). The
 * layers above know it only through its table (space.h).
 */
#ifndef DAG_EMUL_H
#define DAG_EMUL_H

#include "mem/emul_model.h"
#include "mem/space.h"

#include <pthread.h>

struct emul_op {
  struct emul_op *next;
  enum { OP_COPY, OP_KERNEL, OP_BODY_END } kind;
  struct space_copy copy;
  void (*kernel)(void *);
  void *args;          /* OP_KERNEL: its copy of them */
  uint64_t after;      /* OP_KERNEL: copies done before it starts */
  uint64_t launch;     /* OP_KERNEL, OP_BODY_END: its launch's number */
  bool to_device;      /* OP_COPY: which way */
  bool pinned;         /* ... its host side was page-locked, queued */
  uint64_t queued_ns;  /* timed mode: when it was queued */
  double seconds;      /* timed mode: what it takes */
  const char *failure; /* injected: the operation fails with this */
  space_done_fn done;  /* OP_COPY, OP_BODY_END */
  void *arg;
};

struct emul;

/* Operations an engine runs in order: a copy engine has one lane, the
 * compute engine SPACE_LANES of urgent bodies, then as many of others. */
struct lane {
  struct emul_op *head, *tail; /* queued, in order */
};
#define BODY_LANES (2 * SPACE_LANES)

struct engine {
  struct emul *e;
  const char *name;
  pthread_t thread;
  pthread_cond_t wake;
  struct lane *lanes;
  int nlanes;
  unsigned seed; /* of its jitter */
  bool started;
  uint64_t due_ns;  /* timed mode: when its last operation is due to end */
  uint64_t busy_ns; /* ... and the time its operations took, in all */
  uint64_t first_ns;
};

/* Timed mode: when the last copies in were due to end, by their number.
 * A kernel whose copy is no longer among them (this many copies later) has
 * long been ready: that copy does not hold its start back. */
#define COPY_ENDS 1024
struct copy_end {
  uint64_t copy, due_ns;
};

struct emul {
  int index;
  pthread_mutex_t lock;
  struct engine copies_in, copies_out, bodies;
  struct lane in_lane, out_lane, body_lanes[BODY_LANES];
  struct space_lanes urgent_waits, other_waits;
  uint64_t copies_queued, copies_done; /* copies in: the bodies' events */
  uint64_t launches_seen;              /* bodies launched */
  /* The gate: a body at launch, operations running on the queues, and
   * host code reading device memory exclude each other. */
  pthread_cond_t gate;
  bool launching, closed; /* a body runs at launch; the memory is closed */
  int running, host_readers;
  void **mapped; /* where granules are mapped, for closing them */
  size_t nmapped, mapped_cap;
  bool stopping;
  long delay_us, jitter_us;
  uint64_t commits, copies_seen, launches; /* counted for DAG_EMUL_FAIL */
  char failure[160];                       /* what an injected failure says */
  int fd;                                  /* the device's memory */
  char *view;     /* all of it, mapped once: for poisoning */
  size_t granule; /* bytes */
  size_t ngranules;
  uint64_t *spare; /* free granules, a stack */
  size_t nspare;
  const struct emul_model *model; /* timed mode; NULL: off */
  struct copy_end copy_ends[COPY_ENDS];
  uint64_t bytes_in, bytes_out;
};

/* ---------------------------------------------------------- space_emul.c */

/* Opens (access) or closes (PROT_NONE) every granule mapped. Under the
 * lock. */
void dag__emul_set_access(struct emul *e, int access);

/* --------------------------------------------------------- emul_pinned.c */

/* Host memory [p, p + bytes) page-locked for every emulated device: 0, or
 * DAG_EINVAL (with a message) where it overlaps memory that is already. */
int dag__emul_pin(void *p, size_t bytes);
/* Undoes the dag__emul_pin(p, ...) before. */
void dag__emul_unpin(void *p);
/* Whether [p, p + bytes) lies in one page-locked range. */
bool dag__emul_pinned(const void *p, size_t bytes);

/* --------------------------------------------------------- emul_queues.c */

/* Starts engine q of e, its thread serving `nlanes` lanes. Returns 0 or
 * DAG_ETHREAD (with a message). */
int dag__emul_start_engine(struct emul *e, struct engine *q, const char *name,
                           struct lane *lanes, int nlanes, unsigned seed);
/* Waits for q's thread, which ends once e is stopping and q is empty. */
void dag__emul_stop_engine(struct engine *q);
/* The table's copy, launch, host_reads, timing, kernel and spend. */
uint64_t dag__emul_copy(void *state, bool to_device, const struct space_copy *c,
                        space_done_fn done, void *arg);
void dag__emul_launch(void *state, dag_task_fn fn, void *args, uint64_t after,
                      bool urgent, space_done_fn done, void *arg);
void dag__emul_host_reads(void *state, bool begin);
void dag__emul_timing(void *state, struct space_timing *t);
int dag__emul_kernel(void *state, void (*kernel)(void *args), const void *args,
                     size_t size);
void dag__emul_spend(void *state, bool on_device, double seconds);
/* The device whose body runs at launch on this thread, or NULL (safe in a
 * signal handler). */
struct emul *dag__emul_launching(void);

/* --------------------------------------------------------- emul_faults.c */

/* The Nth operation of a kind fails when DAG_EMUL_FAIL says so: what it
 * says then, else NULL (count is that kind's counter; under the lock). */
const char *dag__emul_injected(struct emul *e, enum emul_fail kind,
                               uint64_t *count, const char *what);
/* Before an operation of q: DAG_EMUL_DELAY_US, plus a random share of
 * DAG_EMUL_JITTER_US. */
void dag__emul_pause(struct engine *q);
/* The table's host_jitter. */
void dag__emul_host_jitter(void *state);
/* Reports a body's touching of closed device memory as such (once). */
void dag__emul_catch_faults(void);

#endif /* DAG_EMUL_H */
