/* A write through a pointer in an accessor macro from a header draws the
 * same warnings as one written out: the operator is read where the macro is
 * used. The task covers A but not B; the second one has no items at all,
 * so under MPI (-Wdag-mpi) it runs on one rank. */
#include "warn_header_macro.h"

void fill(double *A, double *B, int n) {
  for (int b = 0; b < n; b += 16) {
#pragma dag task out(A[b * n : 16 * n])
    for (int i = b; i < b + 16; i++)
      for (int j = 0; j < n; j++) {
        ELEM(A, n, i, j) = 1;
        ELEM(B, n, i, j) = 2;
      }
  }
#pragma dag task
  AT(B, 0)++;
#pragma dag taskwait
}
