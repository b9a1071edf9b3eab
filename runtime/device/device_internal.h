/* device_internal.h — what the files of the device layer share: the open
 * devices (device.c), which spaces hold each byte (validity.c), device
 * memory as a cache of host memory in the host's layout (residency.c), and
 * the wrapped task bodies that move data and launch (execute.c). One mutex,
 * dag__devices_lock, guards all of it; the spaces' own threads, which call
 * the done functions, never take it.
 */
#ifndef DAG_DEVICE_INTERNAL_H
#define DAG_DEVICE_INTERNAL_H

#include "device/device.h"
#include "mem/space.h"

#include <pthread.h>

/* ---------------------------------------------------------- validity.c */

/* The spaces that hold a valid copy of a byte: bit 0 the host, bit 1 + i
 * open device i. Never empty. */
typedef uint8_t holders_t;
#define HOST ((holders_t)1)
#define MAX_DEVICES 7

/* Calls fn on the maximal ranges of [lo, hi) whose bytes have the same
 * holders, in order. fn must not change validity. */
void dag__validity_each(uintptr_t lo, uintptr_t hi,
                        void (*fn)(uintptr_t lo, uintptr_t hi,
                                   holders_t holders, void *arg),
                        void *arg);
/* Every byte of [lo, hi) gets holders (holders & keep) | add. */
void dag__validity_update(uintptr_t lo, uintptr_t hi, holders_t keep,
                          holders_t add);
/* The same for every byte of r: one lookup when r is kept whole. */
void dag__validity_update_region(const struct region *r, holders_t keep,
                                 holders_t add);
/* Whether r is kept whole, every byte with the same holders (*holders), or
 * nothing is recorded for it (the host alone holds it): a lookup, which
 * may say no for a region whose bytes happen to agree. */
bool dag__validity_whole(const struct region *r, holders_t *holders);
/* After every device's data went back to the host: the host alone holds
 * every byte (regions kept whole stay so). */
void dag__validity_forget_devices(void);
/* Whether some byte is held by a device. */
bool dag__validity_any(void);
/* Calls whole on every region kept whole, and piece on every other range,
 * held otherwise than by the host alone (in no particular order); neither
 * may change validity. */
void dag__validity_each_held(void (*whole)(const struct region *r,
                                           holders_t holders, void *arg),
                             void (*piece)(uintptr_t lo, uintptr_t hi,
                                           holders_t holders, void *arg),
                             void *arg);
void dag__validity_release(void);

/* What a device task reads on device i waits for: the copies that brought
 * it there, planned by the device task of turn `arrival - 1` there (0:
 * none is in flight; ARRIVAL_UNKNOWN: every copy before). Kept per region
 * kept whole, and reset when it is written: its readers wait for the
 * writer's task. */
#define ARRIVAL_UNKNOWN UINT64_MAX
uint64_t dag__validity_arrival(const struct region *r, int device);
/* Device task `turn` on device i planned a copy of r's bytes there. */
void dag__validity_arrives(const struct region *r, int device, uint64_t turn);

/* Regions validity keeps whole: every byte of r has `holders`
 * (region_table.c). */
struct region_entry {
  struct region r;
  holders_t holders;
  uint64_t arrival[MAX_DEVICES]; /* see dag__validity_arrival */
  int cls;                       /* the size class of its extent */
  size_t in_class;               /* its place in that class's list */
  struct region_entry *chain;    /* the next of its hash bucket */
};
/* The entry of exactly r's shape, or NULL. */
struct region_entry *dag__regions_find(const struct region *r);
struct region_entry *dag__regions_add(const struct region *r,
                                      holders_t holders);
void dag__regions_remove(struct region_entry *e);
/* The entries that share a byte with r, into *out (valid until the next
 * call); returns how many. */
size_t dag__regions_meeting(const struct region *r, struct region_entry ***out);
/* Calls fn on every entry (fn may change its holders, not remove it). */
void dag__regions_each(void (*fn)(struct region_entry *e, void *arg),
                       void *arg);
void dag__regions_release(void);

/* Ranges of host memory with their holders, collected before acting on
 * them (validity may not change while it is walked): those whose holders h
 * have (h & mask) == want. */
struct ranges {
  struct range {
    uintptr_t lo, hi;
    holders_t holders;
  } * at;
  size_t n, cap;
  holders_t mask, want;
};

/* A callback of dag__validity_each (and _each_held) that adds to the
 * struct ranges `arg`. */
void dag__ranges_add(uintptr_t lo, uintptr_t hi, holders_t h, void *ranges);
/* Adds each span of r, all of whose bytes have `holders`, if out wants
 * them. */
void dag__ranges_add_region(const struct region *r, holders_t holders,
                            struct ranges *out);
/* Adds the ranges of r that out wants, each with its holders. */
void dag__validity_collect(const struct region *r, struct ranges *out);
/* The host now holds the ranges of r it lacked (dag__copy_back brought
 * them); `within`, if not NULL, is a region that holds them all. */
void dag__validity_host_copied(const struct ranges *r,
                               const struct region *within);

/* ------------------------------------------------------------ staging.c */

/* A page-locked host buffer of a device's pool, of size class cls. */
struct stage {
  struct stage *next;
  void *at;
  int cls;
};
#define STAGE_CLASSES 8

struct device;
/* A buffer of at least `bytes` (at most dag__stage_max()) for copies with
 * d, waiting for one to come back if d has all it may; NULL when no
 * page-locked memory is left (the caller copies directly). */
struct stage *dag__stage_get(struct device *d, size_t bytes);
/* The same without waiting: NULL if d has none to spare. */
struct stage *dag__stage_try_get(struct device *d, size_t bytes);
/* Gives it back (any thread). */
void dag__stage_put(struct device *d, struct stage *s);
/* Bytes of s. */
size_t dag__stage_bytes(const struct stage *s);
size_t dag__stage_max(void);
/* Bytes of buffers d may have. */
size_t dag__stage_cap(const struct device *d);
/* Frees d's buffers (none may be out). */
void dag__stage_release(struct device *d);

/* ------------------------------------------------------------- unpack.c */

/* Four cores unpack at 32 GB/s on the H200 machine we measured
 * (bench/gpu/copy_paths): more than the driver's own copy into pageable
 * memory (16 GB/s), most of the link, and few threads beside the
 * workers. */
#define UNPACKERS 4

/* Work handed to the unpacking threads: run(job) on one of them. */
struct unpack_job {
  struct unpack_job *next;
  void (*run)(struct unpack_job *job);
};
/* Starts the unpacking threads (with the first device), and stops them
 * once nothing is queued on any device. */
void dag__unpack_start(void);
void dag__unpack_stop(void);
/* Runs job on an unpacking thread, in the order given but not one after
 * the other (here, if there are none). */
void dag__unpack_later(struct unpack_job *job);
/* Runs the first job queued, here; false if there was none. */
bool dag__unpack_help(void);
/* Queues job if a thread is idle to take it at once; else false, and the
 * caller runs it. */
bool dag__unpack_if_idle(struct unpack_job *job);

/* ---------------------------------------------------------- residency.c */

/* A device address range that mirrors host range [lo, hi) (granule
 * aligned) at `at`: host byte x is at at + (x - lo) there. Windows may
 * overlap; a granule of device memory is mapped into each window that
 * covers it and needed it. */
struct window {
  uintptr_t lo, hi;
  char *at;
  uint64_t *mapped; /* a bit per granule of the window */
  atomic_int pins;  /* direct sends reading it: its granules stay */
};

struct granule;
struct writeback;

/* Turns of device tasks whose copies are remembered (execute.c). */
#define TURN_COPIES 1024

/* Turns taken in order (turns.c): count is the number passed, and the
 * thread waiting for turn t sleeps on next[t % TURN_SLOTS], which passing
 * turn t - 1 wakes. */
#define TURN_SLOTS 64
struct turns {
  _Atomic uint64_t count;
  pthread_mutex_t lock;
  pthread_cond_t next[TURN_SLOTS];
};
void dag__turns_init(struct turns *t);
void dag__turns_destroy(struct turns *t);
/* Waits until t->count reaches `turn`. */
void dag__turns_wait(struct turns *t, uint64_t turn);
/* Counts turn `turn` (the count was `turn`), waking those waiting for it
 * to be passed. */
void dag__turns_pass(struct turns *t, uint64_t turn);

struct device {
  struct space space;
  enum dag_device kind; /* the bodies it runs; the emulated device any */
  holders_t bit;
  size_t granule; /* bytes; a power of two */
  size_t memory;  /* bytes */
  struct window **windows;
  size_t nwindows, windows_cap;
  struct granule *granules; /* an open-addressing table by host granule */
  size_t granules_size, granules_used;
  uint64_t epoch;       /* granules used in this epoch are pinned */
  struct known **known; /* regions wholly backed (residency.c) */
  size_t known_size, known_used;
  bool poisons_host; /* it runs kernels of host code: see execute.c */
  bool staging;      /* copies go through staging.c's buffers */
  bool writeback;    /* writes back on speculation (writeback.c) */
  char place[64];    /* its name in DAG_HISTORY: "cuda", "emul:h200" */
  pthread_mutex_t stage_lock;
  struct stage *stages[STAGE_CLASSES]; /* idle, per size class */
  uint64_t stages_put;                 /* buffers that came back */
  pthread_cond_t stage_back;           /* ... signalled */
  size_t stage_bytes;                  /* of all its buffers */
  atomic_long in_flight;               /* queued operations not yet done */
  /* Write-backs on speculation (writeback.c): candidates pushed when a
   * body ends, then, under the devices' lock, candidates and copies in
   * flight, oldest first; bytes of staging buffers they hold. */
  _Atomic(struct writeback *) writeback_inbox;
  struct writeback *writebacks;
  atomic_size_t writeback_staged;
  /* Device tasks that took a turn (under the devices' lock), and those of
   * them that have queued their copies and body (execute.c). */
  uint64_t turns_taken;
  struct turns turns_done;
  struct turns stages_turn; /* the turn taking its staging buffers */
  /* The number of the last copy to it queued (space.h), and of the last
   * one when each of the last TURN_COPIES turns had queued its copies. */
  _Atomic uint64_t last_copy_in;
  uint64_t turn_copies[TURN_COPIES];
  _Atomic uint64_t last_done_ns; /* when the last body finished */
  /* The expected time of the work chosen for it and not finished
   * (choose.c). */
  _Atomic int64_t expected_work_ns;
  _Atomic int64_t expected_copy_ns; /* ... of its copies in */
  /* Bytes copied in and the time its copy engine took for them, and when
   * the last copy in ended (execute.c: count_copy_in). */
  _Atomic uint64_t copy_in_bytes, copy_in_ns, copy_in_last_ns;
  /* DAG_STATS */
  uint64_t copies_in, bytes_in, copies_out, bytes_out, tasks, evicted;
  uint64_t written_back, written_back_bytes, writebacks_voided;
  _Atomic uint64_t direct_sends, direct_bytes;
  atomic_size_t direct_pinned;                /* bytes that direct sends hold */
  size_t committed, committed_peak;           /* granules */
  size_t resident_at_wait, committed_at_wait; /* bytes: see device.c */
};

/* A window of d covering [lo, hi) (made if there is none). */
struct window *dag__residency_window(struct device *d, uintptr_t lo,
                                     uintptr_t hi);
/* Windows w[0..n) where the n regions of a task live on d, every granule
 * they touch backed with device memory, evicting granules that the task
 * does not use when the device is full (their data written back first).
 * Returns 0; DAG_ENOMEM when even that leaves no room for region
 * *failed; or the error of a device that failed to allocate (its reason in
 * dag_last_error()). */
int dag__residency_back_task(struct device *d, const struct region *regs,
                             uint32_t n, struct window **w, uint32_t *failed);
/* The window where every granule of r is known to be mapped (it was
 * backed whole, and nothing was evicted since), or NULL. */
struct window *dag__residency_known(const struct device *d,
                                    const struct region *r);
/* Of the windows that map host byte x's granule, the one that maps the
 * longest prefix of [x, *hi) whole; *hi becomes that prefix's end. */
struct window *dag__residency_mapping(struct device *d, uintptr_t x,
                                      uintptr_t *hi);
/* Whether w maps every granule of [lo, hi). */
bool dag__residency_maps(const struct device *d, const struct window *w,
                         uintptr_t lo, uintptr_t hi);
/* Frees all of d's memory (nothing may be queued). */
void dag__residency_release(struct device *d);

static inline char *dag__window_address(const struct window *w, uintptr_t x) {
  return w->at + (x - w->lo);
}

/* ------------------------------------------------------------ device.c */

extern pthread_mutex_t dag__devices_lock;
extern struct device dag__devices[MAX_DEVICES];
extern int dag__ndevices;
/* Whether GPU data may leave for other ranks straight from device memory
 * (dag__comm_gpu_direct, read when devices are discovered). */
extern bool dag__devices_direct;
/* Timed mode (a device open whose space a model times): that space, which
 * charges declared work instead of running bodies; NULL: off. */
extern const struct space *dag__devices_timed;

static inline struct device *dag__device_of_bit(holders_t bit) {
  return &dag__devices[__builtin_ctz(bit) - 1];
}

/* Whether device d runs bodies written for `kind`. */
bool dag__device_runs(const struct device *d, enum dag_device kind);

/* ------------------------------------------------------------ choose.c */

/* Records that fn took ns on data of `bytes` bytes (any thread). */
void dag__history_note(dag_task_fn fn, size_t bytes, uint64_t ns);

struct call;
/* Chooses where c, ready, runs: sets its fn, device (NULL: the CPU) and
 * expected time, counted as work queued there until dag__choice_done. */
void dag__choose(struct call *c);
void dag__choice_done(const struct call *c);
/* DAG_HISTORY: reads the measured times of earlier runs (at start), writes
 * them back with this run's (at the end). */
void dag__history_start(void);
void dag__history_stop(void);

/* ------------------------------------------------------ history_file.c */

/* One measured candidate, as the file keeps it (history_file.c). */
struct history_record {
  int size_class, variant;
  char place[64]; /* "cpu", or a device's (struct device.place) */
  uint32_t runs;
  double mean_ns;
  char name[256]; /* the task's label, or file:line */
};

void dag__history_file_load(const char *path);
/* The record with key's size class, variant, place and name, or NULL. */
const struct history_record *
dag__history_file_find(const struct history_record *key);
/* Writes rs (n of them) and the records loaded that they do not replace.
 * Returns 0 or DAG_EINVAL (with a message). */
int dag__history_file_save(const char *path, const struct history_record *rs,
                           size_t n);
void dag__history_file_release(void);

/* --------------------------------------------------------- writeback.c */

/* Regions of at least this many bytes go back on their own, at full
 * speed; smaller ones are joined with their neighbours at a wait (the
 * tiles of a block row make whole rows: one copy, not one per tile). */
#define COPY_ALONE_BYTES ((size_t)4 << 20)

/* Device task c's body is done (on the device's thread, before c's task
 * is released): the regions it wrote that no task waiting for it writes
 * become candidates for a write-back. */
void dag__writeback_candidates(struct call *c);
/* Under the devices' lock: issues d's candidates while it has staging
 * buffers to spare, and tells validity of the write-backs done. */
void dag__writeback_pump(struct device *d);
/* Under the devices' lock: the bytes of r change holders; their
 * write-backs are voided. */
void dag__writeback_void(const struct region *r);
/* Under the devices' lock, before host memory in r (NULL: all of it) is
 * written: drops the write-backs not issued, waits for those in flight and
 * tells validity of them. */
void dag__writeback_settle(const struct region *r);

/* ----------------------------------------------------------- execute.c */

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
  _Atomic uint64_t arrived_ns; /* ... and when its last copy in finished */
  bool read_in_place;          /* DEVICES_READ_IN_PLACE, and direct is on */
  struct direct_pin *direct;   /* a send's region left on a device */
};

struct region *dag__call_regions(struct call *c);
enum dag_mode *dag__call_modes(struct call *c);
void *dag__call_args(struct call *c);
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

/* Copies back to the host, from the first device holding it, every range
 * of r the host lacks, for task c (NULL: for a wait, or an eviction), and
 * waits. The caller then says so to validity (dag__validity_host_copied,
 * or an update of the regions they came from). */
void dag__copy_back(const struct ranges *r, const struct call *c);
/* The same in two steps: queues the copies, counted in *pending; ... */
void dag__copy_back_start(const struct ranges *r, const struct call *c,
                          atomic_long *pending);
/* ... waits until *pending is 0. */
void dag__copies_wait(atomic_long *pending);
/* Queues the copies of region r, held whole by devices only (holders h),
 * to the host, from the first of them: a tile is one 2-D copy. */
void dag__copy_back_whole(const struct region *r, holders_t h,
                          atomic_long *pending);
/* Waits until nothing is queued on d. */
void dag__device_drain(struct device *d);
/* Copies rows between a staging buffer and the program's memory; in timed
 * mode, where no byte moves, it takes the model's time instead. */
void dag__pack_rows(const struct space_copy *c);
/* The call of a task whose body is one of the wrapped bodies above, or
 * NULL. */
struct call *dag__call_of(dag_task_fn body, void *args);
/* Ends the run: queued work failed (`failure` says what and why) for
 * `task` (NULL: for a wait or an eviction). */
noreturn void dag__work_failed(const struct dag_task_info *task,
                               const char *failure);

#endif /* DAG_DEVICE_INTERNAL_H */
