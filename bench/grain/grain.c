/* grain.c — the graph, the kernels, the check and the driver of
 * bench/grain (grain.h). */
#include "grain.h"

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pattern_names[GRAIN_PATTERNS + 1] = {
    "trivial",    "no_comm",       "stencil_1d", "stencil_1d_periodic",
    "nearest",    "spread",        "fft",        "tree",
    "all_to_all", "random_nearest"};

/* ------------------------------------------------------------ patterns */

/* Sorts deps[0..n) (small) and drops repeats; returns how many remain. */
static int sorted_unique(int *deps, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && deps[j - 1] > deps[j]; j--) {
      int x = deps[j];
      deps[j] = deps[j - 1];
      deps[j - 1] = x;
    }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || deps[m - 1] != deps[i])
      deps[m++] = deps[i];
  return m;
}

/* The r points centred on p (fewer at the edges). */
static int nearest(int width, int r, int p, int *deps) {
  int n = 0;
  for (int q = p - (r - 1) / 2; q <= p + r / 2; q++)
    if (q >= 0 && q < width)
      deps[n++] = q;
  return n;
}

int grain_deps(const struct grain_graph *g, int t, int p, int *deps) {
  int w = g->width, r = g->radix, n = 0;
  if (t == 0)
    return 0;
  switch (g->pattern) {
  case GRAIN_TRIVIAL:
  case GRAIN_PATTERNS:
    return 0;
  case GRAIN_NO_COMM:
    deps[0] = p;
    return 1;
  case GRAIN_STENCIL_1D:
    return nearest(w, 3, p, deps);
  case GRAIN_STENCIL_1D_PERIODIC:
    deps[n++] = (p + w - 1) % w;
    deps[n++] = p;
    deps[n++] = (p + 1) % w;
    break;
  case GRAIN_NEAREST:
    return nearest(w, r, p, deps);
  case GRAIN_SPREAD:
    for (int i = 0; i < r && i < w; i++)
      deps[n++] = (int)((p + (long)i * ((w + r - 1) / r)) % w);
    break;
  case GRAIN_FFT: { /* butterflies: distance 1, 2, 4, ... in turn */
    int levels = 0;
    while ((1 << levels) < w)
      levels++;
    deps[n++] = p;
    if (levels) {
      int q = p ^ (1 << ((t - 1) % levels));
      if (q < w)
        deps[n++] = q;
    }
    break;
  }
  case GRAIN_TREE:
    deps[n++] = p / 2;
    break;
  case GRAIN_ALL_TO_ALL:
    for (int q = 0; q < w; q++)
      deps[n++] = q;
    return n;
  case GRAIN_RANDOM_NEAREST: { /* each neighbour with probability 1/2 */
    int all[GRAIN_MAX_DEPS];
    int m = nearest(w, r, p, all);
    for (int i = 0; i < m; i++)
      if (all[i] == p || (bench_mix(((uint64_t)t << 40) ^ ((uint64_t)p << 20) ^
                                    (uint64_t)all[i]) &
                          1))
        deps[n++] = all[i];
    return n;
  }
  }
  return sorted_unique(deps, n);
}

/* ------------------------------------------------------------- kernels */

/* Four independent chains of multiply-adds: bound by the FP units. */
static double compute_kernel(long iterations) {
  double a = 1.0, b = 1.1, c = 1.2, d = 1.3;
  for (long i = 0; i < iterations; i++) {
    a = a * 0.999999 + 0.000001;
    b = b * 0.999999 + 0.000001;
    c = c * 0.999999 + 0.000001;
    d = d * 0.999999 + 0.000001;
  }
  return a + b + c + d;
}

/* Reads 8 doubles (a cache line) per iteration from point p's scratch,
 * from where step t leaves off, so that successive tasks of a point move
 * through its buffer: bound by memory once the buffers exceed the caches. */
static double memory_kernel(const struct grain_graph *g, int t, int p) {
  const double *buf = g->scratch + (size_t)p * g->scratch_elems;
  size_t n = g->scratch_elems, at = (size_t)t * (size_t)g->iterations * 8 % n;
  double sum = 0;
  for (long i = 0; i < g->iterations; i++) {
    for (int k = 0; k < 8; k++)
      sum += buf[(at + (size_t)k) % n];
    at = (at + 8) % n;
  }
  return sum;
}

/* The output of point p at step t from its n inputs. */
static uint64_t output_of(int t, int p, const uint64_t *in, int n) {
  uint64_t v = bench_mix(((uint64_t)t << 32) ^ (uint64_t)p);
  for (int i = 0; i < n; i++)
    v += in[i] * (uint64_t)(2 * i + 1);
  return bench_mix(v);
}

uint64_t grain_task(const struct grain_graph *g, int t, int p,
                    const uint64_t *in, int n) {
  double x = g->kernel == GRAIN_COMPUTE ? compute_kernel(g->iterations)
                                        : memory_kernel(g, t, p);
  __asm__ volatile("" : : "g"(x)); /* the kernel's result is used */
  return output_of(t, p, in, n);
}

/* ---------------------------------------------------------- the check */

/* The outputs of the last two steps, computed serially without kernels,
 * into want (2 * width, as the slots). */
static void serial_outputs(const struct grain_graph *g, uint64_t *want) {
  int deps[GRAIN_MAX_DEPS];
  uint64_t in[GRAIN_MAX_DEPS];
  for (int t = 0; t < g->steps; t++) {
    uint64_t *out = want + (size_t)(t % 2) * (size_t)g->width;
    const uint64_t *prev = want + (size_t)((t + 1) % 2) * (size_t)g->width;
    for (int p = 0; p < g->width; p++) {
      int n = grain_deps(g, t, p, deps);
      for (int i = 0; i < n; i++)
        in[i] = prev[deps[i]];
      out[p] = output_of(t, p, in, n);
    }
  }
}

/* Slots that hold a wrong value (of those this process holds). */
static long wrong_slots(const struct grain_graph *g,
                        const struct grain_slot *slots, const uint64_t *want,
                        const struct grain_runtime *rt) {
  long wrong = 0;
  size_t n = (size_t)2 * (size_t)g->width;
  if (g->steps < 2)
    n = (size_t)g->width; /* one step: only its slots were written */
  for (size_t i = 0; i < n; i++)
    if ((!rt->holds || rt->holds(i)) && slots[i].value != want[i])
      wrong++;
  return wrong;
}

/* ----------------------------------------------------------- the driver */

struct options {
  struct grain_graph g;
  int threads, reps;
  long scratch_kib;
  const char *json;
  const char *name; /* in the records, instead of the runtime's */
};

static void usage(FILE *f, const char *prog) {
  fprintf(f,
          "usage: %s [--pattern P] [--width W] [--steps S] [--radix R]\n"
          "          [--kernel compute|memory] [--iterations N] "
          "[--scratch-kib K]\n"
          "          [--threads T] [--reps N] [--json FILE]\n"
          "  --pattern     trivial, no_comm, stencil_1d, stencil_1d_periodic,"
          "\n                nearest, spread, fft, tree, all_to_all,"
          " random_nearest\n"
          "                (default stencil_1d)\n"
          "  --width       points per step (default 2)\n"
          "  --steps       timesteps (default 1000)\n"
          "  --radix       dependencies of nearest, spread, random_nearest "
          "(default 3)\n"
          "  --kernel      compute (default) or memory\n"
          "  --iterations  kernel iterations per task (default 1024)\n"
          "  --scratch-kib memory kernel: buffer per point (default 8192)\n"
          "  --threads     threads that run tasks (default 2)\n"
          "  --reps        runs, the best counts (default 3)\n"
          "  --json FILE   append one JSON object per line to FILE\n"
          "  --name NAME   the runtime's name in the output (to compare two\n"
          "                builds of one runtime)\n",
          prog);
}

static const char *const kernel_names[] = {"compute", "memory", NULL};

static int parse(int argc, char **argv, struct options *o) {
  *o = (struct options){.threads = 2, .reps = 3, .scratch_kib = 8192};
  int pattern = GRAIN_STENCIL_1D, kernel = GRAIN_COMPUTE, width = 2,
      steps = 1000, radix = 3;
  long iterations = 1024;
  const long most = 1L << 30;
  const struct bench_opt opts[] = {
      BENCH_CHOICE_OPT("--pattern", &pattern, pattern_names),
      BENCH_CHOICE_OPT("--kernel", &kernel, kernel_names),
      BENCH_OPT("--width", BENCH_INT, &width, 1, most),
      BENCH_OPT("--steps", BENCH_INT, &steps, 1, most),
      BENCH_OPT("--radix", BENCH_INT, &radix, 1, most),
      BENCH_OPT("--iterations", BENCH_LONG, &iterations, 1, most),
      BENCH_OPT("--scratch-kib", BENCH_LONG, &o->scratch_kib, 1, most),
      BENCH_OPT("--threads", BENCH_INT, &o->threads, 1, most),
      BENCH_OPT("--reps", BENCH_INT, &o->reps, 1, most),
      BENCH_OPT("--json", BENCH_STRING, &o->json, 0, 0),
      BENCH_OPT("--name", BENCH_STRING, &o->name, 0, 0),
      BENCH_OPT_END};
  int rc = bench_parse("grain", argc, argv, opts, stderr);
  o->g = (struct grain_graph){pattern, kernel,     width, steps,
                              radix,   iterations, NULL,  0};
  if (rc)
    return rc;
  if (o->g.width > GRAIN_MAX_DEPS && o->g.pattern == GRAIN_ALL_TO_ALL) {
    fprintf(stderr, "grain: all_to_all takes at most %d points\n",
            GRAIN_MAX_DEPS);
    return -1;
  }
  if (o->g.radix > GRAIN_MAX_DEPS) {
    fprintf(stderr, "grain: the radix is at most %d\n", GRAIN_MAX_DEPS);
    return -1;
  }
  return 0;
}

/* The time of one task, alone on this thread: the mean over at least
 * 20 ms of tasks of successive steps. */
static double task_ns(const struct grain_graph *g) {
  long n = 0;
  double t0 = bench_now(), t;
  do {
    grain_task(g, (int)(n % 1000), (int)(n % g->width), NULL, 0);
    n++;
  } while ((t = bench_now() - t0) < 0.02);
  return t / (double)n * 1e9;
}

int grain_main(int argc, char **argv, const struct grain_runtime *rt) {
  struct options o;
  int rc = parse(argc, argv, &o);
  if (rc) {
    usage(rc > 0 ? stdout : stderr, argv[0]);
    return rc > 0 ? 0 : 2;
  }
  struct grain_graph *g = &o.g;
  size_t nslots = (size_t)2 * (size_t)g->width;
  uint64_t *want = malloc(nslots * sizeof *want);
  if (g->kernel == GRAIN_MEMORY) {
    g->scratch_elems = (size_t)o.scratch_kib * 1024 / sizeof(double);
    g->scratch = malloc((size_t)g->width * g->scratch_elems * sizeof(double));
    for (size_t i = 0; g->scratch && i < (size_t)g->width * g->scratch_elems;
         i++)
      g->scratch[i] = (double)(i % 7);
  }
  if (!want || (g->kernel == GRAIN_MEMORY && !g->scratch)) {
    fprintf(stderr, "grain: out of memory\n");
    return 1;
  }
  serial_outputs(g, want);
  /* Before the runtime starts: some spin threads that would share the
   * core. */
  double one = task_ns(g), best = INFINITY;
  int workers = rt->start(o.threads, &argc, &argv);
  if (workers < 1) {
    fprintf(stderr, "grain: %s did not start\n", rt->name);
    return 1;
  }
  struct grain_slot *slots =
      rt->alloc ? rt->alloc(nslots) : aligned_alloc(64, nslots * 64);
  if (!slots) {
    fprintf(stderr, "grain: out of memory\n");
    return 1;
  }
  long wrong = 0;
  for (int r = 0; r < o.reps; r++) {
    double t0 = bench_now();
    rt->run(g, slots);
    double t = bench_now() - t0;
    best = t < best ? t : best;
    wrong += wrong_slots(g, slots, want, rt);
  }
  int reports = !rt->reports || rt->reports(); /* asked while it runs */
  const char *name = o.name ? o.name : rt->name;
  rt->stop();
  double tasks = (double)g->width * g->steps;
  double granularity = best * workers / tasks * 1e9;
  double efficiency = tasks * one / (best * 1e9 * workers);
  int unwritten = 0;
  if (reports) {
    printf("grain runtime=%s pattern=%s width=%d steps=%d radix=%d kernel=%s "
           "iterations=%ld workers=%d time=%.6f task_ns=%.1f "
           "granularity_ns=%.1f efficiency=%.3f check=%s\n",
           name, pattern_names[g->pattern], g->width, g->steps, g->radix,
           kernel_names[g->kernel], g->iterations, workers, best, one,
           granularity, efficiency, wrong ? "WRONG" : "ok");
    unwritten = bench_record(
        o.json,
        "{\"bench\":\"grain\",\"runtime\":\"%s\",\"pattern\":\"%s\","
        "\"width\":%d,\"steps\":%d,\"radix\":%d,\"kernel\":\"%s\","
        "\"iterations\":%ld,\"workers\":%d,\"time_s\":%.6f,"
        "\"task_ns\":%.1f,\"granularity_ns\":%.1f,"
        "\"efficiency\":%.4f,\"check\":\"%s\"}",
        name, pattern_names[g->pattern], g->width, g->steps, g->radix,
        kernel_names[g->kernel], g->iterations, workers, best, one, granularity,
        efficiency, wrong ? "wrong" : "ok");
  }
  if (wrong)
    fprintf(stderr, "grain: %s: %ld wrong outputs\n", name, wrong);
  free(want);
  free(g->scratch);
  if (!rt->alloc)
    free(slots);
  return wrong || unwritten ? 1 : 0;
}
