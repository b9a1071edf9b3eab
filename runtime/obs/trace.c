/* trace.c — what the runtime tells about a run: DAG_TRACE (each worker
 * records the task bodies it ran; timeline.c writes the file), DAG_GRAPH
 * (graph.c) and DAG_REPORT (report.c); DAG_STATS's flag (the core, which
 * counts, says the summary).
 *
 * With none of them set the hot paths test one global bool each. A trace
 * buffer belongs to one worker and needs no lock; the graph is appended to
 * under a mutex, since nested tasks are submitted from several threads.
 */
#include "obs/trace.h"
#include "comm/comm.h"

#include <stdio.h>
#include <stdlib.h>

bool dag__tracing;
bool dag__graphing;
bool dag__deferring_all;
bool dag__stats;
bool dag__timing;
bool dag__naming;
bool dag__noting_deferred;

static const char *trace_path;
static const char *graph_path;
static const char *report_path;
/* DAG_REPORT without DAG_TRACE: the trace it is made from goes beside it. */
static char report_trace[4096];

void dag__trace_init(void) {
  const struct settings *s = dag__settings();
  trace_path = s->trace;
  graph_path = s->graph;
  report_path = s->report;
  if (report_path && !trace_path) {
    snprintf(report_trace, sizeof report_trace, "%s.json", report_path);
    trace_path = report_trace;
  }
  dag__tracing = trace_path != NULL;
  /* The report's critical path needs the dependences. */
  dag__graphing = graph_path != NULL || report_path != NULL;
  /* The graph wants every edge; DAG_INLINE=0, every task deferred. */
  dag__deferring_all = dag__graphing || !s->inline_tasks;
  dag__stats = s->stats;
  dag__timing = dag__tracing || dag__stats || s->check_items;
  dag__naming = dag__tracing || dag__graphing || s->check_items;
  dag__noting_deferred = dag__graphing || s->check_items;
  if (dag__tracing)
    dag__timeline_start(trace_path);
}

/* ------------------------------------------------------- task records */

struct trace_buffer **dag__trace_buffers;
int dag__trace_nbuffers;
static size_t buffers_cap;

struct trace_buffer *dag__trace_buffer_new(int worker) {
  struct trace_buffer *b = calloc(1, sizeof *b);
  if (!b)
    dag__out_of_memory("the trace");
  dag__trace_buffers =
      dag__grow(dag__trace_buffers, &buffers_cap, (size_t)worker,
                sizeof *dag__trace_buffers, "the trace");
  while (dag__trace_nbuffers <= worker)
    dag__trace_buffers[dag__trace_nbuffers++] = NULL;
  dag__trace_buffers[worker] = b;
  return b;
}

void dag__trace_task(struct trace_buffer *b, const struct trace_event *e) {
  if (!b->head || b->head->n == EVENTS_PER_CHUNK) {
    struct trace_chunk *c = malloc(sizeof *c);
    if (!c)
      dag__out_of_memory("the trace");
    c->next = b->head;
    c->n = 0;
    b->head = c;
  }
  b->head->ev[b->head->n++] = *e;
}

void dag__put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  }
}

void dag__put_task_name(FILE *f, const char *label, const char *file,
                        int line) {
  char name[256];
  dag__task_name(name, sizeof name, label, file, line);
  dag__put_escaped(f, name);
}

static void free_trace_buffers(void) {
  for (int w = 0; w < dag__trace_nbuffers; w++) {
    struct trace_buffer *b = dag__trace_buffers[w];
    if (!b)
      continue;
    for (struct trace_chunk *c = b->head, *next; c; c = next) {
      next = c->next;
      free(c);
    }
    free(b);
  }
  free(dag__trace_buffers);
  dag__trace_buffers = NULL;
  dag__trace_nbuffers = 0;
  buffers_cap = 0;
}

void dag__trace_finish(void) {
  if (dag__tracing)
    dag__timeline_write(trace_path);
  if (report_path && dag__rank == 0)
    dag__report_write(report_path, trace_path);
  if (dag__graphing)
    dag__graph_write(graph_path);
  free_trace_buffers();
}
