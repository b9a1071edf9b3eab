/* obs.h — observation as the layers above see it: what a run tells about
 * itself (DAG_TRACE, DAG_GRAPH, DAG_REPORT, DAG_STATS). The flags the hot
 * paths test, each worker's record of the bodies it ran, the task graph,
 * and the files written at the end. It takes numbers and names, never the
 * core's tasks or workers: the core, above it, hands it what they hold.
 * Its own files share obs/trace.h.
 */
#ifndef DAG_OBS_H
#define DAG_OBS_H

#include "base.h"

extern bool dag__tracing;  /* DAG_TRACE set */
extern bool dag__graphing; /* DAG_GRAPH set */
extern bool dag__stats;    /* DAG_STATS set */
/* Tracing, stats or DAG_CHECK_ITEMS: every task body takes the slow way,
 * timed (and watched: dag__guarding). */
extern bool dag__timing;
/* Tracing, graphing or DAG_CHECK_ITEMS: a task run inline gets its name
 * and number, and a promoted one keeps them. */
extern bool dag__naming;
/* Graphing or DAG_CHECK_ITEMS: a deferred task is noted (core/task.c). */
extern bool dag__noting_deferred;
/* No submitter runs a ready task itself (DAG_GRAPH, DAG_INLINE=0). */
extern bool dag__deferring_all;

/* At start: the flags from the settings; with DAG_TRACE, the timeline's
 * start. */
void dag__trace_init(void);

/* One task body that ran, on CLOCK_MONOTONIC; own: its time without the
 * bodies and help loops nested in it. */
struct trace_event {
  uint64_t t0, t1, own, id;
  const char *label, *file;
  int line;
};

struct trace_buffer;

/* With tracing, the record of worker `worker` (0, 1, ...: its track in the
 * timeline), written and freed by dag__trace_finish. */
struct trace_buffer *dag__trace_buffer_new(int worker);
/* Appends e to b; only b's worker calls it, no lock. */
void dag__trace_task(struct trace_buffer *b, const struct trace_event *e);

/* The graph (with graphing), appended to from any thread: task `id`,
 * submitted by task `parent` (0: the program's top level). */
void dag__graph_node(uint64_t id, uint64_t parent, const char *label,
                     const char *file, int line);
/* A wait of parent's body for its children, node `id`: all of them (on
 * false, a taskwait), or those the task `id` (of no body) waits for (on
 * true, a taskwait on a list). */
void dag__graph_wait(uint64_t parent, uint64_t id, bool on);
void dag__graph_edge(uint64_t pred, uint64_t succ);
/* Task `id` is this rank's side of a message (its peer, its tag, its
 * bytes), so the merged graph joins send to receive. */
void dag__graph_transfer(uint64_t id, bool send, int peer, uint64_t tag,
                         uint64_t bytes);

/* At the end, once the workers stopped: writes the trace, the report and
 * the graph, and frees the records. */
void dag__trace_finish(void);

#endif /* DAG_OBS_H */
