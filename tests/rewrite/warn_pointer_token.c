/* OpenMP programs name a pointer variable as a token for the matrix behind
 * it (`depend(out: S1)`, as KASTORS' Strassen does). Ported 1:1, the item
 * is the pointer's own 8 bytes: right on one rank by luck, wrong under MPI,
 * where those bytes travel. Each such item whose pointer the body uses
 * draws a warning; an item over the memory does not, nor a pointer the body
 * only compares. */
#include <stdlib.h>

void add(int n, const double *a, const double *b, double *c);

void strassen_step(int n, double *A21, double *A22, double *done) {
  double *S1 = malloc(sizeof(double) * n * n);
  double *S2 = malloc(sizeof(double) * n * n);
#pragma dag task in(A21, A22[0:n * n]) out(S1)
  add(n, A21, A22, S1);
#pragma dag task in(S1[0:n * n]) out(S2[0:n * n])
  add(n, S1, S1, S2);
#pragma dag task inout(S2)
  S2[0] = 1;
#pragma dag task in(S1) out(done[0])
  done[0] = S1 != NULL;
#pragma dag taskwait
  free(S1);
  free(S2);
}

/* The task that sets the pointer itself names the pointer's value, as it
 * should: no warning, nor for a pointer to void that only passes on. */
void copy(void *to, const void *from, unsigned long n);
void produce(int n, double **out, void *raw, double *dst) {
  double *buf;
#pragma dag task out(buf)
  {
    buf = malloc(sizeof(double) * n);
    buf[0] = 0;
  }
#pragma dag task in(raw) out(dst[0:1])
  copy(dst, raw, 8);
#pragma dag taskwait
  *out = buf;
}
