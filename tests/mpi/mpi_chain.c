/* mpi_chain: one chain of tasks through inout(x), cut by taskwaits, for
 * the report's critical path (issue 48): every task depends on the one
 * before it, so the critical path is the whole chain, whatever the waits
 * between its links.
 *
 *   mpi_chain [tasks [every [alternate|home|undeferred|on]]]
 *
 * `tasks` tasks (80) each add one to x after about 200 us of work, with a
 * taskwait after every `every` tasks (20). x is replicated memory with
 * `alternate` (the default): tasks go round-robin over the ranks, and x
 * travels from each to the next. With `home`, x lies in dag_alloc memory
 * whose home is rank 0 (zero, as new dag_alloc memory is), where every
 * task runs. With `undeferred`, every
 * fifth task runs undeferred (if(0)), in the submitting thread; with `on`,
 * each group of tasks ends with taskwait on(x) instead of a taskwait.
 * Checks that x ends at `tasks` on every rank. Built with dagcc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dag.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* About 200 us of work: the task's time on the critical path. */
static void link_of_chain(long *x) {
  double t0 = now_us();
  while (now_us() - t0 < 200)
    ;
  ++*x;
}

static void step(long *x, int undeferred) {
#pragma dag task inout(*x) if(!undeferred) label("link")
  link_of_chain(x);
}

int main(int argc, char **argv) {
  int tasks = argc > 1 ? atoi(argv[1]) : 80;
  int every = argc > 2 ? atoi(argv[2]) : 20;
  const char *mode = argc > 3 ? argv[3] : "alternate";
  if (tasks < 1 || every < 1) {
    fprintf(stderr, "usage: mpi_chain [tasks [every [alternate|home|"
                    "undeferred|on]]]\n");
    return 2;
  }
  static long replicated;
  long *x = &replicated;
  if (!strcmp(mode, "home")) {
    x = dag_alloc(sizeof *x, dag_dist_block(sizeof *x, 1));
    if (!x) {
      fprintf(stderr, "mpi_chain: %s\n", dag_last_error());
      return 1;
    }
  }
  for (int i = 0; i < tasks; i++) {
    step(x, !strcmp(mode, "undeferred") && i % 5 == 4);
    if ((i + 1) % every == 0 && i + 1 < tasks) {
      if (!strcmp(mode, "on")) {
#pragma dag taskwait on(*x)
      } else {
#pragma dag taskwait
      }
    }
  }
#pragma dag taskwait on(*x)
  long got = *x;
  int rank = dag_rank();
  if (x != &replicated)
    dag_free(x);
  if (got != tasks) {
    fprintf(stderr, "mpi_chain: rank %d: x = %ld, expected %d\n", rank, got,
            tasks);
    return 1;
  }
  printf("mpi_chain: rank %d: %d tasks, x = %ld\n", rank, tasks, got);
  return 0;
}
