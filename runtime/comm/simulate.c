/* simulate.c — one process plays one rank of a larger run:
 *
 *   DAG_SIMULATE_RANKS=N [DAG_SIMULATE_RANK=r] ./program
 *
 * The process is rank r (default 0) of N. It plans every task as that rank
 * would, runs the tasks placed on it and counts the messages it would send
 * and receive, but moves nothing: a transfer completes at once (received
 * data is not what the real run would hold), and every collective agrees.
 * It measures what the rank-uniform layer costs one rank of a large run,
 * and how many messages it plans, without the other ranks.
 */
#include "comm/comm.h"

#include <stdio.h>
#include <stdlib.h>

static int sim_start(int *rank, int *nranks, int *node_rank, int *node_ranks) {
  *nranks = dag__settings()->simulate_ranks;
  *rank = dag__settings()->simulate_rank;
  *node_rank = 0; /* this process alone on its machine */
  *node_ranks = 1;
  return 0;
}

static void sim_stop(void) {}

static void sim_transfer(const struct region *r, int peer, uint64_t tag,
                         comm_done_fn done, void *arg) {
  (void)r;
  (void)peer;
  (void)tag;
  done(arg);
}

static void sim_allgather(uint64_t value, uint64_t *all, comm_done_fn done,
                          void *arg) {
  for (int i = 0; i < dag__nranks; i++)
    all[i] = value;
  done(arg);
}

static void sim_abort_all(void) {
  fflush(NULL);
  _Exit(1);
}

const struct comm_ops dag__comm_simulated = {
    "simulated",  sim_start,     sim_stop,      sim_transfer,
    sim_transfer, sim_allgather, sim_abort_all, dag__comm_nothing_to_poll,
    NULL,         NULL,          NULL};
