/* common.c — command line, timing, RSS and output of the overhead benchmark.
 *
 * ovh_main() runs the selected patterns of one runtime in this process:
 * each pattern `reps` times, keeping the best wall-clock time, which it
 * reports in microseconds per task. For pattern (a), which runs first, it
 * also reports the growth of the peak resident set size (ru_maxrss) since
 * the runtime started, divided by the number of tasks: a fresh process per
 * runtime keeps that number clean, so the runner (run) starts one per
 * runtime. Results go to stdout as text and, with --json FILE, are appended
 * to FILE as JSON Lines: one object per line, e.g.
 *   {"bench":"overhead","runtime":"dag","metric":"a_us_per_task",
 *    "value":0.25,"unit":"us","threads":2,"tasks":1000000,"reps":5}
 */
#define _POSIX_C_SOURCE 200809L

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The patterns at full size: a and b take n tasks, c takes n chains of m
 * tasks, d takes n groups of m readers. --quick scales each by 1/100. */
struct pattern {
  char letter;
  const char *what;
  long n, m;
};

static const struct pattern patterns[] = {
    {'a', "independent", 1000000, 1},
    {'b', "chain", 100000, 1},
    {'c', "chains", OVH_MAX_CHAINS, 100},
    {'d', "fanout", 100, 1000},
};

struct options {
  const char *patterns; /* letters among "abcd" */
  int threads;
  int reps;
  int quick;
  const char *json;
};

struct result {
  struct pattern p; /* scaled */
  long tasks;
  double best_us; /* best wall time of one repetition */
};

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Peak resident set size of this process so far, in bytes. */
static long peak_rss_bytes(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss * 1024L; /* Linux reports KiB */
}

static void usage(FILE *f, const char *prog) {
  fprintf(f,
          "usage: %s [--pattern a|b|c|d|all] [--threads N] [--reps N]\n"
          "          [--quick] [--json FILE]\n"
          "  --pattern  patterns to run: 'all' (default) or letters among "
          "abcd\n"
          "             a: %ld independent tasks\n"
          "             b: a chain of %ld tasks inout on one variable\n"
          "             c: %ld chains of %ld tasks, submitted round-robin\n"
          "             d: %ld x (1 writer, %ld readers), then 1 writer\n"
          "  --threads  threads that run tasks (default 2)\n"
          "  --reps     repetitions per pattern, the best is kept (default "
          "5)\n"
          "  --quick    1/100 of the tasks, 1 repetition (smoke test)\n"
          "  --json     append one JSON object per line per result to FILE\n",
          prog, patterns[0].n, patterns[1].n, patterns[2].n, patterns[2].m,
          patterns[3].n, patterns[3].m);
}

static int positive(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 1 || v > 1 << 20)
    return -1;
  *out = (int)v;
  return 0;
}

/* Returns 0, 1 for --help, -1 on a bad command line. */
static int parse_options(int argc, char **argv, struct options *o) {
  *o = (struct options){"abcd", 2, 5, 0, NULL};
  int reps_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
      return 1;
    if (!strcmp(arg, "--quick")) {
      o->quick = 1;
      continue;
    }
    if (!val) {
      fprintf(stderr, "overhead: '%s' needs a value or is unknown\n", arg);
      return -1;
    }
    i++;
    if (!strcmp(arg, "--pattern")) {
      o->patterns = strcmp(val, "all") ? val : "abcd";
      if (!*val || strspn(o->patterns, "abcd") != strlen(o->patterns)) {
        fprintf(stderr, "overhead: bad pattern '%s'\n", val);
        return -1;
      }
    } else if (!strcmp(arg, "--threads")) {
      if (positive(val, &o->threads)) {
        fprintf(stderr, "overhead: bad thread count '%s'\n", val);
        return -1;
      }
    } else if (!strcmp(arg, "--reps")) {
      if (positive(val, &o->reps)) {
        fprintf(stderr, "overhead: bad repetition count '%s'\n", val);
        return -1;
      }
      reps_given = 1;
    } else if (!strcmp(arg, "--json")) {
      o->json = val;
    } else {
      fprintf(stderr, "overhead: unknown option '%s'\n", arg);
      return -1;
    }
  }
  if (o->quick && !reps_given)
    o->reps = 1;
  return 0;
}

/* Pattern `letter` at the size that the options ask for. */
static struct result describe(char letter, int quick) {
  struct result r = {patterns[letter - 'a'], 0, -1};
  if (quick && letter <= 'b')
    r.p.n /= 100;
  else if (quick)
    r.p.n /= 10, r.p.m /= 10;
  r.tasks = letter == 'c'   ? r.p.n * r.p.m
            : letter == 'd' ? r.p.n * (r.p.m + 1) + 1
                            : r.p.n;
  return r;
}

static void run_once(const struct ovh_runtime *rt, const struct pattern *p) {
  switch (p->letter) {
  case 'a':
    rt->independent(p->n);
    break;
  case 'b':
    rt->chain(p->n);
    break;
  case 'c':
    rt->chains(p->n, p->m);
    break;
  case 'd':
    rt->fanout(p->n, p->m);
    break;
  }
}

static void json_record(FILE *f, const struct ovh_runtime *rt,
                        const struct options *o, const char *config,
                        const struct result *r, const char *metric,
                        double value, const char *unit) {
  if (!f)
    return;
  fprintf(f,
          "{\"bench\":\"overhead\",\"runtime\":\"%s\",\"metric\":\"%c_%s\","
          "\"value\":%.6g,\"unit\":\"%s\",\"threads\":%d,\"tasks\":%ld,"
          "\"reps\":%d",
          rt->name, r->p.letter, metric, value, unit, o->threads, r->tasks,
          o->reps);
  if (config)
    fprintf(f, ",\"config\":\"%s\"", config);
  fputs("}\n", f);
}

int ovh_main(int argc, char **argv, const struct ovh_runtime *rt) {
  struct options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) {
    usage(rc > 0 ? stdout : stderr, argv[0]);
    return rc > 0 ? 0 : 2;
  }
  FILE *json = NULL;
  if (o.json && !(json = fopen(o.json, "a"))) {
    perror(o.json);
    return 1;
  }
  if (rt->init && rt->init(o.threads)) {
    if (json)
      fclose(json);
    return 1;
  }
  if (rt->quiet && rt->quiet()) { /* another rank reports */
    if (json)
      fclose(json);
    json = NULL;
    if (!freopen("/dev/null", "w", stdout))
      return 1;
  }
  int actual = rt->num_threads();
  if (actual != o.threads)
    fprintf(stderr, "%s: warning: asked for %d threads, runtime has %d\n",
            rt->name, o.threads, actual);
  const char *config = rt->config ? rt->config() : NULL;
  printf("%s: %d threads%s%s, best of %d\n", rt->name, actual,
         config ? ", " : "", config ? config : "", o.reps);

  long rss_before = peak_rss_bytes();
  for (const char *p = o.patterns; *p; p++) {
    struct result r = describe(*p, o.quick);
    for (int rep = 0; rep < o.reps; rep++) {
      double t0 = now_us();
      run_once(rt, &r.p);
      double t = now_us() - t0;
      if (r.best_us < 0 || t < r.best_us)
        r.best_us = t;
    }
    double per_task = r.best_us / (double)r.tasks;
    printf("%-7s %c %-12s %8ld tasks %9.3f us/task\n", rt->name, *p, r.p.what,
           r.tasks, per_task);
    json_record(json, rt, &o, config, &r, "us_per_task", per_task, "us");
    if (*p == 'a' && p == o.patterns) {
      /* The peak RSS can only grow: this is the largest footprint of any
       * repetition over what the started runtime held. Only meaningful
       * when (a) runs first in the process. */
      double per = (double)(peak_rss_bytes() - rss_before) / (double)r.tasks;
      printf("%-7s %c %-12s %8ld tasks %9.1f bytes/task peak RSS growth\n",
             rt->name, *p, r.p.what, r.tasks, per);
      json_record(json, rt, &o, config, &r, "rss_bytes_per_task", per, "B");
    }
    fflush(stdout);
  }
  if (rt->finalize)
    rt->finalize();
  if (json && fclose(json)) {
    perror(o.json);
    return 1;
  }
  return 0;
}
