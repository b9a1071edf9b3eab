/* settings.c — reading and checking every DAG_* environment variable (see
 * settings.h). One table describes them all: name, kind of value, where it
 * goes, what it accepts and what holds when it is unset; the parser, the
 * messages and the DAG_STATS report all walk it.
 */
#include "settings.h"

#include "base.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

enum kind {
  COUNT,      /* an int from lo to hi */
  SWITCH,     /* an int: 0 or 1 */
  WATCHDOG,   /* report[,end]: doubles > 0, end >= report */
  BYTES,      /* a size_t, with an optional K, M or G */
  PATH,       /* a const char *, not empty */
  LEVEL,      /* an enum log_level */
  UNIFORMITY, /* DAG_CHECK_UNIFORMITY: 0, 1 or values */
  DEVICES,    /* the DAG_DEVICES list */
  GRANULE,    /* BYTES, a power of two from 4K to 1G */
  EMUL_FAIL,  /* DAG_EMUL_FAIL: alloc:N, copy:N or kernel:N */
};

struct variable {
  const char *name;
  enum kind kind;
  size_t field;         /* offset in struct settings */
  int lo, hi;           /* COUNT */
  const char *accepts;  /* for the messages */
  const char *fallback; /* what holds when unset ("cores": one worker per
                          core, "auto": as MPI says) */
};

#define AT(f) offsetof(struct settings, f)

static const struct variable variables[] = {
    {"DAG_NUM_THREADS", COUNT, AT(num_threads), 1, 4096,
     "a number of workers from 1 to 4096", "cores"},
    {"DAG_STATS", SWITCH, AT(stats), 0, 0, "0 or 1", "0"},
    {"DAG_TRACE", PATH, AT(trace), 0, 0, "a file name", "off"},
    {"DAG_GRAPH", PATH, AT(graph), 0, 0, "a file name", "off"},
    {"DAG_REPORT", PATH, AT(report), 0, 0, "a file name", "off"},
    {"DAG_LOG", LEVEL, AT(log), 0, 0, "error, warn, info or debug", "warn"},
    {"DAG_CHECK_UNIFORMITY", UNIFORMITY, 0, 0, 0, "0, 1 or values", "0"},
    {"DAG_CHECK_ITEMS", SWITCH, AT(check_items), 0, 0, "0 or 1", "0"},
    {"DAG_CHECK_EVERY", COUNT, AT(check_period), 0, 1 << 30,
     "a number of tasks from 0 (only at waits) to 1073741824", "100000"},
    {"DAG_WATCHDOG", WATCHDOG, 0, 0, 0,
     "seconds (above 0, at most 1000000) to report waits, and optionally "
     "',' and seconds to end the run (no fewer)",
     "off"},
    {"DAG_INLINE", SWITCH, AT(inline_tasks), 0, 0, "0 or 1", "1"},
    {"DAG_DEVICES", DEVICES, 0, 0, 0, NULL /* devices_accepted() */,
     "cuda,hip"},
    {"DAG_DEVICE_STAGING", SWITCH, AT(device_staging), 0, 0, "0 or 1", "1"},
    {"DAG_DEVICE_WRITEBACK", SWITCH, AT(device_writeback), 0, 0, "0 or 1", "1"},
    {"DAG_HISTORY", PATH, AT(history), 0, 0, "a file name, or off",
     "a file in the user's cache folder"},
    {"DAG_MPI_GPU_DIRECT", SWITCH, AT(mpi_gpu_direct), 0, 0, "0 or 1", "auto"},
    {"DAG_EMUL_MEM", BYTES, AT(emul_memory), 0, 0,
     "a size in bytes above 0, with an optional K, M or G", "256M"},
    {"DAG_EMUL_DELAY_US", COUNT, AT(emul_delay_us), 0, 10000000,
     "microseconds from 0 to 10000000", "0"},
    {"DAG_EMUL_JITTER_US", COUNT, AT(emul_jitter_us), 0, 10000000,
     "microseconds from 0 to 10000000", "0"},
    {"DAG_EMUL_SEED", COUNT, AT(emul_seed), 0, 2147483647,
     "a number from 0 to 2147483647", "1"},
    {"DAG_EMUL_GRANULE", GRANULE, AT(emul_granule), 0, 0,
     "a power of two from 4K to 1G, with an optional K, M or G", "2M"},
    {"DAG_EMUL_MODEL", PATH, AT(emul_model), 0, 0,
     "h200, or a device model file (docs/gpu.md)", "off"},
    {"DAG_EMUL_FAIL", EMUL_FAIL, 0, 0, 0,
     "alloc:N, copy:N or kernel:N (the Nth such operation of a device fails)",
     "off"},
    {"DAG_SIMULATE_RANKS", COUNT, AT(simulate_ranks), 1, 1 << 20,
     "a number of ranks from 1 to 1048576", "off"},
    {"DAG_SIMULATE_RANK", COUNT, AT(simulate_rank), 0, (1 << 20) - 1,
     "a rank below DAG_SIMULATE_RANKS", "0"},
};

#define NVARIABLES (sizeof variables / sizeof *variables)

/* DAG_* variables that are not the runtime's but the compiler driver's. */
static const char *const dagcc_variables[] = {"DAG_HOME", "DAG_CC",
                                              "DAG_KEEP_TEMPS"};

static struct settings settings = {
    .log = DAG_LOG_WARN,
    .check_period = 100000,
    .ndevice_choices = 2,
    .device_choices = {{.kind = DAG_DEVICE_CUDA, .index = -1},
                       {.kind = DAG_DEVICE_HIP, .index = -1}},
    .inline_tasks = 1,
    .device_staging = 1,
    .device_writeback = 1,
    .mpi_gpu_direct = -1,
    .emul_memory = (size_t)256 << 20,
    .emul_granule = (size_t)2 << 20,
    .emul_seed = 1,
};
static const char *given[NVARIABLES]; /* the values set, as written */

/* What was wrong, for dag__settings_each_problem. */
#define MAX_PROBLEMS 16
static char problems[MAX_PROBLEMS][320];
static int nproblems;

/* What DAG_DEVICES accepts: the GPU kinds of dag.h's DAG_DEVICE_KINDS. */
static const char *devices_accepted(void) {
  static char text[256];
  if (!text[0]) {
    strcpy(text, "none, or a comma-separated list of");
    for (int k = 0; k < DAG_NDEVICE_KINDS; k++) {
      const char *kind = dag__device_kind_name((enum dag_device)k);
      if (k != DAG_DEVICE_CPU)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %s, %s:N,",
                 kind, kind);
    }
    strcat(text, " and emul");
  }
  return text;
}

static void problem(const struct variable *v, const char *value,
                    const char *detail) {
  if (nproblems < MAX_PROBLEMS)
    snprintf(problems[nproblems++], sizeof problems[0],
             "%s='%s'%s%s: expected %s", v->name, value, detail ? ": " : "",
             detail ? detail : "",
             v->kind == DEVICES ? devices_accepted() : v->accepts);
}

/* ------------------------------------------------------------- parsers */

static bool parse_count(const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long n = strtol(s, &end, 10);
  if (errno || *end || end == s || n < lo || n > hi)
    return false;
  *out = (int)n;
  return true;
}

static bool parse_switch(const char *s, int *out) {
  if (strcmp(s, "0") && strcmp(s, "1"))
    return false;
  *out = *s == '1';
  return true;
}

/* Seconds above 0 at the start of *s; moves *s past them. */
static bool parse_seconds(const char **s, double *out) {
  char *end;
  errno = 0;
  double x = strtod(*s, &end);
  if (errno || end == *s || !(x > 0) || !(x <= 1e6)) /* 11 days at most */
    return false;
  *out = x;
  *s = end;
  return true;
}

/* DAG_WATCHDOG: "report" or "report,end". */
static bool parse_watchdog(const char *s) {
  double report, end = 0;
  if (!parse_seconds(&s, &report))
    return false;
  if (*s == ',') {
    s++;
    if (!parse_seconds(&s, &end) || end < report)
      return false;
  }
  if (*s)
    return false;
  settings.watchdog_seconds = report;
  settings.watchdog_end_seconds = end;
  return true;
}

static bool parse_bytes(const char *s, size_t *out) {
  if (*s < '0' || *s > '9')
    return false;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(s, &end, 10);
  int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (shift)
    end++;
  if (errno || *end || n == 0 || n > (SIZE_MAX >> shift))
    return false;
  *out = (size_t)n << shift;
  return true;
}

static bool parse_level(const char *s, enum log_level *out) {
  static const char *const names[] = {"error", "warn", "info", "debug"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(s, names[i])) {
      *out = (enum log_level)(DAG_LOG_ERROR + i);
      return true;
    }
  return false;
}

/* One item of DAG_DEVICES: a GPU kind ("cuda", "hip"), one of its devices
 * ("cuda:N"), or "emul". */
static bool parse_device(char *item, struct device_choice *out) {
  char *colon = strchr(item, ':');
  *out = (struct device_choice){.index = -1};
  if (colon) {
    *colon = 0;
    if (!parse_count(colon + 1, 0, 1023, &out->index))
      return false;
  }
  if (!strcmp(item, "emul") && !colon) {
    out->emulated = true;
    return true;
  }
  return dag__device_kind_named(item, &out->kind) &&
         out->kind != DAG_DEVICE_CPU;
}

static void parse_devices(const struct variable *v, const char *s) {
  if (!strcmp(s, "none")) {
    settings.ndevice_choices = 0;
    return;
  }
  settings.devices_named = 1;
  char list[256];
  if (strlen(s) >= sizeof list) {
    problem(v, s, "too long");
    return;
  }
  strcpy(list, s);
  int n = 0;
  char *save = NULL;
  for (char *item = strtok_r(list, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    char detail[96];
    snprintf(detail, sizeof detail, "'%s' is no device", item);
    if (n == DAG_MAX_DEVICE_CHOICES) {
      problem(v, s, "too many items");
      return;
    }
    if (!parse_device(item, &settings.device_choices[n++])) {
      problem(v, s, detail);
      return;
    }
  }
  if (n == 0)
    problem(v, s, NULL);
  else
    settings.ndevice_choices = n;
}

/* DAG_EMUL_FAIL: "alloc:N", "copy:N" or "kernel:N", N from 1. */
static bool parse_emul_fail(const char *s) {
  static const char *const ops[] = {"alloc", "copy", "kernel"};
  const char *colon = strchr(s, ':');
  for (int i = 0; colon && i < 3; i++)
    if ((size_t)(colon - s) == strlen(ops[i]) &&
        !strncmp(s, ops[i], strlen(ops[i])) &&
        parse_count(colon + 1, 1, 1 << 30, &settings.emul_fail_at)) {
      settings.emul_fail = (enum emul_fail)(EMUL_FAIL_ALLOC + i);
      return true;
    }
  return false;
}

static void parse(const struct variable *v, const char *s) {
  char *field = (char *)&settings + v->field;
  bool ok = true;
  switch (v->kind) {
  case COUNT:
    ok = parse_count(s, v->lo, v->hi, (int *)field);
    break;
  case SWITCH:
    ok = parse_switch(s, (int *)field);
    break;
  case WATCHDOG:
    ok = parse_watchdog(s);
    break;
  case BYTES:
    ok = parse_bytes(s, (size_t *)field);
    break;
  case PATH:
    *(const char **)field = s;
    break;
  case LEVEL:
    ok = parse_level(s, (enum log_level *)field);
    break;
  case UNIFORMITY:
    settings.check_every_task = !strcmp(s, "1");
    settings.check_values = !strcmp(s, "values");
    ok = settings.check_every_task || settings.check_values || !strcmp(s, "0");
    break;
  case DEVICES:
    parse_devices(v, s);
    break;
  case GRANULE:
    ok = parse_bytes(s, (size_t *)field) && *(size_t *)field >= 4096 &&
         *(size_t *)field <= ((size_t)1 << 30) &&
         !(*(size_t *)field & (*(size_t *)field - 1));
    break;
  case EMUL_FAIL:
    ok = parse_emul_fail(s);
    break;
  }
  if (!ok)
    problem(v, s, NULL);
}

/* ------------------------------------------------------ unknown names */

/* Edit distance of a and b, up to 3 (enough to tell a typo). */
static int distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63)
    return 3;
  int row[64];
  for (size_t j = 0; j <= lb; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diagonal = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j];
      int best = diagonal + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diagonal = up;
    }
  }
  return row[lb] < 3 ? row[lb] : 3;
}

static bool known(const char *name) {
  for (size_t i = 0; i < NVARIABLES; i++)
    if (!strcmp(name, variables[i].name))
      return true;
  for (size_t i = 0; i < sizeof dagcc_variables / sizeof *dagcc_variables; i++)
    if (!strcmp(name, dagcc_variables[i]))
      return true;
  return false;
}

void dag__settings_each_unknown(void (*say)(const char *name,
                                            const char *nearest)) {
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "DAG_", 4))
      continue;
    char name[64];
    size_t len = strcspn(*e, "=");
    snprintf(name, sizeof name, "%.*s", (int)len, *e);
    if (known(name))
      continue;
    const char *nearest = NULL;
    int best = 3;
    for (size_t i = 0; i < NVARIABLES; i++) {
      int d = distance(name, variables[i].name);
      if (d < best) {
        best = d;
        nearest = variables[i].name;
      }
    }
    say(name, nearest);
  }
}

/* ----------------------------------------------------------- interface */

static bool given_named(const char *name) {
  for (size_t i = 0; i < NVARIABLES; i++)
    if (!strcmp(variables[i].name, name))
      return given[i] != NULL;
  return false;
}

/* DAG_CHECK_ITEMS runs the bodies of a rank one at a time, on the host:
 * settings that say otherwise are refused, never replaced. Unset, no
 * device is looked for. */
static void check_items_alone(void) {
  if (!settings.check_items)
    return;
  if (settings.num_threads > 1 && nproblems < MAX_PROBLEMS)
    snprintf(problems[nproblems++], sizeof problems[0],
             "DAG_CHECK_ITEMS runs one worker per rank: unset "
             "DAG_NUM_THREADS or set it to 1 (it is %d)",
             settings.num_threads);
  if (settings.devices_named && nproblems < MAX_PROBLEMS)
    snprintf(problems[nproblems++], sizeof problems[0],
             "DAG_CHECK_ITEMS checks the bodies that run on the host: unset "
             "DAG_DEVICES or set it to none (it is '%s')",
             getenv("DAG_DEVICES"));
  if (!given_named("DAG_DEVICES"))
    settings.ndevice_choices = 0;
}

static void read_all(void) {
  for (size_t i = 0; i < NVARIABLES; i++) {
    const char *s = getenv(variables[i].name);
    if (!s || !*s)
      continue;
    given[i] = s;
    parse(&variables[i], s);
  }
  if (settings.simulate_rank >=
          (settings.simulate_ranks > 0 ? settings.simulate_ranks : 1) &&
      nproblems < MAX_PROBLEMS)
    snprintf(problems[nproblems++], sizeof problems[0],
             "DAG_SIMULATE_RANK=%d: expected a rank below "
             "DAG_SIMULATE_RANKS (%d)",
             settings.simulate_rank,
             settings.simulate_ranks > 0 ? settings.simulate_ranks : 1);
  check_items_alone();
}

static pthread_once_t read_once = PTHREAD_ONCE_INIT;

const struct settings *dag__settings(void) {
  pthread_once(&read_once, read_all);
  return &settings;
}

int dag__settings_each_problem(void (*say)(const char *problem)) {
  dag__settings();
  for (int i = 0; say && i < nproblems; i++)
    say(problems[i]);
  return nproblems;
}

void dag__settings_describe(char *set, size_t set_size, char *unset,
                            size_t unset_size) {
  dag__settings();
  size_t nset = 0, nunset = 0;
  set[0] = unset[0] = 0;
  for (size_t i = 0; i < NVARIABLES; i++) {
    const struct variable *v = &variables[i];
    if (given[i] && nset < set_size)
      nset += (size_t)snprintf(set + nset, set_size - nset, " %s=%s", v->name,
                               given[i]);
    else if (!given[i] && nunset < unset_size)
      nunset += (size_t)snprintf(unset + nunset, unset_size - nunset, " %s=%s",
                                 v->name, v->fallback);
  }
  if (!nset)
    snprintf(set, set_size, " none");
}
