/* trace.h — what observation's files share (obs.h is what the layers
 * above see): the events each worker records (trace.c) and timeline.c
 * writes, JSON string helpers, the parts of a file of several ranks, and
 * the writers of the files.
 */
#ifndef DAG_OBS_TRACE_H
#define DAG_OBS_TRACE_H

#include "obs/obs.h"

#include <stdio.h>

#define EVENTS_PER_CHUNK 4096

struct trace_chunk {
  struct trace_chunk *next;
  size_t n;
  struct trace_event ev[EVENTS_PER_CHUNK];
};

struct trace_buffer {
  struct trace_chunk *head; /* newest first */
};

/* The records of the workers, by worker (trace.c). */
extern struct trace_buffer **dag__trace_buffers;
extern int dag__trace_nbuffers;

/* Writes s as the inside of a JSON or dot string. */
void dag__put_escaped(FILE *f, const char *s);
/* Writes a task's name ("label" or "file:line") the same way. */
void dag__put_task_name(FILE *f, const char *label, const char *file, int line);

/* ------------------------------------------------------------- parts.c */

/* PATH.rank<r>EXT for PATH ending in EXT (".json"), else PATH.rank<r>. */
void dag__part_path(char *buf, size_t size, const char *path, const char *ext,
                    int r);

/* How rank 0 merges the parts of a file. */
struct parts {
  const char *setting; /* for messages: "DAG_TRACE" */
  const char *ext, *header, *footer;
  /* Copies (or not) one line of a part. */
  void (*copy)(FILE *out, char *line, size_t len, void *arg);
  /* Writes what comes after every part's lines (may be NULL). */
  void (*finish)(FILE *out, void *arg);
  void *arg;
};

/* Rank 0, once every rank wrote its part: writes path from the header,
 * every part's lines and the footer, then removes the parts (they stay if
 * one is missing, with a warning). */
void dag__merge_parts(const struct parts *p, const char *path);

/* ------------------------------------------------------------- graph.c */

/* Writes `path` (on several ranks, every rank's part, then rank 0 merges
 * them into path; NULL: nothing) and frees the graph. */
void dag__graph_write(const char *path);

/* Writes the dependences and transfers this rank recorded, as the trace's
 * "dag_graph" metadata event of process `rank` (one line, then a comma),
 * for DAG_REPORT's critical path. */
void dag__graph_emit_json(FILE *f);

/* ------------------------------------------------------------ report.c */

/* Rank 0: writes the page `report` from the trace file at trace_path. */
void dag__report_write(const char *report, const char *trace_path);

/* ---------------------------------------------------------- timeline.c */

/* At start, with DAG_TRACE set on every rank: the clocks' first offsets and
 * the transfers' recording. */
void dag__timeline_start(const char *path);
/* At the end: writes `path` (on several ranks, every rank's part, then rank
 * 0 merges them into path) and stops recording transfers. */
void dag__timeline_write(const char *path);

#endif /* DAG_OBS_TRACE_H */
