/* space_emul.c — the emulated device: a memory space that behaves as a GPU
 * does where tests can rely on it and no GPU is, and is as hostile to the
 * runtime's ordering as a GPU is. This file holds its memory, its opening
 * and closing, and its table; its engines are emul_queues.c's, what it
 * injects and catches emul_faults.c's.
 *
 * Memory: its own, not the host's copy: a memory file of DAG_EMUL_MEM bytes
 * cut into granules of DAG_EMUL_GRANULE bytes (2 MiB by default, what
 * cuMemGetAllocationGranularity gives on NVIDIA), each poisoned when
 * committed and mapped into reserved address ranges as CUDA's virtual
 * memory calls map theirs, so running out of device memory, one granule
 * seen at two addresses and the cost of large granules all show.
 *
 * Timed mode (DAG_EMUL_MODEL, emul_model.h): operations take the time a
 * device model gives them instead of doing their work (emul_queues.c);
 * memory is the model's, reserved and never touched. The table answers the
 * device layer's questions of the model: a task's time on the device or a
 * CPU core, a copy's packing.
 *
 * Locking: one mutex per device guards the engines, the copies done, the
 * gate between launches and the rest, the mappings and the free granules
 * (emul_queues.c says how its threads wait).
 */
#include "mem/emul.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* What freshly committed device memory holds: reading it before a copy
 * brought anything there shows. */
#define EMUL_POISON 0xa5

/* The model of DAG_EMUL_MODEL, read once for every device. */
static struct emul_model model;
static int model_err;
static char model_why[512];

static void load_model(void) {
  model_err = dag__emul_model_load(dag__settings()->emul_model, &model);
  if (model_err)
    snprintf(model_why, sizeof model_why, "%s", dag_last_error());
}

static const struct emul_model *shared_model(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (!dag__settings()->emul_model)
    return NULL;
  pthread_once(&once, load_model);
  return model_err ? NULL : &model;
}

/* As many as DAG_DEVICES names (`emul,emul` is two), which settings.c
 * caps. */
static int emul_count(char *why, size_t len) {
  (void)why;
  (void)len;
  return DAG_MAX_DEVICE_CHOICES;
}

static void free_memory(struct emul *e) {
  if (e->view)
    munmap(e->view, e->ngranules * e->granule);
  if (e->fd >= 0)
    close(e->fd);
  free(e->spare);
}

/* The memory file and its granules, all free. */
static int make_memory(struct emul *e) {
  const struct settings *s = dag__settings();
  e->granule = s->emul_granule;
  e->ngranules = (e->model ? e->model->memory : s->emul_memory) / e->granule;
  if (e->ngranules < 2) /* one at least for data, one for the reserve */
    return dag__error_note(DAG_EINVAL,
                           "emulated device %d: DAG_EMUL_MEM (%zu bytes) is "
                           "less than two granules (DAG_EMUL_GRANULE, %zu "
                           "bytes)",
                           e->index, s->emul_memory, e->granule);
  size_t bytes = e->ngranules * e->granule;
  e->fd = memfd_create("dag-emulated-device", MFD_CLOEXEC);
  e->spare = malloc(e->ngranules * sizeof *e->spare);
  if (e->fd >= 0 && e->spare && ftruncate(e->fd, (off_t)bytes) == 0)
    e->view = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
  if (e->fd < 0 || !e->spare || !e->view || e->view == MAP_FAILED) {
    e->view = NULL;
    free_memory(e);
    return dag__error_note(DAG_ENOMEM,
                           "emulated device %d: cannot make %zu bytes of "
                           "device memory",
                           e->index, bytes);
  }
  for (size_t i = 0; i < e->ngranules; i++)
    e->spare[i] = e->ngranules - 1 - i; /* the lowest first */
  e->nspare = e->ngranules;
  return 0;
}

static void emul_close(void *state);

static int emul_open(int index, void **state) {
  struct emul *e = calloc(1, sizeof *e);
  if (!e)
    return dag__error_note(DAG_ENOMEM, "emulated device %d: no memory", index);
  e->index = index;
  e->fd = -1;
  e->model = shared_model();
  if (dag__settings()->emul_model && !e->model) {
    free(e);
    return dag__error_note(DAG_EINVAL, "%s", model_why);
  }
  int err = make_memory(e);
  if (err) {
    free(e);
    return err;
  }
  const struct settings *s = dag__settings();
  e->delay_us = s->emul_delay_us;
  e->jitter_us = s->emul_jitter_us;
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->gate, NULL);
  dag__emul_catch_faults();
  unsigned seed =
      (unsigned)s->emul_seed * 2654435761u + 4u * (unsigned)e->index;
  err =
      dag__emul_start_engine(e, &e->copies_in, "copy-in", &e->in_lane, 1, seed);
  if (!err)
    err = dag__emul_start_engine(e, &e->copies_out, "copy-out", &e->out_lane, 1,
                                 seed + 2);
  if (!err)
    err = dag__emul_start_engine(e, &e->bodies, "compute", e->body_lanes,
                                 BODY_LANES, seed + 1);
  if (err) {
    emul_close(e);
    return err;
  }
  *state = e;
  return 0;
}

static void emul_close(void *state) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_signal(&e->copies_in.wake);
  pthread_cond_signal(&e->copies_out.wake);
  pthread_cond_signal(&e->bodies.wake);
  pthread_mutex_unlock(&e->lock);
  dag__emul_stop_engine(&e->copies_in);
  dag__emul_stop_engine(&e->copies_out);
  dag__emul_stop_engine(&e->bodies);
  pthread_cond_destroy(&e->gate);
  pthread_mutex_destroy(&e->lock);
  free(e->mapped);
  free_memory(e);
  free(e);
}

/* As a GPU's, less a reserve for the libraries that bodies call (a
 * sixteenth, one granule at least): the device layer must not commit into
 * it (emul_commit refuses). */
static size_t emul_reserved_granules(const struct emul *e) {
  return e->ngranules / 16 ? e->ngranules / 16 : 1;
}

static size_t emul_memory(void *state) {
  struct emul *e = state;
  return (e->ngranules - emul_reserved_granules(e)) * e->granule;
}

/* Staging buffers: plain, page-aligned, and page-locked as far as the
 * emulated device knows (emul_pinned.c). */
static void *emul_host_alloc(void *state, size_t bytes) {
  (void)state;
  size_t size = (bytes + 4095) & ~(size_t)4095;
  void *p = aligned_alloc(4096, size);
  if (p && dag__emul_pin(p, size))
    DAG_BUG("a new staging buffer is page-locked already: %s",
            dag_last_error());
  return p;
}

static void emul_host_free(void *state, void *p, size_t bytes) {
  (void)state;
  (void)bytes;
  dag__emul_unpin(p);
  free(p);
}

static int emul_host_register(void *state, void *p, size_t bytes) {
  (void)state;
  return dag__emul_pin(p, bytes);
}

static void emul_host_unregister(void *state, void *p) {
  (void)state;
  dag__emul_unpin(p);
}

static size_t emul_granule(void *state) {
  return ((struct emul *)state)->granule;
}

/* Granule-aligned, as a GPU's reservations are: a larger range is mapped
 * and what lies outside the aligned part is given back. */
static void *emul_reserve(void *state, size_t bytes) {
  size_t g = ((struct emul *)state)->granule;
  char *at = mmap(NULL, bytes + g, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED)
    return NULL;
  char *aligned = (char *)(((uintptr_t)at + g - 1) & ~(uintptr_t)(g - 1));
  if (aligned > at)
    munmap(at, (size_t)(aligned - at));
  if (aligned + bytes < at + bytes + g)
    munmap(aligned + bytes, (size_t)(at + bytes + g - (aligned + bytes)));
  return aligned;
}

static void emul_unreserve(void *state, void *at, size_t bytes) {
  (void)state;
  munmap(at, bytes);
}

static int emul_commit(void *state, uint64_t *mem) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  const char *failure = dag__emul_injected(e, EMUL_FAIL_ALLOC, &e->commits,
                                           "allocating device memory");
  bool fits = !failure && e->nspare > 0;
  bool reserved = fits && e->nspare <= emul_reserved_granules(e);
  if (fits && !reserved)
    *mem = e->spare[--e->nspare];
  pthread_mutex_unlock(&e->lock);
  if (failure)
    return dag__error_note(DAG_EDEVICE, "%s", failure);
  if (reserved)
    return dag__error_note(DAG_EDEVICE,
                           "emulated device %d: a granule committed past the "
                           "memory the device reported, into the reserve of "
                           "the libraries that bodies call",
                           e->index);
  if (!fits)
    return DAG_ENOMEM;
  if (!e->model) /* timed: reserved, never touched */
    memset(e->view + *mem * e->granule, EMUL_POISON, e->granule);
  return 0;
}

static void emul_decommit(void *state, uint64_t mem) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->spare[e->nspare++] = mem;
  pthread_mutex_unlock(&e->lock);
}

/* One mapping per run of granules that lie one after the other in the
 * memory file (committed one after the other, they mostly do). */
static int emul_map(void *state, void *at, const uint64_t *mem, size_t n) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  int access = e->closed ? PROT_NONE : PROT_READ | PROT_WRITE;
  bool mapped = true;
  for (size_t i = 0, run; mapped && i < n; i += run) {
    for (run = 1; i + run < n && mem[i + run] == mem[i] + run; run++)
      ;
    char *to = (char *)at + i * e->granule;
    mapped = mmap(to, run * e->granule, access, MAP_SHARED | MAP_FIXED, e->fd,
                  (off_t)(mem[i] * e->granule)) == to;
    e->mapped = dag__grow(e->mapped, &e->mapped_cap, e->nmapped + run,
                          sizeof *e->mapped, "the emulated device's mappings");
    for (size_t k = 0; mapped && k < run; k++)
      e->mapped[e->nmapped++] = to + k * e->granule;
  }
  pthread_mutex_unlock(&e->lock);
  return mapped ? 0
                : dag__user_error(NULL, DAG_ENOMEM,
                                  "emulated device %d: cannot map a granule",
                                  e->index);
}

/* Back to reserved addresses with nothing behind them. */
static void emul_unmap(void *state, void *at) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  mmap(at, e->granule, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  for (size_t i = 0; i < e->nmapped; i++)
    if (e->mapped[i] == at) {
      e->mapped[i] = e->mapped[--e->nmapped];
      break;
    }
  pthread_mutex_unlock(&e->lock);
}

/* Opens (access) or closes (PROT_NONE) every granule mapped. Under the
 * lock. */
void dag__emul_set_access(struct emul *e, int access) {
  for (size_t i = 0; i < e->nmapped; i++)
    mprotect(e->mapped[i], e->granule, access);
}

static const char *emul_model_name(void *state) {
  const struct emul *e = state;
  return e->model ? e->model->name : NULL;
}

static double emul_work_seconds(void *state, const char *label, bool on_device,
                                double work) {
  const struct emul *e = state;
  return dag__emul_model_seconds(e->model, label, on_device, work);
}

static double emul_copy_seconds(void *state, bool to_device, size_t bytes) {
  const struct emul *e = state;
  return dag__emul_model_copy_seconds(e->model, to_device, bytes, true);
}

/* The host's memory bus, which every core packing for any emulated device
 * shares: it carries packs in the order they come, at the rate of all
 * cores packing at once (the model's second pack rate). */
static struct {
  pthread_mutex_t lock;
  uint64_t free_ns; /* when it has carried the packs before */
} host_bus = {PTHREAD_MUTEX_INITIALIZER, 0};

/* A pack of `bytes` that starts now ends once its core has packed it at
 * one core's rate and the bus has carried it: alone, a core's rate; n
 * cores packing at once each get about the bus's share. */
static double emul_pack_seconds(void *state, size_t bytes) {
  const struct emul_model *m = ((const struct emul *)state)->model;
  if (m->pack_bytes_per_s <= 0)
    return -1;
  double own = dag__emul_model_pack_seconds(m, bytes);
  if (m->pack_all_bytes_per_s <= 0 || !bytes)
    return own;
  uint64_t now = dag__now_ns();
  pthread_mutex_lock(&host_bus.lock);
  uint64_t start = host_bus.free_ns > now ? host_bus.free_ns : now;
  host_bus.free_ns =
      start + (uint64_t)((double)bytes / m->pack_all_bytes_per_s * 1e9);
  double bus = (double)(host_bus.free_ns - now) / 1e9;
  pthread_mutex_unlock(&host_bus.lock);
  return bus > own ? bus : own;
}

const struct space_ops dag__space_emul = {
    .name = "emul",
    .count = emul_count,
    .open = emul_open,
    .close = emul_close,
    .granule = emul_granule,
    .memory = emul_memory,
    .host_alloc = emul_host_alloc,
    .host_free = emul_host_free,
    .host_register = emul_host_register,
    .host_unregister = emul_host_unregister,
    .reserve = emul_reserve,
    .unreserve = emul_unreserve,
    .commit = emul_commit,
    .decommit = emul_decommit,
    .map = emul_map,
    .unmap = emul_unmap,
    .copy = dag__emul_copy,
    .launch = dag__emul_launch,
    .host_reads = dag__emul_host_reads,
    .model = emul_model_name,
    .work_seconds = emul_work_seconds,
    .spend = dag__emul_spend,
    .copy_seconds = emul_copy_seconds,
    .pack_seconds = emul_pack_seconds,
    .timing = dag__emul_timing,
    .kernel = dag__emul_kernel,
    .host_jitter = dag__emul_host_jitter,
};
