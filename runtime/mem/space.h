/* space.h — memory spaces: the memory of a device (CUDA, HIP, or the
 * emulated device that tests use on machines without a GPU), each behind a
 * table of functions, as transports are (comm.h). The layers above call the
 * dag__space_* wrappers, never a table directly, and never include a
 * vendor's header; backend.c knows which spaces were built.
 *
 * A space has one queue, as a CUDA stream: what is queued on it (copies and
 * device bodies) runs in order, asynchronously, and each completion calls
 * its done function from dag__space_poll, on whichever thread polls.
 */
#ifndef DAG_SPACE_H
#define DAG_SPACE_H

#include "base.h"

typedef void (*dag_space_done_fn)(void *arg);

/* `rows` spans of `span` bytes, `stride` bytes apart on both sides (a
 * device copy keeps the host's layout); one span when rows is 1. */
struct space_copy {
  void *dst;
  const void *src;
  size_t span, rows, stride;
};

struct dag_space_ops {
  const char *name;
  /* Devices of this kind this process has (0: none, or no driver). */
  int (*count)(void);
  /* Opens device `index` into *state. Returns 0 or a DAG_E* code (with a
   * message). */
  int (*open)(int index, void **state);
  /* Waits for what is queued, then frees everything of the device. */
  void (*close)(void *state);
  /* Device memory, or NULL when the device is full. */
  void *(*alloc)(void *state, size_t bytes);
  void (*free)(void *state, void *p, size_t bytes);
  /* Queues a copy from host memory to the device (to_device) or back. */
  void (*copy)(void *state, bool to_device, const struct space_copy *c,
               dag_space_done_fn done, void *arg);
  /* Queues a device body: fn(args) runs on the device's side and queues
   * its work there; done once that work is complete. */
  void (*launch)(void *state, dag_task_fn fn, void *args,
                 dag_space_done_fn done, void *arg);
  /* Calls the done functions of what completed; true if any. */
  bool (*poll)(void *state);
};

/* One open device. */
struct space {
  const struct dag_space_ops *ops;
  void *state;
  int index;
};

/* The emulated device (space_emul.c): separate memory, its own thread,
 * asynchronous copies, a cap on its memory (DAG_EMUL_MEM, bytes with an
 * optional K, M or G; default 256M) and a delay before each operation
 * (DAG_EMUL_DELAY_US, default 0), both read when it opens. */
extern const struct dag_space_ops dag__space_emul;

/* A CUDA or HIP device (space_gpu.c, built only where the toolkit is
 * found): memory from cudaMalloc (hipMalloc), the queue a non-blocking
 * stream, a device body run on the launching thread with its stream given
 * by dag_cuda_stream() (dag_hip_stream()). Only backend.c names these. */
extern const struct dag_space_ops dag__space_cuda;
extern const struct dag_space_ops dag__space_hip;

/* Opens device `index` of `ops` into s. Returns 0 or a DAG_E* code. */
int dag__space_open(struct space *s, const struct dag_space_ops *ops,
                    int index);
void dag__space_close(struct space *s);
void *dag__space_alloc(struct space *s, size_t bytes);
void dag__space_free(struct space *s, void *p, size_t bytes);
void dag__space_copy(struct space *s, bool to_device,
                     const struct space_copy *c, dag_space_done_fn done,
                     void *arg);
void dag__space_launch(struct space *s, dag_task_fn fn, void *args,
                       dag_space_done_fn done, void *arg);
bool dag__space_poll(struct space *s);

/* ----------------------------------------------------------- backend.c */

/* The spaces this libdag was built with, the emulated device first: *n
 * tables, static. */
const struct dag_space_ops *const *dag__space_backends(int *n);
/* The space of a device kind, or NULL when this libdag was built without it
 * (the caller answers DAG_ENOSYS). */
const struct dag_space_ops *dag__space_backend(enum dag_device device);

#endif /* DAG_SPACE_H */
