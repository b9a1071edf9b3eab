/* A program that ends with its tasks still running, as a port that kept
 * `#pragma omp taskwait` (which dagcc does not read) does:
 *
 *   exit_paths return     main returns after submitting
 *   exit_paths exit       main calls exit(0) after submitting
 *   exit_paths task-exit  a task body calls exit(0)
 *
 * The first two must wait for every task and then print, with stdout a
 * pipe, what the program's own exit handler prints: the tasks' sum, as the
 * sequential program does. The third ends the process from the task, as
 * the sequential program does, without a hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTASKS 64

static long done[NTASKS];
static int task_exit;

/* Long enough that tasks are still running when main returns. */
static void work(int i, long *out) {
  volatile long s = 0;
  for (long k = 0; k < 2000000; k++)
    s += k % 7;
  *out = s + i;
  if (task_exit && i == NTASKS / 2) {
    printf("task %d calls exit\n", i);
    exit(0);
  }
}

/* Registered before the first task, so it runs after the runtime's own
 * exit handler, which waits for the tasks. */
static void report(void) {
  if (task_exit)
    return;
  long sum = 0;
  for (int i = 0; i < NTASKS; i++)
    sum += done[i];
  printf("sum %ld\n", sum);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "return";
  task_exit = !strcmp(mode, "task-exit");
  atexit(report);
  printf("mode %s\n", mode);
  for (int i = 0; i < NTASKS; i++) {
#pragma dag task out(done[i])
    work(i, &done[i]);
  }
  if (!strcmp(mode, "exit"))
    exit(0);
  if (task_exit) {
#pragma dag taskwait
    printf("not reached: a task called exit\n");
  }
  return 0;
}
