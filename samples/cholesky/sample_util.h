/* sample_util.h — what the samples and benchmarks that generate matrices
 * and time themselves share: a monotonic clock and a reproducible random
 * entry, so that every program (and every rank) builds the same matrix.
 */
#ifndef SAMPLE_UTIL_H
#define SAMPLE_UTIL_H

#include <stdint.h>
#include <time.h>

/* Seconds on a monotonic clock. */
static inline double sample_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64's output function of x: a uniform double in [-1, 1). */
static inline double sample_uniform_at(uint64_t x) {
  uint64_t z = x * 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

#endif /* SAMPLE_UTIL_H */
