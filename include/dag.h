/* dag.h — the public API of libdag.
 *
 * dag runs C code as a graph of tasks. A task is a function, an argument
 * block copied when the task is submitted, and a list of accesses: the memory
 * regions the task reads and writes. Two tasks are ordered when their regions
 * share a byte and at least one of them writes; everything else may run at
 * once on the runtime's worker threads.
 *
 * The pragma rewriter (dagcc) emits calls to this API; people may also call it
 * by hand. Every function that can fail returns 0 or a negative DAG_E* code.
 * When a call fails because of the caller's mistake, the runtime also prints
 * a message naming the task's label and source line on stderr, and keeps the
 * text for dag_last_error().
 *
 * This header includes no MPI, CUDA or HIP header.
 */
#ifndef DAG_H
#define DAG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DAG_BUILDING)
#define DAG_API __attribute__((visibility("default")))
#else
#define DAG_API
#endif

#define DAG_VERSION_MAJOR 0
#define DAG_VERSION_MINOR 2

/* ---------------------------------------------------------------- errors */

/* X-macro of every error code: name, value, message. */
#define DAG_ERR_MAP(XX)                                                        \
  XX(EINVAL, -1, "invalid argument")                                           \
  XX(ENOMEM, -2, "out of memory")                                              \
  XX(ENOSYS, -3, "feature not built into this libdag")                         \
  XX(EOVERFLOW, -4, "size or offset overflows the address space")              \
  XX(EDIMS, -5, "region has too many dimensions")                              \
  XX(ESHUTDOWN, -6, "runtime already finalized")                               \
  XX(ETHREAD, -7, "could not start worker threads")                            \
  XX(EDEVICE, -8, "a device failed")

enum dag_errno {
#define DAG_ERR_ENUM_(name, value, msg) DAG_##name = (value),
  DAG_ERR_MAP(DAG_ERR_ENUM_)
#undef DAG_ERR_ENUM_
};

/* A static string describing error code err ("unknown error" for others). */
DAG_API const char *dag_strerror(int err);

/* The message of the last failed call on this thread, or "" if none failed.
 * The string belongs to the runtime and stays valid until the next call
 * from the same thread. */
DAG_API const char *dag_last_error(void);

/* For code that cannot go on after a failed call, such as the code dagcc
 * generates for a pragma: returns `err` when it is not negative; otherwise
 * ends the program with status 1 (the error's message is on stderr
 * already), without running atexit handlers: they would wait for tasks
 * that can no longer be trusted. */
DAG_API int dag_check(int err);

/* -------------------------------------------------------------- lifetime */

/* Starts the runtime: worker threads, one per core of the process's cpuset
 * (DAG_NUM_THREADS overrides), each pinned to its core. The calling thread
 * becomes worker 0: it runs tasks whenever it waits. Calling dag_init is
 * optional: the first dag_submit starts the runtime. Returns 0 (also when the
 * runtime already runs), DAG_EINVAL for a malformed DAG_* setting, DAG_ENOSYS
 * when a device DAG_DEVICES names cannot be used, DAG_ETHREAD, or
 * DAG_ESHUTDOWN after dag_finalize; dag_last_error() says why. */
DAG_API int dag_init(void);

/* Waits for every task (an implicit dag_taskwait), writes the DAG_STATS,
 * DAG_TRACE and DAG_GRAPH outputs, stops the workers and frees everything.
 * Runs by itself at exit if the program did not call it (not at an exit()
 * inside a task body, which ends the process without waiting). After it,
 * every call but dag_strerror and dag_last_error returns DAG_ESHUTDOWN.
 * Returns 0. */
DAG_API int dag_finalize(void);

/* --------------------------------------------------------------- regions */

/* Largest number of (count, stride) pairs in a region. */
#define DAG_MAX_DIMS 4

/* A region is a set of bytes: `span` contiguous bytes at each address
 *     base + i[0]*dim[0].stride + ... + i[ndims-1]*dim[ndims-1].stride
 * for 0 <= i[d] < dim[d].count. dim[0] is the outermost dimension. Strides
 * are in bytes and positive, and each stride must be at least the extent of
 * the dimensions inside it (C array sections always are). ndims == 0 is one
 * contiguous span. A region with span 0 or a count 0 is empty: its access
 * orders nothing. */
struct dag_dim {
  size_t count;
  ptrdiff_t stride;
};

struct dag_region {
  const void *base;
  size_t span;
  int ndims;
  struct dag_dim dim[DAG_MAX_DIMS];
};

/* ----------------------------------------------------------------- tasks */

enum dag_mode {
  DAG_IN = 1,          /* reads */
  DAG_OUT = 2,         /* writes without reading first */
  DAG_INOUT = 3,       /* reads and writes */
  DAG_COMMUTATIVE = 7, /* read-write, in any order among its group,
                          never two at once */
  DAG_REDUCTION = 8    /* with an operator and a type, as DAG_REDUCE(op,
                          type) makes it: combines into the region */
};

/* The operator of a reduction (`reduction(op: item)`), as OpenMP's. The
 * bitwise ones take integer types only. */
#define DAG_REDUCE_OPS(X)                                                      \
  X(SUM, "+")                                                                  \
  X(PROD, "*")                                                                 \
  X(MIN, "min")                                                                \
  X(MAX, "max")                                                                \
  X(BAND, "&")                                                                 \
  X(BOR, "|")                                                                  \
  X(BXOR, "^")                                                                 \
  X(LAND, "&&")                                                                \
  X(LOR, "||")

enum dag_reduce_op {
#define DAG_REDUCE_OP_ENUMERATOR(id, spelling) DAG_REDUCE_##id,
  DAG_REDUCE_OPS(DAG_REDUCE_OP_ENUMERATOR)
#undef DAG_REDUCE_OP_ENUMERATOR
};

/* The C arithmetic types a reduction combines, X(ENUMERATOR, type,
 * integer). */
#define DAG_REDUCE_TYPES(X)                                                    \
  X(BOOL, _Bool, 1)                                                            \
  X(CHAR, char, 1)                                                             \
  X(SCHAR, signed char, 1)                                                     \
  X(UCHAR, unsigned char, 1)                                                   \
  X(SHORT, short, 1)                                                           \
  X(USHORT, unsigned short, 1)                                                 \
  X(INT, int, 1)                                                               \
  X(UINT, unsigned, 1)                                                         \
  X(LONG, long, 1)                                                             \
  X(ULONG, unsigned long, 1)                                                   \
  X(LLONG, long long, 1)                                                       \
  X(ULLONG, unsigned long long, 1)                                             \
  X(FLOAT, float, 0)                                                           \
  X(DOUBLE, double, 0)                                                         \
  X(LDOUBLE, long double, 0)

enum dag_reduce_type {
  DAG_REDUCE_NO_TYPE, /* not a reduction */
#define DAG_REDUCE_TYPE_ENUMERATOR(id, type, integer) DAG_REDUCE_##id,
  DAG_REDUCE_TYPES(DAG_REDUCE_TYPE_ENUMERATOR)
#undef DAG_REDUCE_TYPE_ENUMERATOR
};

/* The dag_reduce_type of the expression e's type; DAG_REDUCE_NO_TYPE for a
 * type that is not one of them, which dag_submit refuses. */
#define DAG_REDUCE_TYPE_OF(e)                                                  \
  _Generic((e), DAG_REDUCE_TYPES(DAG_REDUCE_TYPE_ASSOC) default                \
           : DAG_REDUCE_NO_TYPE)
#define DAG_REDUCE_TYPE_ASSOC(id, type, integer)                               \
  type:                                                                        \
  DAG_REDUCE_##id,

/* The mode of a reduction access, `reduction(op: item)`: the tasks that
 * name the same region with the same operator and type, one after
 * another in submission order, form a group. They run in parallel, each
 * into a private copy of the region that starts at the operator's
 * identity: the task's pointers into the region (those dag_task_info's
 * pointers lists) reach its copy instead. The first other access to the
 * region, or a taskwait, sees it combined with every copy, in an order
 * fixed by the order of the tasks (docs/pragmas.md). */
#define DAG_REDUCE(op, type)                                                   \
  ((enum dag_mode)(DAG_REDUCTION | (unsigned)(op) << 4 |                       \
                   (unsigned)(type) << 12))

/* Part of a square block: OR one into a mode, as DAG_SHAPED(mode, shape)
 * does, and the access touches only that part of its region, which must
 * be n rows of n elements (a dag_region of one dimension, count n, span n
 * elements; `lower(A[i:n][j:n])` in a pragma). Row k of the block holds,
 * of its columns 0..n-1:
 *   DAG_LOWER       0..k      (the triangle with the diagonal)
 *   DAG_UPPER       k..n-1
 *   DAG_UNIT_LOWER  0..k-1    (strictly below: the diagonal untouched)
 *   DAG_UNIT_UPPER  k+1..n-1
 *   DAG_DIAGONAL    k
 * Dependencies follow those bytes; under MPI, and to and from a device,
 * only they travel. Not with DAG_REDUCTION. */
enum dag_shape {
  DAG_FULL = 0,
  DAG_LOWER = 1 << 24,
  DAG_UPPER = 2 << 24,
  DAG_UNIT_LOWER = 3 << 24,
  DAG_UNIT_UPPER = 4 << 24,
  DAG_DIAGONAL = 5 << 24
};

#define DAG_SHAPED(mode, shape)                                                \
  ((enum dag_mode)((unsigned)(mode) | (unsigned)(shape)))

struct dag_access {
  enum dag_mode mode;
  struct dag_region region;
};

typedef void (*dag_task_fn)(void *args);

/* Task flags. */
#define DAG_TASK_UNDEFERRED                                                    \
  0x1u                        /* `if(false)`: honour dependencies, but run     \
                                 in the submitting thread before               \
                                 dag_submit returns */
#define DAG_TASK_ON_RANK 0x2u /* `on(rank)`: run on the MPI rank `rank` */

/* Where a task body runs: one row per kind, X(ENUMERATOR, name), the name
 * being the one that `device(name)` in a pragma and DAG_DEVICES use and
 * that a GPU kind's stream getter dag_<name>_stream() carries. The rewriter
 * and the runtime read this list; a new kind is a row here and a memory
 * space in the runtime. */
#define DAG_DEVICE_KINDS(X)                                                    \
  X(CPU, cpu)   /* a worker thread */                                          \
  X(CUDA, cuda) /* an NVIDIA GPU, through the CUDA runtime */                  \
  X(HIP, hip)   /* an AMD GPU, through HIP */

enum dag_device {
#define DAG_DEVICE_ENUMERATOR(id, name) DAG_DEVICE_##id,
  DAG_DEVICE_KINDS(DAG_DEVICE_ENUMERATOR)
#undef DAG_DEVICE_ENUMERATOR
};

/* The number of kinds (not an enumerator, so that a program's switch over
 * the kinds need not name it). */
#define DAG_DEVICE_KIND_COUNTS_ONE(id, name) +1
#define DAG_NDEVICE_KINDS (0 DAG_DEVICE_KINDS(DAG_DEVICE_KIND_COUNTS_ONE))

/* Another implementation of a task, for a device (`implements`): the body
 * gets the same argument copy as `fn`. */
struct dag_variant {
  dag_task_fn fn;
  enum dag_device device;
};

/* `count` pointers side by side from byte `offset` of a task's argument
 * block (offsetof): pointer arguments that a device body gets translated. */
struct dag_pointers {
  size_t offset;
  size_t count;
};

/* What to run and how. The rewriter emits one per pragma; fields other than
 * fn may be zero. */
struct dag_task_info {
  dag_task_fn fn;    /* the body; called with the task's argument copy */
  const char *label; /* name in messages and traces; NULL: "file:line" */
  const char *file;  /* source location of the task, for messages */
  int line;
  int priority;           /* larger runs first among ready tasks; default 0 */
  unsigned flags;         /* DAG_TASK_* */
  enum dag_device device; /* where fn runs (`device`); default the CPU */
  /* Other implementations (`implements`); the runtime runs one variant
   * per task, fn or one of these, on a device this process has. */
  const struct dag_variant *variants;
  int nvariants;
  int rank; /* with DAG_TASK_ON_RANK: the rank that runs it */
  /* The items of the pragma as written, one per access (NULL: none), for
   * messages about an access. */
  const char *const *items;
  /* Where the argument block holds pointers (npointers runs): in a device
   * body, each one that points into one of the task's regions arrives as
   * the device address of that byte. The rewriter lists every pointer
   * argument; by hand, list yours. Nothing else in the block is changed:
   * the runtime cannot tell a pointer from an integer or padding. */
  const struct dag_pointers *pointers;
  int npointers;
  /* The work of one task, from its argument block: flops, or bytes for a
   * memory-bound body. A device model (DAG_EMUL_MODEL, docs/gpu.md)
   * charges it at the model's rate for the task's label, where the task
   * runs, instead of running the body. NULL: none declared. */
  double (*work)(const void *args);
};

/* Submits a task. `args_size` bytes at `args` are copied into the task (may
 * be 0 and args NULL); the body receives a pointer to the copy, valid while
 * the body runs. `acc` (naccesses entries, copied; may be NULL when 0) are the
 * regions the task reads and writes. A task submitted from inside another
 * task's body is its child: children are ordered among themselves as
 * top-level tasks are, and the parent completes only after all of them.
 * Top-level tasks (submitted outside any task body) come from one thread at
 * a time, as from an OpenMP single region: their order is the program's.
 * The runtime may run a task at once in the submitting thread (when it is
 * ready and tiny, or the submitter is far ahead), so a task must never wait
 * for something the submitting thread does only after submitting it.
 * Returns 0, or DAG_EINVAL (NULL fn, NULL region base, bad mode, negative
 * stride, nested strides, unknown device, a rank outside the run, pointers
 * outside the argument block),
 * DAG_EDIMS, DAG_EOVERFLOW, DAG_ENOMEM, DAG_ESHUTDOWN, DAG_ENOSYS (no
 * variant of the task runs on a device this libdag has); on error nothing
 * was submitted. */
DAG_API int dag_submit(const struct dag_task_info *info, const void *args,
                       size_t args_size, const struct dag_access *acc,
                       size_t naccesses);

/* Waits until every task submitted by the calling context (the program, or
 * the task whose body calls it) and all their descendants are complete.
 * The calling thread runs tasks meanwhile. Returns 0 or DAG_ESHUTDOWN. */
DAG_API int dag_taskwait(void);

/* dag_taskwait without its data movement under MPI (`noflush`): waits for
 * the tasks, but written data stays where the tasks left it. With one rank
 * it is dag_taskwait. */
DAG_API int dag_taskwait_noflush(void);

/* Waits only for the tasks that an access to `acc` would depend on: after it
 * returns, the listed data holds what the earlier tasks wrote. Validates the
 * regions as dag_submit does. */
DAG_API int dag_taskwait_on(const struct dag_access *acc, size_t naccesses);

/* --------------------------------------------------------------- queries */

/* Number of threads that run tasks, the calling thread included; starts the
 * runtime if needed. Returns >= 1, or a negative DAG_E* code. */
DAG_API int dag_num_workers(void);

/* Index of the calling thread among the workers (0 is the thread that
 * started the runtime), or -1 for a thread that is not a worker. */
DAG_API int dag_worker_id(void);

/* Runs fn(arg) once on every worker thread, the calling thread (worker 0)
 * included, and returns once each has: where a program sets up what its
 * task bodies use per thread, outside the time of any task, as StarPU's
 * starpu_execute_on_each_worker: a cuBLAS or cuSOLVER handle per worker
 * and per stream (dag_device_streams; docs/gpu.md), a random generator.
 * Inside fn, dag_worker_id() says which worker runs it. Call it from the
 * thread that started the runtime, outside any task body, before
 * submitting the tasks that use what it sets up: a worker runs fn between
 * two tasks. Starts the runtime if needed. Returns 0, DAG_EINVAL (fn NULL,
 * called from a task body or from another thread; dag_last_error() says
 * which), or DAG_ESHUTDOWN. */
DAG_API int dag_on_each_worker(void (*fn)(void *arg), void *arg);

/* --------------------------------------------------------------- devices */

/* The stream on which the device body running on the calling thread queues
 * its work (a cudaStream_t or a hipStream_t, given as void * so that this
 * header includes neither toolkit's): the body's task is complete once that
 * work is. NULL outside device bodies, and in a libdag built without CUDA
 * (HIP). The stream belongs to the runtime: never destroy or synchronize it
 * from the body. */
DAG_API void *dag_cuda_stream(void);
DAG_API void *dag_hip_stream(void);

/* A stream on which device bodies queue work: `stream` (a cudaStream_t or
 * a hipStream_t) belongs to device `device`, the toolkit's number of it
 * (cudaSetDevice). */
struct dag_stream {
  int device;
  void *stream;
};

/* Every stream on which the device bodies of `kind` (DAG_DEVICE_CUDA or
 * DAG_DEVICE_HIP) may queue their work, on every device of that kind this
 * process uses: a body's dag_cuda_stream() is always one of them, and a
 * worker's bodies run on several. Writes the first `max` into streams and
 * returns how many there are (0: no device of that kind): with
 * dag_on_each_worker, a program makes a library handle per worker and per
 * stream before the tasks. Opens the devices if they are not yet. Returns
 * a count, DAG_EINVAL (kind not a GPU's, max negative, streams NULL with
 * max above 0), or DAG_ESHUTDOWN. The streams belong to the runtime. */
DAG_API int dag_device_streams(enum dag_device kind, struct dag_stream *streams,
                               int max);

/* In a device body running on the emulated device (DAG_DEVICES=emul, which
 * tests use where there is no GPU): queues kernel(args) on the body's
 * stream, as a CUDA body launches a kernel on dag_cuda_stream(). `size`
 * bytes of args are copied now, as kernel parameters are. The kernel runs
 * later, on the device, after the task's data has arrived there; the body
 * itself runs at launch and must not touch device memory (it faults while
 * the body runs). Returns 0, or DAG_EINVAL outside such a body. */
DAG_API int dag_emul_launch(void (*kernel)(void *args), const void *args,
                            size_t size);

/* Inside a device body: the device address of host byte `host`, which must
 * lie in one of the task's regions (NULL otherwise). Pointer arguments
 * (dag_task_info.pointers) that fall in a region arrive translated already;
 * this is for pointers the body reaches otherwise (a global, a field of a
 * struct). A device copy keeps
 * the host's layout, so arithmetic with the host's leading dimension works
 * on the result. Outside device bodies (a CPU variant) it returns `host`. */
DAG_API void *dag_device_ptr(const void *host);

/* Timed mode (DAG_DEVICES=emul with DAG_EMUL_MODEL, docs/gpu.md): what the
 * device model in use charges, so that a benchmark reads its bound from
 * the model it runs on. dag_model_seconds: the seconds `work` (as
 * dag_task_info.work declares it) of a task labelled `label` takes on the
 * device, one launch latency included. dag_model_copy_seconds: the seconds
 * one copy of `bytes` of page-locked memory (registered, or dag_alloc) takes
 * on the copy engine to the device (to_device non-zero) or back, one
 * latency included. Both start the runtime if
 * needed, and return a negative DAG_E* code (dag_last_error() says why):
 * DAG_ENOSYS when no device is timed (after dag_finalize too), DAG_EINVAL
 * when the model has no device rate for `label`. */
DAG_API double dag_model_seconds(const char *label, double work);
DAG_API double dag_model_copy_seconds(int to_device, double bytes);

/* ----------------------------------------------------------------- ranks */

/* This process's rank among the ranks of the run (0 .. dag_nranks() - 1),
 * and how many there are: 1 and 0 when the program does not run under MPI.
 * Starts the runtime if needed. Return a negative DAG_E* code if it cannot
 * start. */
DAG_API int dag_rank(void);
DAG_API int dag_nranks(void);

/* ---------------------------------------------------- distributed memory */

/* How dag_alloc memory is spread over the ranks: which rank is the home of
 * each byte. Build one with the functions below. Every distribution cuts
 * the memory into blocks, the units in which data moves between ranks;
 * a "block" distribution gives each rank one contiguous run of them, a
 * "block-cyclic" one deals them to the ranks in turn. */
enum dag_dist_kind {
  DAG_DIST_BLOCK = 1,       /* 1-D block: a run of blocks per rank */
  DAG_DIST_BLOCK_CYCLIC_2D, /* 2-D block-cyclic on a p x q grid of ranks */
  DAG_DIST_OWNER,           /* a function of the user's */
  DAG_DIST_BLOCK_CYCLIC,    /* 1-D block-cyclic */
  DAG_DIST_BLOCK_2D,        /* 2-D block: a rectangle of blocks per rank */
  DAG_DIST_2D = DAG_DIST_BLOCK_CYCLIC_2D /* the name before 0.2 */
};

struct dag_dist {
  enum dag_dist_kind kind;
  size_t elem;   /* bytes per element (all but OWNER) */
  size_t block;  /* 1-D: elements per block; OWNER: bytes per unit */
  size_t ld;     /* 2-D: elements per row of the row-major matrix */
  size_t mb, nb; /* 2-D: rows and columns of a block, in elements */
  int p, q;      /* 2-D: the grid of ranks, p x q <= dag_nranks() */
  /* OWNER: the home rank of the unit that starts `offset` bytes into the
   * allocation; must give the same answer on every rank. */
  int (*owner)(size_t offset, void *ctx);
  void *ctx;
};

/* Blocks of `block` elements of `elem` bytes; each rank is the home of one
 * contiguous run of them, the runs as equal as whole blocks allow (with n
 * blocks on r ranks, block k lives on rank k * r / n). A 1-D array cut in
 * rows: block = one row's elements times the rows a task works on, and the
 * rows around a rank's run are its only neighbours on other ranks. Before
 * version 0.2 this call dealt the blocks in turn, as
 * dag_dist_block_cyclic does now. */
DAG_API struct dag_dist dag_dist_block(size_t elem, size_t block);
/* Blocks of `block` elements of `elem` bytes, dealt to ranks 0, 1, ... in
 * turn: block k lives on rank k mod r. Balances work that moves along the
 * array (a factorization); sends every neighbour's halo across ranks. */
DAG_API struct dag_dist dag_dist_block_cyclic(size_t elem, size_t block);
/* A row-major matrix of `ld` elements per row in mb x nb blocks, on a
 * p x q grid of ranks; block (i, j) lives on rank (i mod p) * q + (j mod q)
 * (ScaLAPACK's layout: dense linear algebra). */
DAG_API struct dag_dist dag_dist_block_cyclic_2d(size_t elem, size_t ld,
                                                 size_t mb, size_t nb, int p,
                                                 int q);
/* dag_dist_block_cyclic_2d under its name before version 0.2. */
DAG_API struct dag_dist dag_dist_2d(size_t elem, size_t ld, size_t mb,
                                    size_t nb, int p, int q);
/* The same blocks, each rank the home of one rectangle of them: with
 * bi x bj blocks, block (i, j) lives on rank (i * p / bi) * q + j * q / bj
 * (a stencil's domain decomposition). */
DAG_API struct dag_dist dag_dist_block_2d(size_t elem, size_t ld, size_t mb,
                                          size_t nb, int p, int q);
/* Units of `unit` bytes; unit k lives on rank owner(k * unit, ctx). */
DAG_API struct dag_dist
dag_dist_owner(size_t unit, int (*owner)(size_t offset, void *ctx), void *ctx);
/* The squarest p x q = nranks grid with p <= q. Returns 0, or DAG_EINVAL
 * when nranks < 1. */
DAG_API int dag_grid(int nranks, int *p, int *q);

/* `bytes` of global-view memory: the same layout on every rank, each byte
 * homed on the rank `dist` gives it. The memory is reserved, not committed:
 * a rank's physical memory grows only with what it writes (what it owns, or
 * receives to run a task). Call it on every rank in the same order with the
 * same arguments, from the program (not inside a task). Returns the memory,
 * zero-filled, or NULL with dag_last_error() telling why. The macro below
 * passes the call's file and line, by which messages name the memory. */
DAG_API void *dag_alloc(size_t bytes, struct dag_dist dist);
DAG_API void *dag_alloc_at(size_t bytes, struct dag_dist dist, const char *file,
                           int line);
#define dag_alloc(bytes, dist) dag_alloc_at((bytes), (dist), __FILE__, __LINE__)
/* Frees dag_alloc memory and forgets its history, once the tasks that use
 * it are done; like dag_alloc, a call of the program. Returns 0, or
 * DAG_EINVAL if p is not the start of dag_alloc memory or the call comes
 * from inside a task. */
DAG_API int dag_free(void *p);
/* Registers the program's host memory [p, p + bytes) with the devices:
 * page-locks it, as cudaHostRegister does, so that they copy it by DMA at
 * the link's rate, where copies of other memory go through staging
 * buffers that cores pack (docs/gpu.md, "How a copy moves"). dag_alloc
 * memory a rank owns is registered already while a device is in use. The
 * memory stays in physical memory until dag_unregister, and registering
 * costs about the time of writing it once: register an array once, before
 * the tasks that use it. Nothing is asked of a driver until a device is
 * used. A call of the program, like dag_alloc. Returns 0, or DAG_EINVAL
 * (with a message) for no memory, dag_alloc memory or memory that overlaps
 * a registration, or the device's error. */
DAG_API int dag_register(void *p, size_t bytes);
/* Undoes dag_register(p, ...) once no copy of the memory is in flight
 * (the data stays where it is valid). Call it before freeing the memory.
 * Returns 0, or DAG_EINVAL when no registration starts at p. */
DAG_API int dag_unregister(void *p);
/* The home rank of the byte at p, or -1 if p is not in dag_alloc memory
 * (replicated memory: every rank holds its own copy). */
DAG_API int dag_owner(const void *p);

/* -------------------------------------------------- region constructors */

/* `bytes` contiguous bytes at p. */
static inline struct dag_region dag_region_1d(const void *p, size_t bytes) {
  struct dag_region r = {p, bytes, 0, {{0, 0}}};
  return r;
}

/* `rows` spans of `row_bytes` bytes, `ld_bytes` apart: a block of a
 * row-major matrix. */
static inline struct dag_region
dag_region_2d(const void *p, size_t rows, size_t row_bytes, size_t ld_bytes) {
  struct dag_region r = {p, row_bytes, 1, {{rows, (ptrdiff_t)ld_bytes}}};
  return r;
}

static inline struct dag_access dag_access_of(enum dag_mode mode,
                                              struct dag_region region) {
  struct dag_access a = {mode, region};
  return a;
}

#ifdef __cplusplus
}
#endif

#endif /* DAG_H */
