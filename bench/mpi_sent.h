/* mpi_sent.h — the bytes a benchmark's process handed to MPI for other
 * ranks, for the byte counts of bench/suite's and bench/mpi's programs.
 *
 * mpi_sent.c defines MPI_Send, MPI_Isend and their variants, MPI_Sendrecv
 * and the collectives, each counting then calling its PMPI_ twin. Linked
 * into an executable that exports its symbols (-rdynamic), it also sees the
 * calls that libdag, ScaLAPACK (BLACS), StarPU-MPI and PETSc make.
 * Point-to-point sends count their data when they go to another rank; a
 * collective counts what it must carry from this rank: a broadcast's root
 * its buffer once per other rank; reduce, allreduce and allgather this
 * rank's contribution to each other rank that needs it.
 */
#ifndef BENCH_MPI_SENT_H
#define BENCH_MPI_SENT_H

#include <stdint.h>

/* Bytes sent so far by this process (relaxed: any thread may send). */
uint64_t mpi_sent_bytes(void);

#endif /* BENCH_MPI_SENT_H */
