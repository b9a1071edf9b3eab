/* graph.c — DAG_GRAPH's file: the task graph in Graphviz dot.
 *
 * Nodes are the tasks submitted here, edges the dependences the tracker
 * found (from complete tasks too: see deps.c); appended under a mutex,
 * since nested tasks are submitted from several threads. A taskwait is a
 * node too: every child its parent submitted before it comes before it,
 * and it comes before every later child, which no edge of the tracker says
 * (the history is forgotten at a taskwait); a taskwait on a list comes
 * after the tasks it waited for, from the tracker, and before every later
 * child. Those edges are worked out when the graph is written, leaving out
 * the ones other edges imply, and the waits that end a body or the run.
 * On several ranks each rank's tasks (its part of the program's and its
 * transfers) form a cluster "rank r"; every rank writes its part,
 * PATH.rank<r>.dot, with a comment line per transfer, and rank 0 merges
 * the parts into PATH, adding a dashed edge from each send to its
 * receive, labelled with its bytes.
 */
#include "comm/comm.h"
#include "obs/trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum node_kind { NODE_TASK, NODE_WAIT, NODE_WAIT_ON };

struct graph_node {
  uint64_t id, parent; /* the parent's id, 0 for the program's top level */
  const char *label, *file;
  int line;
  enum node_kind kind;
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

static void add_node(struct graph_node n) {
  pthread_mutex_lock(&graph.lock);
  graph.nodes = dag__grow(graph.nodes, &graph.node_cap, graph.nnodes,
                          sizeof *graph.nodes, "the task graph");
  graph.nodes[graph.nnodes++] = n;
  pthread_mutex_unlock(&graph.lock);
}

void dag__graph_node(uint64_t id, uint64_t parent, const char *label,
                     const char *file, int line) {
  add_node((struct graph_node){id, parent, label, file, line, NODE_TASK});
}

void dag__graph_wait(uint64_t parent, uint64_t id, bool on) {
  if (on)
    add_node(
        (struct graph_node){id, parent, "taskwait on", NULL, 0, NODE_WAIT_ON});
  else
    add_node((struct graph_node){id, parent, "taskwait", NULL, 0, NODE_WAIT});
}

void dag__graph_edge(uint64_t pred, uint64_t succ) {
  pthread_mutex_lock(&graph.lock);
  graph.edges = dag__grow(graph.edges, &graph.edge_cap, graph.nedges,
                          sizeof *graph.edges, "the task graph");
  graph.edges[graph.nedges][0] = pred;
  graph.edges[graph.nedges][1] = succ;
  graph.nedges++;
  pthread_mutex_unlock(&graph.lock);
}

void dag__graph_transfer(uint64_t id, bool send, int peer, uint64_t tag,
                         uint64_t bytes) {
  pthread_mutex_lock(&graph.lock);
  graph.transfers =
      dag__grow(graph.transfers, &graph.transfer_cap, graph.ntransfers,
                sizeof *graph.transfers, "the task graph");
  graph.transfers[graph.ntransfers++] =
      (struct graph_transfer){id,
                              tag,
                              bytes,
                              dag__rank,
                              send ? dag__rank : peer,
                              send ? peer : dag__rank,
                              send};
  pthread_mutex_unlock(&graph.lock);
}

/* ------------------------------------------------------------- waits */

#define NONE SIZE_MAX

/* The graph as written: the recorded edges, each once, and the waits'
 * edges (`waits` marks them); the nodes left out. */
struct derived {
  uint64_t (*edges)[2];
  bool *waits;
  size_t nedges, cap;
  bool *omitted; /* per node */
};

static void derived_edge(struct derived *d, uint64_t a, uint64_t b, bool wait) {
  if (d->nedges == d->cap) {
    size_t cap = d->cap;
    d->edges = dag__grow(d->edges, &cap, d->nedges, sizeof *d->edges,
                         "the task graph");
    d->waits = dag__grow(d->waits, &d->cap, d->nedges, sizeof *d->waits,
                         "the task graph");
  }
  d->edges[d->nedges][0] = a;
  d->edges[d->nedges][1] = b;
  d->waits[d->nedges++] = wait;
}

static int by_edge(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Node indices by id. */
struct by_id {
  uint64_t id;
  size_t at;
};

static int by_id_order(const void *a, const void *b) {
  const struct by_id *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

static size_t index_of(const struct by_id *ids, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && ids[lo].id == id ? ids[lo].at : NONE;
}

/* Node indices in order of parent, then of submission. */
static int by_parent(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  uint64_t p = graph.nodes[i].parent, q = graph.nodes[j].parent;
  if (p != q)
    return p < q ? -1 : 1;
  return (i > j) - (i < j);
}

static void *array(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p)
    dag__out_of_memory("the task graph");
  return p;
}

/* The waits' edges of one parent's children, ord[lo, hi) in submission
 * order: a taskwait comes after each child since the one before it that
 * has no successor before it (the others lead to one that has), and
 * before each later child that no edge from a child since the wait
 * reaches; a taskwait on a list before each later child likewise. Waits
 * that no child follows are left out. */
static void derive_parent(struct derived *d, const size_t *ord, size_t lo,
                          size_t hi, const size_t *first_succ,
                          const size_t *last_pred, bool *waited) {
  const struct graph_node *nodes = graph.nodes;
  while (hi > lo && nodes[ord[hi - 1]].kind != NODE_TASK)
    d->omitted[ord[--hi]] = true;
  size_t last_wait = NONE, since = lo;
  for (size_t pos = lo; pos < hi; pos++) {
    size_t i = ord[pos];
    if (nodes[i].kind == NODE_WAIT) {
      for (size_t q = since; q < pos; q++) {
        size_t j = ord[q];
        if (!waited[j] && (first_succ[j] == NONE || first_succ[j] > i))
          derived_edge(d, nodes[j].id, nodes[i].id, true);
      }
      if (since == pos && last_wait != NONE)
        derived_edge(d, nodes[last_wait].id, nodes[i].id, true);
      last_wait = i;
      since = pos + 1;
      continue;
    }
    if (last_wait != NONE &&
        (last_pred[i] == NONE || last_pred[i] < last_wait)) {
      derived_edge(d, nodes[last_wait].id, nodes[i].id, true);
      waited[last_wait] = true;
    }
    if (nodes[i].kind == NODE_WAIT_ON)
      last_wait = i;
  }
}

/* Works out the graph as written; the caller holds the lock. */
static void derive(struct derived *d) {
  size_t n = graph.nnodes;
  *d = (struct derived){NULL, NULL, 0, 0, array(n, sizeof *d->omitted)};
  qsort(graph.edges, graph.nedges, sizeof *graph.edges, by_edge);
  struct by_id *ids = array(n, sizeof *ids);
  for (size_t i = 0; i < n; i++)
    ids[i] = (struct by_id){graph.nodes[i].id, i};
  qsort(ids, n, sizeof *ids, by_id_order);
  size_t *first_succ = array(n, sizeof *first_succ);
  size_t *last_pred = array(n, sizeof *last_pred);
  for (size_t i = 0; i < n; i++)
    first_succ[i] = last_pred[i] = NONE;
  for (size_t e = 0; e < graph.nedges; e++) {
    if (e && !by_edge(graph.edges[e - 1], graph.edges[e]))
      continue; /* linked through two accesses */
    derived_edge(d, graph.edges[e][0], graph.edges[e][1], false);
    size_t a = index_of(ids, n, graph.edges[e][0]);
    size_t b = index_of(ids, n, graph.edges[e][1]);
    if (a == NONE || b == NONE)
      continue;
    if (first_succ[a] == NONE || b < first_succ[a])
      first_succ[a] = b;
    if (last_pred[b] == NONE || a > last_pred[b])
      last_pred[b] = a;
  }
  size_t *ord = array(n, sizeof *ord);
  bool *waited = array(n, sizeof *waited);
  for (size_t i = 0; i < n; i++)
    ord[i] = i;
  qsort(ord, n, sizeof *ord, by_parent);
  for (size_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo + 1;
         hi < n && graph.nodes[ord[hi]].parent == graph.nodes[ord[lo]].parent;
         hi++)
      ;
    derive_parent(d, ord, lo, hi, first_succ, last_pred, waited);
  }
  /* Edges of the nodes left out go with them. */
  size_t kept = 0;
  for (size_t e = 0; e < d->nedges; e++) {
    size_t a = index_of(ids, n, d->edges[e][0]);
    size_t b = index_of(ids, n, d->edges[e][1]);
    if ((a != NONE && d->omitted[a]) || (b != NONE && d->omitted[b]))
      continue;
    d->edges[kept][0] = d->edges[e][0];
    d->edges[kept][1] = d->edges[e][1];
    d->waits[kept++] = d->waits[e];
  }
  d->nedges = kept;
  free(ids);
  free(first_succ);
  free(last_pred);
  free(ord);
  free(waited);
}

static void derived_release(struct derived *d) {
  free(d->edges);
  free(d->waits);
  free(d->omitted);
}

/* ----------------------------------------------------------- writing */

/* "t5" on one rank, "r1_t5" on several. */
static void put_node_name(FILE *f, uint64_t id) {
  if (dag__nranks > 1)
    fprintf(f, "r%d_", dag__rank);
  fprintf(f, "t%" PRIu64, id);
}

/* Taskwaits are octagons, and their edges dotted. */
static void write_part(FILE *f) {
  const char *indent = dag__nranks > 1 ? "    " : "  ";
  struct derived d;
  derive(&d);
  if (dag__nranks > 1)
    fprintf(f, "  subgraph cluster_rank%d {\n    label=\"rank %d\";\n",
            dag__rank, dag__rank);
  for (size_t i = 0; i < graph.nnodes; i++) {
    const struct graph_node *n = &graph.nodes[i];
    if (d.omitted[i])
      continue;
    fputs(indent, f);
    put_node_name(f, n->id);
    fputs(" [label=\"", f);
    dag__put_task_name(f, n->label, n->file, n->line);
    fprintf(f, "\\n#%" PRIu64 "\"%s];\n", n->id,
            n->kind == NODE_TASK ? "" : ", shape=octagon");
  }
  for (size_t i = 0; i < d.nedges; i++) {
    fputs(indent, f);
    put_node_name(f, d.edges[i][0]);
    fputs(" -> ", f);
    put_node_name(f, d.edges[i][1]);
    fputs(d.waits[i] ? " [style=dotted];\n" : ";\n", f);
  }
  derived_release(&d);
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
  struct derived d;
  derive(&d);
  fprintf(f,
          "{\"name\":\"dag_graph\",\"ph\":\"M\",\"pid\":%d,\"args\":{"
          "\"edges\":[",
          dag__rank);
  for (size_t i = 0; i < d.nedges; i++)
    fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", d.edges[i][0],
            d.edges[i][1]);
  /* The taskwaits (nodes of no time), and the parent of each nested task
   * (its successors come after its children too). */
  const char *sep = "";
  fputs("],\"waits\":[", f);
  for (size_t i = 0; i < graph.nnodes; i++)
    if (graph.nodes[i].kind != NODE_TASK && !d.omitted[i]) {
      fprintf(f, "%s%" PRIu64, sep, graph.nodes[i].id);
      sep = ",";
    }
  sep = "";
  fputs("],\"parents\":[", f);
  for (size_t i = 0; i < graph.nnodes; i++)
    if (graph.nodes[i].parent && !d.omitted[i]) {
      fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", sep, graph.nodes[i].id,
              graph.nodes[i].parent);
      sep = ",";
    }
  derived_release(&d);
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
