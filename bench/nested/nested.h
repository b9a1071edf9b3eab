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

/* SplitMix64's output function: a good 64-bit mix of z, and with z, z + 1,
 * z + 2, ... a deterministic splittable generator. */
static inline uint64_t nested_mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* A double uniform in [0, 1) from z. */
static inline double nested_unit(uint64_t z) {
  return (double)(nested_mix(z) >> 11) * 0x1.0p-53;
}

#endif /* NESTED_H */
