/* mpi_sent.c — the bytes this process hands to MPI for other ranks, counted
 * through the MPI profiling interface (see mpi_sent.h).
 */
#include "mpi_sent.h"

#include <mpi.h>
#include <stdatomic.h>

static _Atomic uint64_t bytes_sent;

uint64_t mpi_sent_bytes(void) {
  return atomic_load_explicit(&bytes_sent, memory_order_relaxed);
}

static void add_bytes(int count, MPI_Datatype type, uint64_t times) {
  int size = 0;
  if (count <= 0 || times == 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS)
    return;
  atomic_fetch_add_explicit(&bytes_sent, (uint64_t)count * size * times,
                            memory_order_relaxed);
}

/* A message to another rank (not to itself, not to MPI_PROC_NULL). */
static void p2p(int count, MPI_Datatype type, int dest, MPI_Comm comm) {
  int me = -1;
  if (dest == MPI_PROC_NULL || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
      dest == me)
    return;
  add_bytes(count, type, 1);
}

static uint64_t others(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  return size > 1 ? (uint64_t)size - 1 : 0;
}

/* What each collective this rank calls sends, as its counts say. */
static void bcast_bytes(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int me = -1;
  PMPI_Comm_rank(comm, &me);
  if (me == root)
    add_bytes(count, type, others(comm));
}

static void reduce_bytes(int count, MPI_Datatype type, int root,
                         MPI_Comm comm) {
  int me = -1;
  PMPI_Comm_rank(comm, &me);
  if (me != root)
    add_bytes(count, type, 1);
}

static void allgather_bytes(const void *sbuf, int scount, MPI_Datatype stype,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  if (sbuf == MPI_IN_PLACE)
    add_bytes(rcount, rtype, others(comm));
  else
    add_bytes(scount, stype, others(comm));
}

/* The profiling interface: each wrapper counts, then calls the real
 * function. The program's executable defines them, so the calls that
 * libdag, ScaLAPACK (BLACS) and StarPU-MPI make land here too. Each call
 * comes blocking and not (MPI_Send, MPI_Isend): X(NAME, EXTRA, ARG) makes
 * both, EXTRA the non-blocking one's request parameter and ARG its use. */
#define BLOCKING_AND_NOT(X, name, iname)                                       \
  X(name, , )                                                                  \
  X(iname, COMMA MPI_Request *req, COMMA req)
#define COMMA ,

#define SEND(name, extra, arg)                                                 \
  int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest,      \
                 int tag, MPI_Comm comm extra) {                               \
    p2p(count, type, dest, comm);                                              \
    return PMPI_##name(buf, count, type, dest, tag, comm arg);                 \
  }
BLOCKING_AND_NOT(SEND, Send, Isend)
BLOCKING_AND_NOT(SEND, Ssend, Issend)
BLOCKING_AND_NOT(SEND, Rsend, Irsend)
BLOCKING_AND_NOT(SEND, Bsend, Ibsend)

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
                 int stag, void *rbuf, int rcount, MPI_Datatype rtype,
                 int source, int rtag, MPI_Comm comm, MPI_Status *status) {
  p2p(scount, stype, dest, comm);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                       source, rtag, comm, status);
}

#define BCAST(name, extra, arg)                                                \
  int MPI_##name(void *buf, int count, MPI_Datatype type, int root,            \
                 MPI_Comm comm extra) {                                        \
    bcast_bytes(count, type, root, comm);                                      \
    return PMPI_##name(buf, count, type, root, comm arg);                      \
  }
BLOCKING_AND_NOT(BCAST, Bcast, Ibcast)

#define REDUCE(name, extra, arg)                                               \
  int MPI_##name(const void *sbuf, void *rbuf, int count, MPI_Datatype type,   \
                 MPI_Op op, int root, MPI_Comm comm extra) {                   \
    reduce_bytes(count, type, root, comm);                                     \
    return PMPI_##name(sbuf, rbuf, count, type, op, root, comm arg);           \
  }
BLOCKING_AND_NOT(REDUCE, Reduce, Ireduce)

#define ALLREDUCE(name, extra, arg)                                            \
  int MPI_##name(const void *sbuf, void *rbuf, int count, MPI_Datatype type,   \
                 MPI_Op op, MPI_Comm comm extra) {                             \
    add_bytes(count, type, others(comm));                                      \
    return PMPI_##name(sbuf, rbuf, count, type, op, comm arg);                 \
  }
BLOCKING_AND_NOT(ALLREDUCE, Allreduce, Iallreduce)

#define ALLGATHER(name, extra, arg)                                            \
  int MPI_##name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
                 int rcount, MPI_Datatype rtype, MPI_Comm comm extra) {        \
    allgather_bytes(sbuf, scount, stype, rcount, rtype, comm);                 \
    return PMPI_##name(sbuf, scount, stype, rbuf, rcount, rtype, comm arg);    \
  }
BLOCKING_AND_NOT(ALLGATHER, Allgather, Iallgather)
