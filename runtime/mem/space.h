/* space.h — memory spaces: the memory of a device (CUDA, HIP, or the
 * emulated device that tests use on machines without a GPU), each behind a
 * table of functions, as transports are (comm.h). The layers above call the
 * dag__space_* wrappers, never a table directly, and never include a
 * vendor's header; api/backend.c knows which spaces were built.
 *
 * Memory is reserved as ranges of addresses and backed granule by granule,
 * as CUDA's and HIP's virtual memory calls do: one granule may appear at
 * several addresses at once. The device layer (device/residency.c) keeps
 * with it a device copy in the host's layout without backing whole bounding
 * boxes.
 *
 * What is queued on a space runs asynchronously: copies to the device in
 * order among themselves, numbered from 1 (a GPU's copy engine in), copies
 * from it in order among themselves (the engine out), and device bodies,
 * each after the copies to the device numbered up to the ticket given at
 * its launch and no others, so that a body whose data is there already
 * does not wait for copies queued for later bodies. Bodies are not ordered
 * among themselves (a GPU's streams): the device layer launches a body
 * only once those it depends on are done. Among bodies ready to start,
 * urgent ones go first (stream priorities). A copy does not wait for the
 * bodies queued before it (on a GPU, copies and kernels overlap), nor a
 * body for the copies back: the device layer copies only data whose
 * writers are done, and waits for a copy back before anything writes what
 * it reads (but for a write-back on speculation, which it discards then:
 * device/writeback.c). Each completion calls its done function on a thread
 * of the space's own: a copy's after those of the copies queued before it
 * the same way and before any body that waits for it starts, a body's
 * after its own work. Nothing else orders them (a GPU's calls them in the
 * order queued on each of its queues; the emulated device's in any order
 * these allow).
 *
 * Bodies of one urgency go to SPACE_LANES queues of their own (a GPU's
 * streams), each in order: dag__space_lane picks the one where a new body
 * waits least behind the others.
 */
#ifndef DAG_SPACE_H
#define DAG_SPACE_H

#include "base.h"

#include <sched.h>

/* failure is NULL when the work was done; else it was not, and failure
 * says what failed and why (valid until the function returns). */
typedef void (*space_done_fn)(void *arg, const char *failure);

/* `rows` spans of `span` bytes, dst_stride bytes apart at dst and
 * src_stride at src (the same when a device copy keeps the host's layout;
 * span for packed rows); one span when rows is 1. */
struct space_copy {
  void *dst;
  const void *src;
  size_t span, rows, dst_stride, src_stride;
};

/* What a timed space did: from the start of its first operation to the end
 * of its last, the time each queue was busy, bytes copied. */
struct space_timing {
  uint64_t first_ns, last_ns;
  uint64_t compute_busy_ns, copy_in_busy_ns, copy_out_busy_ns;
  uint64_t bytes_in, bytes_out;
};

struct space_ops {
  const char *name;
  /* Devices of this kind this process has; when none, why into why (len
   * bytes): no library, no driver, no device. */
  int (*count)(char *why, size_t len);
  /* Opens device `index` into *state. Returns 0 or a DAG_E* code (with a
   * message). */
  int (*open)(int index, void **state);
  /* Waits for what is queued, then frees everything of the device. */
  void (*close)(void *state);
  /* Bytes of a granule: the unit of backing, a power of two. */
  size_t (*granule)(void *state);
  /* Bytes of the device's memory. */
  size_t (*memory)(void *state);
  /* Reserves `bytes` (a multiple of the granule) of the device's addresses,
   * granule-aligned, with nothing behind them; NULL when none are left. */
  void *(*reserve)(void *state, size_t bytes);
  void (*unreserve)(void *state, void *at, size_t bytes);
  /* One granule of device memory into *mem. Returns 0, DAG_ENOMEM when
   * the device is full (the caller evicts), or another DAG_E* code when it
   * failed (reported). */
  int (*commit)(void *state, uint64_t *mem);
  void (*decommit)(void *state, uint64_t mem);
  /* Makes granules mem[0..n) appear at `at` one after the other
   * (granule-aligned, reserved, not mapped yet), in as few calls of the
   * driver as it allows: a run of a tile's rows is hundreds of granules. Or
   * takes one away. Returns 0 or a DAG_E* code. */
  int (*map)(void *state, void *at, const uint64_t *mem, size_t n);
  void (*unmap)(void *state, void *at);
  /* Queues a copy from host memory to the device (to_device) or back.
   * Returns a copy to the device's number (its ticket), 0 for one back. */
  uint64_t (*copy)(void *state, bool to_device, const struct space_copy *c,
                   space_done_fn done, void *arg);
  /* Queues a device body: fn(args) queues its work on the device, which
   * starts once the copies to the device numbered up to `after` are done
   * (0: at once), ahead of other bodies if `urgent`; done once that work is
   * complete. */
  void (*launch)(void *state, dag_task_fn fn, void *args, uint64_t after,
                 bool urgent, space_done_fn done, void *arg);
  /* Host code reads device memory directly from begin (true) to end
   * (false), as a CUDA-aware MPI does for a direct send. NULL where that
   * needs no word. */
  void (*host_reads)(void *state, bool begin);
  /* Host memory the device copies to and from at full speed, without the
   * driver staging it (page-locked); NULL when none is left. */
  void *(*host_alloc)(void *state, size_t bytes);
  void (*host_free)(void *state, void *p, size_t bytes);
  /* Makes the program's host memory [p, p + bytes) page-locked for every
   * device of this kind, so that they copy it by DMA at the link's rate,
   * as host_alloc's; the device layer calls it on one device of each kind
   * (device/registered.c). Returns 0 or a DAG_E* code (with a message).
   * Undone by host_unregister(p), which no copy of it may outlive. */
  int (*host_register)(void *state, void *p, size_t bytes);
  void (*host_unregister)(void *state, void *p);
  /* The device's PCI address ("0000:65:00.0") into buf; false when it has
   * none. NULL for a space without one (the emulated device). */
  bool (*bus_id)(void *state, char *buf, size_t len);
  /* Pins the space's own thread to `cpus`. */
  void (*bind)(void *state, const cpu_set_t *cpus);

  /* Optional methods: NULL where a space has none; the wrappers below say
   * what that means. */

  /* Timed mode, where a device model times the space's work in place of
   * doing it (the emulated device's DAG_EMUL_MODEL): the model's name; NULL
   * when the space does its work. A space that names a model has the
   * methods below marked "timed". */
  const char *(*model)(void *state);
  /* Timed: seconds that `work` (dag_task_info.work) of a task labelled
   * `label` takes on the device (on_device) or on one CPU core; negative
   * when the model has no rate for it. */
  double (*work_seconds)(void *state, const char *label, bool on_device,
                         double work);
  /* Timed: charges `seconds` of work: on_device, to the device, as one
   * kernel of the body running at launch on this thread; else to the core
   * of the calling thread, which sleeps as long. */
  void (*spend)(void *state, bool on_device, double seconds);
  /* Timed: seconds one copy of `bytes` from or to page-locked host memory
   * takes on the copy engine to the device (to_device) or back, its
   * latency included. */
  double (*copy_seconds)(void *state, bool to_device, size_t bytes);
  /* Timed: seconds one core takes to pack `bytes` into a staging buffer or
   * out of one; negative when the model does not stage copies. */
  double (*pack_seconds)(void *state, size_t bytes);
  /* Timed: what the device did (struct space_timing). */
  void (*timing)(void *state, struct space_timing *t);
  /* Kernels of host code: queues kernel(args) on the device, `size` bytes
   * of args copied now, from the body running at launch on this thread.
   * Returns 0, or DAG_EINVAL (with a message) outside such a body. A
   * space that has it runs device bodies written for any kind. */
  int (*kernel)(void *state, void (*kernel)(void *args), const void *args,
                size_t size);
  /* Before a worker packs copies for the device: waits a random while, as
   * packing a GPU's large tiles takes milliseconds, so that whatever must
   * wait for those copies is seen to. */
  void (*host_jitter)(void *state);
  /* The device's double-precision flops per second at most (its units'
   * peak at its clock, tensor cores included), which a task's declared
   * work cannot beat: what the chooser estimates with before it has
   * measured (device/estimate.c). */
  double (*peak_flops)(void *state);
  /* The device's model name ("NVIDIA H200") into buf; false when it has
   * none. Names the file of measured times (device/history_path.c). */
  bool (*device_name)(void *state, char *buf, size_t len);
  /* The queues its bodies may run on (a GPU's streams), into streams[0..
   * max): returns how many it has, which may be more than max. */
  int (*streams)(void *state, void **streams, int max);
};

/* One open device. */
struct space {
  const struct space_ops *ops;
  void *state;
  int index;
};

/* The emulated device (space_emul.c): separate memory of its own (a
 * memory file, poisoned with 0xa5 when committed) in granules of
 * DAG_EMUL_GRANULE (default 2M), capped by DAG_EMUL_MEM (default 256M); a
 * queue of copies each way and a compute queue with a thread each, ordered
 * only as above; a delay before each operation (DAG_EMUL_DELAY_US, plus up to
 * DAG_EMUL_JITTER_US at random); failures on request (DAG_EMUL_FAIL). All
 * read when it opens. Device `index` is the index-th `emul` of DAG_DEVICES.
 * Its bodies run at launch on the launching thread and queue kernels with
 * dag_emul_launch; while one runs, its memory is closed to host code. */
extern const struct space_ops dag__space_emul;

/* A CUDA or HIP device (space_gpu.c, built only where the toolkit is
 * found): memory from the driver's virtual memory calls, the queue a
 * non-blocking stream, a device body run on the launching thread with its
 * stream given by dag_cuda_stream() (dag_hip_stream()). Only api/backend.c
 * names these. */
extern const struct space_ops dag__space_cuda;
extern const struct space_ops dag__space_hip;
/* The stream of the device body running on this thread (NULL outside one):
 * dag_cuda_stream() and dag_hip_stream(), which api/backend.c answers. */
void *dag__cuda_stream(void);
void *dag__hip_stream(void);

/* Opens device `index` of `ops` into s. Returns 0 or a DAG_E* code. */
int dag__space_open(struct space *s, const struct space_ops *ops, int index);
void dag__space_close(struct space *s);
size_t dag__space_granule(struct space *s);
size_t dag__space_memory(struct space *s);
void *dag__space_reserve(struct space *s, size_t bytes);
void dag__space_unreserve(struct space *s, void *at, size_t bytes);
int dag__space_commit(struct space *s, uint64_t *mem);
void dag__space_decommit(struct space *s, uint64_t mem);
int dag__space_map(struct space *s, void *at, const uint64_t *mem, size_t n);
void dag__space_unmap(struct space *s, void *at);
/* Does copy c with the CPU, at once: what the emulated device does, and
 * what packs and unpacks staging buffers (device/staging.c). */
void dag__space_copy_rows(const struct space_copy *c);
uint64_t dag__space_copy(struct space *s, bool to_device,
                         const struct space_copy *c, space_done_fn done,
                         void *arg);
void dag__space_launch(struct space *s, dag_task_fn fn, void *args,
                       uint64_t after, bool urgent, space_done_fn done,
                       void *arg);

/* Queues of bodies per urgency (streams on a GPU), and the copies that the
 * last body queued in each waits for. */
#define SPACE_LANES 4
struct space_lanes {
  uint64_t waits[SPACE_LANES];
};
/* The lane for a body whose copies are numbered up to `after`, of lanes l
 * (busy[i]: lane i has bodies queued; an idle one waits for nothing): the
 * one whose last body waits for the most copies but not more than it (it
 * adds no wait); else the one that waits least. Its waits become after. */
int dag__space_lane(struct space_lanes *l, const bool busy[SPACE_LANES],
                    uint64_t after);
void *dag__space_host_alloc(struct space *s, size_t bytes);
void dag__space_host_free(struct space *s, void *p, size_t bytes);
int dag__space_host_register(struct space *s, void *p, size_t bytes);
void dag__space_host_unregister(struct space *s, void *p);
/* The device's PCI address, if it has one (false otherwise). */
bool dag__space_bus_id(struct space *s, char *buf, size_t len);
void dag__space_bind(struct space *s, const cpu_set_t *cpus);
void dag__space_host_reads(struct space *s, bool begin);

/* The optional methods (struct space_ops). The model's name (NULL: the
 * space does its work, not timed); the timed calls are for a space that
 * names one. */
const char *dag__space_model(const struct space *s);
double dag__space_work_seconds(const struct space *s, const char *label,
                               bool on_device, double work);
void dag__space_spend(const struct space *s, bool on_device, double seconds);
double dag__space_copy_seconds(const struct space *s, bool to_device,
                               size_t bytes);
double dag__space_pack_seconds(const struct space *s, size_t bytes);
void dag__space_timing(const struct space *s, struct space_timing *t);
/* Whether s runs kernels of host code (dag__space_kernel), and so device
 * bodies written for any kind. */
bool dag__space_host_kernels(const struct space *s);
/* dag_emul_launch: queues kernel(args) on the space whose body runs at
 * launch on this thread (dag__space_launch). Returns 0, or DAG_EINVAL (with
 * a message) outside such a body, or where that space runs no kernels of
 * host code. */
int dag__space_kernel(void (*kernel)(void *args), const void *args,
                      size_t size);
/* Nothing where s has no host_jitter. */
void dag__space_host_jitter(const struct space *s);
/* The device's peak double-precision flops per second; 0 when the space
 * does not say. */
double dag__space_peak_flops(const struct space *s);
/* The device's model name; false (buf empty) when the space has none. */
bool dag__space_device_name(const struct space *s, char *buf, size_t len);
/* The queues its bodies may run on (streams); 0 where it has none. */
int dag__space_streams(const struct space *s, void **streams, int max);

#endif /* DAG_SPACE_H */
