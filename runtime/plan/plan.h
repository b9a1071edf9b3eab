/* plan.h — the rank-uniform planner as the public calls see it (plan/):
 * with several ranks, every top-level task goes through it on every rank.
 */
#ifndef DAG_PLAN_H
#define DAG_PLAN_H

#include "base.h"

/* Plans a top-level task on every rank: placement, transfers, bookkeeping;
 * submits it to the local core on the rank that runs it. regs and modes
 * are its accesses acc (n as written), validated: `kept` of them, the empty
 * ones left out; acc may be NULL (then n == kept). */
void dag__plan_submit(const struct dag_task_info *info, dag_task_fn body,
                      const void *args, size_t args_size,
                      const struct dag_access *acc, size_t n,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t kept);
/* dag__plan_submit for a task without accesses. */
void dag__plan_submit_plain(const struct dag_task_info *info, dag_task_fn body,
                            const void *args, size_t args_size);
/* dag__plan_submit for a task whose accesses (acc as written) were all
 * seen and validated before: planned without validating them again. False
 * if one was not, and nothing is done. */
bool dag__plan_submit_known(const struct dag_task_info *info, dag_task_fn body,
                            const void *args, size_t args_size,
                            const struct dag_access *acc, size_t n);
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
/* The messages this rank has planned to send and to receive. */
void dag__plan_messages(uint64_t *sent_messages, uint64_t *received_messages);
/* DAG_STATS: this rank's share of the tasks and of the messages. */
void dag__plan_write_stats(void);
void dag__plan_release(void);

#endif /* DAG_PLAN_H */
