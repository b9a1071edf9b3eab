/* spawn.c — tasks that only make one task each: the shape of wrappers and
 * of iterators that hand each item to a task of its own.
 *
 * The program makes n parent tasks; each parent's body makes one child,
 * which works (spins on the clock) for `cutoff` microseconds, and returns.
 * A parent is tiny, so a runtime may run it in its submitter: it must not
 * then hold the submitter until its child is done, or the submitter stops
 * feeding the other workers (issue 11 measured 48% efficiency on 2 workers
 * for dag then, 94% for libgomp). Checked: every child ran once.
 */
#include "nested.h"

#include "harness.h"

#include <stdio.h>

static long count;
static double work_ns;
static long ran; /* children run, counted atomically */

static void child(void) {
  double end = bench_now() * 1e9 + work_ns;
  while (bench_now() * 1e9 < end)
    ;
  __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static void parent(void) {
#pragma omp task
#pragma dag task
  child();
}

static int setup(long n, long c) {
  if (n < 1 || c < 0) {
    fprintf(stderr, "spawn: n = %ld tasks and %ld us of work make no sense\n",
            n, c);
    return 1;
  }
  count = n;
  work_ns = (double)c * 1e3;
  ran = 0;
  return 0;
}

static void run(void) {
  for (long i = 0; i < count; i++) {
#pragma omp task
#pragma dag task
    parent();
  }
#pragma omp taskwait
#pragma dag taskwait
}

static int check(char *what, size_t len) {
  snprintf(what, len, "children=%ld", ran);
  if (ran != count) {
    fprintf(stderr, "spawn: %ld children ran, expected %ld\n", ran, count);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "spawn",
    .size = 200000,
    .cutoff = 5,
    .size_means = "n, the parent tasks (each makes one child)",
    .cutoff_means = "microseconds of work in each child",
    .setup = setup,
    .run = run,
    .check = check,
};
