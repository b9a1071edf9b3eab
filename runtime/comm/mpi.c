/* mpi.c — the MPI transport: operations are posted without blocking and
 * moved along by whichever thread holds `mpi_lock`, so that workers never
 * block in MPI.
 *
 * Any thread posts an operation (a send, a receive, a collective) on a
 * queue under `lock`. The thread that holds `mpi_lock` starts what was
 * posted (MPI_Isend/MPI_Irecv with a derived datatype for a strided region:
 * no packing copy), tests what is in flight with MPI_Testsome, and calls
 * each operation's done callback when it completes. Two kinds of thread do
 * that: a progress thread, which polls while anything is in flight and naps
 * 1 ms between idle polls (it shares a core with a worker, and a busy
 * poll would slow the worker's tasks), and idle workers, which poll between
 * looking for tasks (dag__comm_poll) and so see a message the moment it
 * lands, where the progress thread could be napping. One thread in MPI at a
 * time needs only MPI_THREAD_SERIALIZED; docs/mpi.md gives the measurements
 * behind this design.
 *
 * If the program initialised MPI, the runtime works on a duplicate of
 * MPI_COMM_WORLD (or of the communicator dag_init_comm gave) and finishes
 * before the program's MPI_Finalize (which it intercepts through the profiling
 * interface); otherwise it initialises and finalises MPI itself.
 */
#include "comm/mpi_comm.h"
#include "comm/mpi_internal.h"

#ifdef OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static MPI_Comm comm = MPI_COMM_NULL;
static MPI_Comm program_comm = MPI_COMM_NULL; /* dag_init_comm's, if any */
static MPI_Comm clock_comm = MPI_COMM_NULL;   /* mpi_clock's messages */
static bool we_initialized;
static int tag_ub;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct op *posted, **posted_tail = &posted; /* under lock */
static bool stopping;                              /* under lock */
static atomic_int unfinished_ops;                  /* posted and not yet done */
static pthread_t progress;

/* The one thread calling MPI holds it; it guards `inflight`. */
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

bool dag__mpi_wanted(void) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return true;
  /* Launched by mpiexec (Open MPI, PMIx, MPICH/Hydra, Slurm): */
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                     "PMI_SIZE", "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i]))
      return true;
  return false;
}

struct rows {
  const struct region *r;
  int n;
  int *lengths;
  MPI_Aint *offsets;
};

static void add_row(uintptr_t lo, uintptr_t hi, void *arg) {
  struct rows *rows = arg;
  rows->lengths[rows->n] = (int)(hi - lo);
  rows->offsets[rows->n++] = (MPI_Aint)(lo - rows->r->lo);
}

/* A triangle's or a diagonal's rows, one block each. */
static MPI_Datatype shaped_type(const struct region *r) {
  size_t n = r->dim[0].count;
  struct rows rows = {r, 0, malloc(n * sizeof(int)),
                      malloc(n * sizeof(MPI_Aint))};
  if (!rows.lengths || !rows.offsets)
    dag__out_of_memory("the MPI datatype of a triangle");
  dag__region_each_span(r, add_row, &rows);
  MPI_Datatype t;
  MPI_Type_create_hindexed(rows.n, rows.lengths, rows.offsets, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  free(rows.lengths);
  free(rows.offsets);
  return t;
}

/* The MPI datatype of a region's bytes, relative to its first byte. */
static MPI_Datatype region_type(const struct region *r) {
  if (r->shape)
    return shaped_type(r);
  MPI_Datatype t;
  MPI_Type_contiguous((int)r->span, MPI_BYTE, &t);
  for (int d = r->ndims - 1; d >= 0; d--) {
    MPI_Datatype outer;
    MPI_Type_create_hvector((int)r->dim[d].count, 1, (MPI_Aint)r->dim[d].stride,
                            t, &outer);
    MPI_Type_free(&t);
    t = outer;
  }
  MPI_Type_commit(&t);
  return t;
}

static void post(struct op *op) {
  op->posted_ns = dag__now_ns();
  atomic_fetch_add_explicit(&unfinished_ops, 1, memory_order_relaxed);
  pthread_mutex_lock(&lock);
  op->next = NULL;
  *posted_tail = op;
  posted_tail = &op->next;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
}

static void transfer(enum op_kind kind, const struct region *r, int peer,
                     uint64_t tag, comm_done_fn done, void *arg) {
  struct op *op = malloc(sizeof *op);
  if (!op)
    dag__out_of_memory("MPI transfers");
  *op = (struct op){.kind = kind,
                    .region = *r,
                    .peer = peer,
                    .tag = (int)(tag % (uint64_t)tag_ub),
                    .done = done,
                    .arg = arg};
  post(op);
}

static void mpi_send(const struct region *r, int peer, uint64_t tag,
                     comm_done_fn done, void *arg) {
  transfer(OP_SEND, r, peer, tag, done, arg);
}

static void mpi_recv(const struct region *r, int peer, uint64_t tag,
                     comm_done_fn done, void *arg) {
  transfer(OP_RECV, r, peer, tag, done, arg);
}

/* --------------------------------------------------------------- progress */

static struct inflight inflight; /* under mpi_lock */

static void start_op(struct inflight *f, struct op *op) {
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->ops = realloc(f->ops, (size_t)f->cap * sizeof *f->ops);
    f->reqs = realloc(f->reqs, (size_t)f->cap * sizeof *f->reqs);
    f->indices = realloc(f->indices, (size_t)f->cap * sizeof *f->indices);
    if (!f->ops || !f->reqs || !f->indices)
      dag__out_of_memory("MPI requests");
  }
  if (op->kind == OP_ALLGATHER) {
    /* Non-blocking too: transfers that other ranks wait for must go on
     * while this rank waits for the collective. */
    op->type = MPI_DATATYPE_NULL;
    MPI_Iallgather(&op->value, 1, MPI_UINT64_T, op->all, 1, MPI_UINT64_T, comm,
                   &f->reqs[f->n]);
    f->ops[f->n++] = op;
    return;
  }
  op->type = region_type(&op->region);
  void *buf = (void *)op->region.lo;
  if (op->kind == OP_SEND)
    MPI_Isend(buf, 1, op->type, op->peer, op->tag, comm, &f->reqs[f->n]);
  else
    MPI_Irecv(buf, 1, op->type, op->peer, op->tag, comm, &f->reqs[f->n]);
  f->ops[f->n++] = op;
}

/* Completes what finished; returns how many did. */
static int test_inflight(struct inflight *f) {
  if (f->n == 0)
    return 0;
  int done = 0;
  MPI_Testsome(f->n, f->reqs, &done, f->indices, MPI_STATUSES_IGNORE);
  if (done <= 0 || done == MPI_UNDEFINED)
    return 0;
  for (int i = 0; i < done; i++) {
    struct op *op = f->ops[f->indices[i]];
    if (op->type != MPI_DATATYPE_NULL)
      MPI_Type_free(&op->type);
    op->done(op->arg);
    free(op);
    f->ops[f->indices[i]] = NULL;
    atomic_fetch_sub_explicit(&unfinished_ops, 1, memory_order_release);
  }
  int kept = 0; /* compact: MPI_Testsome set finished requests to NULL */
  for (int i = 0; i < f->n; i++)
    if (f->ops[i]) {
      f->ops[kept] = f->ops[i];
      f->reqs[kept++] = f->reqs[i];
    }
  f->n = kept;
  return done;
}

/* Sleeps up to `ns` nanoseconds, or until an operation is posted. */
static void nap_unless_posted(long ns) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += ns;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&lock);
  while (!posted && !stopping &&
         pthread_cond_timedwait(&wake, &lock, &until) == 0)
    ;
  pthread_mutex_unlock(&lock);
}

/* Starts what was posted and completes what finished, with mpi_lock held.
 * Returns true if anything started or finished. */
static bool progress_locked(void) {
  pthread_mutex_lock(&lock);
  struct op *batch = posted;
  posted = NULL;
  posted_tail = &posted;
  pthread_mutex_unlock(&lock);
  for (struct op *op = batch, *next; op; op = next) {
    next = op->next;
    start_op(&inflight, op);
  }
  bool completed = test_inflight(&inflight) > 0;
  dag__watchdog_round(&inflight, completed);
  return completed || batch;
}

static bool mpi_poll(void) {
  if (!atomic_load_explicit(&unfinished_ops, memory_order_acquire) ||
      pthread_mutex_trylock(&mpi_lock))
    return false;
  bool active = progress_locked();
  pthread_mutex_unlock(&mpi_lock);
  return active;
}

/* After a poll that moved something, the progress thread polls this many
 * times more before it naps: the next step of a transfer's handshake often
 * lands within microseconds. Every poll takes time from the worker that
 * shares the core: with 64, the thread used 9% of it during a distributed
 * Cholesky, whose kernels then ran that much slower (docs/mpi.md). */
#define POLLS_BEFORE_NAP 4

/* The nap between idle polls. Idle workers poll meanwhile (and do not
 * sleep while anything is in flight), so it bounds only how late a rank
 * whose workers are all busy notices a completion or answers a peer's
 * handshake. */
#define NAP_NS 1000000L

/* With nothing in flight but the watchdog listening for other ranks, the
 * progress thread looks in this often. */
#define LISTEN_NS 100000000L

static void *progress_main(void *unused) {
  (void)unused;
  dag__log_thread("mpi");
  unsigned idle = 0;
  for (;;) {
    bool listening = dag__watchdog_listening();
    pthread_mutex_lock(&lock);
    while (!posted && !stopping && !listening &&
           !atomic_load_explicit(&unfinished_ops, memory_order_acquire))
      pthread_cond_wait(&wake, &lock);
    bool quiet =
        !posted && !atomic_load_explicit(&unfinished_ops, memory_order_acquire);
    bool stop = stopping && quiet;
    pthread_mutex_unlock(&lock);
    if (stop)
      break;
    if (quiet) /* only listening */
      nap_unless_posted(LISTEN_NS);
    pthread_mutex_lock(&mpi_lock);
    bool active = progress_locked();
    pthread_mutex_unlock(&mpi_lock);
    if (active) {
      idle = 0;
    } else if (++idle > POLLS_BEFORE_NAP) {
      /* Waiting on the network: poll gently. A new operation ends the nap
       * at once. */
      nap_unless_posted(NAP_NS);
    }
  }
  return NULL;
}

/* ---------------------------------------------------------- collectives */

static void mpi_allgather(uint64_t value, uint64_t *all, comm_done_fn done,
                          void *arg) {
  struct op *op = calloc(1, sizeof *op);
  if (!op)
    dag__out_of_memory("MPI collectives");
  op->kind = OP_ALLGATHER;
  op->value = value;
  op->all = all;
  op->done = done;
  op->arg = arg;
  post(op);
}

/* ------------------------------------------------------------ lifetime */

void dag__mpi_use_comm(MPI_Comm c) { program_comm = c; }

bool dag__mpi_runs_on(MPI_Comm c) {
  int same = MPI_UNEQUAL;
  pthread_mutex_lock(&mpi_lock); /* the progress thread may be in MPI */
  if (comm != MPI_COMM_NULL)
    MPI_Comm_compare(comm, c, &same);
  pthread_mutex_unlock(&mpi_lock);
  return same == MPI_IDENT || same == MPI_CONGRUENT;
}

static int mpi_start(int *rank, int *nranks, int *node_rank, int *node_ranks) {
  int initialized = 0, provided = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS)
      return dag__user_error(NULL, DAG_ENOSYS, "MPI_Init_thread failed");
    we_initialized = true;
  } else {
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
      dag__log(DAG_LOG_WARN,
               "MPI was initialised without MPI_THREAD_SERIALIZED; the "
               "runtime calls MPI from its own thread, so initialise it with "
               "at least MPI_THREAD_SERIALIZED (and do not call MPI while "
               "tasks run)");
  }
  MPI_Comm_dup(program_comm != MPI_COMM_NULL ? program_comm : MPI_COMM_WORLD,
               &comm);
  program_comm = MPI_COMM_NULL; /* the program may free it now */
  /* A failure of one rank must end the run, never hang it. */
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_rank(comm, rank);
  MPI_Comm_size(comm, nranks);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, node_rank);
  MPI_Comm_size(node, node_ranks);
  MPI_Comm_free(&node);
  int *ub, flag = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
  tag_ub = flag && *ub > 0 ? *ub : 32767;
  dag__watchdog_start(comm);
  MPI_Comm_dup(comm, &clock_comm);
  stopping = false;
  /* The progress thread's naps end on a monotonic deadline. */
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_destroy(&wake);
  pthread_cond_init(&wake, &attr);
  pthread_condattr_destroy(&attr);
  if (dag__helper_start(&progress, progress_main, NULL)) {
    dag__watchdog_stop();
    MPI_Comm_free(&clock_comm);
    MPI_Comm_free(&comm);
    return dag__user_error(NULL, DAG_ETHREAD, "cannot start the MPI thread");
  }
  return 0;
}

static void mpi_stop(void) {
  if (comm == MPI_COMM_NULL)
    return;
  pthread_mutex_lock(&lock);
  stopping = true;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(progress, NULL);
  free(inflight.ops);
  free(inflight.reqs);
  free(inflight.indices);
  inflight = (struct inflight){0};
  dag__watchdog_stop();
  MPI_Comm_free(&clock_comm);
  MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
  if (we_initialized) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      PMPI_Finalize();
    we_initialized = false;
  }
}

_Noreturn void dag__mpi_abort(void) {
  fflush(NULL);
  /* The thread calling MPI holds mpi_lock (MPI_THREAD_SERIALIZED): wait a
   * little for it, unless it is this thread (the watchdog's end). */
  for (int i = 0; i < 100 && pthread_mutex_trylock(&mpi_lock); i++)
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
  _Exit(1);
}

/* ---------------------------------------------------------------- clock */

/* Rank 0 ping-pongs with each other rank in turn, CLOCK_ROUNDS times; the
 * round with the shortest round trip gives the offset (the other rank's
 * clock when it answered, minus the middle of the round trip on rank 0's)
 * and bounds its error by half that round trip (NTP's estimate). */
#define CLOCK_ROUNDS 16

enum { TAG_PING, TAG_PONG, TAG_RESULT };

/* Receives, yielding the core while it waits: ranks that share cores (more
 * ranks than cores) would otherwise spin in MPI_Recv while the rank being
 * measured waits for a core, and every round trip would be long. */
static void recv_yielding(void *buf, int count, MPI_Datatype type, int from,
                          int tag) {
  MPI_Request req;
  MPI_Irecv(buf, count, type, from, tag, clock_comm, &req);
  for (int done = 0; MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done;)
    sched_yield();
}

static void clock_of_others(void) {
  for (int r = 1; r < dag__nranks; r++) {
    uint64_t best = UINT64_MAX;
    int64_t offset = 0;
    for (int k = 0; k < CLOCK_ROUNDS; k++) {
      uint64_t t0 = dag__now_ns(), theirs;
      MPI_Send(NULL, 0, MPI_BYTE, r, TAG_PING, clock_comm);
      recv_yielding(&theirs, 1, MPI_UINT64_T, r, TAG_PONG);
      uint64_t t1 = dag__now_ns();
      if (t1 - t0 < best) {
        best = t1 - t0;
        offset = (int64_t)theirs - (int64_t)(t0 + (t1 - t0) / 2);
      }
    }
    uint64_t result[2] = {(uint64_t)offset, best / 2};
    MPI_Send(result, 2, MPI_UINT64_T, r, TAG_RESULT, clock_comm);
  }
}

static void clock_against_rank_0(struct comm_clock *c) {
  for (int k = 0; k < CLOCK_ROUNDS; k++) {
    recv_yielding(NULL, 0, MPI_BYTE, 0, TAG_PING);
    uint64_t now = dag__now_ns();
    MPI_Send(&now, 1, MPI_UINT64_T, 0, TAG_PONG, clock_comm);
  }
  uint64_t result[2];
  recv_yielding(result, 2, MPI_UINT64_T, 0, TAG_RESULT);
  c->offset_ns = (int64_t)result[0];
  c->error_ns = result[1];
}

/* Blocking calls, under mpi_lock: the progress thread waits meanwhile. */
static void mpi_clock(struct comm_clock *c) {
  pthread_mutex_lock(&mpi_lock);
  *c = (struct comm_clock){0, 0, 0};
  if (dag__rank == 0)
    clock_of_others();
  else
    clock_against_rank_0(c);
  c->ref_ns = dag__now_ns();
  MPI_Bcast(&c->ref_ns, 1, MPI_UINT64_T, 0, clock_comm);
  pthread_mutex_unlock(&mpi_lock);
}

/* Asked of the library that runs, not the one compiled against: a CUDA-
 * or ROCm-aware build of Open MPI may replace the one libdag was built
 * with. */
static bool mpi_gpu_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  if (MPIX_Query_cuda_support())
    return true;
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT)
  if (MPIX_Query_rocm_support())
    return true;
#endif
  return false;
}

static bool mpi_in_flight(void) {
  return atomic_load_explicit(&unfinished_ops, memory_order_acquire) > 0;
}

const struct comm_ops dag__comm_mpi = {
    "mpi",         mpi_start,     mpi_stop,       mpi_send,
    mpi_recv,      mpi_allgather, dag__mpi_abort, mpi_poll,
    mpi_gpu_aware, mpi_clock,     mpi_in_flight};

/* The program's MPI_Finalize: the runtime finishes first, while MPI still
 * works (the profiling interface gives the real one as PMPI_Finalize). */
DAG_API int MPI_Finalize(void) {
  dag__comm_program_finalizes();
  return PMPI_Finalize();
}
