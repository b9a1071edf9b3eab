/* main leaves with its tasks still running, and they write main's locals:
 * dagcc makes main wait for them first, as an OpenMP parallel region ends
 * with a barrier. The way out of main is the first argument:
 *
 *   main_return end     falls off the end of main
 *   main_return expr    returns check(ok): a call reading what a task
 *                       wrote, evaluated after the wait
 *   main_return nested  returns from a switch in a loop, the expression
 *                       reading a task's result too
 *   main_return macro   returns through a macro that expands to return
 *   main_return finalized  calls dag_finalize(), as MPI_Finalize does, then
 *                       returns 0: main's wait, with no runtime left, does
 *                       nothing (dag_taskwait would fail)
 *
 * A task prints the total and checks it; the exit status says whether
 * main saw that check, on every rank under MPI, where only the rank that
 * ran it has it until a taskwait brings it to the others. Without the wait
 * the tasks write a frame that is gone: the program crashes or hangs, or
 * main returns 1. */
#include <stdio.h>
#include <string.h>
#ifdef _DAG
#include <dag.h>
#endif

#define N 32

#define RETURN_IF(cond, value)                                                 \
  do {                                                                         \
    if (cond)                                                                  \
      return (value);                                                          \
  } while (0)

/* Long enough that tasks are still running when main leaves. */
static long work(int i) {
  volatile long s = 0;
  for (long k = 0; k < 1000000; k++)
    s += k % 3;
  return s + i;
}

static long expected(void) {
  long s = 0;
  for (int i = 0; i < N; i++)
    s += 999999 + i;
  return s;
}

static int check(int ok) {
  if (ok)
    return 0;
  fprintf(stderr, "main_return: main does not see the task's check\n");
  return 1;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "end";
  long part[N], total = 0;
  int ok = 0;
  for (int i = 0; i < N; i++) {
#pragma dag task out(part[i])
    part[i] = work(i);
  }
  for (int i = 0; i < N; i++) {
#pragma dag task in(part[i]) inout(total)
    total += part[i];
  }
#pragma dag task in(total) out(ok)
  {
    printf("%s: total %ld\n", how, total);
    ok = total == expected();
  }
  if (!strcmp(how, "expr"))
    return check(ok);
#ifdef _DAG
  if (!strcmp(how, "finalized")) {
    dag_finalize();
    return 0;
  }
#endif
  for (int k = 0; k < 3; k++) {
    switch (k) {
    case 2:
      if (!strcmp(how, "nested"))
        return ok ? 0 : 1;
      break;
    default:
      break;
    }
  }
  RETURN_IF(!strcmp(how, "macro"), check(ok));
}
