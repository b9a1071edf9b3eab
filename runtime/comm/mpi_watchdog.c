/* mpi_watchdog.c — DAG_WATCHDOG=report[,end]: what each rank waits for, and
 * the end of a run that no longer moves.
 *
 * A rank stalls when it has operations in flight and none completes. Not
 * the age of one operation: the planner posts receives long before their
 * data is computed, and a healthy pipelined run has receives waiting for
 * minutes. After `report` seconds of a stall the rank says, once per stall,
 * what it waits for from whom. After `end` seconds it ends the run (so
 * `end` must exceed the longest task a rank may wait on). The rank says what it
 * waits for and asks every other rank, on a communicator of the watchdog's own,
 * whether it still answers: while `end` is set each rank's progress thread
 * keeps a receive posted for the question, even when nothing else is in flight,
 * and answers at once after saying in turn what it waits for. The rank gives
 * them ANSWER_NS, names the ranks that did not answer (stopped, hung outside
 * dag, or lost) and calls MPI_Abort: the job ends non-zero, with the culprit
 * named, instead of hanging until someone kills it.
 */
#include "comm/mpi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TAG_QUESTION = 1, TAG_ANSWER = 2 };

/* How long the rank that ends the run waits for answers. */
#define ANSWER_NS 2000000000ull

static uint64_t report_ns, end_ns; /* 0: off */
static MPI_Comm watch_comm = MPI_COMM_NULL;
static MPI_Request question = MPI_REQUEST_NULL; /* from any rank */
static int asker; /* the question's payload: the rank that ends the run */
static int self;  /* the answer's payload: this rank */
static bool said; /* this rank said what it waits for, at the end */

static uint64_t quiet_since; /* the last completion, or the stall's start */
static bool stall_reported;

/* At most this many operations are listed in a report. */
#define LISTED 8

static void describe(const struct op *op, uint64_t now, char *buf,
                     size_t size) {
  double waited = (double)(now - op->posted_ns) / 1e9;
  if (op->kind == OP_ALLGATHER)
    snprintf(buf, size,
             "has waited %.0f s for every rank to compare the tasks "
             "submitted (a collective)",
             waited);
  else
    snprintf(buf, size, "has waited %.0f s to %s %zu bytes %s rank %d (tag %d)",
             waited, op->kind == OP_SEND ? "send" : "receive",
             dag__region_bytes(&op->region),
             op->kind == OP_SEND ? "to" : "from", op->peer, op->tag);
}

static void say(const struct op *op, uint64_t now) {
  char what[256];
  describe(op, now, what, sizeof what);
  dag__log(DAG_LOG_REPORT, "watchdog: rank %d %s", dag__rank, what);
}

/* What this rank waits for: the operations in flight, oldest first. */
static void say_waits(const struct inflight *f) {
  uint64_t now = dag__now_ns();
  for (int i = 0; i < f->n && i < LISTED; i++)
    say(f->ops[i], now);
  if (f->n > LISTED)
    dag__log(DAG_LOG_REPORT, "watchdog: rank %d waits for %d operations more",
             dag__rank, f->n - LISTED);
  if (!f->n)
    dag__log(DAG_LOG_REPORT, "watchdog: rank %d waits for no other rank",
             dag__rank);
}

static void say_all(const struct inflight *f) {
  say_waits(f);
  said = true;
}

static void listen(void) {
  MPI_Irecv(&asker, 1, MPI_INT, MPI_ANY_SOURCE, TAG_QUESTION, watch_comm,
            &question);
}

void dag__watchdog_start(MPI_Comm comm) {
  const struct dag_settings *s = dag__settings();
  report_ns = (uint64_t)(s->watchdog_seconds * 1e9);
  end_ns = (uint64_t)(s->watchdog_end_seconds * 1e9);
  self = dag__rank;
  said = false;
  /* On every rank, watchdog or not: duplicating is collective. */
  MPI_Comm_dup(comm, &watch_comm);
  if (end_ns)
    listen();
}

void dag__watchdog_stop(void) {
  if (question != MPI_REQUEST_NULL) {
    MPI_Cancel(&question);
    MPI_Wait(&question, MPI_STATUS_IGNORE);
  }
  if (watch_comm != MPI_COMM_NULL)
    MPI_Comm_free(&watch_comm);
}

bool dag__watchdog_listening(void) { return end_ns != 0; }

/* Answers every rank that asks whether this one still answers, after
 * saying (once) what this rank waits for. */
static void answer(const struct inflight *f) {
  int arrived = 0;
  MPI_Status st;
  while (question != MPI_REQUEST_NULL &&
         MPI_Test(&question, &arrived, &st) == MPI_SUCCESS && arrived) {
    if (!said) {
      dag__log(DAG_LOG_REPORT, "watchdog: rank %d ends the run", asker);
      say_all(f);
    }
    MPI_Request r;
    MPI_Isend(&self, 1, MPI_INT, st.MPI_SOURCE, TAG_ANSWER, watch_comm, &r);
    MPI_Request_free(&r);
    listen();
  }
}

static void pause_1ms(void) { nanosleep(&(struct timespec){0, 1000000}, NULL); }

/* An operation has waited `waited` ns, past the deadline. */
static _Noreturn void end_run(const struct inflight *f, uint64_t waited) {
  int n = dag__nranks;
  dag__log(DAG_LOG_REPORT,
           "watchdog: rank %d has seen no transfer complete for %.0f s "
           "(deadline %.0f s): it ends the run",
           dag__rank, (double)waited / 1e9, (double)end_ns / 1e9);
  say_all(f);
  MPI_Request *asks = malloc(2 * (size_t)n * sizeof *asks);
  int *answers = malloc((size_t)n * sizeof *answers);
  if (!asks || !answers)
    dag__mpi_abort();
  MPI_Request *replies = asks + n;
  for (int p = 0; p < n; p++) {
    asks[p] = replies[p] = MPI_REQUEST_NULL;
    if (p == dag__rank)
      continue;
    MPI_Isend(&self, 1, MPI_INT, p, TAG_QUESTION, watch_comm, &asks[p]);
    MPI_Irecv(&answers[p], 1, MPI_INT, p, TAG_ANSWER, watch_comm, &replies[p]);
  }
  uint64_t until = dag__now_ns() + ANSWER_NS;
  int all = 0;
  while (!all && dag__now_ns() < until) {
    answer(f); /* another rank may be ending the run too */
    MPI_Testall(n, replies, &all, MPI_STATUSES_IGNORE);
    if (!all)
      pause_1ms();
  }
  int silent = 0;
  for (int p = 0; p < n && !all; p++) {
    int done = 1;
    if (replies[p] != MPI_REQUEST_NULL)
      MPI_Test(&replies[p], &done, MPI_STATUS_IGNORE);
    if (!done) {
      dag__log(DAG_LOG_REPORT,
               "watchdog: rank %d does not answer: it is stopped, hung "
               "outside dag, or lost",
               p);
      silent++;
    }
  }
  if (!silent)
    dag__log(DAG_LOG_REPORT,
             "watchdog: every rank answers: the ranks wait for one another "
             "(what each waits for is above)");
  dag__mpi_abort();
}

void dag__watchdog_round(struct inflight *f, bool completed) {
  if (!report_ns)
    return;
  if (end_ns)
    answer(f);
  uint64_t now = dag__now_ns();
  if (completed || !f->n || !quiet_since) {
    quiet_since = now; /* moving, or nothing to wait for */
    stall_reported = false;
    return;
  }
  uint64_t stalled = now - quiet_since;
  if (!stall_reported && stalled >= report_ns) {
    stall_reported = true;
    dag__log(DAG_LOG_REPORT,
             "watchdog: rank %d has seen no transfer complete for %.0f s; it "
             "waits for:",
             dag__rank, (double)stalled / 1e9);
    say_waits(f);
  }
  if (end_ns && stalled >= end_ns)
    end_run(f, stalled);
}
