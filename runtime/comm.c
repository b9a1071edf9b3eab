/* comm.c — the ranks of a run: which one this process is, how many there
 * are, and the transport between them (a table of functions; backend.c
 * picks it, the core never includes a transport's headers).
 *
 * Start and stop run under init.c's lifecycle lock; afterwards dag__rank
 * and dag__nranks only change at the next start.
 */
#include "internal.h"

int dag__rank = 0, dag__nranks = 1;

static const struct dag_comm_ops *comm;

static int self_start(int *rank, int *nranks) {
  *rank = 0;
  *nranks = 1;
  return 0;
}

static void self_stop(void) {}

const struct dag_comm_ops dag__comm_self = {"self", self_start, self_stop};

int dag__comm_start(void) {
  comm = dag__comm_backend();
  return comm->start(&dag__rank, &dag__nranks);
}

void dag__comm_stop(void) {
  if (comm)
    comm->stop();
  comm = NULL;
}

int dag_rank(void) {
  int err = dag__ensure_started();
  return err ? err : dag__rank;
}

int dag_nranks(void) {
  int err = dag__ensure_started();
  return err ? err : dag__nranks;
}
