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
#include "common.h"

#include "harness.h"

#include <stdio.h>
#include <string.h>

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

/* Returns 0, 1 for --help, -1 on a bad command line. */
static int parse_options(int argc, char **argv, struct options *o) {
  *o = (struct options){"all", 2, 0, 0, NULL};
  const struct bench_opt opts[] = {
      BENCH_OPT("--pattern", BENCH_STRING, &o->patterns, 0, 0),
      BENCH_OPT("--threads", BENCH_INT, &o->threads, 1, 1 << 20),
      BENCH_OPT("--reps", BENCH_INT, &o->reps, 1, 1 << 20),
      BENCH_OPT("--quick", BENCH_FLAG, &o->quick, 0, 0),
      BENCH_OPT("--json", BENCH_STRING, &o->json, 0, 0),
      BENCH_OPT_END};
  int rc = bench_parse("overhead", argc, argv, opts, stderr);
  if (!o->reps) /* not given */
    o->reps = o->quick ? 1 : 5;
  if (!strcmp(o->patterns, "all"))
    o->patterns = "abcd";
  if (!rc &&
      (!*o->patterns || strspn(o->patterns, "abcd") != strlen(o->patterns))) {
    fprintf(stderr, "overhead: bad pattern '%s'\n", o->patterns);
    return -1;
  }
  return rc;
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

/* Appends one record; returns 0, or -1 after a message. */
static int json_record(const struct ovh_runtime *rt, const struct options *o,
                       const char *config, const struct result *r,
                       const char *metric, double value, const char *unit) {
  return bench_record(o->json,
                      "{\"bench\":\"overhead\",\"runtime\":\"%s\",\"metric\":"
                      "\"%c_%s\",\"value\":%.6g,\"unit\":\"%s\",\"threads\":%d,"
                      "\"tasks\":%ld,\"reps\":%d%s%s%s}",
                      rt->name, r->p.letter, metric, value, unit, o->threads,
                      r->tasks, o->reps, config ? ",\"config\":\"" : "",
                      config ? config : "", config ? "\"" : "");
}

int ovh_main(int argc, char **argv, const struct ovh_runtime *rt) {
  struct options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) {
    usage(rc > 0 ? stdout : stderr, argv[0]);
    return rc > 0 ? 0 : 2;
  }
  if (rt->init && rt->init(o.threads))
    return 1;
  if (rt->quiet && rt->quiet()) { /* another rank reports */
    o.json = NULL;
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

  long rss_before = bench_peak_rss_kib();
  int unwritten = 0;
  for (const char *p = o.patterns; *p; p++) {
    struct result r = describe(*p, o.quick);
    for (int rep = 0; rep < o.reps; rep++) {
      double t0 = bench_now();
      run_once(rt, &r.p);
      double t = (bench_now() - t0) * 1e6;
      if (r.best_us < 0 || t < r.best_us)
        r.best_us = t;
    }
    double per_task = r.best_us / (double)r.tasks;
    printf("%-7s %c %-12s %8ld tasks %9.3f us/task\n", rt->name, *p, r.p.what,
           r.tasks, per_task);
    unwritten |= json_record(rt, &o, config, &r, "us_per_task", per_task, "us");
    if (*p == 'a' && p == o.patterns) {
      /* The peak RSS can only grow: this is the largest footprint of any
       * repetition over what the started runtime held. Only meaningful
       * when (a) runs first in the process. */
      double per =
          (double)(bench_peak_rss_kib() - rss_before) * 1024 / (double)r.tasks;
      printf("%-7s %c %-12s %8ld tasks %9.1f bytes/task peak RSS growth\n",
             rt->name, *p, r.p.what, r.tasks, per);
      unwritten |=
          json_record(rt, &o, config, &r, "rss_bytes_per_task", per, "B");
    }
    fflush(stdout);
  }
  if (rt->finalize)
    rt->finalize();
  return unwritten ? 1 : 0;
}
