/* mpi_internal.h — what the MPI transport's files share: the operations in
 * flight (mpi.c moves them, mpi_watchdog.c watches them). Only the thread
 * that holds mpi.c's mpi_lock touches them.
 */
#ifndef DAG_MPI_INTERNAL_H
#define DAG_MPI_INTERNAL_H

#include "comm/comm.h"

#include <mpi.h>

enum op_kind { OP_SEND, OP_RECV, OP_ALLGATHER };

struct op {
  enum op_kind kind;
  struct region region; /* SEND, RECV */
  int peer;
  int tag;
  comm_done_fn done;
  void *arg;
  uint64_t value, *all; /* ALLGATHER */
  MPI_Datatype type;
  uint64_t posted_ns; /* for the watchdog */
  struct op *next;
};

struct inflight {
  struct op **ops;
  MPI_Request *reqs;
  int *indices;
  int n, cap;
};

/* ----------------------------------------------------- mpi_watchdog.c */

/* DAG_WATCHDOG: after mpi.c's communicator exists (collective: every rank
 * calls it), and before it is freed. */
void dag__watchdog_start(MPI_Comm comm);
void dag__watchdog_stop(void);

/* Whether the progress thread must look in even while nothing is in
 * flight: to answer another rank's question while the run ends. */
bool dag__watchdog_listening(void);

/* From every progress round (`completed`: an operation completed in it):
 * reports what this rank waits for once it has waited the report time with
 * nothing completing, answers other ranks that end the run, and ends the
 * run past the deadline (it does not return then). */
void dag__watchdog_round(struct inflight *f, bool completed);

/* Stops every rank with status 1 (MPI_Abort). */
_Noreturn void dag__mpi_abort(void);

#endif /* DAG_MPI_INTERNAL_H */
