/* core.h — the local core as the layers above see it: submitting tasks
 * whose accesses are validated regions, waiting, and its start and stop.
 * Its own types and files share core/internal.h.
 */
#ifndef DAG_CORE_H
#define DAG_CORE_H

#include "base.h"
#include "obs/obs.h" /* dag__stats, tested by the layers above too */

#include <sched.h>

struct task;

/* Flags of dag__core_submit, beside DAG_TASK_UNDEFERRED from the task's
 * info. */
enum core_submit_flag {
  CORE_NO_INLINE = 0x400, /* never run by its submitter at once: its body
                             may hold it past its end (dag__task_hold) */
};

/* Submits a task on this rank: body (fn or the variant chosen for it) with
 * a copy of args, and its accesses, validated and not empty (n regions and
 * modes). From the program (a top-level task) or from a task body (a
 * child of that task). */
void dag__core_submit(const struct dag_task_info *info, dag_task_fn body,
                      const void *args, size_t args_size,
                      const struct region *regs, const enum dag_mode *modes,
                      size_t n, unsigned flags);

/* dag__core_submit of a task without accesses, whose info and arguments
 * the caller checked: a CPU body, at most DAG_CORE_PLAIN_ARGS bytes of
 * arguments, a running runtime. The path of the cheapest tasks. */
#define DAG_CORE_PLAIN_ARGS 256
int dag__core_submit_plain(const struct dag_task_info *info, dag_task_fn body,
                           const void *args, size_t args_size);

/* Waits, running tasks, until the tasks of the calling context that
 * accesses (regs[i], modes[i]) would depend on are complete (taskwait on).
 */
void dag__core_wait_on(const struct region *regs, const enum dag_mode *modes,
                       size_t n);

/* dag_taskwait on this rank: waits for the calling context's children,
 * then forgets their history. */
int dag__wait_children(void);

/* The task whose body the calling thread runs (&dag__root_task outside
 * any task). */
struct task *dag__current_task(void);
/* The implicit task of the program: parent of top-level tasks. */
extern struct task dag__root_task;

/* State a task body keeps until it returns (the api layer's reduction
 * groups of its children): inside a body, marks its task so that, when
 * the body returns, at_body_end runs with the task current (what it
 * submits are the task's children), before the task can complete. Returns
 * the task's record, which stays current until then: a task run inline,
 * on its submitter's stack, gets a pooled one (as when it defers a
 * child). Every caller passes the same function. */
struct task *dag__current_task_hooked(void (*at_body_end)(void));

/* Writes "task 'label' (file:line)" of the task whose body the calling
 * thread runs into buf; false, writing nothing, outside any task. */
bool dag__current_task_where(char *buf, size_t size);

/* Runs tasks until cond(arg) becomes false: inside a task body only its
 * descendants (see core/sched.c). With nothing to run for a while it dozes;
 * task completions wake it, and whatever else makes cond false must call
 * dag__core_nudge, or the waiter sees it up to a millisecond late. */
void dag__core_help_while(bool (*cond)(void *arg), void *arg);
void dag__core_nudge(void);

/* With DAG_GRAPH: the running task is this rank's side of a message (its
 * peer, its tag, its bytes), so the merged graph joins send to receive. */
void dag__core_graph_transfer(bool send, int peer, uint64_t tag,
                              uint64_t bytes);

/* Keeps the running task from completing when its body returns, until
 * dag__task_release: a transfer in flight, a device's work. Submit such a
 * task with CORE_NO_INLINE; one that runs inline all the same (undeferred:
 * `if(false)`) moves off its submitter's stack first. Returns the task. */
struct task *dag__task_hold(void);
/* Ends a hold; from any thread. */
void dag__task_release(struct task *t);
/* Calls fn with the body and the arguments of each task that waits for t,
 * held and not released yet, so far (a task submitted later may still come
 * to wait for it). From any thread. */
void dag__task_each_successor(struct task *t,
                              void (*fn)(dag_task_fn body, void *args,
                                         void *arg),
                              void *arg);

/* ------------------------------------------------------------ lifetime */

/* The cores of this process's cpuset (hwloc), shared among the `nparts`
 * processes of its machine when there are at least as many: how many part
 * `part` keeps. Before dag__core_start. */
int dag__core_cores(int part, int nparts);
/* The CPUs nearest PCI device `bus_id` ("0000:65:00.0"), from hwloc and
 * the kernel, that this process may use, into *cpus; false when there is
 * no such device. */
bool dag__topo_near_pci(const char *bus_id, cpu_set_t *cpus);
/* Starts task pools, tracing, the ready queues and `nworkers` workers
 * pinned to the cores kept; the calling thread becomes worker 0. Returns 0
 * or a DAG_E* code, with nothing left started. */
int dag__core_start(int nworkers);
/* From the program, outside any task, with no task left unfinished:
 * writes the DAG_STATS, DAG_TRACE and DAG_GRAPH outputs, stops the workers
 * and frees everything of the core. */
void dag__core_stop(void);

/* Number of workers, and the calling thread's (-1: not a worker). */
int dag__workers_count(void);
int dag__worker_id(void);
/* Runs fn(arg) once on every worker and returns when each has: the
 * calling thread, worker 0 (outside any task), at once; the others
 * between two tasks, woken if they sleep. */
void dag__workers_each(void (*fn)(void *arg), void *arg);

/* ------------------------------------------------------------- guard */

/* DAG_CHECK_ITEMS (core/guard.c): the body of each task is watched for
 * writes outside its items; the first stops the run with a message. The
 * calls below do nothing when it is off. */
extern bool dag__guarding;
/* dag_alloc memory [base, base + bytes), allocated at file:line (file
 * NULL: unknown), watched from now on, until dag__guard_unwatch(base)
 * just before it goes. */
void dag__guard_watch(const void *base, size_t bytes, const char *file,
                      int line);
void dag__guard_unwatch(const void *base);
/* A receive into r is about to be posted: its pages are not protected
 * until dag__guard_transfer_end(r) (from any thread, r the same region),
 * and bodies are not blamed for its bytes. Only when dag__guarding. */
void dag__guard_transfer_begin(const struct region *r);
void dag__guard_transfer_end(const struct region *r);
/* The planner: a top-level task that runs on another rank declares these
 * n regions (replicated memory among them is watched here too). */
void dag__guard_note(const struct region *regs, size_t n);
/* The planner: the next task it submits here is the program's task
 * `number` (its count, the same on every rank), as messages name it. */
void dag__guard_number(uint64_t number);

extern atomic_uint_fast64_t dag__next_task_id;

#endif /* DAG_CORE_H */
