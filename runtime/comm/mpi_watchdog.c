/* mpi_watchdog.c — what each rank waits for, which ranks no longer answer,
 * and the end of a run that no longer moves.
 *
 * A rank stalls when it has operations in flight and none completes. Not
 * the age of one operation: the planner posts receives long before their
 * data is computed, and a healthy pipelined run has receives waiting for
 * minutes.
 *
 * Every rank's progress thread keeps a receive posted, on a communicator of
 * the watchdog's own, for a question from any rank — "do you answer?" — and
 * answers at once; it looks every LISTEN_NS (mpi.c) even when nothing else
 * is in flight. A rank that has stalled for PROBE_NS (or the report time,
 * if shorter) asks every other rank, and gives them ANSWER_NS: a rank that
 * does not answer is stopped, hung outside dag, or lost (dead, with a
 * launcher told not to end the job for it), and the rank ends the run
 * naming it. Ranks that answer may be busy with long tasks: the run goes
 * on. So a lost rank ends the run by default, in seconds, instead of
 * hanging it.
 *
 * DAG_WATCHDOG=report[,end]: after `report` seconds of a stall the rank
 * says, once per stall, what it waits for from whom; after `end` seconds it
 * ends the run even if every rank answers (so `end` must exceed the longest
 * task a rank may wait on). A rank that ends the run tells the others in
 * its question, and each says in turn what it waits for before answering;
 * then it calls MPI_Abort, and the job ends non-zero.
 */
#include "comm/mpi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TAG_QUESTION = 1, TAG_ANSWER = 2 };

/* A stall this long makes a rank ask whether the others answer. */
#define PROBE_NS 10000000000ull
/* How long a rank that asks waits for the answers. */
#define ANSWER_NS 2000000000ull

static uint64_t report_ns, end_ns, probe_ns; /* report, end: 0 is off */
static MPI_Comm watch_comm = MPI_COMM_NULL;
static MPI_Request question = MPI_REQUEST_NULL; /* from any rank */
/* The question's payload: the asking rank, times 2, plus 1 if it ends the
 * run. The answer's: the answering rank. */
static int asked, self;
static bool said; /* this rank said what it waits for, at the end */

static uint64_t quiet_since; /* the last completion, or the stall's start */
static uint64_t probed;      /* when this rank last asked, in this stall */
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
  MPI_Irecv(&asked, 1, MPI_INT, MPI_ANY_SOURCE, TAG_QUESTION, watch_comm,
            &question);
}

void dag__watchdog_start(MPI_Comm comm) {
  const struct settings *s = dag__settings();
  report_ns = (uint64_t)(s->watchdog_seconds * 1e9);
  end_ns = (uint64_t)(s->watchdog_end_seconds * 1e9);
  probe_ns = report_ns && report_ns < PROBE_NS ? report_ns : PROBE_NS;
  self = dag__rank;
  said = stall_reported = false;
  quiet_since = probed = 0;
  /* On every rank: duplicating is collective. A failed send to a rank
   * that is gone must return here, to be told, not end the process. */
  MPI_Comm_dup(comm, &watch_comm);
  MPI_Comm_set_errhandler(watch_comm, MPI_ERRORS_RETURN);
  if (dag__nranks > 1)
    listen();
}

bool dag__watchdog_listening(void) { return dag__nranks > 1; }

/* Answers every rank that asks whether this one still answers; to one that
 * ends the run, after saying (once) what this rank waits for. */
static void answer(const struct inflight *f) {
  int arrived = 0;
  MPI_Status st;
  while (question != MPI_REQUEST_NULL &&
         MPI_Test(&question, &arrived, &st) == MPI_SUCCESS && arrived) {
    if (asked % 2 && !said) {
      dag__log(DAG_LOG_REPORT, "watchdog: rank %d ends the run", asked / 2);
      say_all(f);
    }
    MPI_Request r;
    if (MPI_Isend(&self, 1, MPI_INT, st.MPI_SOURCE, TAG_ANSWER, watch_comm,
                  &r) == MPI_SUCCESS)
      MPI_Request_free(&r);
    listen();
  }
}

static void pause_1ms(void) { nanosleep(&(struct timespec){0, 1000000}, NULL); }

/* Asks every other rank whether it answers (telling them if this rank ends
 * the run), answering theirs meanwhile; returns how many did not answer
 * within ANSWER_NS, named when `ending`. */
static int ask_all(const struct inflight *f, bool ending) {
  static int question_sent; /* MPI may read it after this returns */
  question_sent = 2 * dag__rank + ending;
  int n = dag__nranks;
  MPI_Request *replies = malloc((size_t)n * sizeof *replies);
  int *answers = malloc((size_t)n * sizeof *answers);
  bool *lost = calloc((size_t)n, sizeof *lost);
  if (!replies || !answers || !lost)
    dag__out_of_memory("the watchdog");
  for (int p = 0; p < n; p++) {
    replies[p] = MPI_REQUEST_NULL;
    if (p == dag__rank)
      continue;
    MPI_Request ask;
    lost[p] = MPI_Isend(&question_sent, 1, MPI_INT, p, TAG_QUESTION, watch_comm,
                        &ask) != MPI_SUCCESS ||
              MPI_Request_free(&ask) != MPI_SUCCESS ||
              MPI_Irecv(&answers[p], 1, MPI_INT, p, TAG_ANSWER, watch_comm,
                        &replies[p]) != MPI_SUCCESS;
  }
  uint64_t until = dag__now_ns() + ANSWER_NS;
  int silent = 0;
  for (bool waiting = true; waiting;) {
    answer(f); /* another rank may be asking too */
    waiting = false;
    for (int p = 0; p < n; p++) {
      int done = 1;
      if (!lost[p] && replies[p] != MPI_REQUEST_NULL &&
          MPI_Test(&replies[p], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        lost[p] = true; /* the transport saw it go */
      waiting |= !lost[p] && !done;
    }
    if (waiting && dag__now_ns() >= until)
      break;
    if (waiting)
      pause_1ms();
  }
  for (int p = 0; p < n; p++) {
    if (p == dag__rank || (!lost[p] && replies[p] == MPI_REQUEST_NULL))
      continue;
    if (ending)
      dag__log(DAG_LOG_REPORT,
               "watchdog: rank %d does not answer: it is stopped, hung "
               "outside dag, or lost",
               p);
    silent++;
  }
  /* Answers still due keep their buffers: the run ends, or they came. */
  if (!silent) {
    free(replies);
    free(answers);
  }
  free(lost);
  return silent;
}

/* This rank has stalled `stalled` ns, past the deadline or with `silent`
 * ranks not answering: it says what it waits for, tells the others (who say
 * what they wait for), names the ranks that do not answer, and aborts. */
static _Noreturn void end_run(const struct inflight *f, uint64_t stalled,
                              int silent) {
  if (silent)
    dag__log(DAG_LOG_REPORT,
             "watchdog: rank %d has seen no transfer complete for %.0f s, and "
             "%d rank(s) do not answer: it ends the run",
             dag__rank, (double)stalled / 1e9, silent);
  else
    dag__log(DAG_LOG_REPORT,
             "watchdog: rank %d has seen no transfer complete for %.0f s "
             "(deadline %.0f s): it ends the run",
             dag__rank, (double)stalled / 1e9, (double)end_ns / 1e9);
  say_all(f);
  if (!ask_all(f, true))
    dag__log(DAG_LOG_REPORT,
             "watchdog: every rank answers: the ranks wait for one another "
             "(what each waits for is above)");
  if (dag__last_words)
    dag__last_words();
  dag__mpi_abort();
}

/* Ranks stop answering together: a rank that finished early keeps
 * answering until every rank is here, or a rank still waiting for another
 * would take it for lost. A rank that never comes is asked for after
 * probe_ns, as in a stall. */
static void leave_together(void) {
  static const struct inflight none;
  MPI_Request all_here;
  MPI_Ibarrier(watch_comm, &all_here);
  uint64_t since = dag__now_ns(), asked_at = since;
  for (int here = 0; MPI_Test(&all_here, &here, MPI_STATUS_IGNORE), !here;) {
    answer(&none);
    uint64_t now = dag__now_ns();
    if (now - asked_at >= probe_ns) {
      asked_at = now;
      int silent = ask_all(&none, false);
      /* A rank that stopped answering because every rank got here, and it
       * left, is not lost. */
      MPI_Test(&all_here, &here, MPI_STATUS_IGNORE);
      if (silent && !here)
        end_run(&none, dag__now_ns() - since, silent);
    }
    if (!here)
      pause_1ms();
  }
}

void dag__watchdog_stop(void) {
  if (dag__nranks > 1 && watch_comm != MPI_COMM_NULL)
    leave_together();
  if (question != MPI_REQUEST_NULL) {
    MPI_Cancel(&question);
    MPI_Wait(&question, MPI_STATUS_IGNORE);
  }
  if (watch_comm != MPI_COMM_NULL)
    MPI_Comm_free(&watch_comm);
}

void dag__watchdog_round(struct inflight *f, bool completed) {
  if (dag__nranks < 2)
    return;
  answer(f);
  uint64_t now = dag__now_ns();
  if (completed || !f->n || !quiet_since) {
    quiet_since = now; /* moving, or nothing to wait for */
    probed = 0;
    stall_reported = false;
    return;
  }
  uint64_t stalled = now - quiet_since;
  if (report_ns && !stall_reported && stalled >= report_ns) {
    stall_reported = true;
    dag__log(DAG_LOG_REPORT,
             "watchdog: rank %d has seen no transfer complete for %.0f s; it "
             "waits for:",
             dag__rank, (double)stalled / 1e9);
    say_waits(f);
  }
  if (end_ns && stalled >= end_ns)
    end_run(f, stalled, 0);
  if (stalled >= probe_ns && now - probed >= probe_ns) {
    probed = now;
    int silent = ask_all(f, false);
    if (silent)
      end_run(f, dag__now_ns() - quiet_since, silent);
  }
}
