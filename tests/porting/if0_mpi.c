/* if(0) under MPI: the task is placed as any other and runs undeferred on
 * the rank that runs it; the other ranks go on at once, and see what it
 * wrote after the next taskwait. */
#include <dag.h>
#include <stdio.h>

int main(void) {
  int x = 0, ran_on = -1;
#pragma dag task out(x, ran_on) if(0)
  {
    x = 42;
    ran_on = dag_rank();
  }
  int before = x; /* 42 on the rank that ran the task, 0 on the others */
#pragma dag taskwait
  int after = x; /* 42 on every rank */
  printf("rank %d: x = %d before the taskwait, %d after (task ran on rank %d)\n",
         dag_rank(), before, after, ran_on);
  int ok = after == 42 && (before == 42) == (dag_rank() == ran_on);
  return ok ? 0 : 1;
}
