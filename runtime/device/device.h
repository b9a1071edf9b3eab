/* device.h — device tasks, and the coherence of data between the host and
 * the devices of this rank (device/), as the layers above see it. The layer
 * sits between the planner and the core: every task that runs on this rank
 * enters the core through dag__local_submit, which, once a device is in
 * use, wraps it so that its data is valid where it runs before it starts
 * (docs/gpu.md).
 */
#ifndef DAG_DEVICE_H
#define DAG_DEVICE_H

#include "core/core.h"

struct space_ops; /* mem/space.h */
struct space;

/* Whether a device is in use: set, once, by the first task with a device
 * variant on a rank that has a device. Until then the layer costs one test
 * per task. */
extern atomic_bool dag__devices_on;

/* Finds and opens the devices DAG_DEVICES selects, once; later calls
 * return at once. True if any device is open. */
bool dag__devices_discover(void);

/* At start-up: `spaces` (indexed by device kind, NULL where not built;
 * start-up's choice, api/backend.c) are what devices open with, and
 * `stand_in` what DAG_DEVICES's `emul` entries open with. When
 * DAG_DEVICES names devices, opens them now, and returns 0 if each entry
 * gave a device, else DAG_ENOSYS with a message naming the entry and why
 * (no library: the paths tried and the loader's words; no driver; no
 * device). A device asked for by name is used, never silently replaced by
 * the CPU. */
int dag__devices_start(const struct space_ops *const *spaces,
                       const struct space_ops *stand_in);

/* Timed mode: the space a device model times (struct space, mem/space.h),
 * once DAG_DEVICES's devices are open; NULL when none is. */
const struct space *dag__devices_timed_space(void);

/* dag_device_streams: the queues of bodies of the open devices of `kind`
 * (opened now if need be), the first max into out; returns how many. */
int dag__devices_streams(enum dag_device kind, struct dag_stream *out, int max);

/* Whether a body for `device` can run on this rank (CPU: always). */
bool dag__devices_can_run(enum dag_device device);

void dag__devices_submit(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct region *regs, const enum dag_mode *modes,
                         size_t n, unsigned flags);

/* A flag of dag__local_submit for the planner's sends: the body reads its
 * one region where it lies, through dag__devices_direct_begin. When GPU
 * data may travel directly (dag__comm_gpu_direct) and one device holds all
 * of it, it is not copied back to the host first. */
#define DEVICES_READ_IN_PLACE 0x10000u

/* Submits a task that runs on this rank (dag__core_submit's arguments).
 * body is the CPU body chosen; with devices in use, the layer picks among
 * the task's variants instead, and runs it where its data will be. */
static inline void
dag__local_submit(const struct dag_task_info *info, dag_task_fn body,
                  const void *args, size_t args_size, const struct region *regs,
                  const enum dag_mode *modes, size_t n, unsigned flags) {
  if (likely(!atomic_load_explicit(&dag__devices_on, memory_order_relaxed)))
    dag__core_submit(info, body, args, args_size, regs, modes, n,
                     flags & ~DEVICES_READ_IN_PLACE);
  else
    dag__devices_submit(info, body, args, args_size, regs, modes, n, flags);
}

/* In the body of a task submitted with DEVICES_READ_IN_PLACE: if its region
 * r was left on a device, r becomes the device's copy (the same layout at
 * device addresses), held there until dag__devices_direct_end(the value
 * returned), and the value is not NULL; else r is unchanged (the host's
 * copy is valid) and the value is NULL. */
void *dag__devices_direct_begin(struct region *r);
/* Lets the device memory of a direct send go (any thread). */
void dag__devices_direct_end(void *pinned);

/* After a wait: makes every byte of regs (n regions; all data when regs is
 * NULL) that a device wrote valid in host memory again, and the host its
 * only holder (the program may now write it directly). */
void dag__devices_flush(const struct region *regs, size_t n);

/* After a taskwait: what the waited tasks wrote on devices comes back to
 * the host. For the program, all data; inside a task, the task's own
 * regions (its children's data lies in them), as they run concurrently
 * with tasks that are not its descendants. */
void dag__devices_flush_waited(void);

/* dag_device_ptr: the device address of `host` in the running device
 * body's regions (NULL if in none), or `host` outside device bodies. */
void *dag__device_ptr(const void *host);

/* Writes the devices' DAG_STATS lines, waits for and closes the devices;
 * at finalize, after the last wait. */
void dag__devices_stop(void);

#endif /* DAG_DEVICE_H */
