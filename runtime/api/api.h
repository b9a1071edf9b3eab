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
#include "plan/plan.h"
#include "reduce/reduce.h"

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

/* ----------------------------------------------------------- memory.c */

/* 0 when called from the program; else DAG_EINVAL with a message that
 * `call` belongs in the program, not inside a task. */
int dag__outside_tasks(const char *call);

/* --------------------------------------------------------- register.c */

/* dag_alloc memory that this rank owns is registered with the devices
 * (docs/gpu.md), and unregistered before it is freed. */
struct allocation;
void dag__register_allocation(const struct allocation *a);
void dag__unregister_allocation(const struct allocation *a);

/* ---------------------------------------------------------- backend.c */

/* The transport for this run: the simulation when DAG_SIMULATE_RANKS is
 * set; MPI when libdag was built with it and the program runs under MPI;
 * else dag__comm_self. */
const struct comm_ops *dag__comm_backend(void);
/* The space of each device kind, indexed by kind (NULL where this libdag
 * was built without it): what the device layer opens devices with. */
const struct space_ops *const *dag__space_backends_by_kind(void);
/* The space every libdag has, which stands in for a GPU where there is
 * none (DAG_DEVICES's `emul`). */
const struct space_ops *dag__space_stand_in(void);

/* --------------------------------------------------------- validate.c */

/* Validates the n accesses acc of a submitted task (info, its chosen CPU
 * body and arguments checked) and hands it down: to the reductions when
 * it has some or groups are open, else to the planner (dag__planned()) or
 * this rank's device layer and core. Returns 0 or the DAG_E* code of a
 * mistake, reported with a message naming the task and the access. */
int dag__validate_submit(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct dag_access *acc, size_t n);

/* Accesses validated into regions, on the stack for the usual few. */
#define ACCESSES_ON_STACK 16

struct validated {
  struct region regs_stack[ACCESSES_ON_STACK];
  enum dag_mode modes_stack[ACCESSES_ON_STACK];
  struct region *regs;
  enum dag_mode *modes;
  long kept;         /* regions kept (empty ones left out), or a DAG_E* code */
  size_t reductions; /* of them, DAG_REDUCTION accesses */
};

/* Validates the n accesses acc of `info` into v, leaving out empty
 * regions; a mistake is reported as dag__validate_submit does (v->kept is
 * then the DAG_E* code). */
void dag__validate(struct validated *v, const struct dag_task_info *info,
                   const struct dag_access *acc, size_t n);
void dag__validated_release(struct validated *v);

/* The cache of the accesses of top-level tasks of several ranks, as
 * written, and how they validated: whether it is true for the
 * allocations of now (if not it is emptied, and is for what is remembered
 * from now on); how `a` validated, if known; remembering it (valid and not
 * empty); forgetting all (dag_finalize). */
bool dag__access_cache_valid(void);
bool dag__access_known(const struct dag_access *a, struct region *region,
                       struct resolved *where);
void dag__access_remember(const struct dag_access *a,
                          const struct region *region,
                          const struct resolved *where);
void dag__access_cache_forget(void);

#endif /* DAG_API_H */
