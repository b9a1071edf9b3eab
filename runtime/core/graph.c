/* graph.c — DAG_GRAPH's file: the task graph in Graphviz dot.
 *
 * Nodes are the tasks submitted here, edges the dependences the tracker
 * found; appended under a mutex, since nested tasks are submitted from
 * several threads. On several ranks each rank's tasks (its part of the
 * program's and its transfers) form a cluster "rank r"; every rank writes
 * its part, PATH.rank<r>.dot, with a comment line per transfer, and rank 0
 * merges the parts into PATH, adding a dashed edge from each send to its
 * receive, labelled with its bytes.
 */
#include "comm/comm.h"
#include "core/trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct graph_node {
  uint64_t id;
  const char *label, *file;
  int line;
};

/* A transfer task's side of a message: which message it is, and the node
 * (task id on rank `at`) that stands for it. */
struct graph_transfer {
  uint64_t id, tag, bytes;
  int at, from, to;
  bool send;
};

static struct {
  pthread_mutex_t lock;
  struct graph_node *nodes;
  size_t nnodes, node_cap;
  uint64_t (*edges)[2];
  size_t nedges, edge_cap;
  struct graph_transfer *transfers;
  size_t ntransfers, transfer_cap;
} graph = {.lock = PTHREAD_MUTEX_INITIALIZER};

void dag__graph_node(const struct task *t) {
  pthread_mutex_lock(&graph.lock);
  graph.nodes = dag__grow(graph.nodes, &graph.node_cap, graph.nnodes,
                          sizeof *graph.nodes, "the task graph");
  graph.nodes[graph.nnodes++] =
      (struct graph_node){t->id, t->label, t->file, t->line};
  pthread_mutex_unlock(&graph.lock);
}

void dag__graph_edge(const struct task *pred, const struct task *succ) {
  pthread_mutex_lock(&graph.lock);
  graph.edges = dag__grow(graph.edges, &graph.edge_cap, graph.nedges,
                          sizeof *graph.edges, "the task graph");
  graph.edges[graph.nedges][0] = pred->id;
  graph.edges[graph.nedges][1] = succ->id;
  graph.nedges++;
  pthread_mutex_unlock(&graph.lock);
}

void dag__core_graph_transfer(bool send, int peer, uint64_t tag,
                              uint64_t bytes) {
  if (!dag__graphing)
    return;
  pthread_mutex_lock(&graph.lock);
  graph.transfers =
      dag__grow(graph.transfers, &graph.transfer_cap, graph.ntransfers,
                sizeof *graph.transfers, "the task graph");
  graph.transfers[graph.ntransfers++] = (struct graph_transfer){
      dag__current_task()->id, tag, bytes, dag__rank, send ? dag__rank : peer,
      send ? peer : dag__rank, send};
  pthread_mutex_unlock(&graph.lock);
}

/* ----------------------------------------------------------- writing */

/* "t5" on one rank, "r1_t5" on several. */
static void put_node_name(FILE *f, uint64_t id) {
  if (dag__nranks > 1)
    fprintf(f, "r%d_", dag__rank);
  fprintf(f, "t%" PRIu64, id);
}

static void write_part(FILE *f) {
  const char *indent = dag__nranks > 1 ? "    " : "  ";
  if (dag__nranks > 1)
    fprintf(f, "  subgraph cluster_rank%d {\n    label=\"rank %d\";\n",
            dag__rank, dag__rank);
  for (size_t i = 0; i < graph.nnodes; i++) {
    const struct graph_node *n = &graph.nodes[i];
    fputs(indent, f);
    put_node_name(f, n->id);
    fputs(" [label=\"", f);
    dag__put_task_name(f, n->label, n->file, n->line);
    fprintf(f, "\\n#%" PRIu64 "\"];\n", n->id);
  }
  for (size_t i = 0; i < graph.nedges; i++) {
    fputs(indent, f);
    put_node_name(f, graph.edges[i][0]);
    fputs(" -> ", f);
    put_node_name(f, graph.edges[i][1]);
    fputs(";\n", f);
  }
  if (dag__nranks > 1)
    fputs("  }\n", f);
  for (size_t i = 0; i < graph.ntransfers; i++) {
    const struct graph_transfer *x = &graph.transfers[i];
    fprintf(f,
            "  // transfer %d %" PRIu64 " %s %d %d %" PRIu64 " %" PRIu64 "\n",
            dag__rank, x->id, x->send ? "send" : "recv", x->from, x->to, x->tag,
            x->bytes);
  }
}

static const char header[] = "digraph dag {\n  node [shape=box];\n";

static void write_file(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    dag__user_error(NULL, DAG_EINVAL, "DAG_GRAPH: cannot write '%s'", path);
    return;
  }
  fputs(header, f);
  write_part(f);
  fputs("}\n", f);
  fclose(f);
}

static int by_message(const void *a, const void *b) {
  const struct graph_transfer *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  if (x->tag != y->tag)
    return x->tag < y->tag ? -1 : 1;
  return x->send == y->send ? 0 : x->send ? -1 : 1; /* the send first */
}

/* The transfers of every part, gathered while merging. */
struct gathered {
  struct graph_transfer *all;
  size_t n, cap;
};

/* A part's transfer lines go to the gathered list; its other lines go in
 * as they are, but for the digraph's own first and last lines. */
static void copy_line(FILE *out, char *line, size_t len, void *arg) {
  (void)len;
  struct gathered *g = arg;
  int rank, from, to;
  uint64_t id, tag, bytes;
  char side[8];
  if (sscanf(line,
             "  // transfer %d %" SCNu64 " %7s %d %d %" SCNu64 " %" SCNu64,
             &rank, &id, side, &from, &to, &tag, &bytes) == 7) {
    g->all = dag__grow(g->all, &g->cap, g->n, sizeof *g->all, "the task graph");
    g->all[g->n++] = (struct graph_transfer){
        id, tag, bytes, rank, from, to, !strcmp(side, "send")};
  } else if (strncmp(line, "digraph", 7) && strncmp(line, "  node [", 8) &&
             strcmp(line, "}\n")) {
    fputs(line, out);
  }
}

/* A dashed edge from each send to its receive: sorted by message, each
 * send comes just before its receive. */
static void join_messages(FILE *out, void *arg) {
  struct gathered *g = arg;
  qsort(g->all, g->n, sizeof *g->all, by_message);
  for (size_t i = 0; i + 1 < g->n; i++) {
    const struct graph_transfer *s = &g->all[i], *r = &g->all[i + 1];
    if (!s->send || r->send || s->from != r->from || s->to != r->to ||
        s->tag != r->tag)
      continue;
    fprintf(out,
            "  r%d_t%" PRIu64 " -> r%d_t%" PRIu64
            " [style=dashed, color=\"#1f77b4\", label=\"%" PRIu64 " B\"];\n",
            s->at, s->id, r->at, r->id, s->bytes);
  }
  free(g->all);
}

void dag__graph_emit_json(FILE *f) {
  pthread_mutex_lock(&graph.lock); /* nested tasks may still submit */
  fprintf(f,
          "{\"name\":\"dag_graph\",\"ph\":\"M\",\"pid\":%d,\"args\":{"
          "\"edges\":[",
          dag__rank);
  for (size_t i = 0; i < graph.nedges; i++)
    fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", graph.edges[i][0],
            graph.edges[i][1]);
  fputs("],\"transfers\":[", f);
  for (size_t i = 0; i < graph.ntransfers; i++) {
    const struct graph_transfer *x = &graph.transfers[i];
    fprintf(f, "%s[%" PRIu64 ",%d,%d,%d,%" PRIu64 "]", i ? "," : "", x->id,
            x->send, x->from, x->to, x->tag);
  }
  fputs("]}},\n", f);
  pthread_mutex_unlock(&graph.lock);
}

/* Writes path (on several ranks, every rank's part, then rank 0 merges). */
static void write_graph(const char *path) {
  if (dag__nranks == 1) {
    write_file(path);
    return;
  }
  char part[4096];
  dag__part_path(part, sizeof part, path, ".dot", dag__rank);
  write_file(part);
  dag__comm_barrier(); /* every part is written */
  struct gathered g = {NULL, 0, 0};
  struct parts dot = {"DAG_GRAPH", ".dot",        header, "}\n",
                      copy_line,   join_messages, &g};
  if (dag__rank == 0)
    dag__merge_parts(&dot, path);
}

void dag__graph_write(const char *path) {
  if (path)
    write_graph(path);
  free(graph.nodes);
  free(graph.edges);
  free(graph.transfers);
  graph.nodes = NULL;
  graph.edges = NULL;
  graph.transfers = NULL;
  graph.nnodes = graph.node_cap = graph.nedges = graph.edge_cap = 0;
  graph.ntransfers = graph.transfer_cap = 0;
}
