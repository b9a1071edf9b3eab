/* nested.h — the harness shared by the nested and irregular task kernels.
 *
 * Each kernel (fib.c, nqueens.c, sort.c, strassen.c, sparselu.c, tsp.c,
 * uts.c, spawn.c) is one source file compiled several ways: with dagcc (dag
 * tasks; dagcc defines _DAG), with gcc or clang -fopenmp (libgomp, libomp;
 * _OPENMP) and with gcc or clang alone (serial). It writes each task twice, an
 * OpenMP pragma followed by a dag pragma on the same statement; each compiler
 * ignores the other's pragma, and the serial builds ignore both. The file
 * defines `nested_kernel` and nested.c does the rest: command line, starting
 * the runtime, timing, checking and the output.
 */
#ifndef NESTED_H
#define NESTED_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

struct nested_kernel {
  const char *name;       /* "fib": the JSON "kernel" */
  long size, cutoff;      /* defaults of -n and -c */
  const char *size_means; /* for --help: "n, the Fibonacci index" */
  const char *cutoff_means;
  /* Checks size and cutoff and builds the input (not timed). Returns 0, or
   * nonzero after a message on stderr. */
  int (*setup)(long size, long cutoff);
  /* The timed part, called by one thread (in an OpenMP build, inside a
   * parallel region's single construct). Returns when its tasks are done. */
  void (*run)(void);
  /* Checks the result against a known or serially computed answer, not
   * timed. Writes a short description of the result to `what` (len bytes);
   * returns 0 if right, nonzero after a message on stderr. */
  int (*check)(char *what, size_t len);
};

/* Defined by each kernel file. */
extern const struct nested_kernel nested_kernel;

/* A double uniform in [0, 1) from z. */
static inline double nested_unit(uint64_t z) {
  return (double)(bench_mix(z) >> 11) * 0x1.0p-53;
}

#endif /* NESTED_H */
