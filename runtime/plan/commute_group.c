/* commute_group.c — consecutive commutative tasks on the same data, placed
 * on several ranks, planned rank by rank.
 *
 * Planned one by one in submission order, such tasks on ranks 0, 1, 2, 0,
 * 1, 2, ... make the data they update hop from rank to rank once per task.
 * Their order does not matter (that is what `commutative` says), so the
 * planner gathers them and, when the group ends, plans all of one rank's
 * tasks, then all of the next one's, the ranks in the order their first
 * task came, starting from one that holds the data already: the data makes
 * at most one hop per rank. Every rank gathers and orders alike, so the
 * plan stays rank-uniform.
 *
 * A task joins the group when its commutative items are those of the
 * group's first task, the same regions in the same order, and it only reads
 * everything else, none of it overlapping those items: then any order of
 * the group's tasks computes the same. Any other task, a taskwait (also
 * with on(...)), dag_free, or GROUP_MOST tasks gathered end the group first;
 * a commutative task on other items ends it and starts the next.
 * A task that joins is recorded and placed when it comes (its uniformity
 * record, its round-robin turn), so only its planning waits.
 */
#include "plan/planner.h"

#include <stdlib.h>
#include <string.h>

/* At most this many tasks wait in a group. */
#define GROUP_MOST 4096

/* A task of the group, with copies of what its submitter handed in: its
 * info too, which dagcc makes a local of the pragma's block when the
 * pragma has priority(), if() or on(), gone by the time the group ends. */
struct member {
  struct dag_task_info info; /* variants and pointers: copies, owned */
  dag_task_fn body;
  void *args;
  size_t args_size;
  struct region *regs;
  enum dag_mode *modes;
  struct resolved *where;
  size_t n;
  int exec;
  uint64_t number; /* in submission order, for DAG_CHECK_UNIFORMITY=values */
};

static struct member *members;
size_t dag__commute_group_size; /* tasks gathered (planner.h) */
static size_t capacity;

static bool overlaps_a_commutative(const struct planned *p,
                                   const struct region *r) {
  for (size_t i = 0; i < p->n; i++)
    if (p->modes[i] == DAG_COMMUTATIVE && dag__region_overlap(r, &p->regs[i]))
      return true;
  return false;
}

/* Whether p's commutative items are the first member's, in order. */
static bool same_commutative_items(const struct planned *p) {
  const struct member *first = &members[0];
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (p->modes[i] != DAG_COMMUTATIVE)
      continue;
    while (k < first->n && first->modes[k] != DAG_COMMUTATIVE)
      k++;
    if (k == first->n || !dag__region_same(&p->regs[i], &first->regs[k]))
      return false;
    k++;
  }
  while (k < first->n && first->modes[k] != DAG_COMMUTATIVE)
    k++;
  return k == first->n;
}

/* Whether the task could be a member of a group: it updates some items
 * commutatively and only reads the rest, none of it overlapping them. Most
 * tasks write something else: the first loop says no to them. */
static bool may_be_member(const struct dag_task_info *info,
                          const struct planned *p) {
  bool commutes = false;
  for (size_t i = 0; i < p->n; i++) {
    if (p->modes[i] == DAG_COMMUTATIVE)
      commutes = true;
    else if (p->modes[i] != DAG_IN)
      return false;
  }
  if (!commutes || (info->flags & DAG_TASK_UNDEFERRED))
    return false;
  for (size_t i = 0; i < p->n; i++)
    if (p->modes[i] == DAG_IN && overlaps_a_commutative(p, &p->regs[i]))
      return false;
  return true;
}

static void *copy(const void *from, size_t bytes) {
  void *to = malloc(bytes ? bytes : 1);
  if (!to)
    dag__out_of_memory("a group of commutative tasks");
  if (bytes)
    memcpy(to, from, bytes);
  return to;
}

bool dag__commute_group_takes(const struct dag_task_info *info,
                              dag_task_fn body, const void *args,
                              size_t args_size, const struct planned *p,
                              int exec, uint64_t number) {
  if (!may_be_member(info, p))
    return false;
  if (dag__commute_group_size == GROUP_MOST ||
      (dag__commute_group_size > 0 && !same_commutative_items(p)))
    dag__commute_group_end(); /* and this task starts the next */
  if (dag__commute_group_size == capacity) {
    size_t more = capacity ? 2 * capacity : 16;
    struct member *grown = realloc(members, more * sizeof *members);
    if (!grown)
      dag__out_of_memory("a group of commutative tasks");
    members = grown;
    capacity = more;
  }
  struct dag_task_info own = *info;
  own.variants =
      copy(info->variants, (size_t)info->nvariants * sizeof *info->variants);
  own.pointers =
      copy(info->pointers, (size_t)info->npointers * sizeof *info->pointers);
  own.items = NULL; /* for messages about accesses, all said by now */
  members[dag__commute_group_size++] =
      (struct member){own,
                      body,
                      copy(args, args_size),
                      args_size,
                      copy(p->regs, p->n * sizeof *p->regs),
                      copy(p->modes, p->n * sizeof *p->modes),
                      copy(p->where, p->n * sizeof *p->where),
                      p->n,
                      exec,
                      number};
  return true;
}

static void plan_member(struct member *m) {
  dag__plan_at(&m->info, m->body, m->args, m->args_size,
               &(struct planned){m->regs, m->modes, m->where, m->n, NULL},
               m->exec, m->number);
  free((void *)m->info.variants);
  free((void *)m->info.pointers);
  free(m->args);
  free(m->regs);
  free(m->modes);
  free(m->where);
  m->exec = -1; /* planned */
}

/* Whether rank `rank` holds every commutative item of m valid. */
static bool holds_items(const struct member *m, int rank) {
  for (size_t i = 0; i < m->n; i++)
    if (m->modes[i] == DAG_COMMUTATIVE &&
        !dag__units_valid_on(m->where[i].alloc, &m->regs[i], rank))
      return false;
  return true;
}

/* Plans the tasks of the rank of members[first] (those not planned yet),
 * in submission order. */
static void plan_rank(size_t first) {
  int rank = members[first].exec;
  for (size_t i = first; i < dag__commute_group_size; i++)
    if (members[i].exec == rank)
      plan_member(&members[i]);
}

void dag__commute_group_end(void) {
  /* Rank by rank, in the order of each rank's first task, starting from
   * the first rank that holds the items already (the data then makes one
   * hop fewer); within a rank, in submission order. */
  size_t start = 0;
  while (start < dag__commute_group_size &&
         !holds_items(&members[0], members[start].exec))
    start++;
  if (start == dag__commute_group_size)
    start = 0;
  plan_rank(start);
  for (size_t first = 0; first < dag__commute_group_size; first++)
    if (members[first].exec >= 0)
      plan_rank(first);
  dag__commute_group_size = 0;
}

/* Every way out of the planner ends the group first (dag_finalize's
 * taskwait): one left here would never run. */
void dag__commute_group_release(void) {
  if (dag__commute_group_size)
    DAG_BUG("%zu commutative tasks left unplanned", dag__commute_group_size);
  free(members);
  members = NULL;
  capacity = 0;
}
