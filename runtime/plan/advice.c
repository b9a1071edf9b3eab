/* advice.c — the traffic advisor: a run that moves far more data between
 * ranks than its tasks need says so, once per cause, in the program's
 * words: the array (its dag_alloc call, or the item that named replicated
 * memory), the task and its pragma line, and what to change.
 *
 * The planner tells it, from its slow paths only, of each transfer that
 * moved more than the access behind it needed (planner.h, enum
 * advice_cause). Notes add up per cause and access (the same pragma item,
 * whichever arrays it names); an entry that crosses its threshold is said at
 * DAG_LOG=info when it does, and every such entry at the end of the run as
 * a warning. Every rank plans every transfer, so every rank holds the same
 * table, and rank 0 alone speaks. Everything here runs on the thread that
 * submits top-level tasks.
 */
#include "plan/planner.h"

#include <stdio.h>
#include <string.h>

/* Below this, moving data is not worth a word, however wasteful. */
#define ADVICE_MIN_BYTES ((uint64_t)1 << 20)
/* Whole blocks for items that need a quarter of them or less. */
#define ADVICE_RATIO 4
/* Distinct causes kept; notes of others are counted but not named. */
#define ADVICE_MOST 64
/* Arrays an access is said to name; a stencil's item names two. */
#define ADVICE_ARRAYS 3

struct advice {
  enum advice_cause cause;
  struct task_site site;          /* the access, at its first note */
  const struct allocation *alloc; /* the first array, NULL: replicated */
  const struct allocation *more[ADVICE_ARRAYS - 1]; /* others it named */
  struct region block, region; /* of the first note, to describe them */
  uint64_t moved, needed;
  enum dag_mode mode; /* of the first note's access */
  int rank;           /* ADVICE_REPLICATED: the first writer's */
  bool several;       /* ADVICE_REPLICATED: written on several ranks */
  bool crossed;       /* its threshold, so said */
};

/* The causes and accesses noted; past ADVICE_MOST of them (a program of
 * many pragmas, each wasteful) the others go unsaid. */
static struct advice table[ADVICE_MOST];
static size_t nadvice;

static bool same_site(const struct task_site *a, const struct task_site *b) {
  return a->line == b->line && a->file == b->file && a->label == b->label &&
         a->item == b->item;
}

static struct advice *entry_of(const struct task_site *site,
                               const struct advice_note *n) {
  for (size_t i = 0; i < nadvice; i++)
    if (table[i].cause == n->cause && same_site(&table[i].site, site))
      return &table[i];
  if (nadvice == ADVICE_MOST)
    return NULL;
  struct advice *e = &table[nadvice++];
  *e = (struct advice){.cause = n->cause,
                       .site = *site,
                       .alloc = n->a,
                       .block = *n->block,
                       .region = *n->region,
                       .mode = n->mode,
                       .rank = n->rank};
  return e;
}

/* Whether entry e moved far more than its accesses need. */
static bool crosses(const struct advice *e) {
  switch (e->cause) {
  case ADVICE_WHOLE_BLOCK:
  case ADVICE_PART_LIMIT:
    return e->moved >= ADVICE_MIN_BYTES && e->moved >= ADVICE_RATIO * e->needed;
  case ADVICE_REPLICATED:
    return e->moved >= ADVICE_MIN_BYTES && e->several;
  case ADVICE_CYCLIC_HALO: /* needed: what the runs would move */
    return e->moved - e->needed >= ADVICE_MIN_BYTES &&
           2 * e->needed <= e->moved;
  case ADVICE_CAUSES:
    break;
  }
  return false;
}

/* Whether this process says what the advisor found: rank 0 of a run, or
 * the one process of a simulated run. */
static bool speaks(void) { return dag__rank == 0 || dag__simulating(); }

static double mib(uint64_t bytes) { return (double)bytes / 1048576.0; }

/* "task 'sweep' (p2p.c:88), item 'A[i:b][j:b]'". */
static void name_access(char *buf, size_t size, const struct task_site *s) {
  char task[300];
  dag__task_where(task, sizeof task, s->label, s->file, s->line);
  if (s->item)
    snprintf(buf, size, "%s, item '%s'", task, s->item);
  else
    snprintf(buf, size, "%s", task);
}

/* "12 rows of 96 bytes, 1152 bytes apart", "800 bytes". */
static void name_shape(char *buf, size_t size, const struct region *r) {
  if (r->ndims == 1)
    snprintf(buf, size, "%zu rows of %zu bytes", r->dim[0].count, r->span);
  else
    snprintf(buf, size, "%zu bytes", dag__region_bytes(r));
}

/* The grid of ranks for bi x bj blocks: a row or a column of ranks when
 * the blocks form one, else the squarest. */
static void grid_for(size_t bi, size_t bj, int *p, int *q) {
  if (bi == 1) {
    *p = 1;
    *q = dag__nranks;
  } else if (bj == 1) {
    *p = dag__nranks;
    *q = 1;
  } else {
    int best = 1;
    for (int i = 1; i * i <= dag__nranks; i++)
      if (dag__nranks % i == 0)
        best = i;
    *p = best;
    *q = dag__nranks / best;
  }
}

/* A distribution whose blocks have the shape of access r of allocation a,
 * as the call that makes it. */
static void suggest_dist(char *buf, size_t size, const struct allocation *a,
                         const struct region *r) {
  size_t elem = a->dist.kind == DAG_DIST_OWNER ? 1 : a->dist.elem;
  if (r->ndims == 1 && r->dim[0].stride % elem == 0 && r->span % elem == 0) {
    size_t ld = r->dim[0].stride / elem, mb = r->dim[0].count,
           nb = r->span / elem;
    size_t nbi = dag__ceil_div(dag__ceil_div(a->bytes, elem * ld), mb);
    int p, q;
    grid_for(nbi, dag__ceil_div(ld, nb), &p, &q);
    snprintf(buf, size, "dag_dist_block_2d(%zu, %zu, %zu, %zu, %d, %d)", elem,
             ld, mb, nb, p, q);
  } else if (r->ndims == 0 && r->span % elem == 0) {
    snprintf(buf, size, "dag_dist_block(%zu, %zu)", elem, r->span / elem);
  } else {
    snprintf(buf, size, "a distribution whose blocks are the items");
  }
}

static const char *const dist_names[] = {
    [DAG_DIST_BLOCK] = "dag_dist_block",
    [DAG_DIST_BLOCK_CYCLIC] = "dag_dist_block_cyclic",
    [DAG_DIST_BLOCK_CYCLIC_2D] = "dag_dist_block_cyclic_2d",
    [DAG_DIST_BLOCK_2D] = "dag_dist_block_2d",
    [DAG_DIST_OWNER] = "dag_dist_owner"};

/* The arrays of entry e: "dag_alloc memory of 800 bytes allocated at
 * a.c:12 (and at a.c:13)". */
static void name_arrays(char *buf, size_t size, const struct advice *e) {
  dag__dist_name(buf, size, e->alloc);
  for (size_t i = 0; i < ADVICE_ARRAYS - 1 && e->more[i]; i++) {
    size_t used = strlen(buf);
    const struct allocation *a = e->more[i];
    if (a->file)
      snprintf(buf + used, size - used, "%s at %s:%d", i ? "," : " (and",
               a->file, a->line);
    else
      snprintf(buf + used, size - used, "%s at %p", i ? "," : " (and",
               (void *)a->base);
  }
  if (e->more[0]) {
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, ")");
  }
}

/* "dag_dist_block_cyclic(8, 1000)", the call that made a's distribution. */
static void name_dist(char *buf, size_t size, const struct allocation *a) {
  const struct dag_dist *d = &a->dist;
  if (dag__dist_is_2d(d))
    snprintf(buf, size, "%s(%zu, %zu, %zu, %zu, %d, %d)", dist_names[d->kind],
             d->elem, d->ld, d->mb, d->nb, d->p, d->q);
  else if (d->kind == DAG_DIST_OWNER)
    snprintf(buf, size, "dag_dist_owner(%zu, ...)", d->block);
  else
    snprintf(buf, size, "%s(%zu, %zu)", dist_names[d->kind], d->elem, d->block);
}

/* The message for entry e, without the prefix. */
static void describe(char *buf, size_t size, const struct advice *e) {
  char access[700], memory[300], dist[160], shape[100], block[100], better[160];
  name_access(access, sizeof access, &e->site);
  if (e->alloc) {
    name_arrays(memory, sizeof memory, e);
    name_dist(dist, sizeof dist, e->alloc);
  }
  name_shape(shape, sizeof shape, &e->region);
  name_shape(block, sizeof block, &e->block);
  switch (e->cause) {
  case ADVICE_WHOLE_BLOCK:
    suggest_dist(better, sizeof better, e->alloc, &e->region);
    snprintf(buf, size,
             "%.1f MiB moved between ranks where the items needed %.1f MiB: "
             "%s covers part of each block of %s that it touches (%s, "
             "blocks of %s from %s), and a block %s moves whole; make the "
             "blocks the shape of the items, as %s does, or the items whole "
             "blocks",
             mib(e->moved), mib(e->needed), access, memory, shape, block, dist,
             e->mode == DAG_IN ? "read in such a shape" : "written in part",
             better);
    break;
  case ADVICE_PART_LIMIT:
    snprintf(buf, size,
             "%.1f MiB moved between ranks where the items needed %.1f MiB: "
             "%s reads parts of blocks of %s (blocks of %s from %s) that "
             "already keep %d parts each, the most a block keeps, so those "
             "blocks moved whole; read fewer, larger parts (whole rows or "
             "tiles), or make the blocks the shape of the reads",
             mib(e->moved), mib(e->needed), access, memory, block, dist,
             PART_COPIES_MOST);
    break;
  case ADVICE_REPLICATED:
    snprintf(buf, size,
             "%.1f MiB moved between ranks to bring replicated memory back "
             "to every rank at taskwaits: %s writes memory that is not from "
             "dag_alloc (%s at its first write) on several ranks, and each "
             "taskwait sends what a rank wrote to every other; allocate the "
             "array with dag_alloc (dag_dist_block, blocks of what a task "
             "writes) so that it stays where it is written, and bring it "
             "to every rank only where the program reads it, with taskwait "
             "on(...)",
             mib(e->moved), access, shape);
    break;
  case ADVICE_CYCLIC_HALO: {
    struct dag_dist runs = e->alloc->dist;
    runs.kind =
        runs.kind == DAG_DIST_BLOCK_CYCLIC ? DAG_DIST_BLOCK : DAG_DIST_BLOCK_2D;
    struct allocation as_runs = *e->alloc;
    as_runs.dist = runs;
    name_dist(better, sizeof better, &as_runs);
    snprintf(buf, size,
             "%.1f MiB moved between ranks for halos: %s reads the edges of "
             "neighbouring blocks of %s, which %s deals to the ranks in "
             "turn, so that every neighbour lives on another rank; %s gives "
             "each rank a run of neighbouring blocks, and these reads would "
             "move %.1f MiB",
             mib(e->moved), access, memory, dist, better, mib(e->needed));
    break;
  }
  case ADVICE_CAUSES:
    buf[0] = '\0';
  }
}

void dag__advice_note(const struct task_site *site,
                      const struct advice_note *n) {
  struct advice *e = entry_of(site, n);
  if (!e)
    return;
  for (size_t i = 0; n->a != e->alloc && i < ADVICE_ARRAYS - 1; i++)
    if (!e->more[i] || e->more[i] == n->a) {
      e->more[i] = n->a;
      break;
    }
  e->moved += n->moved;
  e->needed += n->needed;
  if (n->rank >= 0 && n->rank != e->rank)
    e->several = true;
  if (!e->crossed && crosses(e)) {
    e->crossed = true;
    if (speaks() && dag__log_wanted(DAG_LOG_INFO)) {
      char what[2000];
      describe(what, sizeof what, e);
      dag__log(DAG_LOG_INFO, "%s (so far)", what);
    }
  }
}

void dag__advice_report(void) {
  if (!speaks())
    return;
  for (size_t i = 0; i < nadvice; i++)
    if (table[i].crossed) {
      char what[2000];
      describe(what, sizeof what, &table[i]);
      dag__log(DAG_LOG_WARN, "%s", what);
    }
}

void dag__advice_release(void) { nadvice = 0; }
