/* comm.c — the ranks of a run: which one this process is, how many there
 * are, and the transport between them (a table of functions; api/backend.c
 * picks it, the core never includes a transport's headers).
 *
 * Start and stop run under init.c's lifecycle lock; afterwards the rank
 * numbers only change at the next start.
 */
#include "comm/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int dag__rank = 0, dag__nranks = 1, dag__node_rank = 0, dag__node_ranks = 1;

static const struct comm_ops *comm = &dag__comm_self;

static int self_start(int *rank, int *nranks, int *node_rank, int *node_ranks) {
  *rank = *node_rank = 0;
  *nranks = *node_ranks = 1;
  return 0;
}

static void self_stop(void) {}

/* With one rank nothing is ever sent: a transfer is a bug of ours. */
static void self_transfer(const struct region *r, int peer, uint64_t tag,
                          comm_done_fn done, void *arg) {
  (void)done;
  (void)arg;
  DAG_BUG("transfer of %zu bytes to rank %d (tag %llu) in a run of one rank",
          dag__region_bytes(r), peer, (unsigned long long)tag);
}

static void self_allgather(uint64_t value, uint64_t *all, comm_done_fn done,
                           void *arg) {
  all[0] = value;
  done(arg);
}

static void self_abort_all(void) {
  fflush(NULL);
  _Exit(1);
}

/* Asked by start-up and the planner, which may not call a transport's own
 * functions: here, beside the transports' choice, not in simulate.c. */
bool dag__simulating(void) { return dag__settings()->simulate_ranks > 0; }

/* Nothing is ever in flight (the simulation's transfers finish at once). */
bool dag__comm_nothing_to_poll(void) { return false; }

const struct comm_ops dag__comm_self = {"self",
                                        self_start,
                                        self_stop,
                                        self_transfer,
                                        self_transfer,
                                        self_allgather,
                                        self_abort_all,
                                        dag__comm_nothing_to_poll,
                                        NULL,
                                        NULL,
                                        NULL};

static int (*program_finalize)(void);

void dag__comm_on_program_finalize(int (*finalize)(void)) {
  program_finalize = finalize;
}

void dag__comm_program_finalizes(void) {
  if (program_finalize)
    program_finalize();
}

int dag__comm_start(const struct comm_ops *transport) {
  comm = transport;
  int err =
      comm->start(&dag__rank, &dag__nranks, &dag__node_rank, &dag__node_ranks);
  if (err)
    comm = &dag__comm_self;
  else
    dag__log_rank(dag__rank, dag__nranks);
  return err;
}

void dag__comm_stop(void) {
  comm->stop();
  comm = &dag__comm_self;
}

void dag__comm_send(const struct region *r, int peer, uint64_t tag,
                    comm_done_fn done, void *arg) {
  dag__comm_trace_wrap(true, r, peer, tag, &done, &arg);
  comm->send(r, peer, tag, done, arg);
}

void dag__comm_recv(const struct region *r, int peer, uint64_t tag,
                    comm_done_fn done, void *arg) {
  dag__comm_trace_wrap(false, r, peer, tag, &done, &arg);
  comm->recv(r, peer, tag, done, arg);
}

static void set_flag(void *done) {
  atomic_store_explicit((atomic_bool *)done, true, memory_order_release);
}

/* The least of the values the ranks give, once every rank has given its
 * own. */
static uint64_t least_of_all(uint64_t value, const char *what) {
  uint64_t *all = malloc((size_t)dag__nranks * sizeof *all);
  if (!all)
    dag__out_of_memory(what);
  atomic_bool done = false;
  comm->allgather(value, all, set_flag, &done);
  while (!atomic_load_explicit(&done, memory_order_acquire))
    if (!comm->poll())
      nanosleep(&(struct timespec){0, 20000}, NULL);
  uint64_t least = all[0];
  for (int r = 1; r < dag__nranks; r++)
    least = all[r] < least ? all[r] : least;
  free(all);
  return least;
}

void dag__comm_barrier(void) { least_of_all(0, "a barrier"); }

uint64_t dag__comm_least(uint64_t value) {
  return least_of_all(value, "a collective minimum");
}

void dag__comm_clock(struct comm_clock *c) {
  if (comm->clock) {
    comm->clock(c);
    return;
  }
  *c = (struct comm_clock){0, 0, dag__now_ns()};
}

void dag__comm_allgather(uint64_t value, uint64_t *all, comm_done_fn done,
                         void *arg) {
  comm->allgather(value, all, done, arg);
}

bool dag__comm_poll(void) { return comm->poll(); }

bool dag__comm_in_flight(void) { return comm->in_flight && comm->in_flight(); }

bool dag__comm_gpu_direct(void) {
  int direct = dag__settings()->mpi_gpu_direct;
  if (direct >= 0)
    return direct;
  return comm->gpu_aware && comm->gpu_aware();
}

_Noreturn void dag__comm_abort_all(void) {
  if (dag__last_words)
    dag__last_words();
  comm->abort_all();
  _Exit(1); /* a transport's abort does not return */
}
