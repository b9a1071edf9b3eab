/* base.h — what every layer of the runtime shares: the macros of the hot
 * paths, errors and messages (error.c), and the geometry of regions
 * (region.c). Layers, top to bottom, each calling only downward:
 *
 *   api/     the public calls: validates each once, then hands it on
 *   reduce/  task reductions: private copies and the tasks that combine
 *            them, and the operators on C's arithmetic types
 *   plan/    the rank-uniform planner (several ranks only): placement,
 *            transfers, the same decisions on every rank; dag_alloc's
 *            distributed allocations, the homes it places by
 *   device/  device tasks and variants, the coherence of data between
 *            the host and the devices of a rank, device memory as a cache
 *   core/    the local core: dependencies, tasks, scheduling, workers
 *   obs/     observation: what a run tells about itself (DAG_TRACE,
 *            DAG_GRAPH, DAG_REPORT), of which the core tells it, in
 *            numbers and names; the files it writes, merged across ranks
 *   mem/     memory spaces: the table devices sit behind, and its kinds
 *   comm/    transports between ranks
 *
 * Backends: in comm/ a transport's files are named <name>*.[ch] (comm*
 * are the shared ones), in mem/ a space's space_<name>*.[ch] and
 * <name>_*.[ch] (space.[ch] are shared). A backend's headers and functions
 * are its own and api/backend.c's, which alone knows which transports and
 * spaces were built (start-up hands them down); its vendor's headers (MPI,
 * CUDA, HIP) are its own. tests/layers reads this list and these names,
 * and fails on an include or call upward, or into a backend from outside
 * it. Internal functions that cross files are named dag__*; nothing here
 * is public API.
 */
#ifndef DAG_BASE_H
#define DAG_BASE_H

#include "dag.h"
#include "settings.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <time.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define DAG_CACHELINE 64

/* For the few functions on the path of every tiny task, where a call and
 * its prologue cost a tenth of the whole task. */
#define DAG_ALWAYS_INLINE inline __attribute__((always_inline))

/* For code that most programs never run (reductions, messages): GCC puts
 * it in .text.unlikely, apart from the hot paths, so that adding such code
 * does not move them. */
#define DAG_COLD __attribute__((cold))

/* Thread-local state on the hot path. initial-exec reaches it without a
 * call to __tls_get_addr in libdag.so (fine for a library linked at start,
 * and for dlopen within glibc's static TLS reserve). */
#define DAG_THREAD_LOCAL                                                       \
  _Thread_local __attribute__((tls_model("initial-exec")))

/* The time on CLOCK_MONOTONIC, in nanoseconds. Here, at the base, as every
 * layer times something (the transports their messages, the core its
 * tasks). */
static inline uint64_t dag__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --------------------------------------------------------------- log.c */

/* Says one line on stderr if DAG_LOG lets `level` through: "dag: error: ..."
 * or "dag: warning: ..." (nothing for info, debug and reports); on several
 * ranks the prefix names the rank and the thread, "dag[r1 w3]: ". */
void dag__log(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True if DAG_LOG lets messages of `level` through. */
bool dag__log_wanted(enum log_level level);

/* The rank in the prefix, once the transport knows it. */
void dag__log_rank(int rank, int nranks);

/* Names the calling thread in the prefix: "w3", "mpi", "cuda0". */
void dag__log_thread(const char *name);

/* ------------------------------------------------------------- error.c */

/* Formats "dag: error: <what>: <message>", prints it on stderr, keeps it for
 * dag_last_error() and returns err. `task` names the culprit: its label and
 * source line (NULL when no task is involved). */
int dag__user_error(const struct dag_task_info *task, int err, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));

/* Keeps a message for dag_last_error() without printing it, and returns
 * err: for a failure its caller reports in a message of its own (one that
 * names the task). */
int dag__error_note(int err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What must outlive a run that a transport ends early (MPI_Abort): called
 * just before, by the thread that ends it. Set by the core (DAG_TRACE's
 * part); NULL: nothing. */
extern void (*dag__last_words)(void);

/* Our own mistake: prints the message with its location and aborts. */
noreturn void dag__bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define DAG_BUG(...) dag__bug(__FILE__, __LINE__, __VA_ARGS__)

/* Memory for the runtime's own bookkeeping ran out: says where, aborts.
 * (Like malloc failing inside libuv: there is no sane way to go on.) */
noreturn void dag__out_of_memory(const char *where);

/* Grows the array `items` of `size`-byte elements, of capacity *cap, so
 * that index n fits; returns it (moved, maybe). Out of memory: says `what`
 * and aborts. */
void *dag__grow(void *items, size_t *cap, size_t n, size_t size,
                const char *what);

/* Writes "label" or "file:line" (for a task without label) into buf. */
void dag__task_name(char *buf, size_t size, const char *label, const char *file,
                    int line);

/* Writes the task as messages name it into buf: "task 'label' (file:line)",
 * "task at file:line" without a label, "task 'label'" without a file. */
void dag__task_where(char *buf, size_t size, const char *label,
                     const char *file, int line);

/* ----------------------------------------------------------- threads.c */

/* The CPUs the runtime's own threads (not its workers) may run on: every
 * core of this rank, set once its share of the machine is known. */
void dag__helpers_run_on(const cpu_set_t *cpus);
/* pthread_create for one of those threads: it runs on those CPUs, not
 * pinned as its creator is. Returns pthread_create's code. */
int dag__helper_start(pthread_t *thread, void *(*main)(void *), void *arg);

/* ------------------------------------------------------------- kinds.c */

/* The name of a device kind ("cpu", "cuda", "hip"); NULL for no kind. */
const char *dag__device_kind_name(enum dag_device kind);

/* The kind called `name`, if there is one. */
bool dag__device_kind_named(const char *name, enum dag_device *kind);

/* ------------------------------------------------------------ region.c */

/* A validated region in canonical form: dimensions of count 1 dropped,
 * dimensions that are contiguous with the one inside merged into it, so that
 * two descriptions of the same byte set of the same shape compare equal.
 * dim[0] is the outermost; every stride is at least the extent of the
 * dimensions inside it. [lo, hi) bounds every byte. */
struct region {
  uintptr_t lo, hi;
  size_t span;
  int ndims;
  /* 0, or a DAG_LOWER... shape >> 24: then ndims is 1, the region is the
   * square block of dim[0].count rows of span bytes, and only that part of
   * it is the region's (region.c). */
  unsigned char shape;
  struct {
    size_t count;
    size_t stride;
  } dim[DAG_MAX_DIMS];
};

/* Validates `in` and writes its canonical form. Returns 0, DAG_EINVAL,
 * DAG_EDIMS or DAG_EOVERFLOW; *why then says what is wrong. An empty region
 * (span or a count of 0) gives lo == hi. */
int dag__region_make(const struct dag_region *in, struct region *out,
                     const char **why);

static inline bool dag__region_empty(const struct region *r) {
  return r->lo == r->hi;
}

/* dag__region_make for an access with shape bits (DAG_LOWER...): the
 * part of the square block `in` the shape selects. */
int dag__region_make_shaped(const struct dag_region *in, unsigned shape,
                            struct region *out, const char **why);

/* The shape bits of a mode, and the mode without them. */
#define DAG_SHAPE_BITS (7u << 24)
static inline unsigned dag__shape_of(enum dag_mode m) {
  return ((unsigned)m & DAG_SHAPE_BITS) >> 24;
}
static inline enum dag_mode dag__unshaped(enum dag_mode m) {
  return (enum dag_mode)((unsigned)m & ~DAG_SHAPE_BITS);
}

/* True when a and b share at least one byte (exact, not by bounding box). */
bool dag__region_overlap(const struct region *a, const struct region *b);

/* True only when every byte of b is in a. May answer false for some exotic
 * shapes that are covered (never true for one that is not): callers use it
 * to forget history, where a false answer only costs memory. */
bool dag__region_covers(const struct region *a, const struct region *b);

/* The bytes of a that lie in u, as *out, where they form a region of the
 * shapes tiles and rows take: a contiguous u and a contiguous a or rows of
 * a that each lie wholly in or out of u, or rows of u and rows of a of the
 * same stride (or a within one row of u). False for other shapes, and when
 * nothing of a lies in u. */
bool dag__region_within(const struct region *a, const struct region *u,
                        struct region *out);

/* Whether a and b have the same shape (then the same bytes; the converse
 * need not hold), and a hash of the shape, for tables of regions. */
bool dag__region_same(const struct region *a, const struct region *b);
uint64_t dag__region_hash(const struct region *r);

/* Number of bytes in r. */
size_t dag__region_bytes(const struct region *r);

/* Calls fn on each contiguous span of r, [lo, hi), in address order. */
void dag__region_each_span(const struct region *r,
                           void (*fn)(uintptr_t lo, uintptr_t hi, void *arg),
                           void *arg);

#endif /* DAG_BASE_H */
