/* fib.c — the Fibonacci recursion, two tasks per call.
 *
 * fib(n) makes a task of fib(n - 1) and one of fib(n - 2), each writing a
 * variable of the caller, waits for both and adds. Below the cutoff
 * (n < cutoff) a call runs fib_seq, the same recursion without tasks;
 * cutoff 0 makes a task of every call down to n < 2, about 2 fib(n + 1)
 * tasks, a pure test of task creation and of waiting inside tasks. Checked
 * against the iterative value.
 */
#include "nested.h"

#include <stdio.h>

static int size, cutoff;
static long result;

static long fib_seq(int n) {
  return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static long fib(int n) {
  if (n < 2)
    return n;
  if (n < cutoff)
    return fib_seq(n);
  long x, y;
#pragma omp task shared(x)
#pragma dag task out(x)
  x = fib(n - 1);
#pragma omp task shared(y)
#pragma dag task out(y)
  y = fib(n - 2);
#pragma omp taskwait
#pragma dag taskwait
  return x + y;
}

static int setup(long n, long c) {
  if (n > 92) {
    fprintf(stderr, "fib: n = %ld overflows a long (at most 92)\n", n);
    return 1;
  }
  size = (int)n;
  cutoff = (int)(c < 93 ? c : 93);
  return 0;
}

static void run(void) { result = fib(size); }

static int check(char *what, size_t len) {
  long a = 0, b = 1;
  for (int i = 0; i < size; i++) {
    long t = a + b;
    a = b;
    b = t;
  }
  snprintf(what, len, "fib(%d)=%ld", size, result);
  if (result != a) {
    fprintf(stderr, "fib: fib(%d) = %ld, expected %ld\n", size, result, a);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "fib",
    .size = 36,
    .cutoff = 20,
    .size_means = "n, the Fibonacci index",
    .cutoff_means =
        "calls with n < CUTOFF run serially (0: tasks down to n < 2)",
    .setup = setup,
    .run = run,
    .check = check,
};
