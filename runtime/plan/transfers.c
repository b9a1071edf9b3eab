/* transfers.c — the planner's transfers (planner.h): a local task for
 * this rank's side of each (a send that reads the region, a receive that
 * writes it), tagged by per-pair sequences; who holds a unit, the parts of
 * a block a rank received, and making a unit or a part valid on a rank or
 * on every rank.
 *
 * Tags come from per-pair sequences: every rank plans the same transfers
 * in the same order, so the n-th transfer from A to B has the same tag on
 * both sides and matching never depends on timing.
 *
 * Everything here runs on the one thread that submits top-level tasks.
 */
#include "plan/planner.h"

#include <stdlib.h>
#include <string.h>

struct transfer {
  struct region region;
  int peer;
  uint64_t tag;
};

static uint64_t *sent, *received; /* per peer: transfers so far */

/* For DAG_STATS: what this rank sent and received. */
static struct { uint64_t sends, recvs, sent_bytes, received_bytes; } stats;

static void transfer_done(void *task) { dag__task_release(task); }

/* A send straight from a device's memory, which stays until it is done. */
struct direct_send {
  struct task *task;
  void *pinned;
};

static void direct_send_done(void *p) {
  struct direct_send *s = p;
  dag__devices_direct_end(s->pinned);
  dag__task_release(s->task);
  free(s);
}

static void send_body(void *p) {
  const struct transfer *x = p;
  struct region r = x->region;
  dag__core_graph_transfer(true, x->peer, x->tag, dag__region_bytes(&r));
  void *pinned = dag__devices_direct_begin(&r);
  if (!pinned) {
    dag__comm_send(&r, x->peer, x->tag, transfer_done, dag__task_hold());
    return;
  }
  struct direct_send *s = malloc(sizeof *s);
  if (!s)
    dag__out_of_memory("a send");
  *s = (struct direct_send){dag__task_hold(), pinned};
  dag__comm_send(&r, x->peer, x->tag, direct_send_done, s);
}

/* A receive under DAG_CHECK_ITEMS: the guard leaves its memory alone
 * while it is in flight (MPI writes it from another thread, or with a
 * system call that a protected page would fail). */
struct watched_recv {
  struct task *task;
  struct region region;
};

static void watched_recv_done(void *p) {
  struct watched_recv *w = p;
  dag__guard_transfer_end(&w->region);
  dag__task_release(w->task);
  free(w);
}

static __attribute__((noinline)) void watched_recv(const struct transfer *x) {
  struct watched_recv *w = malloc(sizeof *w);
  if (!w)
    dag__out_of_memory("a receive");
  *w = (struct watched_recv){dag__task_hold(), x->region};
  dag__guard_transfer_begin(&w->region);
  dag__comm_recv(&w->region, x->peer, x->tag, watched_recv_done, w);
}

static void recv_body(void *p) {
  const struct transfer *x = p;
  dag__core_graph_transfer(false, x->peer, x->tag,
                           dag__region_bytes(&x->region));
  if (unlikely(dag__guarding)) {
    watched_recv(x);
    return;
  }
  dag__comm_recv(&x->region, x->peer, x->tag, transfer_done, dag__task_hold());
}

void dag__plan_transfer(const struct region *r, int from, int to) {
  /* Transfers go first among ready tasks: other ranks wait for them. */
  static const struct dag_task_info send_info = {
      .fn = send_body, .label = "send", .priority = 1 << 30};
  static const struct dag_task_info recv_info = {
      .fn = recv_body, .label = "recv", .priority = 1 << 30};
  if (dag__rank != from && dag__rank != to)
    return;
  bool sending = dag__rank == from;
  int peer = sending ? to : from;
  if (sending) {
    stats.sends++;
    stats.sent_bytes += dag__region_bytes(r);
  } else {
    stats.recvs++;
    stats.received_bytes += dag__region_bytes(r);
  }
  struct transfer x = {*r, peer, sending ? sent[to]++ : received[from]++};
  enum dag_mode mode = sending ? DAG_IN : DAG_OUT;
  const struct dag_task_info *info = sending ? &send_info : &recv_info;
  dag__local_submit(info, info->fn, &x, sizeof x, r, &mode, 1,
                    CORE_NO_INLINE | (sending ? DEVICES_READ_IN_PLACE : 0));
}

int dag__unit_holder(const struct unit *u) {
  return u->home >= 0 && dag__rankset_has(&u->valid, u->home)
             ? u->home
             : dag__rankset_first(&u->valid);
}

/* Whether part copy c is held by `rank`. */
static bool held_by(const struct part_copy *c, int rank) {
  return c->rank == rank || c->rank == PART_EVERY_RANK;
}

static int by_start(const void *a, const void *b) {
  uintptr_t x = ((const struct part_copy *)a)->region.lo;
  uintptr_t y = ((const struct part_copy *)b)->region.lo;
  return (x > y) - (x < y);
}

/* Whether replicated unit u has ranks holding parts of it (see units.c). */
static inline bool holds_parts(const struct unit *u) {
  return u->parts != NULL && u->home < 0;
}

bool dag__unit_has_part(const struct unit *u, int rank,
                        const struct region *r) {
  for (size_t i = 0; u->parts && i < u->parts->n; i++)
    if (u->parts->at[i].rank == rank &&
        (!r || dag__region_covers(&u->parts->at[i].region, r)))
      return true;
  return false;
}

/* Sends rank `to` the bytes of replicated unit u that the parts it holds
 * (a merge left them, see units.c) lack: an interval each, not the whole
 * unit. Its part copies go: it holds all of u now. */
static __attribute__((noinline)) void fetch_rest(struct unit *u, int to) {
  struct part_copy few[8], *held = few;
  if (u->parts->n > 8 && !(held = malloc(u->parts->n * sizeof *held)))
    dag__out_of_memory("parts of units");
  size_t n = 0, kept = 0;
  for (size_t i = 0; i < u->parts->n; i++) {
    if (held_by(&u->parts->at[i], to))
      held[n++] = u->parts->at[i];
    if (u->parts->at[i].rank != to)
      u->parts->at[kept++] = u->parts->at[i];
  }
  u->parts->n = kept;
  qsort(held, n, sizeof *held, by_start);
  int from = dag__unit_holder(u);
  uintptr_t at = u->region.lo;
  for (size_t i = 0; i <= n; i++) {
    uintptr_t end = i < n ? held[i].region.lo : u->region.hi;
    if (end > at) {
      struct region rest = {.lo = at, .hi = end, .span = end - at};
      dag__plan_transfer(&rest, from, to);
    }
    if (i < n && held[i].region.hi > at)
      at = held[i].region.hi;
  }
  if (held != few)
    free(held);
}

/* Makes u valid on rank `to`, from its holder. A rank that neither
 * receives it nor holds it (so cannot be the holder) only notes the copy:
 * the common case on many ranks, where choosing the holder is wasted. */
void dag__unit_fetch(struct unit *u, int to) {
  if (dag__rankset_has(&u->valid, to))
    return;
  /* Ranks outside the transfer run fetch_rest too, so that the part
   * copies it drops go on every rank. */
  if (to == dag__rank || dag__rankset_has(&u->valid, dag__rank)) {
    if (likely(!holds_parts(u)))
      dag__plan_transfer(&u->region, dag__unit_holder(u), to);
    else
      fetch_rest(u, to);
  } else if (unlikely(holds_parts(u))) {
    fetch_rest(u, to);
  }
  dag__rankset_add(&u->valid, to);
}

bool dag__unit_note_part(struct unit *u, int rank, const struct region *part) {
  struct part_copies *c = u->parts;
  if (!c || c->n == c->cap) {
    size_t cap = c ? 2 * c->cap : 4;
    if (cap > PART_COPIES_MOST)
      return false;
    if (!(c = realloc(c, sizeof *c + cap * sizeof c->at[0])))
      dag__out_of_memory("parts of units");
    if (!u->parts)
      c->n = 0;
    c->cap = cap;
    u->parts = c;
  }
  c->at[c->n++] = (struct part_copy){rank, *part};
  return true;
}

/* Makes `part` of u (all of it: NULL) valid on every rank along a
 * binomial tree rooted at u's holder: in each round every rank [root, root
 * + step) holds it and sends it to the rank `step` further on, so no rank
 * sends it more than log2(ranks) times (one holder sending it to every rank
 * would be the bottleneck). A rank that received a part notes it, where u
 * has room. Returns the number of ranks that received it. */
int dag__unit_broadcast(struct unit *u, const struct region *part) {
  int n = dag__nranks, root = dag__unit_holder(u), receivers = 0;
  for (int step = 1; step < n; step *= 2)
    for (int i = 0; i < step && i + step < n; i++) {
      int to = (root + i + step) % n;
      if (dag__rankset_has(&u->valid, to) ||
          (part && dag__unit_has_part(u, to, part)))
        continue;
      dag__plan_transfer(part ? part : &u->region, (root + i) % n, to);
      receivers++;
      if (!part)
        dag__rankset_add(&u->valid, to);
      else
        dag__unit_note_part(u, to, part);
    }
  return receivers;
}

void dag__transfers_start(void) {
  sent = calloc((size_t)dag__nranks, sizeof *sent);
  received = calloc((size_t)dag__nranks, sizeof *received);
  if (!sent || !received)
    dag__out_of_memory("transfer sequences");
}

void dag__plan_messages(uint64_t *sent_messages, uint64_t *received_messages) {
  *sent_messages = stats.sends;
  *received_messages = stats.recvs;
}

void dag__transfers_write_stats(uint64_t tasks, uint64_t here) {
  dag__log(DAG_LOG_REPORT,
           "stats: rank %d of %d: ran %llu of %llu tasks; sent %llu "
           "messages (%.1f MiB), received %llu (%.1f MiB)",
           dag__rank, dag__nranks, (unsigned long long)here,
           (unsigned long long)tasks, (unsigned long long)stats.sends,
           (double)stats.sent_bytes / 1048576.0,
           (unsigned long long)stats.recvs,
           (double)stats.received_bytes / 1048576.0);
}

void dag__transfers_release(void) {
  free(sent);
  free(received);
  sent = received = NULL;
  memset(&stats, 0, sizeof stats);
}
