/* -Wdag-mpi, for programs run on several ranks: a task without data items
 * runs on one rank under MPI, so one that writes through a pointer, writes
 * a global or calls a function leaves its result on that rank only. Tasks
 * with items, placed with on(), or writing only their own variables are
 * fine. */
#include <stdio.h>

int total;
void fill(double *a, int n);

#pragma dag task
void note(int i);

void f(double *a, int n) {
#pragma dag task
  fill(a, n);
#pragma dag task
  total = n;
#pragma dag task
  a[0] = 1;
#pragma dag task out(a[0:n])
  fill(a, n);
#pragma dag task on(0)
  printf("%d\n", n);
#pragma dag task
  {
    volatile int k = 0;
    for (int i = 0; i < n; i++)
      k += i;
  }
  note(n);
#pragma dag taskwait
}
