/* harness.h — what every benchmark program shares, after Task Bench's core:
 * the clock, CPU time, the peak memory, the command line, the best and the
 * median of repetitions, the records appended to a JSON Lines file, and a mix
 * of 64 bits for programs that make their inputs. Each folder's driver
 * (suite.c, grain.c, overhead/common.c, nested.c) and each program keeps its
 * own options and output lines: it lists its options in a table of struct
 * bench_opt, and times and writes its records through these calls.
 *
 * Built as the static library bench_harness; programs that CMake does not
 * compile (dagcc, clang -fopenmp) take harness.c among their sources.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include <stdint.h>
#include <stdio.h>

/* Seconds on a monotonic clock. */
double bench_now(void);

/* Seconds of CPU that the calling thread (process: every thread of the
 * process) has used: unlike the clock, it leaves out the time spent asleep,
 * waiting, or with the core taken by another process. */
double bench_cpu(int process);

/* The peak resident set size of this process so far, in KiB. */
long bench_peak_rss_kib(void);

/* One option of a command line. */
enum bench_opt_kind {
  BENCH_FLAG,   /* no value: *(int *)dst = 1 */
  BENCH_INT,    /* an int in [lo, hi] */
  BENCH_LONG,   /* a long in [lo, hi] */
  BENCH_DOUBLE, /* a double */
  BENCH_STRING, /* *(const char **)dst = the value */
  BENCH_CHOICE, /* *(int *)dst = the index of the value in choices */
};

struct bench_opt {
  const char *name; /* "-n", "--width"; NULL ends the table */
  enum bench_opt_kind kind;
  void *dst;
  long lo, hi;
  const char *const *choices; /* BENCH_CHOICE: NULL-terminated */
};

/* A row of the table: BENCH_OPT("-n", BENCH_LONG, &n, 1, 100) (lo and hi
 * count for BENCH_INT and BENCH_LONG only), BENCH_CHOICE_OPT("--kernel",
 * &k, names); BENCH_OPT_END ends it. */
#define BENCH_OPT(name, kind, dst, lo, hi)                                     \
  { (name), (kind), (dst), (lo), (hi), NULL }
#define BENCH_CHOICE_OPT(name, dst, choices)                                   \
  { (name), BENCH_CHOICE, (dst), 0, 0, (choices) }
#define BENCH_OPT_END                                                          \
  { NULL, BENCH_FLAG, NULL, 0, 0, NULL }

/* Parses argv[1..argc) by the table opts. Returns 0 when every argument
 * was understood, 1 at -h or --help (where the table does not name them),
 * -1 after a message on err naming prog ("prog: bad value 'x' for -n";
 * err NULL: no message). */
int bench_parse(const char *prog, int argc, char **argv,
                const struct bench_opt *opts, FILE *err);

/* bench_parse for a program whose usage is one line: on -h or --help it
 * prints "usage: " and the line on stdout, on a mistake on stderr. Returns
 * -1 to go on, else the exit status (0 after the help, 2). */
int bench_args(int argc, char **argv, const struct bench_opt *opts,
               const char *usage);

/* After bench_args and the program's own checks of the values: rc when it
 * is an exit status, else the usage line on stderr and 2. */
int bench_usage(int rc, const char *usage);

/* The best (smallest) and the median of the n times t (n >= 0; 0 for
 * none). bench_median sorts t. */
double bench_best(const double *t, int n);
double bench_median(double *t, int n);

/* Appends one line, printf's fmt with its arguments, to the file path
 * (JSON Lines records). Nothing when path is NULL. Returns 0, or -1 after
 * a message when the file cannot be written. */
int bench_record(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* SplitMix64's output function: a good 64-bit mix of z, and with z, z + 1,
 * z + 2, ... a deterministic splittable generator. */
static inline uint64_t bench_mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

#endif /* BENCH_HARNESS_H */
