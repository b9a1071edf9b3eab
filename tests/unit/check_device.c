/* check_device.c — device tasks on the emulated device (DAG_DEVICES=emul),
 * through the public API, as a program would submit them: the body gets
 * device addresses, data moves to the device and back as the graph needs
 * it, a tile keeps the host's layout, a working set four times the
 * device's memory completes (eviction with write-back), a body that writes
 * through a host pointer is caught, variants are chosen among, and a task
 * for a device the rank lacks is refused. A device body, as on a GPU,
 * runs at launch and only queues its kernels (dag_emul_launch): one that
 * computes on device memory itself is stopped. Each test runs in a process
 * of its own (Check forks), which sets DAG_DEVICES before the runtime
 * starts.
 */
#include <check.h>
#include <dag.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_each.h"
#include "child.h"
#include "run_suite.h"

/* Starts the runtime with DAG_DEVICES=devices (for "emul", the emulated
 * devices CHECK_EMUL_DEVICES names when set: ctest runs the suite on two,
 * emul,emul, too) and each device's memory. */
static void start_exactly(const char *devices, const char *mem) {
  ck_assert_int_eq(setenv("DAG_DEVICES", devices, 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", mem, 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_DELAY_US", "50", 1), 0);
  ck_assert_int_eq(dag_init(), 0);
}

static void start(const char *devices, const char *mem) {
  const char *several = getenv("CHECK_EMUL_DEVICES");
  start_exactly(!strcmp(devices, "emul") && several ? several : devices, mem);
}

static struct dag_access access_of(enum dag_mode mode, const void *base,
                                   size_t bytes) {
  return (struct dag_access){mode, {base, bytes, 0, {{0, 0}}}};
}

/* ----------------------------------------------------- a vector's blocks */

struct add_args {
  double *x;
  size_t n;
  double by;
  const double *seen; /* the address the body got, for the test */
};

/* The pointer argument a device body gets translated (dag_pointers). */
static const struct dag_pointers add_pointers[] = {
    {offsetof(struct add_args, x), 1}};
#define POINTERS(runs) .pointers = runs, .npointers = sizeof runs / sizeof *runs

static const double *addresses_seen[64];
static int nseen;

static void add_body(void *p) {
  struct add_args *a = p;
  for (size_t i = 0; i < a->n; i++)
    a->x[i] += a->by;
  /* Atomic: on two emulated devices, two compute threads run kernels. */
  addresses_seen[__atomic_fetch_add(&nseen, 1, __ATOMIC_RELAXED) % 64] = a->x;
}

/* A device body: queues the work, as a CUDA body launches a kernel. */
static void add_on_device(void *p) {
  ck_assert_int_eq(dag_emul_launch(add_body, p, sizeof(struct add_args)), 0);
}

static void submit_add(enum dag_device device, double *x, size_t n, double by) {
  static struct dag_task_info cuda_info = {.fn = add_on_device,
                                           .label = "add on device",
                                           .device = DAG_DEVICE_CUDA,
                                           POINTERS(add_pointers)};
  static struct dag_task_info cpu_info = {.fn = add_body, .label = "add"};
  struct add_args a = {x, n, by, NULL};
  struct dag_access acc = access_of(DAG_INOUT, x, n * sizeof *x);
  ck_assert_int_eq(dag_submit(device == DAG_DEVICE_CPU ? &cpu_info : &cuda_info,
                              &a, sizeof a, &acc, 1),
                   0);
}

/* The body runs on the device's copy: its pointer is not the host's, and
 * what it wrote is in host memory after taskwait. */
START_TEST(device_task_gets_device_copy) {
  start("emul", "16M");
  enum { N = 1000 };
  double *x = malloc(N * sizeof *x);
  for (int i = 0; i < N; i++)
    x[i] = i;
  submit_add(DAG_DEVICE_CUDA, x, N, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_ptr_nonnull(addresses_seen[0]);
  ck_assert_ptr_ne(addresses_seen[0], x);
  CHECK_EACH(i, N, x[i] == i + 1);
  free(x);
}
END_TEST

/* Host, device, host, device on the same data with no wait between: each
 * task sees the last one's writes, wherever it ran. */
START_TEST(host_and_device_alternate) {
  start("emul", "16M");
  enum { N = 512, ROUNDS = 20 };
  double *x = calloc(N, sizeof *x);
  for (int r = 0; r < ROUNDS; r++)
    submit_add(r % 2 ? DAG_DEVICE_CUDA : DAG_DEVICE_CPU, x, N, r + 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == ROUNDS * (ROUNDS + 1) / 2);
  free(x);
}
END_TEST

/* An undeferred device task (`if(false)`) runs its body, which only
 * queues the kernels, in the submitter: the host tasks after it still wait
 * for its kernels, and the data they read comes back from the device. */
START_TEST(undeferred_device_task_holds_its_successors) {
  start("emul", "16M");
  enum { N = 512, ROUNDS = 20 };
  static struct dag_task_info undeferred = {.fn = add_on_device,
                                            .label = "undeferred add",
                                            .device = DAG_DEVICE_CUDA,
                                            .flags = DAG_TASK_UNDEFERRED,
                                            POINTERS(add_pointers)};
  double *x = calloc(N, sizeof *x);
  for (int r = 0; r < ROUNDS; r++) {
    if (r % 2) {
      struct add_args a = {x, N, r + 1, NULL};
      struct dag_access acc = access_of(DAG_INOUT, x, N * sizeof *x);
      ck_assert_int_eq(dag_submit(&undeferred, &a, sizeof a, &acc, 1), 0);
    } else {
      submit_add(DAG_DEVICE_CPU, x, N, r + 1);
    }
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == ROUNDS * (ROUNDS + 1) / 2);
  free(x);
}
END_TEST

/* The program writes its data itself between two waits: the device's
 * copy from before the wait is not used again. */
START_TEST(program_writes_between_waits) {
  start("emul", "16M");
  enum { N = 300 };
  double *x = calloc(N, sizeof *x);
  submit_add(DAG_DEVICE_CUDA, x, N, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert(x[7] == 1);
  for (int i = 0; i < N; i++)
    x[i] = 100;
  submit_add(DAG_DEVICE_CUDA, x, N, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == 101);
  free(x);
}
END_TEST

/* ------------------------------------------------------ a matrix's tile */

enum { LD = 96, BS = 16 };

struct tile_args {
  double *t; /* &A[i][j]: the host's leading dimension LD still holds */
  int ld, bs;
};

static const struct dag_pointers tile_pointers[] = {
    {offsetof(struct tile_args, t), 1}};

static void tile_body(void *p) {
  struct tile_args *a = p;
  for (int i = 0; i < a->bs; i++)
    for (int j = 0; j < a->bs; j++)
      a->t[i * a->ld + j] = 2 * a->t[i * a->ld + j] + 1;
}

static void tile_on_device(void *p) {
  ck_assert_int_eq(dag_emul_launch(tile_body, p, sizeof(struct tile_args)), 0);
}

static struct dag_access tile_access(double (*a)[LD], int i, int j) {
  return (struct dag_access){
      DAG_INOUT,
      {&a[i][j], BS * sizeof(double), 1, {{BS, LD * sizeof(double)}}}};
}

/* Every tile of the matrix once on the device, in a checkerboard (the
 * others on the host): the bytes between a tile's rows belong to other
 * tasks, and stay as those left them. */
START_TEST(tiles_keep_host_layout) {
  start("emul", "16M");
  double(*a)[LD] = malloc(LD * sizeof *a);
  for (int i = 0; i < LD; i++)
    for (int j = 0; j < LD; j++)
      a[i][j] = i * LD + j;
  static struct dag_task_info dev = {.fn = tile_on_device,
                                     .label = "tile",
                                     .device = DAG_DEVICE_CUDA,
                                     POINTERS(tile_pointers)};
  static struct dag_task_info cpu = {.fn = tile_body, .label = "tile"};
  for (int i = 0; i < LD; i += BS)
    for (int j = 0; j < LD; j += BS) {
      struct tile_args t = {&a[i][j], LD, BS};
      struct dag_access acc = tile_access(a, i, j);
      ck_assert_int_eq(dag_submit((i / BS + j / BS) % 2 ? &dev : &cpu, &t,
                                  sizeof t, &acc, 1),
                       0);
    }
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH_2D(i, LD, j, LD, a[i][j] == 2 * (i * LD + j) + 1);
  free(a);
}
END_TEST

/* Triangles of one tile on the device and on the host at once: in each
 * round, every tile's lower triangle is updated on one side and its strict
 * upper triangle on the other (the sides swap from round to round and
 * from tile to tile), with no wait between rounds. Neither side's copies
 * may carry the other triangle's bytes: a copy of the whole tile to the
 * device would bring it stale bytes of the other triangle, and one back
 * would overwrite what the host task writes meanwhile. Small tiles, and
 * tiles whose triangles are large enough to be written back on
 * speculation (writeback.c). */
struct triangle_args {
  double *t;
  int ld, bs;
  bool lower; /* else the strict upper triangle */
  double by;
};

static const struct dag_pointers triangle_pointers[] = {
    {offsetof(struct triangle_args, t), 1}};

static void triangle_body(void *p) {
  struct triangle_args *a = p;
  for (int i = 0; i < a->bs; i++)
    for (int j = a->lower ? 0 : i + 1; j < (a->lower ? i + 1 : a->bs); j++)
      a->t[(size_t)i * a->ld + j] += a->by;
}

static void triangle_on_device(void *p) {
  ck_assert_int_eq(
      dag_emul_launch(triangle_body, p, sizeof(struct triangle_args)), 0);
}

START_TEST(triangles_on_device_and_host_at_once) {
  static const struct {
    int n, bs, rounds;
    const char *mem;
  } sizes[] = {
      {96, 16, 8, "16M"}, {2048, 1024, 1, "64M"}, {2048, 1024, 3, "64M"}};
  int n = sizes[_i].n, bs = sizes[_i].bs, rounds = sizes[_i].rounds;
  start("emul", sizes[_i].mem);
  double *a = malloc((size_t)n * n * sizeof *a);
  for (size_t k = 0; k < (size_t)n * n; k++)
    a[k] = (double)(k % 1000);
  static struct dag_task_info dev = {.fn = triangle_on_device,
                                     .label = "triangle",
                                     .device = DAG_DEVICE_CUDA,
                                     POINTERS(triangle_pointers)};
  static struct dag_task_info cpu = {.fn = triangle_body, .label = "triangle"};
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i += bs)
      for (int j = 0; j < n; j += bs)
        for (int side = 0; side < 2; side++) {
          bool lower = side == 0;
          bool on_device = (r + i / bs + j / bs + side) % 2;
          struct triangle_args t = {&a[(size_t)i * n + j], n, bs, lower,
                                    lower ? r + 1 : 100 * (r + 1)};
          struct dag_access acc = {
              DAG_SHAPED(DAG_INOUT, lower ? DAG_LOWER : DAG_UNIT_UPPER),
              dag_region_2d(t.t, bs, bs * sizeof(double), n * sizeof(double))};
          ck_assert_int_eq(
              dag_submit(on_device ? &dev : &cpu, &t, sizeof t, &acc, 1), 0);
        }
  ck_assert_int_eq(dag_taskwait(), 0);
  double sum = rounds * (rounds + 1) / 2;
  CHECK_EACH_2D(i, n, j, n,
                a[i * n + j] == (double)((i * n + j) % 1000) +
                                    (j % bs <= i % bs ? sum : 100 * sum));
  free(a);
}
END_TEST

/* A page-aligned matrix whose rows are a page each, tiled 8 x 8, all on
 * the device, then one tile read on the host before the wait: each tile
 * moves in as one 2-D copy, the tile read moves back as one, and the wait
 * brings the rest back in a copy per stretch of device memory (a block
 * row's window, with page-sized granules) rather than one per row or per
 * page. Counted from the DAG_STATS line. */
enum { WIDE = 512, TILE = 64 };

static void read_tile(void *p) { (void)p; }

START_TEST(tiles_move_in_few_copies) {
  ck_assert_int_eq(setenv("DAG_STATS", "1", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_GRANULE", "4K", 1), 0);
  start_exactly("emul", "16M"); /* the counts are of one device */
  double(*a)[WIDE] = aligned_alloc(4096, WIDE * sizeof *a);
  for (int i = 0; i < WIDE; i++)
    for (int j = 0; j < WIDE; j++)
      a[i][j] = i + j;
  static struct dag_task_info dev = {.fn = tile_on_device,
                                     .label = "tile",
                                     .device = DAG_DEVICE_CUDA,
                                     POINTERS(tile_pointers)};
  for (int i = 0; i < WIDE; i += TILE)
    for (int j = 0; j < WIDE; j += TILE) {
      struct tile_args t = {&a[i][j], WIDE, TILE};
      struct dag_access acc = {
          DAG_INOUT,
          {&a[i][j], TILE * sizeof(double), 1, {{TILE, sizeof a[0]}}}};
      ck_assert_int_eq(dag_submit(&dev, &t, sizeof t, &acc, 1), 0);
    }
  static struct dag_task_info host = {.fn = read_tile, .label = "read"};
  struct dag_access acc = {
      DAG_IN, {&a[0][0], TILE * sizeof(double), 1, {{TILE, sizeof a[0]}}}};
  ck_assert_int_eq(dag_submit(&host, NULL, 0, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH_2D(i, WIDE, j, WIDE, a[i][j] == 2 * (i + j) + 1);
  FILE *log = tmpfile();
  ck_assert_ptr_nonnull(log);
  fflush(stderr);
  ck_assert_int_ne(dup2(fileno(log), STDERR_FILENO), -1);
  dag_finalize();
  rewind(log);
  char line[1024];
  unsigned long long tasks = 0, in = 0, out = 0;
  while (fgets(line, sizeof line, log))
    if (sscanf(line,
               "dag: stats: device emul 0: %llu tasks; %llu copies in (%*f "
               "MiB), %llu out",
               &tasks, &in, &out) == 3)
      break;
  ck_assert_int_eq(tasks, 64);
  ck_assert_int_eq(in, 64);
  ck_assert_int_ge(out, 1 + WIDE / TILE);
  ck_assert_int_le(out, 2 + WIDE / TILE);
  free(a);
}
END_TEST

/* Copies larger than a staging buffer (8 MiB) go in chunks: a 20 MiB
 * vector, one span, in pieces of a row; a 2-D region of 2,560 rows of 4 KiB
 * in 8 MiB chunks of whole rows, with 4 KiB between its rows left alone. */
struct rect_args {
  double *t;
  int ld, rows, cols; /* and 4 bytes of padding */
};

static const struct dag_pointers rect_pointers[] = {
    {offsetof(struct rect_args, t), 1}};

static void rect_kernel(void *p) {
  struct rect_args *a = p;
  for (int i = 0; i < a->rows; i++)
    for (int j = 0; j < a->cols; j++)
      a->t[i * a->ld + j] = 2 * a->t[i * a->ld + j] + 1;
}

static void rect_body(void *p) {
  ck_assert_int_eq(dag_emul_launch(rect_kernel, p, sizeof(struct rect_args)),
                   0);
}

START_TEST(large_copies_in_chunks) {
  start("emul", "64M");
  enum { N = 20 << 17, ROWS = 2560, ROW = 512 }; /* doubles: 20 MiB, 4 KiB */
  double *x = malloc(N * sizeof *x);
  double(*m)[2 * ROW] = malloc(ROWS * sizeof *m);
  for (int i = 0; i < N; i++)
    x[i] = i;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < 2 * ROW; j++)
      m[i][j] = i + j;
  submit_add(DAG_DEVICE_CUDA, x, N, 1);
  static struct dag_task_info dev = {.fn = rect_body,
                                     .label = "rows",
                                     .device = DAG_DEVICE_CUDA,
                                     POINTERS(rect_pointers)};
  struct rect_args t = {&m[0][0], 2 * ROW, ROWS, ROW};
  struct dag_access acc = {
      DAG_INOUT, {&m[0][0], ROW * sizeof(double), 1, {{ROWS, sizeof m[0]}}}};
  ck_assert_int_eq(dag_submit(&dev, &t, sizeof t, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == i + 1);
  CHECK_EACH_2D(i, ROWS, j, 2 * ROW,
                m[i][j] == (j < ROW ? 2 * (i + j) + 1 : i + j));
  free(x);
  free(m);
}
END_TEST

/* ------------------------------------------- copies packed in parallel */

/* Y = X + k on the device: readers of one input, each with an output. */
struct offset_args {
  const double *x;
  double *y;
  size_t n;
  double k;
};

static const struct dag_pointers offset_pointers[] = {
    {offsetof(struct offset_args, x), 2}};

static void offset_kernel(void *p) {
  const struct offset_args *a = p;
  for (size_t i = 0; i < a->n; i++)
    a->y[i] = a->x[i] + a->k;
}

static void offset_on_device(void *p) {
  ck_assert_int_eq(
      dag_emul_launch(offset_kernel, p, sizeof(struct offset_args)), 0);
}

/* Workers pack a device task's copies with no lock, and queue them at the
 * task's turn: a reader that finds the input already valid on the device
 * (another reader is bringing it) must still start after that copy. Many
 * readers of one input, run by every worker, each see all of it. */
START_TEST(readers_of_one_input_wait_for_its_copy) {
  start("emul", "64M");
  enum { N = 1 << 16, READERS = 8, ROUNDS = 12 }; /* 512 KiB each */
  double *x = malloc(N * sizeof *x);
  double *y = malloc((size_t)READERS * N * sizeof *y);
  static struct dag_task_info info = {.fn = offset_on_device,
                                      .label = "offset",
                                      .device = DAG_DEVICE_CUDA,
                                      POINTERS(offset_pointers)};
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = 0; i < N; i++)
      x[i] = i + r;
    for (int k = 0; k < READERS; k++) {
      struct offset_args a = {x, y + (size_t)k * N, N, k};
      struct dag_access acc[] = {access_of(DAG_IN, x, N * sizeof *x),
                                 access_of(DAG_OUT, a.y, N * sizeof *x)};
      ck_assert_int_eq(dag_submit(&info, &a, sizeof a, acc, 2), 0);
    }
    ck_assert_int_eq(dag_taskwait(), 0);
    CHECK_EACH_2D(k, READERS, i, N, y[(size_t)k * N + i] == i + r + k);
  }
  free(x);
  free(y);
}
END_TEST

/* A task whose copies need more than half of the staging buffers a device
 * may have queues them as it plans them, so that it never waits for
 * buffers it holds itself; small tasks beside it still take their turns.
 * The large one copies its first half onto its second (memcpy: quick under
 * ThreadSanitizer too). */
struct halves_args {
  unsigned char *at;
  size_t bytes;
};

static const struct dag_pointers halves_pointers[] = {
    {offsetof(struct halves_args, at), 1}};

static void halves_kernel(void *p) {
  const struct halves_args *a = p;
  memcpy(a->at + a->bytes / 2, a->at, a->bytes / 2);
}

static void halves_on_device(void *p) {
  ck_assert_int_eq(
      dag_emul_launch(halves_kernel, p, sizeof(struct halves_args)), 0);
}

START_TEST(task_larger_than_staging_pool) {
  start("emul", "1G");                  /* buffers: 64 MiB */
  enum { SMALL = 1 << 14, TASKS = 16 }; /* doubles */
  size_t big_bytes = (size_t)40 << 20;
  unsigned char *big = malloc(big_bytes), *want = malloc(big_bytes / 2);
  double *small = malloc((size_t)TASKS * SMALL * sizeof *small);
  for (size_t i = 0; i < big_bytes / 2; i += 4096)
    memset(big + i, (int)(i >> 12) & 0xff, 4096);
  memset(big + big_bytes / 2, 0, big_bytes / 2);
  memcpy(want, big, big_bytes / 2);
  for (size_t i = 0; i < (size_t)TASKS * SMALL; i++)
    small[i] = (double)i;
  static struct dag_task_info info = {.fn = halves_on_device,
                                      .label = "halves",
                                      .device = DAG_DEVICE_CUDA,
                                      POINTERS(halves_pointers)};
  struct halves_args h = {big, big_bytes};
  struct dag_access acc = access_of(DAG_INOUT, big, big_bytes);
  for (int k = 0; k < TASKS / 2; k++)
    submit_add(DAG_DEVICE_CUDA, small + (size_t)k * SMALL, SMALL, 1);
  ck_assert_int_eq(dag_submit(&info, &h, sizeof h, &acc, 1), 0);
  for (int k = TASKS / 2; k < TASKS; k++)
    submit_add(DAG_DEVICE_CUDA, small + (size_t)k * SMALL, SMALL, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert(!memcmp(big, want, big_bytes / 2));
  ck_assert(!memcmp(big + big_bytes / 2, want, big_bytes / 2));
  CHECK_EACH(i, TASKS * SMALL, small[i] == (double)i + 1);
  free(big);
  free(want);
  free(small);
}
END_TEST

/* Only the pointer arguments the task lists are translated. A word that
 * merely holds an address of its region by chance is left alone: here an
 * integer, and an int beside padding whose bytes are the high half of such
 * an address, as a pointer left on the submitter's stack makes them (this
 * is what made large_copies_in_chunks fail once in 80 runs under TSan: its
 * cols became the low half of a device address). */
struct mixed_args {
  double *x;
  uint32_t n; /* and 4 bytes of padding */
  uintptr_t as_integer;
};

static struct mixed_args mixed_seen;

static void record_arguments(void *p) {
  memcpy(&mixed_seen, p, sizeof mixed_seen);
}

START_TEST(only_pointer_arguments_are_translated) {
  start("emul", "16M");
  enum { N = 1 << 20 };
  double *x = calloc(N, sizeof *x);
  uintptr_t inside = (uintptr_t)&x[N / 2];
  uint32_t high = (uint32_t)(inside >> 32);
  struct mixed_args a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.n = (uint32_t)inside;
  memcpy((char *)&a + offsetof(struct mixed_args, n) + sizeof a.n, &high,
         sizeof high);
  a.as_integer = inside;
  static const struct dag_pointers mixed_pointers[] = {
      {offsetof(struct mixed_args, x), 1}};
  static struct dag_task_info info = {.fn = record_arguments,
                                      .label = "mixed",
                                      .device = DAG_DEVICE_CUDA,
                                      POINTERS(mixed_pointers)};
  struct dag_access acc = access_of(DAG_INOUT, x, N * sizeof *x);
  ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert_ptr_nonnull(mixed_seen.x);
  ck_assert_ptr_ne(mixed_seen.x, x);
  ck_assert_mem_eq((char *)&mixed_seen + offsetof(struct mixed_args, n),
                   (char *)&a + offsetof(struct mixed_args, n),
                   sizeof a - offsetof(struct mixed_args, n));
  free(x);
}
END_TEST

/* A pointer argument goes through the window of the region that holds its
 * byte, not of the first region whose bounds do: the bounds of a tile's rows
 * hold the first byte of the tile beside it, whose granules (4 KiB here,
 * one per tile row) that tile's window never maps. The task reads tile
 * (0,0) and writes tile (0,1) of one band of rows, named in that order;
 * its destination pointer, translated through (0,0)'s window, would land
 * on an unmapped granule of it (what made device_triangles' syrk fault). */
enum { BAND_ROWS = 8, BAND_TILE = 512 }; /* doubles: a granule per tile row */

struct band_args {
  const double *src;
  double *dst;
};

static const struct dag_pointers band_pointers[] = {
    {offsetof(struct band_args, src), 2}};

static void band_kernel(void *p) {
  struct band_args *a = p;
  for (int i = 0; i < BAND_ROWS; i++)
    for (int j = 0; j < BAND_TILE; j++)
      a->dst[i * 2 * BAND_TILE + j] += a->src[i * 2 * BAND_TILE + j];
}

static void band_on_device(void *p) {
  ck_assert_int_eq(dag_emul_launch(band_kernel, p, sizeof(struct band_args)),
                   0);
}

static double band_start(int i, int j) { return i * 2 * BAND_TILE + j; }

START_TEST(pointer_goes_through_its_own_tile) {
  ck_assert_int_eq(setenv("DAG_EMUL_GRANULE", "4K", 1), 0);
  start("emul", "16M");
  double(*a)[2 * BAND_TILE] = aligned_alloc(4096, BAND_ROWS * sizeof *a);
  for (int i = 0; i < BAND_ROWS; i++)
    for (int j = 0; j < 2 * BAND_TILE; j++)
      a[i][j] = band_start(i, j);
  static struct dag_task_info dev = {.fn = band_on_device,
                                     .label = "band",
                                     .device = DAG_DEVICE_CUDA,
                                     POINTERS(band_pointers)};
  struct band_args t = {&a[0][0], &a[0][BAND_TILE]};
  struct dag_access acc[2] = {
      {DAG_IN, dag_region_2d(&a[0][0], BAND_ROWS, BAND_TILE * sizeof(double),
                             sizeof a[0])},
      {DAG_INOUT, dag_region_2d(&a[0][BAND_TILE], BAND_ROWS,
                                BAND_TILE * sizeof(double), sizeof a[0])}};
  ck_assert_int_eq(dag_submit(&dev, &t, sizeof t, acc, 2), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH_2D(i, BAND_ROWS, j, 2 * BAND_TILE,
                a[i][j] ==
                    band_start(i, j) +
                        (j < BAND_TILE ? 0 : band_start(i, j - BAND_TILE)));
  free(a);
}
END_TEST

/* --------------------------------------------------- more than fits */

/* 32 MiB of blocks on a device of 8 MiB (four 2 MiB granules), each block
 * updated on the device in rounds: evicted blocks come back with their
 * writes. */
static void working_set(int blocks) {
  enum { BLOCK = 262144, ROUNDS = 3 }; /* doubles: 2 MiB */
  double **x = malloc(blocks * sizeof *x);
  for (int b = 0; b < blocks; b++) {
    x[b] = malloc(BLOCK * sizeof(double));
    for (int i = 0; i < BLOCK; i++)
      x[b][i] = b;
  }
  for (int r = 0; r < ROUNDS; r++)
    for (int b = 0; b < blocks; b++)
      submit_add(DAG_DEVICE_CUDA, x[b], BLOCK, 1);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH_2D(b, blocks, i, BLOCK, x[b][i] == b + ROUNDS);
  for (int b = 0; b < blocks; b++)
    free(x[b]);
  free(x);
}

START_TEST(working_set_four_times_device) {
  start("emul", "8M");
  working_set(16);
}
END_TEST

/* One task whose data cannot fit stops the program with a message. */
static void larger_than_device(void) {
  start("emul", "4M"); /* 2 MiB for data, as one granule is the reserve */
  double *x = calloc(524288, sizeof *x); /* 4 MiB */
  submit_add(DAG_DEVICE_CUDA, x, 524288, 1);
  dag_taskwait();
}

START_TEST(task_larger_than_device) {
  ck_assert_child_exits(
      larger_than_device, 1,
      "task 'add on device': its data does not fit in the memory of emul");
}
END_TEST

/* ------------------------------------------------------ host pointers */

static double *global_x;

static void stale_kernel(void *p) {
  (void)p;
  global_x[3] = 42; /* the host's copy, which is not the device's */
}

static void stale_body(void *p) {
  (void)p;
  dag_emul_launch(stale_kernel, NULL, 0);
}

static void host_pointer_write(void) {
  start("emul", "16M");
  global_x = calloc(64, sizeof *global_x);
  static struct dag_task_info info = {
      .fn = stale_body, .label = "stale", .device = DAG_DEVICE_CUDA};
  struct dag_access acc = access_of(DAG_INOUT, global_x, 64 * sizeof(double));
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), 0);
  dag_taskwait(); /* the check ends the program with status 1 */
}

START_TEST(host_pointer_write_is_caught) {
  ck_assert_child_exits(host_pointer_write, 1,
                        "task 'stale': its device body wrote host memory");
}
END_TEST

static void set_42(void *p) { (*(double **)p)[3] = 42; }

static void by_hand_body(void *p) {
  (void)p;
  double *x = dag_device_ptr(global_x);
  dag_emul_launch(set_42, &x, sizeof x);
  nseen = dag_device_ptr(&nseen) == NULL; /* not the task's data */
}

/* A body that computes on device memory itself, as if it were host code,
 * is stopped: the memory is closed to it while it runs at launch. */
static void body_touching_device_memory(void) {
  start("emul", "16M");
  double *x = calloc(64, sizeof *x);
  static struct dag_task_info info = {.fn = add_body,
                                      .label = "computes itself",
                                      .device = DAG_DEVICE_CUDA,
                                      POINTERS(add_pointers)};
  struct add_args a = {x, 64, 1, NULL};
  struct dag_access acc = access_of(DAG_INOUT, x, 64 * sizeof(double));
  ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  dag_taskwait(); /* the fault ends the program with status 1 */
}

START_TEST(body_touching_device_memory_is_stopped) {
  ck_assert_child_exits(body_touching_device_memory, 1,
                        "a device body touched memory at 0x");
}
END_TEST

/* A body that faults elsewhere (a null pointer) is not said to have
 * touched device memory: the fault is the program's own, a crash as
 * without dag (under a sanitizer, its report). */
static void null_body(void *p) {
  (void)p;
  *(volatile double *)NULL = 1;
}

static void null_fault(void) {
  start("emul", "16M");
  double *x = calloc(64, sizeof *x);
  static struct dag_task_info info = {
      .fn = null_body, .label = "null", .device = DAG_DEVICE_CUDA};
  struct dag_access acc = access_of(DAG_INOUT, x, 64 * sizeof(double));
  dag_submit(&info, NULL, 0, &acc, 1);
  dag_taskwait();
}

START_TEST(body_fault_elsewhere_is_a_crash) {
  struct child c;
  child_run(null_fault, &c);
  ck_assert_msg(WIFSIGNALED(c.status) ||
                    (WIFEXITED(c.status) && WEXITSTATUS(c.status) != 0),
                "the child ended normally");
  ck_assert_msg(!strstr(c.err, "touched memory"), "said: %s", c.err);
}
END_TEST

/* Outside a device body of the emulated device, there is no stream. */
START_TEST(emul_launch_outside_a_body) {
  start("emul", "16M");
  ck_assert_int_eq(dag_emul_launch(stale_kernel, NULL, 0), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "not in a device body"));
}
END_TEST

START_TEST(device_ptr_by_hand) {
  start("emul", "16M");
  global_x = calloc(64, sizeof *global_x);
  ck_assert_ptr_eq(dag_device_ptr(global_x), global_x); /* not in a body */
  static struct dag_task_info info = {
      .fn = by_hand_body, .label = "by hand", .device = DAG_DEVICE_CUDA};
  struct dag_access acc = access_of(DAG_INOUT, global_x, 64 * sizeof(double));
  ck_assert_int_eq(dag_submit(&info, NULL, 0, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert(global_x[3] == 42);
  ck_assert_int_eq(nseen, 1);
}
END_TEST

/* ------------------------------------------------ taskwait on a list */

START_TEST(taskwait_on_brings_data_back) {
  start("emul", "16M");
  double *x = calloc(256, sizeof *x), *y = calloc(256, sizeof *y);
  submit_add(DAG_DEVICE_CUDA, x, 256, 5);
  submit_add(DAG_DEVICE_CUDA, y, 256, 7);
  struct dag_access acc = access_of(DAG_IN, x, 256 * sizeof(double));
  ck_assert_int_eq(dag_taskwait_on(&acc, 1), 0);
  CHECK_EACH(i, 256, x[i] == 5);
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, 256, y[i] == 7);
  free(x);
  free(y);
}
END_TEST

/* ---------------------------------------------------------- variants */

static int cpu_runs, device_runs;

static void cpu_variant(void *p) {
  add_body(p);
  __atomic_fetch_add(&cpu_runs, 1, __ATOMIC_RELAXED);
}

static void device_variant(void *p) {
  add_on_device(p);
  __atomic_fetch_add(&device_runs, 1, __ATOMIC_RELAXED);
}

/* A task with a CPU body and a device variant: both get tried (each needs
 * a history), and every run gives the right result. */
START_TEST(variants_both_tried) {
  start("emul", "16M");
  static const struct dag_variant variants[] = {
      {device_variant, DAG_DEVICE_CUDA}};
  static struct dag_task_info info = {.fn = cpu_variant,
                                      .label = "add, two ways",
                                      .variants = variants,
                                      .nvariants = 1,
                                      POINTERS(add_pointers)};
  enum { N = 4096, TASKS = 40 };
  double *x = calloc(N, sizeof *x);
  for (int t = 0; t < TASKS; t++) {
    struct add_args a = {x, N, 1, NULL};
    struct dag_access acc = access_of(DAG_INOUT, x, N * sizeof *x);
    ck_assert_int_eq(dag_submit(&info, &a, sizeof a, &acc, 1), 0);
  }
  ck_assert_int_eq(dag_taskwait(), 0);
  CHECK_EACH(i, N, x[i] == TASKS);
  ck_assert_int_ge(cpu_runs, 2);
  ck_assert_int_ge(device_runs, 2);
  ck_assert_int_eq(cpu_runs + device_runs, TASKS);
  free(x);
}
END_TEST

/* Without a device, a device-only task is refused and one with a CPU
 * variant runs there. */
START_TEST(no_device) {
  start("none", "16M");
  double x[8] = {0};
  static struct dag_task_info only = {
      .fn = add_body, .label = "device only", .device = DAG_DEVICE_HIP};
  struct add_args a = {x, 8, 1, NULL};
  struct dag_access acc = access_of(DAG_INOUT, x, sizeof x);
  ck_assert_int_eq(dag_submit(&only, &a, sizeof a, &acc, 1), DAG_ENOSYS);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "device only"));
  static const struct dag_variant cpu[] = {{cpu_variant, DAG_DEVICE_CPU}};
  static struct dag_task_info both = {.fn = device_variant,
                                      .label = "either",
                                      .device = DAG_DEVICE_HIP,
                                      .variants = cpu,
                                      .nvariants = 1};
  ck_assert_int_eq(dag_submit(&both, &a, sizeof a, &acc, 1), 0);
  ck_assert_int_eq(dag_taskwait(), 0);
  ck_assert(x[0] == 1);
  ck_assert_int_eq(cpu_runs, 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("device");
  TCase *tc = tcase_create("emulated device");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, device_task_gets_device_copy);
  tcase_add_test(tc, host_and_device_alternate);
  tcase_add_test(tc, undeferred_device_task_holds_its_successors);
  tcase_add_test(tc, program_writes_between_waits);
  tcase_add_test(tc, tiles_keep_host_layout);
  tcase_add_test(tc, tiles_move_in_few_copies);
  tcase_add_loop_test(tc, triangles_on_device_and_host_at_once, 0, 3);
  tcase_add_test(tc, large_copies_in_chunks);
  tcase_add_test(tc, readers_of_one_input_wait_for_its_copy);
  tcase_add_test(tc, task_larger_than_staging_pool);
  tcase_add_test(tc, only_pointer_arguments_are_translated);
  tcase_add_test(tc, pointer_goes_through_its_own_tile);
  tcase_add_test(tc, working_set_four_times_device);
  tcase_add_test(tc, task_larger_than_device);
  tcase_add_test(tc, host_pointer_write_is_caught);
  tcase_add_test(tc, body_touching_device_memory_is_stopped);
  tcase_add_test(tc, body_fault_elsewhere_is_a_crash);
  tcase_add_test(tc, emul_launch_outside_a_body);
  tcase_add_test(tc, device_ptr_by_hand);
  tcase_add_test(tc, taskwait_on_brings_data_back);
  tcase_add_test(tc, variants_both_tried);
  tcase_add_test(tc, no_device);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
