/* min_bytes.c — the least a tiled Cholesky or GEMM must move between ranks,
 * for run-mpi's table of bytes sent:
 *
 *   min_bytes cholesky|gemm N B RANKS
 *
 * prints `grid=PxQ min=X min_total=Y`: the grid, and the bytes the busiest
 * rank must send and all ranks together, for an n x n matrix of doubles in b x
 * b tiles on suite_grid's p x q grid, tile (i, j) homed on rank (i mod p) q + j
 * mod q (the layout of bench/suite/linalg's programs), when every task runs at
 * the home of the tile it writes and every tile, once final for a step, goes
 * once from its home to each other rank that runs a task reading it (whole
 * tiles):
 *   Cholesky: L(k,k) to the homes of tiles (i,k), i > k; L(i,k) to the
 *             homes of tiles (i,j), k < j <= i, and (j,i), j > i;
 *   GEMM:     A(i,k) to the homes of C(i,*), B(k,j) to those of C(*,j).
 * On a 1-D grid no rank forwards for another, so this is also the least the
 * whole run must move.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

static int p, q, nranks;
static uint64_t *sent; /* per rank */
static char *need;     /* per rank: runs a task that reads the tile */

static int home(long i, long j) { return (int)(i % p) * q + (int)(j % q); }

/* A tile of `bytes` from its home to every rank in need but itself. */
static void deal(int from, uint64_t bytes) {
  for (int r = 0; r < nranks; r++)
    if (need[r] && r != from)
      sent[from] += bytes;
  memset(need, 0, (size_t)nranks);
}

static void cholesky(long n, long b) {
  long nt = suite_nblocks(n, b);
  for (long k = 0; k < nt; k++) {
    uint64_t dk = (uint64_t)suite_block_dim(n, b, k);
    for (long i = k + 1; i < nt; i++) /* L(k,k) to the trsm of column k */
      need[home(i, k)] = 1;
    deal(home(k, k), dk * dk * sizeof(double));
    for (long i = k + 1; i < nt; i++) { /* L(i,k) to row i and column i */
      for (long j = k + 1; j <= i; j++)
        need[home(i, j)] = 1;
      for (long j = i + 1; j < nt; j++)
        need[home(j, i)] = 1;
      deal(home(i, k),
           (uint64_t)suite_block_dim(n, b, i) * dk * sizeof(double));
    }
  }
}

static void gemm(long n, long b) {
  long nt = suite_nblocks(n, b);
  for (long i = 0; i < nt; i++)
    for (long k = 0; k < nt; k++) {
      uint64_t bytes = (uint64_t)suite_block_dim(n, b, i) *
                       (uint64_t)suite_block_dim(n, b, k) * sizeof(double);
      for (long j = 0; j < nt; j++) /* A(i,k) to C(i,*) */
        need[home(i, j)] = 1;
      deal(home(i, k), bytes);
      for (long r = 0; r < nt; r++) /* B(i,k), row i = k of the product, */
        need[home(r, k)] = 1;       /* to C(*,k) */
      deal(home(i, k), bytes);
    }
}

int main(int argc, char **argv) {
  long n = argc == 5 ? atol(argv[2]) : 0, b = argc == 5 ? atol(argv[3]) : 0;
  nranks = argc == 5 ? atoi(argv[4]) : 0;
  int chol = argc == 5 && !strcmp(argv[1], "cholesky");
  if (n < 1 || b < 1 || nranks < 1 || !(chol || !strcmp(argv[1], "gemm"))) {
    fprintf(stderr, "usage: min_bytes cholesky|gemm N B RANKS\n");
    return 2;
  }
  suite_grid(nranks, &p, &q);
  sent = calloc((size_t)nranks, sizeof *sent);
  need = calloc((size_t)nranks, 1);
  if (!sent || !need) {
    fprintf(stderr, "min_bytes: out of memory\n");
    return 1;
  }
  (chol ? cholesky : gemm)(n, b < n ? b : n);
  uint64_t most = 0, total = 0;
  for (int r = 0; r < nranks; r++) {
    most = sent[r] > most ? sent[r] : most;
    total += sent[r];
  }
  printf("grid=%dx%d min=%llu min_total=%llu\n", p, q, (unsigned long long)most,
         (unsigned long long)total);
  free(sent);
  free(need);
  return 0;
}
