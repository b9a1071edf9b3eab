/* trace.c — what the runtime tells about a run: DAG_TRACE (each worker
 * records the task bodies it ran; timeline.c writes the file), DAG_GRAPH
 * (graph.c) and DAG_STATS (a summary on stderr at exit).
 *
 * With none of them set the hot paths test one global bool each. A trace
 * buffer belongs to one worker and needs no lock; the graph is appended to
 * under a mutex, since nested tasks are submitted from several threads.
 */
#include "obs/trace.h"
#include "comm/comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
static uint64_t start_ns;

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
  start_ns = dag__now_ns();
  if (dag__tracing)
    dag__timeline_start(trace_path);
}

/* ------------------------------------------------------- task records */

struct trace_buffer *dag__trace_buffer_new(void) {
  struct trace_buffer *b = calloc(1, sizeof *b);
  if (!b)
    dag__out_of_memory("the trace");
  return b;
}

void dag__trace_task(struct worker *w, const struct task *t, uint64_t t0,
                     uint64_t t1, uint64_t own) {
  struct trace_buffer *b = w->trace;
  if (!b->head || b->head->n == EVENTS_PER_CHUNK) {
    struct trace_chunk *c = malloc(sizeof *c);
    if (!c)
      dag__out_of_memory("the trace");
    c->next = b->head;
    c->n = 0;
    b->head = c;
  }
  b->head->ev[b->head->n++] =
      (struct trace_event){t0, t1, own, t->id, t->label, t->file, t->line};
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
  for (int w = 0; w < dag__workers_count(); w++) {
    struct trace_buffer *b = dag__worker(w)->trace;
    if (!b)
      continue;
    for (struct trace_chunk *c = b->head, *next; c; c = next) {
      next = c->next;
      free(c);
    }
    free(b);
    dag__worker(w)->trace = NULL;
  }
}

/* --------------------------------------------------------------- stats */

static void write_stats(void) {
  double wall = (double)(dag__now_ns() - start_ns) / 1e9;
  uint64_t tasks = 0, inlined = 0;
  char given[1024], defaults[1024];
  dag__settings_describe(given, sizeof given, defaults, sizeof defaults);
  dag__log(DAG_LOG_REPORT, "stats: settings from the environment:%s", given);
  dag__log(DAG_LOG_REPORT, "stats: settings by default:%s", defaults);
  dag__log(DAG_LOG_REPORT, "stats: %d workers, %.3f s since start",
           dag__workers_count(), wall);
  for (int i = 0; i < dag__workers_count(); i++) {
    const struct worker_stats *s = &dag__worker(i)->stats;
    tasks += s->tasks;
    inlined += s->inlined;
    dag__log(DAG_LOG_REPORT,
             "stats: worker %d: %llu tasks (%llu inline), busy %.3f s "
             "(%.0f%%), %llu steals (%llu tasks), %llu sleeps",
             i, (unsigned long long)s->tasks, (unsigned long long)s->inlined,
             (double)s->busy_ns / 1e9,
             wall > 0 ? 100.0 * (double)s->busy_ns / 1e9 / wall : 0.0,
             (unsigned long long)s->steals, (unsigned long long)s->stolen,
             (unsigned long long)s->sleeps);
  }
  size_t pooled = 0;
  for (int p = 0; p < POOL_COUNT; p++)
    pooled += dag__pool_bytes((enum pool_id)p);
  dag__log(DAG_LOG_REPORT,
           "stats: %llu tasks run (%llu inline), %.1f MiB in task pools",
           (unsigned long long)tasks, (unsigned long long)inlined,
           (double)pooled / (1024.0 * 1024.0));
  dag__handoff_report(dag__workers_count());
}

void dag__trace_finish(void) {
  if (dag__stats)
    write_stats();
  if (dag__tracing)
    dag__timeline_write(trace_path);
  if (report_path && dag__rank == 0)
    dag__report_write(report_path, trace_path);
  if (dag__graphing)
    dag__graph_write(graph_path);
  free_trace_buffers();
}
