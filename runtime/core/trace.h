/* trace.h — what trace.c (recording) and timeline.c (writing DAG_TRACE's
 * file) share: the events each worker records, and JSON string helpers.
 */
#ifndef DAG_CORE_TRACE_H
#define DAG_CORE_TRACE_H

#include "core/internal.h"

#include <stdio.h>

/* One task body that ran, on CLOCK_MONOTONIC. */
struct trace_event {
  uint64_t t0, t1, id;
  const char *label, *file;
  int line;
};

#define EVENTS_PER_CHUNK 4096

struct trace_chunk {
  struct trace_chunk *next;
  size_t n;
  struct trace_event ev[EVENTS_PER_CHUNK];
};

struct trace_buffer {
  struct trace_chunk *head; /* newest first */
};

/* Writes s as the inside of a JSON or dot string. */
void dag__put_escaped(FILE *f, const char *s);
/* Writes a task's name ("label" or "file:line") the same way. */
void dag__put_task_name(FILE *f, const char *label, const char *file, int line);

/* ---------------------------------------------------------- timeline.c */

/* At start, with DAG_TRACE set on every rank: the clocks' first offsets and
 * the transfers' recording. */
void dag__timeline_start(const char *path);
/* At the end: writes `path` (on several ranks, every rank's part, then rank
 * 0 merges them into path) and stops recording transfers. */
void dag__timeline_write(const char *path);

#endif /* DAG_CORE_TRACE_H */
