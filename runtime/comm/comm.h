/* comm.h — transports between ranks (comm.c, mpi.c, simulate.c) and the
 * choice among them (api/backend.c). The layers above call the dag__comm_*
 * wrappers, never a table directly.
 */
#ifndef DAG_COMM_H
#define DAG_COMM_H

#include "base.h"

/* -------------------------------------------------------------- comm.c */

/* How the ranks of a run talk: one table per transport, which
 * api/backend.c picks. The core calls the dag__comm_* wrappers, never a
 * table directly. */
/* A transfer or collective finished: called on the transport's progress
 * thread, which must not block in it. */
typedef void (*comm_done_fn)(void *arg);

/* This rank's clock against rank 0's, for one timeline of the whole run. */
struct comm_clock {
  int64_t offset_ns; /* this rank's CLOCK_MONOTONIC minus rank 0's */
  uint64_t error_ns; /* bound on the offset's error: half a round trip */
  uint64_t ref_ns;   /* a moment every rank gets, on rank 0's clock */
};

struct comm_ops {
  const char *name;
  /* Joins the run: sets this process's rank and the number of ranks, and
   * its rank among the `node_ranks` ranks on its machine. Returns 0 or a
   * DAG_E* code (with a message). */
  int (*start)(int *rank, int *nranks, int *node_rank, int *node_ranks);
  /* Leaves the run; the transport is not used afterwards. */
  void (*stop)(void);
  /* Starts moving the bytes of `r` (this rank's copy) to rank `peer`, or
   * receiving them from it, matched by `tag`; calls done(arg) when the
   * local buffer may be reused. Never blocks. */
  void (*send)(const struct region *r, int peer, uint64_t tag,
               comm_done_fn done, void *arg);
  void (*recv)(const struct region *r, int peer, uint64_t tag,
               comm_done_fn done, void *arg);
  /* Collective, from the thread that submits tasks: every rank gives
   * `value`; `all` (nranks entries) gets everyone's, then done(arg) is
   * called (maybe before this returns). Never blocks: the caller waits,
   * running tasks, since the sends that other ranks need before they
   * reach the collective may be its own tasks. */
  void (*allgather)(uint64_t value, uint64_t *all, comm_done_fn done,
                    void *arg);
  /* Stops every rank of the run with status 1; does not return. */
  void (*abort_all)(void);
  /* From an idle worker: moves what is in flight along (completions call
   * their done functions) if no other thread is at it. Returns true if
   * anything started or finished. */
  bool (*poll)(void);
  /* Whether send and recv take GPU memory (a CUDA- or ROCm-aware MPI);
   * NULL: they do not. */
  bool (*gpu_aware)(void);
  /* Collective, blocking, with nothing else in flight: measures c. NULL:
   * every rank shares one clock. */
  void (*clock)(struct comm_clock *c);
  /* Whether a transfer is under way (posted and not finished), whose end
   * only a poll sees. NULL: never (transfers finish when they start). */
  bool (*in_flight)(void);
};

/* One process, no transport: rank 0 of 1. */
extern const struct comm_ops dag__comm_self;
/* The poll of a transport whose operations finish when they start. */
bool dag__comm_nothing_to_poll(void);
/* MPI (mpi.c), when libdag was built with it. */
extern const struct comm_ops dag__comm_mpi;
/* Whether this process runs under MPI (mpi.c). */
bool dag__mpi_wanted(void);
/* One rank of a larger run, played alone (simulate.c): DAG_SIMULATE_RANKS. */
extern const struct comm_ops dag__comm_simulated;
/* Whether this process plays one rank of a larger run (comm.c). */
bool dag__simulating(void);

/* This process's rank and the number of ranks, and its place among the
 * ranks of its machine, set by dag__comm_start. */
extern int dag__rank, dag__nranks, dag__node_rank, dag__node_ranks;

/* Starts `transport` (start-up's choice, api/backend.c); on failure the
 * rank stays alone (dag__comm_self) and the error is returned. */
int dag__comm_start(const struct comm_ops *transport);
void dag__comm_stop(void);
/* What the program's MPI_Finalize runs first (the runtime's shut-down,
 * which api/ hands down: comm/ never calls up), and its call of it. */
void dag__comm_on_program_finalize(int (*finalize)(void));
void dag__comm_program_finalizes(void);
void dag__comm_send(const struct region *r, int peer, uint64_t tag,
                    comm_done_fn done, void *arg);
void dag__comm_recv(const struct region *r, int peer, uint64_t tag,
                    comm_done_fn done, void *arg);
void dag__comm_allgather(uint64_t value, uint64_t *all, comm_done_fn done,
                         void *arg);
_Noreturn void dag__comm_abort_all(void);
bool dag__comm_poll(void);
/* Whether a transfer is under way (see comm_ops.in_flight). */
bool dag__comm_in_flight(void);
/* Measures this rank's clock against rank 0's (collective: every rank
 * calls it, with no transfer in flight). */
void dag__comm_clock(struct comm_clock *c);

/* Returns once every rank has called it (collective, blocking: not from a
 * task, nor while this rank's tasks are still needed by others). */
void dag__comm_barrier(void);
/* The least of the values every rank gives (collective, blocking, as
 * dag__comm_barrier). */
uint64_t dag__comm_least(uint64_t value);

/* ------------------------------------------------------- comm_trace.c */

/* A transfer as DAG_TRACE shows it: recorded, when the trace is on, from
 * the moment it is posted until it completes. */
struct comm_event {
  uint64_t tag, bytes, posted_ns, done_ns;
  int peer;
  bool send;
};

/* Starts or stops recording (on: DAG_TRACE set). */
void dag__comm_trace_start(bool on);
void dag__comm_trace_stop(void);
/* Records the transfer about to be posted; returns the done function and
 * argument to post it with instead of done and arg. */
void dag__comm_trace_wrap(bool send, const struct region *r, int peer,
                          uint64_t tag, comm_done_fn *done, void **arg);
/* The transfers recorded so far (completed ones), held still until
 * dag__comm_trace_events_done: a run that ends early reads them while
 * transfers may still complete. */
const struct comm_event *dag__comm_trace_events(size_t *n);
void dag__comm_trace_events_done(void);

/* Whether GPU data may travel between ranks straight from device memory:
 * DAG_MPI_GPU_DIRECT=0 or 1 if set, else whether the transport is
 * GPU-aware. After dag__comm_start. */
bool dag__comm_gpu_direct(void);

#endif /* DAG_COMM_H */
