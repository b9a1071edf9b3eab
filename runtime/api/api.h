/* api.h — the layer of the public calls (api/): each call is checked once
 * here, into the regions the layers below take, then handed to the
 * rank-uniform planner (several ranks, top-level tasks) or straight to the
 * device layer and the local core. Start-up is init.c's.
 */
#ifndef DAG_API_H
#define DAG_API_H

#include "comm/comm.h"
#include "core/core.h"
#include "device/device.h"

/* ------------------------------------------------------------- init.c */

/* Starts the runtime if it is not running. Returns 0 or a DAG_E* code. */
int dag__ensure_started(void);

/* err, which dag__ensure_started returned, for a call that needs the
 * runtime. After dag_finalize, a user error naming the task (when not NULL)
 * or the call; when the start failed, quietly: the start said why, and
 * dag_last_error() gives it. */
int dag__not_running(int err, const struct dag_task_info *task,
                     const char *call);
/* Whether the runtime runs (started, not finalized). */
bool dag__started(void);

/* The runtime's life moves one way. */
enum run_state { RUN_NOT_STARTED, RUN_RUNNING, RUN_FINALIZED };
enum run_state dag__run_state(void);

/* Whether a call goes through the rank-uniform planner: several ranks, and
 * the caller is the program (children of a task run where it runs). */
static inline bool dag__planned(void) {
  return dag__nranks > 1 && dag__current_task() == &dag__root_task;
}

/* ---------------------------------------------------------- backend.c */

/* The transport for this run: the simulation when DAG_SIMULATE_RANKS is
 * set; MPI when libdag was built with it and the program runs under MPI;
 * else dag__comm_self. */
const struct comm_ops *dag__comm_backend(void);
/* The space of each device kind, indexed by kind (NULL where this libdag
 * was built without it): what the device layer opens devices with. */
const struct space_ops *const *dag__space_backends_by_kind(void);

/* --------------------------------------------------------- validate.c */

/* Accesses validated into regions, on the stack for the usual few. */
#define ACCESSES_ON_STACK 16

struct validated {
  struct region regs_stack[ACCESSES_ON_STACK];
  enum dag_mode modes_stack[ACCESSES_ON_STACK];
  struct region *regs;
  enum dag_mode *modes;
  long kept;         /* regions kept (empty ones left out), or a DAG_E* code */
  size_t reductions; /* of them, DAG_REDUCTION accesses; and the flag below */
};

/* In `reductions`: under DAG_CHECK_ITEMS, an empty access was left out, so
 * that the items of the task's info no longer match its regions one to one.
 * The usual path's one test sends such a task to dag__reduce_submit. */
#define VALIDATED_ITEMS_SKIPPED ((size_t)1 << 62)

/* Validates the n accesses acc of the task `info` into v, leaving out empty
 * regions; a mistake is reported with a message naming the task and the
 * access (v->kept is then the DAG_E* code). */
void dag__validate(struct validated *v, const struct dag_task_info *info,
                   const struct dag_access *acc, size_t n);
void dag__validated_release(struct validated *v);

/* ----------------------------------------------------------- submit.c */

/* Submits a validated top-level task or child, through the planner when
 * dag__planned(). */
void dag__submit_regions(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct region *regs, const enum dag_mode *modes,
                         size_t n);

/* ----------------------------------------------------------- reduce.c */

/* Reduction groups open among top-level tasks, plus task bodies' scopes
 * of groups open on every thread: atomic so that every submitter may look
 * at it first, before the dearer question of which thread it is and which
 * groups are its own (a thread-local look cost tiny tasks run inline 70%
 * more, bench/overhead c). */
extern _Atomic size_t dag__reductions_open;

/* Submits a task with DAG_REDUCTION accesses (validated): each works on
 * a private copy of its item; or, under DAG_CHECK_ITEMS, one whose
 * validation left an empty access out (VALIDATED_ITEMS_SKIPPED). Returns 0
 * or DAG_EINVAL. */
int dag__reduce_submit(const struct dag_task_info *info, dag_task_fn body,
                       const void *args, size_t args_size,
                       const struct region *regs, const enum dag_mode *modes,
                       size_t n);
/* The calls below act on the groups among the calling context's children
 * (top-level tasks, or the children of the body that calls). */

/* Whether some are open. */
bool dag__reduce_scope_open(void);
/* Ends the groups that an access of acc touches other than as the same
 * reduction: their tasks combine into the item before the access. */
void dag__reduce_end_touched(const struct dag_access *acc, size_t n);
/* Ends the groups whose items overlap regs (taskwait on, dag_free). */
void dag__reduce_end_overlapping(const struct region *regs, size_t n);
/* Ends every group (taskwait, dag_finalize; for a body, its return). */
void dag__reduce_end_all(void);
/* Forgets the groups and their memory (dag_finalize: freed with every
 * allocation). */
void dag__reduce_release(void);

/* Whether the calling context may have reduction groups to end. */
static inline bool dag__reductions_to_end(void) {
  if (likely(
          !atomic_load_explicit(&dag__reductions_open, memory_order_relaxed)))
    return false;
  return dag__reduce_scope_open();
}

#endif /* DAG_API_H */
