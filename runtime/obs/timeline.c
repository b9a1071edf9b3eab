/* timeline.c — DAG_TRACE's file: one timeline of the whole run, in Chrome
 * trace-event JSON (Perfetto, chrome://tracing).
 *
 * One process per rank ("rank r"), one track per worker with the task
 * bodies it ran, and on several ranks one more ("MPI") with the rank's
 * transfers, each drawn from when it was posted until it completed, and an
 * arrow (a flow event) from each send to its receive. On one rank the file
 * is written at the end. On several, each rank writes its part,
 * PATH.rank<r>.json, a complete trace by itself; when every rank has, rank
 * 0 merges the parts into PATH and removes them. A run that ends early
 * (the uniformity check, the watchdog) writes its parts before it aborts,
 * and they stay.
 *
 * Clocks: every time is put on rank 0's clock. Each rank's offset is
 * measured at start and at the end (comm.c's ping-pong, with its error
 * bound); a time in between is corrected by the offset interpolated
 * between the two, which takes out a steady drift. Each process's label
 * says its offsets and their error.
 */
#include "comm/comm.h"
#include "obs/trace.h"

#include <inttypes.h>
#include <string.h>

static struct comm_clock at_start, at_end;
static bool ended; /* at_end was measured */

static const char *trace_path;

static void write_file_to(const char *path);

/* The run ends early: this rank's part, its clock as measured at start. */
static void last_words(void) {
  char part[4096];
  dag__part_path(part, sizeof part, trace_path, ".json", dag__rank);
  write_file_to(part);
  dag__log(DAG_LOG_REPORT,
           "DAG_TRACE: the run ends early: rank %d's part is %s", dag__rank,
           part);
}

void dag__timeline_start(const char *path) {
  trace_path = path;
  dag__comm_clock(&at_start);
  ended = false;
  dag__comm_trace_start(dag__nranks > 1);
  if (dag__nranks > 1)
    dag__last_words = last_words;
}

/* This rank's offset at its local time t. */
static int64_t offset_at(uint64_t t) {
  int64_t a = at_start.offset_ns, b = ended ? at_end.offset_ns : a;
  double t0 = (double)at_start.ref_ns + (double)a;
  double t1 = (double)at_end.ref_ns + (double)b;
  if (!ended || t1 <= t0)
    return a;
  return a + (int64_t)((double)(b - a) * (((double)t - t0) / (t1 - t0)));
}

/* Local time t on rank 0's clock, in microseconds from the common start. */
static double aligned_us(uint64_t t) {
  return ((double)((int64_t)t - offset_at(t)) - (double)at_start.ref_ns) / 1e3;
}

/* The same on the sender and the receiver of a transfer. */
static uint64_t flow_id(int from, int to, uint64_t tag) {
  uint64_t h = ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) ^ tag * 0x9e37;
  h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29) ^ tag;
}

static void write_tasks(FILE *f, int w) {
  for (struct trace_chunk *c = dag__trace_buffers[w]->head; c; c = c->next)
    for (size_t i = 0; i < c->n; i++) {
      const struct trace_event *e = &c->ev[i];
      fputs("{\"name\":\"", f);
      dag__put_task_name(f, e->label, e->file, e->line);
      fprintf(f,
              "\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
              "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"id\":%" PRIu64,
              dag__rank, w, aligned_us(e->t0), (double)(e->t1 - e->t0) / 1e3,
              e->id);
      if (e->own != e->t1 - e->t0) /* bodies ran inside it */
        fprintf(f, ",\"own\":%.3f", (double)e->own / 1e3);
      if (e->file) {
        fputs(",\"src\":\"", f);
        dag__put_escaped(f, e->file);
        fprintf(f, ":%d\"", e->line);
      }
      fputs("}},\n", f);
    }
}

/* The MPI track: a slice per transfer, and the arrow's end that is here. */
static void write_transfers(FILE *f, int tid) {
  size_t n;
  const struct comm_event *ev = dag__comm_trace_events(&n);
  for (size_t i = 0; i < n; i++) {
    const struct comm_event *e = &ev[i];
    int from = e->send ? dag__rank : e->peer,
        to = e->send ? e->peer : dag__rank;
    double t0 = aligned_us(e->posted_ns), t1 = aligned_us(e->done_ns);
    fprintf(f,
            "{\"name\":\"%s %" PRIu64 " B %s rank %d\",\"cat\":\"transfer\","
            "\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
            "\"args\":{\"bytes\":%" PRIu64 ",\"from\":%d,\"to\":%d,"
            "\"tag\":%" PRIu64 "}},\n",
            e->send ? "send" : "recv", e->bytes, e->send ? "to" : "from",
            e->peer, dag__rank, tid, t0, t1 - t0, e->bytes, from, to, e->tag);
    /* The arrow leaves at the send's start and lands just before the
     * receive's end, inside each slice, which binds it. */
    fprintf(f,
            "{\"name\":\"%" PRIu64 " B\",\"cat\":\"transfer\",\"ph\":\"%s\","
            "%s\"id\":\"0x%016" PRIx64 "\",\"pid\":%d,\"tid\":%d,"
            "\"ts\":%.3f},\n",
            e->bytes, e->send ? "s" : "f", e->send ? "" : "\"bp\":\"e\",",
            flow_id(from, to, e->tag), dag__rank, tid,
            e->send ? t0 : (t1 - t0 > 0.002 ? t1 - 0.001 : t0));
  }
  dag__comm_trace_events_done();
}

/* This rank's events, one per line, each followed by a comma but the last. */
static void write_events(FILE *f) {
  int r = dag__rank, nw = dag__trace_nbuffers;
  fprintf(f,
          "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
          "\"args\":{\"name\":\"rank %d\"}},\n",
          r, r);
  fprintf(f,
          "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":%d,\"args\":"
          "{\"labels\":\"clock %+" PRId64 " ns at start, %+" PRId64
          " ns at the end against rank 0, error at most %" PRIu64 " ns\"}},\n",
          r, at_start.offset_ns, ended ? at_end.offset_ns : at_start.offset_ns,
          at_start.error_ns > at_end.error_ns ? at_start.error_ns
                                              : at_end.error_ns);
  for (int w = 0; w < nw; w++) {
    fprintf(f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
            "\"args\":{\"name\":\"worker %d\"}},\n",
            r, w, w);
    write_tasks(f, w);
  }
  if (dag__nranks > 1) {
    fprintf(f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
            "\"args\":{\"name\":\"MPI\"}},\n",
            r, nw);
    write_transfers(f, nw);
  }
  if (dag__graphing)
    dag__graph_emit_json(f);
  fprintf(f,
          "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
          "\"args\":{\"sort_index\":%d}}\n",
          r, r);
}

static const char header[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
static const char footer[] = "]}\n";

static void write_file_to(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    dag__user_error(NULL, DAG_EINVAL, "DAG_TRACE: cannot write '%s'", path);
    return;
  }
  fputs(header, f);
  write_events(f);
  fputs(footer, f);
  fclose(f);
}

/* Every part's event lines go in, joined by commas (a part that is
 * missing leaves no dangling one); the parts' headers and footers do not.
 * arg: whether an event was copied already. */
static void copy_event(FILE *out, char *line, size_t len, void *arg) {
  bool *copied = arg;
  if (line[0] != '{' || !strncmp(line, header, sizeof header - 2))
    return;
  len -= line[len - 1] == '\n';
  len -= len && line[len - 1] == ',';
  fprintf(out, "%s%.*s", *copied ? ",\n" : "", (int)len, line);
  *copied = true;
}

static void end_events(FILE *out, void *arg) {
  (void)arg;
  fputc('\n', out);
}

void dag__timeline_write(const char *path) {
  if (dag__nranks == 1) {
    write_file_to(path);
    return;
  }
  dag__last_words = NULL; /* the parts are written below */
  /* Every rank has finished before any measures: a rank blocked in the
   * measurement cannot answer the others' watchdog. */
  dag__comm_barrier();
  dag__comm_clock(&at_end);
  ended = true;
  char part[4096];
  dag__part_path(part, sizeof part, path, ".json", dag__rank);
  write_file_to(part);
  if (dag__stats)
    dag__log(DAG_LOG_REPORT,
             "stats: clock against rank 0: %+" PRId64 " ns at start, %+" PRId64
             " ns at the end, error at most %" PRIu64 " ns",
             at_start.offset_ns, at_end.offset_ns,
             at_start.error_ns > at_end.error_ns ? at_start.error_ns
                                                 : at_end.error_ns);
  dag__comm_barrier(); /* every part is written */
  bool copied = false;
  struct parts trace_parts = {"DAG_TRACE", ".json",    header, footer,
                              copy_event,  end_events, &copied};
  if (dag__rank == 0)
    dag__merge_parts(&trace_parts, path);
  dag__comm_trace_stop();
}
