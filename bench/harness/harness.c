/* harness.c — the clock, memory, command line, repetitions and records of
 * every benchmark program (harness.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_cpu(int process) {
  struct timespec ts;
  clock_gettime(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID,
                &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long bench_peak_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss; /* Linux reports KiB */
}

/* The value of opt from s, into its dst; -1 when it is not one. */
static int store(const struct bench_opt *opt, const char *s) {
  if (opt->kind == BENCH_STRING) {
    *(const char **)opt->dst = s;
    return 0;
  }
  if (opt->kind == BENCH_CHOICE) {
    for (int k = 0; opt->choices[k]; k++)
      if (!strcmp(opt->choices[k], s)) {
        *(int *)opt->dst = k;
        return 0;
      }
    return -1;
  }
  char *end;
  errno = 0;
  if (opt->kind == BENCH_DOUBLE) {
    double d = strtod(s, &end);
    if (errno || end == s || *end)
      return -1;
    *(double *)opt->dst = d;
    return 0;
  }
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < opt->lo || v > opt->hi)
    return -1;
  if (opt->kind == BENCH_INT)
    *(int *)opt->dst = (int)v;
  else
    *(long *)opt->dst = v;
  return 0;
}

int bench_parse(const char *prog, int argc, char **argv,
                const struct bench_opt *opts, FILE *err) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const struct bench_opt *opt = opts;
    while (opt->name && strcmp(opt->name, arg))
      opt++;
    if (!opt->name && (!strcmp(arg, "-h") || !strcmp(arg, "--help")))
      return 1;
    if (opt->name && opt->kind == BENCH_FLAG) {
      *(int *)opt->dst = 1;
      continue;
    }
    const char *val = i + 1 < argc ? argv[++i] : NULL;
    if (!opt->name || !val) {
      if (err)
        fprintf(err, "%s: '%s' is unknown or needs a value\n", prog, arg);
      return -1;
    }
    if (store(opt, val)) {
      if (err)
        fprintf(err, "%s: bad value '%s' for %s\n", prog, val, arg);
      return -1;
    }
  }
  return 0;
}

int bench_args(int argc, char **argv, const struct bench_opt *opts,
               const char *usage) {
  int rc = bench_parse(argv[0], argc, argv, opts, stderr);
  if (rc)
    fprintf(rc > 0 ? stdout : stderr, "usage: %s\n", usage);
  return rc ? (rc > 0 ? 0 : 2) : -1;
}

int bench_usage(int rc, const char *usage) {
  if (rc >= 0)
    return rc;
  fprintf(stderr, "usage: %s\n", usage);
  return 2;
}

double bench_best(const double *t, int n) {
  double best = n ? t[0] : 0.0;
  for (int i = 1; i < n; i++)
    best = t[i] < best ? t[i] : best;
  return best;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, by_value);
  return !n ? 0.0 : n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int bench_record(const char *path, const char *fmt, ...) {
  if (!path)
    return 0;
  FILE *f = fopen(path, "a");
  if (f) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
  }
  if (!f || fclose(f)) {
    perror(path);
    return -1;
  }
  return 0;
}
