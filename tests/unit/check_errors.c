/* check_errors.c — misuse of the public API (dag.h) and its error reports.
 *
 * Every malformed dag_submit (NULL info or fn, arguments, accesses, modes,
 * regions: too many or negative dimensions, bad strides, interleaving nested
 * strides, overflowing sizes, NULL bases) returns the documented DAG_E* code,
 * leaves a message in dag_last_error() that names the task's label and its
 * "file:line", and submits nothing: the counting task never runs and the
 * runtime goes on working. Empty regions are accepted and order nothing.
 * After dag_finalize every call returns DAG_ESHUTDOWN; dag_finalize inside a
 * task returns DAG_EINVAL; dag_strerror knows every code.
 *
 * Each test runs in its own process (Check's fork mode).
 */
#include "core/internal.h" /* dag__edge_hook: counts the edges the tracker adds */
#include "dag.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_suite.h"

static atomic_int ran;

static void count_body(void *p) {
  (void)p;
  atomic_fetch_add(&ran, 1);
}

static char data[4096];
static long word;

/* --------------------------------------------------- malformed submits */

struct bad_case {
  const char *name;
  int err;          /* expected return */
  const char *why;  /* a piece of the expected message */
  bool no_info;     /* info == NULL */
  bool no_fn;       /* info->fn == NULL */
  bool no_label;    /* label NULL: the message names "file:line" */
  const void *args; /* NULL here means NULL */
  size_t args_size;
  bool no_acc; /* acc == NULL */
  size_t nacc; /* accesses used (the first nacc of acc[]) */
  struct dag_access acc[20];
};

#define REG(...) ((struct dag_region){__VA_ARGS__})
#define ACC(mode, ...)                                                         \
  { (enum dag_mode)(mode), REG(__VA_ARGS__) }
#define GOOD ACC(DAG_INOUT, data, 8, 0, {{0, 0}})

static const struct bad_case bad_cases[] = {
    {.name = "NULL info",
     .err = DAG_EINVAL,
     .why = "no task info",
     .no_info = true},
    {.name = "NULL fn", .err = DAG_EINVAL, .why = "no function", .no_fn = true},
    {.name = "args_size with NULL args",
     .err = DAG_EINVAL,
     .why = "at NULL",
     .args_size = 16},
    {.name = "huge args_size",
     .err = DAG_EOVERFLOW,
     .why = "too large",
     .args = data,
     .args_size = SIZE_MAX},
    {.name = "args_size just over 4 GiB",
     .err = DAG_EOVERFLOW,
     .why = "too large",
     .args = data,
     .args_size = (size_t)UINT32_MAX + 1},
    {.name = "accesses at NULL",
     .err = DAG_EINVAL,
     .why = "accesses at NULL",
     .no_acc = true,
     .nacc = 2},
    {.name = "mode 0",
     .err = DAG_EINVAL,
     .why = "unknown mode",
     .nacc = 1,
     .acc = {ACC(0, data, 8, 0, {{0, 0}})}},
    {.name = "mode 4",
     .err = DAG_EINVAL,
     .why = "unknown mode",
     .nacc = 1,
     .acc = {ACC(4, data, 8, 0, {{0, 0}})}},
    {.name = "mode 9",
     .err = DAG_EINVAL,
     .why = "unknown mode",
     .nacc = 1,
     .acc = {ACC(9, data, 8, 0, {{0, 0}})}},
    {.name = "a reduction without a type",
     .err = DAG_EINVAL,
     .why = "not a C arithmetic type",
     .nacc = 1,
     .acc = {ACC(DAG_REDUCTION, data, 8, 0, {{0, 0}})}},
    {.name = "an unknown shape",
     .err = DAG_EINVAL,
     .why = "unknown shape",
     .nacc = 1,
     .acc = {ACC(DAG_SHAPED(DAG_IN, 6 << 24), data, 8, 1, {{8, 64}})}},
    {.name = "a triangle of a block that is not square",
     .err = DAG_EINVAL,
     .why = "square block",
     .nacc = 1,
     .acc = {ACC(DAG_SHAPED(DAG_IN, DAG_LOWER), data, 10, 1, {{4, 64}})}},
    {.name = "a triangle of a block of blocks",
     .err = DAG_EINVAL,
     .why = "one dimension",
     .nacc = 1,
     .acc = {ACC(DAG_SHAPED(DAG_IN, DAG_UPPER), data, 8, 2,
                 {{2, 256}, {2, 64}})}},
    {.name = "a reduced triangle",
     .err = DAG_EINVAL,
     .why = "cannot be reduced",
     .nacc = 1,
     .acc = {ACC(DAG_SHAPED(DAG_REDUCE(DAG_REDUCE_SUM, DAG_REDUCE_DOUBLE),
                            DAG_DIAGONAL),
                 data, 16, 1, {{2, 64}})}},
    {.name = "mode -1",
     .err = DAG_EINVAL,
     .why = "unknown mode",
     .nacc = 1,
     .acc = {ACC(-1, data, 8, 0, {{0, 0}})}},
    {.name = "ndims 5",
     .err = DAG_EDIMS,
     .why = "dimensions",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, 8, 5, {{2, 8}, {2, 16}})}},
    {.name = "ndims 1000",
     .err = DAG_EDIMS,
     .why = "dimensions",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, 8, 1000, {{0, 0}})}},
    {.name = "negative ndims",
     .err = DAG_EINVAL,
     .why = "negative number",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, 8, -1, {{0, 0}})}},
    {.name = "negative stride",
     .err = DAG_EINVAL,
     .why = "negative stride",
     .nacc = 1,
     .acc = {ACC(DAG_OUT, data + 64, 8, 1, {{4, -16}})}},
    {.name = "zero stride",
     .err = DAG_EINVAL,
     .why = "zero stride",
     .nacc = 1,
     .acc = {ACC(DAG_OUT, data, 8, 1, {{4, 0}})}},
    {.name = "stride below span",
     .err = DAG_EINVAL,
     .why = "interleave",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, 16, 1, {{4, 8}})}},
    {.name = "nested strides interleave",
     .err = DAG_EINVAL,
     .why = "interleave",
     .nacc = 1,
     /* inner extent 8 + 3*16 = 56 > outer stride 32 */
     .acc = {ACC(DAG_INOUT, data, 8, 2, {{4, 32}, {4, 16}})}},
    {.name = "span SIZE_MAX",
     .err = DAG_EOVERFLOW,
     .why = "span",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, SIZE_MAX, 0, {{0, 0}})}},
    {.name = "span of a negative size",
     .err = DAG_EOVERFLOW,
     .why = "span",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, (size_t)-8, 0, {{0, 0}})}},
    {.name = "extent overflows",
     .err = DAG_EOVERFLOW,
     .why = "overflow",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, 8, 1, {{SIZE_MAX / 2, PTRDIFF_MAX / 2}})}},
    {.name = "runs past the address space",
     .err = DAG_EOVERFLOW,
     .why = "address space",
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, (size_t)INTPTR_MAX - 16, 0, {{0, 0}})}},
    {.name = "NULL base",
     .err = DAG_EINVAL,
     .why = "null base",
     .nacc = 1,
     .acc = {ACC(DAG_IN, NULL, 8, 0, {{0, 0}})}},
    {.name = "NULL base, 2-D",
     .err = DAG_EINVAL,
     .why = "null base",
     .nacc = 1,
     .acc = {ACC(DAG_OUT, NULL, 8, 1, {{3, 64}})}},
    {.name = "bad second access",
     .err = DAG_EDIMS,
     .why = "access 1",
     .nacc = 2,
     .acc = {GOOD, ACC(DAG_IN, data, 8, 7, {{0, 0}})}},
    {.name = "bad 18th access (heap path)",
     .err = DAG_EINVAL,
     .why = "access 17",
     .nacc = 18,
     .acc = {GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD,
             GOOD, GOOD, GOOD, GOOD, GOOD, GOOD,
             ACC(DAG_OUT, data, 8, 1, {{2, -8}})}},
    {.name = "unlabelled task",
     .err = DAG_EINVAL,
     .why = "negative stride",
     .no_label = true,
     .nacc = 1,
     .acc = {ACC(DAG_IN, data, 8, 1, {{2, -8}})}},
};

#define NBAD (int)(sizeof bad_cases / sizeof bad_cases[0])
#define BAD_LINE 4242

START_TEST(test_bad_submit) {
  const struct bad_case *c = &bad_cases[_i];
  setenv("DAG_NUM_THREADS", _i % 2 ? "2" : "1", 1);
  ck_assert_str_eq(dag_last_error(), ""); /* nothing failed yet */
  struct dag_task_info info = {.fn = count_body,
                               .label = c->no_label ? NULL : "culprit",
                               .file = "bad_file.c",
                               .line = BAD_LINE};
  if (c->no_fn)
    info.fn = NULL;
  int err = dag_submit(c->no_info ? NULL : &info, c->args, c->args_size,
                       c->no_acc ? NULL : c->acc, c->nacc);
  ck_assert_msg(err == c->err, "%s: returned %d (%s), want %d (%s)", c->name,
                err, dag_strerror(err), c->err, dag_strerror(c->err));
  const char *msg = dag_last_error();
  ck_assert_ptr_nonnull(msg);
  ck_assert_msg(strstr(msg, c->why), "%s: message '%s' lacks '%s'", c->name,
                msg, c->why);
  if (!c->no_info) {
    if (!c->no_label)
      ck_assert_msg(strstr(msg, "culprit"), "%s: message '%s' lacks the label",
                    c->name, msg);
    ck_assert_msg(strstr(msg, "bad_file.c:4242"),
                  "%s: message '%s' lacks file:line", c->name, msg);
  }
  /* Nothing was submitted: the body never runs; the runtime still works. */
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&ran), 0);
  info.fn = count_body;
  struct dag_access ok = GOOD;
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &ok, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&ran), 1);
}
END_TEST

/* A rejected access leaves no trace in the history: a later task on the same
 * data gets no edge from it. */
static atomic_int edges;
static void count_edge(const struct task *pred, const struct task *succ) {
  (void)pred;
  (void)succ;
  atomic_fetch_add(&edges, 1);
}

START_TEST(test_rejected_leaves_no_history) {
  setenv("DAG_NUM_THREADS", "1", 1); /* nothing runs before taskwait */
  dag__edge_hook = count_edge;
  struct dag_task_info info = {
      .fn = count_body, .label = "culprit", .file = "f.c", .line = 1};
  struct dag_access acc[2] = {
      {DAG_OUT, dag_region_1d(&word, sizeof word)},
      {DAG_IN, REG(data, 8, 1, {{3, 4}})}, /* stride below span */
  };
  ck_assert_int_eq(dag_submit(&info, NULL, 0, acc, 2), DAG_EINVAL);
  ck_assert_int_eq(dag_submit(&info, NULL, 0, acc, 1), 0);
  ck_assert_int_eq(atomic_load(&edges), 0);
  ck_assert_int_eq(dag_submit(&info, NULL, 0, acc, 1), 0);
  ck_assert_int_eq(atomic_load(&edges), 1); /* the hook does see edges */
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&ran), 2);
  dag__edge_hook = NULL;
}
END_TEST

/* ------------------------------------------- devices, variants, ranks */

static atomic_int variant_ran;
static void variant_body(void *p) {
  (void)p;
  atomic_fetch_add(&variant_ran, 1);
}

/* Without device backends a task runs only through a CPU body: its own,
 * or a CPU variant; otherwise DAG_ENOSYS, naming the device. */
START_TEST(test_devices_and_variants) {
  struct dag_variant cpu_variant = {variant_body, DAG_DEVICE_CPU};
  struct dag_variant cuda_variant = {variant_body, DAG_DEVICE_CUDA};
  struct dag_task_info gpu_only = {.fn = count_body,
                                   .label = "gpu only",
                                   .device = DAG_DEVICE_CUDA,
                                   .variants = &cuda_variant,
                                   .nvariants = 1};
  ck_assert_int_eq(dag_submit(&gpu_only, NULL, 0, NULL, 0), DAG_ENOSYS);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "device cuda"));
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "gpu only"));

  struct dag_task_info with_cpu = gpu_only;
  with_cpu.variants = &cpu_variant;
  ck_assert_int_eq(dag_submit(&with_cpu, NULL, 0, NULL, 0), 0);
  struct dag_task_info cpu = {
      .fn = count_body, .variants = &cuda_variant, .nvariants = 1};
  ck_assert_int_eq(dag_submit(&cpu, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&variant_ran), 1);
  ck_assert_int_eq(atomic_load(&ran), 1);

  struct dag_task_info bad = {.fn = count_body, .device = (enum dag_device)7};
  ck_assert_int_eq(dag_submit(&bad, NULL, 0, NULL, 0), DAG_EINVAL);
  struct dag_variant null_variant = {NULL, DAG_DEVICE_CPU};
  bad = (struct dag_task_info){
      .fn = count_body, .variants = &null_variant, .nvariants = 1};
  ck_assert_int_eq(dag_submit(&bad, NULL, 0, NULL, 0), DAG_EINVAL);
  bad = (struct dag_task_info){.fn = count_body, .nvariants = 1};
  ck_assert_int_eq(dag_submit(&bad, NULL, 0, NULL, 0), DAG_EINVAL);
}
END_TEST

/* The pointer arguments a device body gets translated lie in the argument
 * block: for a task that may run on a device, a run past its end is
 * refused, naming the task. */
START_TEST(test_pointer_runs_outside_arguments) {
  struct two_pointers {
    double *a, *b;
  } args = {NULL, NULL};
  struct dag_pointers past_end = {offsetof(struct two_pointers, b), 2};
  struct dag_variant cuda_variant = {variant_body, DAG_DEVICE_CUDA};
  struct dag_task_info info = {.fn = count_body,
                               .label = "two pointers",
                               .variants = &cuda_variant,
                               .nvariants = 1,
                               .pointers = &past_end,
                               .npointers = 1};
  ck_assert_int_eq(dag_submit(&info, &args, sizeof args, NULL, 0), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "two pointers"));
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "runs past the 16 bytes"));
  info.npointers = -1;
  ck_assert_int_eq(dag_submit(&info, &args, sizeof args, NULL, 0), DAG_EINVAL);
  struct dag_pointers both = {0, 2};
  info.pointers = &both;
  info.npointers = 1;
  ck_assert_int_eq(dag_submit(&info, &args, sizeof args, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
}
END_TEST

/* One rank until the MPI backend: on(0) runs, on(1) is an error. */
START_TEST(test_on_rank) {
  struct dag_task_info info = {.fn = count_body,
                               .label = "placed",
                               .flags = DAG_TASK_ON_RANK,
                               .rank = 0};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  info.rank = 1;
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "on(1): this run has 1 rank"));
  info.flags = 0; /* without the flag, rank means nothing */
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&ran), 2);
}
END_TEST

/* A forked child has no workers: the runtime is finalized there, calls say
 * so, and the child's exit does not wait for threads it does not have. */
START_TEST(test_fork_child) {
  ck_assert_int_eq(dag_init(), 0);
  pid_t pid = fork();
  ck_assert_int_ne(pid, -1);
  if (pid == 0) {
    struct dag_task_info info = {.fn = count_body, .label = "in child"};
    int err = dag_submit(&info, NULL, 0, NULL, 0);
    exit(err == DAG_ESHUTDOWN ? 0 : 1); /* atexit finalize must not hang */
  }
  int status = 0;
  for (int waited = 0; waited < 500; waited++) { /* 5 s at most */
    if (waitpid(pid, &status, WNOHANG) == pid)
      break;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
    if (waited == 499) {
      kill(pid, SIGKILL);
      ck_abort_msg("the forked child hung at exit");
    }
  }
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  /* The parent goes on as before. */
  struct dag_task_info info = {.fn = count_body, .label = "in parent"};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
}
END_TEST

/* ----------------------------------------------------- taskwait_on misuse */

START_TEST(test_taskwait_on_errors) {
  ck_assert_int_eq(dag_taskwait_on(NULL, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "accesses at NULL"));
  struct dag_access bad = {DAG_IN, REG(data, 8, 5, {{0, 0}})};
  ck_assert_int_eq(dag_taskwait_on(&bad, 1), DAG_EDIMS);
  struct dag_access neg = {DAG_IN, REG(data, 8, 1, {{2, -8}})};
  ck_assert_int_eq(dag_taskwait_on(&neg, 1), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "negative stride"));
  struct dag_access mode = {(enum dag_mode)9, dag_region_1d(data, 8)};
  ck_assert_int_eq(dag_taskwait_on(&mode, 1), DAG_EINVAL);
  ck_assert_int_eq(dag_taskwait_on(NULL, 0), 0); /* nothing to wait for */
  ck_assert_int_eq(dag_taskwait(), 0);
}
END_TEST

/* ------------------------------------------------------- empty regions */

static const struct dag_region empty_regions[] = {
    {data, 0, 0, {{0, 0}}},          /* span 0 */
    {NULL, 0, 0, {{0, 0}}},          /* span 0 at NULL */
    {data, 8, 1, {{0, 8}}},          /* count 0 */
    {NULL, 8, 2, {{4, 64}, {0, 8}}}, /* inner count 0 at NULL */
    {data, 8, 1, {{0, -8}}},         /* count 0: the stride is not used */
    {data, 8, 1, {{1, 0}}},          /* count 1, stride 0: one span, valid */
};
#define NEMPTY (int)(sizeof empty_regions / sizeof empty_regions[0])

static atomic_int gate_open, blocker_timed_out;

static atomic_int blocker_started;

static void blocker_body(void *p) {
  (void)p;
  atomic_store(&blocker_started, 1);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (!atomic_load(&gate_open)) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 10) {
      atomic_store(&blocker_timed_out, 1);
      break;
    }
  }
  atomic_fetch_add(&ran, 1);
}

static atomic_int writer_ran;

static void writer_body(void *p) {
  (void)p;
  struct timespec ts = {0, 100000}; /* not a tiny task run at once */
  nanosleep(&ts, NULL);
  atomic_store(&writer_ran, 1);
}

START_TEST(test_empty_regions) {
  const struct dag_region *r = &empty_regions[_i];
  bool really_empty = _i < NEMPTY - 1;
  setenv("DAG_NUM_THREADS", "1", 1);
  dag__edge_hook = count_edge;
  /* A writer of all of data that has not run (one thread, no wait yet). */
  struct dag_task_info winfo = {
      .fn = writer_body, .label = "writer", .file = "f.c", .line = 1};
  struct dag_access all = {DAG_INOUT, dag_region_1d(data, sizeof data)};
  ck_assert_int_eq(dag_submit(&winfo, NULL, 0, &all, 1), 0);
  struct dag_task_info info = {
      .fn = count_body, .label = "empty", .file = "f.c", .line = 2};
  for (int m = 0; m < 4; m++) {
    static const enum dag_mode modes[] = {DAG_IN, DAG_OUT, DAG_INOUT,
                                          DAG_COMMUTATIVE};
    struct dag_access acc = {modes[m], *r};
    ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), 0);
  }
  if (really_empty)
    ck_assert_int_eq(atomic_load(&edges), 0);
  else
    ck_assert_int_gt(atomic_load(&edges), 0); /* the control case */
  /* Waiting on an empty region waits for nothing: the writer has not run. */
  struct dag_access on = {DAG_IN, *r};
  ck_assert_int_eq(dag_taskwait_on(&on, 1), 0);
  ck_assert_int_eq(atomic_load(&writer_ran), really_empty ? 0 : 1);
  if (!really_empty)
    ck_assert_int_eq(atomic_load(&ran), 4);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&ran), 4);
  ck_assert_int_eq(atomic_load(&writer_ran), 1);
  dag__edge_hook = NULL;
}
END_TEST

/* Several threads: a task writing `word` spins until a task with only empty
 * accesses at `word` has run; whichever thread runs the blocker, another one
 * is free to run the opener. If an empty access ordered the opener after the
 * blocker, the blocker would time out. */
static void opener_body(void *p) {
  (void)p;
  atomic_store(&gate_open, 1);
}

START_TEST(test_empty_region_runs_alongside) {
  setenv("DAG_NUM_THREADS", _i ? "4" : "2", 1);
  struct dag_task_info blocker = {
      .fn = blocker_body, .label = "blocker", .file = "f.c", .line = 1};
  struct dag_access x = {DAG_INOUT, dag_region_1d(&word, sizeof word)};
  ck_assert_int_eq(dag_submit(&blocker, NULL, 0, &x, 1), 0);
  /* Usually another worker picks it up before this thread waits. */
  for (int k = 0; k < 10000000 && !atomic_load(&blocker_started); k++)
    ;
  struct dag_task_info opener = {
      .fn = opener_body, .label = "opener", .file = "f.c", .line = 2};
  struct dag_access empty[2] = {{DAG_OUT, REG(&word, 0, 0, {{0, 0}})},
                                {DAG_INOUT, REG(&word, 8, 1, {{0, 8}})}};
  ck_assert_int_eq(dag_submit(&opener, NULL, 0, empty, 2), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&blocker_timed_out), 0);
  ck_assert_int_eq(atomic_load(&ran), 1);
}
END_TEST

/* ------------------------------------------------------- after finalize */

START_TEST(test_after_finalize) {
  setenv("DAG_NUM_THREADS", "2", 1);
  if (_i == 1) { /* with a running runtime; else never started */
    struct dag_task_info info = {
        .fn = count_body, .label = "before", .file = "f.c", .line = 1};
    ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  }
  ck_assert_int_eq(dag_finalize(), 0);
  ck_assert_int_eq(atomic_load(&ran), _i == 1 ? 1 : 0);
  struct dag_task_info info = {
      .fn = count_body, .label = "too late", .file = "late.c", .line = 99};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), DAG_ESHUTDOWN);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "too late"));
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "late.c:99"));
  struct dag_access acc = {DAG_IN, dag_region_1d(data, 8)};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), DAG_ESHUTDOWN);
  ck_assert_int_eq(dag_taskwait(), DAG_ESHUTDOWN);
  ck_assert_int_eq(dag_taskwait_on(&acc, 1), DAG_ESHUTDOWN);
  ck_assert_int_eq(dag_init(), DAG_ESHUTDOWN);
  ck_assert_int_eq(dag_num_workers(), DAG_ESHUTDOWN);
  ck_assert_int_eq(dag_worker_id(), -1);
  ck_assert_int_eq(dag_finalize(), 0); /* twice is fine */
  ck_assert_str_eq(dag_strerror(DAG_ESHUTDOWN), "runtime already finalized");
  ck_assert_int_eq(atomic_load(&ran), _i == 1 ? 1 : 0);
}
END_TEST

/* ---------------------------------------------------------- strerror */

START_TEST(test_strerror) {
  static const struct {
    int code;
    const char *msg;
  } codes[] = {
#define XX(name, value, msg) {DAG_##name, msg},
      DAG_ERR_MAP(XX)
#undef XX
  };
  size_t n = sizeof codes / sizeof codes[0];
  ck_assert_int_eq(n, 8);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(codes[i].code, -(int)i - 1);
    ck_assert_str_eq(dag_strerror(codes[i].code), codes[i].msg);
    ck_assert_str_ne(dag_strerror(codes[i].code), "unknown error");
    for (size_t j = 0; j < i; j++)
      ck_assert_str_ne(dag_strerror(codes[i].code),
                       dag_strerror(codes[j].code));
  }
  ck_assert_str_eq(dag_strerror(DAG_EINVAL), "invalid argument");
  ck_assert_str_eq(dag_strerror(DAG_EOVERFLOW),
                   "size or offset overflows the address space");
  static const int unknown[] = {-9, -100, 1, 42, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    ck_assert_str_eq(dag_strerror(unknown[i]), "unknown error");
  ck_assert_str_eq(dag_strerror(0), "success");
}
END_TEST

/* --------------------------------------------- finalize inside a task */

static int inner_finalize_ret = 1;
static char inner_msg[256];

static void finalize_body(void *p) {
  (void)p;
  inner_finalize_ret = dag_finalize();
  snprintf(inner_msg, sizeof inner_msg, "%s", dag_last_error());
}

START_TEST(test_finalize_inside_task) {
  setenv("DAG_NUM_THREADS", _i ? "2" : "1", 1);
  struct dag_task_info info = {
      .fn = finalize_body, .label = "finalizer", .file = "f.c", .line = 1};
  ck_assert_int_eq(dag_submit(&info, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(inner_finalize_ret, DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(inner_msg, "inside a task"));
  /* The runtime still runs. */
  struct dag_task_info count = {
      .fn = count_body, .label = "after", .file = "f.c", .line = 2};
  ck_assert_int_eq(dag_submit(&count, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_int_eq(atomic_load(&ran), 1);
  ck_assert_int_gt(dag_num_workers(), 0);
  ck_assert_int_eq(dag_finalize(), 0);
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *errors_suite(void) {
  Suite *s = suite_create("errors");
  TCase *tc = tcase_create("submit");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_bad_submit, 0, NBAD);
  tcase_add_test(tc, test_rejected_leaves_no_history);
  tcase_add_test(tc, test_taskwait_on_errors);
  tcase_add_test(tc, test_devices_and_variants);
  tcase_add_test(tc, test_pointer_runs_outside_arguments);
  tcase_add_test(tc, test_on_rank);
  suite_add_tcase(s, tc);

  tc = tcase_create("empty regions");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_empty_regions, 0, NEMPTY);
  tcase_add_loop_test(tc, test_empty_region_runs_alongside, 0, 2);
  suite_add_tcase(s, tc);

  tc = tcase_create("lifetime");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_after_finalize, 0, 2);
  tcase_add_loop_test(tc, test_finalize_inside_task, 0, 2);
  tcase_add_test(tc, test_strerror);
  tcase_add_test(tc, test_fork_child);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(errors_suite()); }
