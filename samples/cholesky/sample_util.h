/* sample_util.h — what the samples and benchmarks that generate matrices
 * and time themselves share: a monotonic clock, a reproducible random
 * entry and SPD matrix, so that every program (and every rank) builds the
 * same matrix.
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

/* A random symmetric n x n matrix (leading dimension n) with off-diagonal
 * entries in [-1, 1) and n added on the diagonal: strictly diagonally
 * dominant, so SPD. Entry (i, j), sample_spd_at, is a hash of (max, min),
 * so rows fill in order and both halves agree; the same seed gives the
 * same matrix in every program. */
static inline double sample_spd_at(int n, uint64_t seed, uint64_t i,
                                   uint64_t j) {
  uint64_t hi = j > i ? j : i, lo = j > i ? i : j;
  return sample_uniform_at(seed + hi * (hi + 1) / 2 + lo) + (i == j) * n;
}
static inline void sample_spd(double *a, int n, uint64_t seed) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[(size_t)i * n + j] = sample_spd_at(n, seed, i, j);
}

#endif /* SAMPLE_UTIL_H */
