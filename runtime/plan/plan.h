/* plan.h — the rank-uniform planner as the layers above see it (plan/):
 * with several ranks, every top-level task goes through it on every rank.
 */
#ifndef DAG_PLAN_H
#define DAG_PLAN_H

#include "comm/comm.h"
#include "core/core.h"
#include "device/device.h"

/* Whether a call goes through the rank-uniform planner: several ranks, and
 * the caller is the program (children of a task run where it runs). */
static inline bool dag__planned(void) {
  return dag__nranks > 1 && dag__current_task() == &dag__root_task;
}

/* Where an access of a top-level task lies, as the planner works it out:
 * its allocation (NULL: replicated memory), the one block of it the
 * region lies in (NULL: several, or replicated memory), and what the
 * uniformity check hashes of it (dag__uniformity_access_hash). */
struct resolved {
  const struct allocation *alloc;
  struct unit *block;
  uint64_t hash;
};

/* Plans a top-level task on every rank: placement, transfers, bookkeeping;
 * submits it to the local core on the rank that runs it. regs and modes
 * are its n accesses, validated, not empty; info's items, when it has
 * them, are these accesses' one to one. `where`, when not NULL, receives
 * where each access lies: the caller may keep it beside the access for
 * the next task that names the same accesses (validate.c's cache does),
 * as long as no allocation comes or goes (dag__dist_version). */
void dag__plan_submit(const struct dag_task_info *info, dag_task_fn body,
                      const void *args, size_t args_size,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t n, struct resolved *where);
/* dag__plan_submit for a task whose accesses' places are known: where, n
 * entries, as dag__plan_submit gave them. */
void dag__plan_submit_resolved(const struct dag_task_info *info,
                               dag_task_fn body, const void *args,
                               size_t args_size, const struct region *regs,
                               const enum dag_mode *modes,
                               const struct resolved *where, size_t n);
/* dag__plan_submit for a task without accesses. */
void dag__plan_submit_plain(const struct dag_task_info *info, dag_task_fn body,
                            const void *args, size_t args_size);
/* Submits a task whose accesses are validated: through the planner when
 * dag__planned(), else to this rank's device layer and core. */
static inline void dag__submit_validated(const struct dag_task_info *info,
                                         dag_task_fn body, const void *args,
                                         size_t args_size,
                                         const struct region *regs,
                                         const enum dag_mode *modes, size_t n) {
  if (dag__planned())
    dag__plan_submit(info, body, args, args_size, regs, modes, n, NULL);
  else
    dag__local_submit(info, body, args, args_size, regs, modes, n, 0);
}
/* The rank that a task with these accesses (validated) would run on, as
 * dag__plan_submit places it now; nothing is planned. */
int dag__plan_place(const struct dag_task_info *info, const struct region *regs,
                    const enum dag_mode *modes, size_t n);
/* taskwait of the program: flushes written data (unless !flush), checks
 * that the ranks agree, waits. */
int dag__plan_taskwait(bool flush);
/* Checks that the ranks agree on the tasks submitted so far, before a wait
 * (`where` names it in the message). */
void dag__plan_check(const char *where);
/* taskwait on: makes the regions valid on every rank, checks agreement. */
void dag__plan_collect(const struct region *regs, size_t n);
/* dag_free: the units of [base, base + bytes) are forgotten. */
void dag__plan_forget(const void *base, size_t bytes);
/* The messages this rank has planned to send and to receive (counted by
 * transfers.c). */
void dag__plan_messages(uint64_t *sent_messages, uint64_t *received_messages);
/* DAG_STATS: this rank's share of the tasks and of the messages. */
void dag__plan_write_stats(void);
void dag__plan_release(void);

#endif /* DAG_PLAN_H */
