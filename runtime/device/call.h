/* call.h — the call record (call.c): the argument block of a task that
 * the device layer wraps, and the wrapped bodies that run it on the host
 * (run_host.c) or on a device (run_device.c).
 */
#ifndef DAG_DEVICE_CALL_H
#define DAG_DEVICE_CALL_H

#include "device/devices.h"

/* The argument block of a wrapped task: this header, the task's regions
 * and modes, then the body's own arguments (16-byte aligned). */
struct call {
  dag_task_fn fn;        /* the body chosen */
  struct device *device; /* where it runs; NULL: the host */
  const char *label, *file;
  int line;
  uint32_t n, args_size;
  uint32_t npointers;          /* runs of pointer arguments (dag_pointers) */
  size_t bytes;                /* of its regions: the size for its history */
  double work;                 /* declared (dag_task_info.work); < 0: none */
  uint32_t nvariants;          /* with a choice: the variants (choose.c) */
  int64_t expected_ns;         /* ... the chosen one's expected time */
  int64_t expected_copy_ns;    /* ... and its copies' */
  int priority;                /* the task's: above 0, its body is urgent */
  struct task *task;           /* a device task, while its body is queued */
  uint64_t queued_ns;          /* ... since when */
  int worker;                  /* ... by whom (the body runs on its thread) */
  _Atomic uint64_t arrived_ns; /* ... and when its last copy in finished */
  bool read_in_place;          /* DEVICES_READ_IN_PLACE, and direct is on */
  struct direct_pin *direct;   /* a send's region left on a device */
};

struct region *dag__call_regions(struct call *c);
enum dag_mode *dag__call_modes(struct call *c);
void *dag__call_args(struct call *c);
/* Where each region is on the device: device address - host address. */
intptr_t *dag__call_shifts(struct call *c);
struct dag_pointers *dag__call_pointers(struct call *c);

/* A variant a task may run as: its body and the kind it is written for. */
struct call_variant {
  dag_task_fn fn;
  enum dag_device kind;
};
struct call_variant *dag__call_variants(struct call *c);

/* Bytes of the block of a task with n regions, args_size bytes of
 * arguments, npointers runs of pointers in them and nvariants variants
 * to choose among. */
size_t dag__call_size(size_t n, size_t args_size, size_t npointers,
                      size_t nvariants);

/* The wrapped bodies: of a host task, whose arguments are the call; of a
 * device task, whose arguments are the call's address (freed when the
 * device is done). */
void dag__run_on_host(void *call);
void dag__run_on_device(void *call_address);
/* The wrapped body of a task with a choice, whose arguments are the call's
 * address: chooses where it runs, now that it is ready, and runs it so. */
void dag__run_chosen(void *call_address);

/* The call of a task whose body is one of the wrapped bodies above, or
 * NULL. */
struct call *dag__call_of(dag_task_fn body, void *args);
/* Ends the run: queued work failed (`failure` says what and why) for
 * `task` (NULL: for a wait or an eviction). */
noreturn void dag__work_failed(const struct dag_task_info *task,
                               const char *failure);
/* The task a call runs, for messages. */
struct dag_task_info dag__call_info(const struct call *c);
/* Timed mode: the seconds c's work takes on its device (on_device) or on
 * one CPU core; ends the run with a message when the model cannot say. */
double dag__call_seconds(const struct call *c, bool on_device);

static inline bool dag__mode_writes(enum dag_mode m) { return m != DAG_IN; }

#endif /* DAG_DEVICE_CALL_H */
