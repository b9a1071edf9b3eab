/* device.c — the devices of this rank: opening them, submitting tasks
 * once they are in use, bringing their data back at waits, and closing
 * them at the end.
 *
 * Devices are looked for when the first task with a device variant is
 * submitted (DAG_DEVICES says which: by default every CUDA and HIP device
 * found; `emul` adds the emulated device, which runs bodies of either
 * kind), so that a program without device tasks never loads a GPU library.
 * From then on every task of the rank is wrapped (call.h: run_host.c,
 * run_device.c); before, none could have data on a device.
 *
 * A task with a choice (a variant, or a body for a device) runs where
 * choose.c decides when it is ready.
 */
#include "device/choose.h"
#include "device/copies.h"
#include "device/registered.h"
#include "device/writeback.h"

#include "comm/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pthread_mutex_t dag__devices_lock = PTHREAD_MUTEX_INITIALIZER;
struct device dag__devices[MAX_DEVICES];
int dag__ndevices;
bool dag__devices_direct;
const struct space *dag__devices_timed;
atomic_bool dag__devices_on;

const struct space *dag__devices_timed_space(void) {
  return dag__devices_timed;
}

static pthread_once_t discovered = PTHREAD_ONCE_INIT;
static const struct space_ops *const *spaces;  /* by kind */
static const struct space_ops *emulated_space; /* DAG_DEVICES's emul */
/* Per entry of DAG_DEVICES: the devices it opened, and why none when so. */
static int opened_by[DAG_MAX_DEVICE_CHOICES];
static char none_why[DAG_MAX_DEVICE_CHOICES][1024];

/* An entry of DAG_DEVICES as written: "cuda", "hip:1", "emul". */
static const char *choice_name(const struct device_choice *c) {
  static DAG_THREAD_LOCAL char name[32];
  const char *kind = c->emulated ? "emul" : dag__device_kind_name(c->kind);
  if (c->index < 0)
    return kind;
  snprintf(name, sizeof name, "%s:%d", kind, c->index);
  return name;
}

/* Pins the thread that drives d to the CPUs nearest it (the kernel's list
 * of its PCI device's local CPUs, read with hwloc), where it has one. */
static void pin_near(struct device *d) {
  char bus[32];
  cpu_set_t cpus;
  if (dag__space_bus_id(&d->space, bus, sizeof bus) &&
      dag__topo_near_pci(bus, &cpus)) {
    dag__space_bind(&d->space, &cpus);
    dag__log(DAG_LOG_INFO,
             "%s device %d (%s): its thread runs on %d CPUs near it",
             d->space.ops->name, d->space.index, bus, CPU_COUNT(&cpus));
  }
}

/* Opens device `index` of ops for entry `choice` of DAG_DEVICES. */
static void open_device(const struct space_ops *ops, enum dag_device kind,
                        int index, int choice) {
  if (dag__ndevices == MAX_DEVICES) {
    dag__log(DAG_LOG_WARN, "more than %d devices; %s device %d unused",
             MAX_DEVICES, ops->name, index);
    return;
  }
  struct device *d = &dag__devices[dag__ndevices];
  memset(d, 0, sizeof *d);
  if (dag__space_open(&d->space, ops, index)) {
    snprintf(none_why[choice], sizeof none_why[choice], "%s", dag_last_error());
    return;
  }
  opened_by[choice]++;
  d->kind = kind;
  d->bit = (holders_t)(HOST << (dag__ndevices + 1));
  d->granule = dag__space_granule(&d->space);
  d->memory = dag__space_memory(&d->space);
  /* Timed, nothing is computed or copied: nothing to poison; packing for
   * staging takes the model's time, where it gives a rate. */
  const char *model = dag__space_model(&d->space);
  d->poisons_host = dag__space_host_kernels(&d->space) && !model;
  d->staging = dag__settings()->device_staging &&
               (!model || dag__space_pack_seconds(&d->space, 0) >= 0);
  d->writeback = d->staging && dag__settings()->device_writeback;
  if (model)
    dag__devices_timed = &d->space;
  snprintf(d->place, sizeof d->place, "%s%s%s", ops->name, model ? ":" : "",
           model ? model : "");
  pthread_mutex_init(&d->stage_lock, NULL);
  pthread_condattr_t monotonic; /* stage_back's waits end by dag__now_ns */
  pthread_condattr_init(&monotonic);
  pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
  pthread_cond_init(&d->stage_back, &monotonic);
  pthread_condattr_destroy(&monotonic);
  dag__turns_init(&d->turns_done);
  dag__turns_init(&d->stages_turn);
  pin_near(d);
  dag__ndevices++;
}

/* Every device of `kind` (index < 0), or its device `index`, for entry
 * `choice` of DAG_DEVICES. */
static void open_kind(enum dag_device kind, int index, int choice) {
  const struct space_ops *ops = spaces[kind];
  char *why = none_why[choice];
  int count = ops ? ops->count(why, sizeof none_why[choice]) : 0;
  if (!ops)
    snprintf(why, sizeof none_why[choice],
             "this libdag was built without the %s toolkit",
             dag__device_kind_name(kind));
  for (int i = 0; i < count; i++)
    if (index < 0 || i == index)
      open_device(ops, kind, i, choice);
  if (count && index >= count)
    snprintf(why, sizeof none_why[choice],
             "there is no %s device %d (%d found)", dag__device_kind_name(kind),
             index, count);
}

/* Opens the devices DAG_DEVICES names, in its order (settings.c checked
 * the list). */
static void discover(void) {
  const struct settings *s = dag__settings();
  int emulated = 0;
  for (int i = 0; i < s->ndevice_choices; i++) {
    const struct device_choice *c = &s->device_choices[i];
    if (c->emulated)
      open_device(emulated_space, DAG_DEVICE_CPU, emulated++, i);
    else
      open_kind(c->kind, c->index, i);
    if (!opened_by[i])
      dag__log(DAG_LOG_INFO, "no %s device: %s", choice_name(c), none_why[i]);
  }
  if (!dag__ndevices)
    dag__log(DAG_LOG_INFO, "no device: tasks run on the CPU only");
  for (int i = 0; i < dag__ndevices; i++)
    dag__log(DAG_LOG_INFO, "device %d: %s %d", i,
             dag__devices[i].space.ops->name, dag__devices[i].space.index);
  dag__devices_direct = dag__comm_gpu_direct();
  if (dag__ndevices && dag__nranks > 1)
    dag__log(DAG_LOG_INFO, "GPU data between ranks: %s",
             dag__devices_direct ? "straight from device memory"
                                 : "through host memory");
  if (dag__ndevices) {
    dag__history_start();
    dag__unpack_start();
    dag__registered_open();
    atomic_store(&dag__devices_on, true);
  }
}

bool dag__devices_discover(void) {
  pthread_once(&discovered, discover);
  return dag__ndevices > 0;
}

int dag__devices_start(const struct space_ops *const *by_kind,
                       const struct space_ops *stand_in) {
  spaces = by_kind;
  emulated_space = stand_in;
  const struct settings *s = dag__settings();
  if (!s->devices_named)
    return 0;
  dag__devices_discover();
  for (int i = 0; i < s->ndevice_choices; i++)
    if (!opened_by[i])
      return dag__user_error(NULL, DAG_ENOSYS,
                             "DAG_DEVICES asks for %s, which cannot be used: "
                             "%s",
                             choice_name(&s->device_choices[i]), none_why[i]);
  return 0;
}

bool dag__device_runs(const struct device *d, enum dag_device kind) {
  return dag__space_host_kernels(&d->space) || d->kind == kind;
}

bool dag__devices_can_run(enum dag_device kind) {
  if (kind == DAG_DEVICE_CPU)
    return true;
  for (int i = 0; i < dag__ndevices; i++)
    if (dag__device_runs(&dag__devices[i], kind))
      return true;
  return false;
}

int dag__devices_streams(enum dag_device kind, struct dag_stream *out,
                         int max) {
  dag__devices_discover();
  int n = 0;
  for (int i = 0; i < dag__ndevices; i++) {
    struct device *d = &dag__devices[i];
    if (d->kind != kind)
      continue;
    void *streams[64];
    int got = dag__space_streams(&d->space, streams, 64);
    for (int k = 0; k < got && k < 64; k++, n++)
      if (n < max)
        out[n] = (struct dag_stream){d->space.index, streams[k]};
  }
  return n;
}

/* -------------------------------------------------------------- submit */

/* A task with a choice: its function and its variants, each with the kind
 * it is written for. */
static bool has_choice(const struct dag_task_info *info) {
  return info->nvariants > 0 || info->device != DAG_DEVICE_CPU;
}

void dag__devices_submit(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct region *regs, const enum dag_mode *modes,
                         size_t n, unsigned flags) {
  size_t bytes = 0;
  for (size_t i = 0; i < n; i++)
    bytes += dag__region_bytes(&regs[i]);
  bool in_place = flags & DEVICES_READ_IN_PLACE;
  flags &= ~DEVICES_READ_IN_PLACE;
  bool choice = has_choice(info);
  /* A model charges it; the chooser estimates with it (estimate.c). */
  double work =
      info->work && (dag__devices_timed || choice) ? info->work(args) : -1;
  if (!choice && n == 0 && work < 0) {
    dag__core_submit(info, body, args, args_size, regs, modes, n, flags);
    return;
  }
  size_t npointers = (size_t)info->npointers;
  size_t nvariants = choice ? 1 + (size_t)info->nvariants : 0;
  size_t size = dag__call_size(n, args_size, npointers, nvariants);
  struct call *c = aligned_alloc(16, (size + 15) & ~(size_t)15);
  if (!c)
    dag__out_of_memory("a task's call");
  *c = (struct call){.fn = body,
                     .label = info->label,
                     .file = info->file,
                     .line = info->line,
                     .n = (uint32_t)n,
                     .args_size = (uint32_t)args_size,
                     .npointers = (uint32_t)npointers,
                     .bytes = bytes,
                     .work = work,
                     .priority = info->priority,
                     .nvariants = (uint32_t)nvariants,
                     .read_in_place = in_place && dag__devices_direct};
  memcpy(dag__call_regions(c), regs, n * sizeof *regs);
  memcpy(dag__call_modes(c), modes, n * sizeof *modes);
  if (args_size)
    memcpy(dag__call_args(c), args, args_size);
  if (npointers)
    memcpy(dag__call_pointers(c), info->pointers,
           npointers * sizeof *info->pointers);
  if (!choice) {
    dag__core_submit(info, dag__run_on_host, c, size, regs, modes, n, flags);
    free(c);
    return;
  }
  struct call_variant *variants = dag__call_variants(c);
  variants[0] = (struct call_variant){info->fn, info->device};
  for (int i = 0; i < info->nvariants; i++)
    variants[1 + i] =
        (struct call_variant){info->variants[i].fn, info->variants[i].device};
  /* Where it runs is chosen when it is ready (choose.c). The call outlives
   * the body that runs it if a device does (the core frees arguments when
   * the body returns): the task's arguments are its address, and whoever
   * finishes the task frees it. */
  dag__core_submit(info, dag__run_chosen, &c, sizeof c, regs, modes, n,
                   flags | CORE_NO_INLINE);
}

/* --------------------------------------------------------------- flush */

/* What the devices hold at a wait: its bytes per device, the ranges
 * outside regions kept whole, and the copies queued of those regions the
 * host lacks. */
struct held {
  size_t bytes[MAX_DEVICES];
  struct ranges pieces;
  atomic_long pending;
};

static void count_held(struct held *w, size_t bytes, holders_t h) {
  for (int d = 0; d < dag__ndevices; d++)
    if (h & dag__devices[d].bit)
      w->bytes[d] += bytes;
}

static void held_whole(const struct region *r, holders_t h, void *arg) {
  struct held *w = arg;
  size_t bytes = dag__region_bytes(r);
  count_held(w, bytes, h);
  if (h & HOST)
    return;
  if (bytes >= COPY_ALONE_BYTES)
    dag__copy_back_whole(r, h, &w->pending);
  else
    dag__validity_collect(r, &w->pieces);
}

static void held_piece(uintptr_t lo, uintptr_t hi, holders_t h, void *arg) {
  struct held *w = arg;
  count_held(w, hi - lo, h);
  dag__ranges_add(lo, hi, h, &w->pieces);
}

/* DAG_STATS: the memory each device had committed, against the bytes it
 * held, at the program's wait where it held most. */
static void note_residency(const struct held *w) {
  for (int d = 0; d < dag__ndevices; d++) {
    struct device *dev = &dag__devices[d];
    if (w->bytes[d] > dev->resident_at_wait) {
      dev->resident_at_wait = w->bytes[d];
      dev->committed_at_wait = dev->committed * dev->granule;
    }
  }
}

/* Copies back what only devices hold, then forgets the devices' copies:
 * after a wait the program may write its data directly, which no task
 * declares. The memory stays committed, as a clean cache. */
void dag__devices_flush(const struct region *regs, size_t n) {
  if (!atomic_load_explicit(&dag__devices_on, memory_order_relaxed))
    return;
  pthread_mutex_lock(&dag__devices_lock);
  for (size_t i = 0; i < n; i++)
    dag__writeback_settle(&regs[i]);
  if (!regs)
    dag__writeback_settle(NULL);
  if (regs) {
    struct ranges w = {.mask = HOST, .want = 0}; /* what the host lacks */
    for (size_t i = 0; i < n; i++)
      dag__validity_collect(&regs[i], &w);
    dag__copy_back(&w, NULL);
    free(w.at);
    for (size_t i = 0; i < n; i++)
      dag__validity_update_region(&regs[i], 0, HOST);
  } else {
    struct held w = {.pieces = {.mask = 0, .want = 0}};
    dag__validity_each_held(held_whole, held_piece, &w);
    note_residency(&w);
    dag__copy_back_start(&w.pieces, NULL, &w.pending);
    dag__copies_wait(&w.pending);
    free(w.pieces.at);
    dag__validity_forget_devices();
  }
  pthread_mutex_unlock(&dag__devices_lock);
}

/* ---------------------------------------------------------------- stop */

static void write_stats(const struct device *d) {
  dag__log(DAG_LOG_REPORT,
           "stats: device %s %d: %llu tasks; %llu copies in (%.1f MiB), %llu "
           "out (%.1f MiB); %llu granules evicted; memory committed peak "
           "%.1f MiB; at the wait where it held most data, %.1f MiB "
           "committed for %.1f MiB held; %llu sends to other ranks straight "
           "from its memory (%.1f MiB); %llu regions written back on "
           "speculation (%.1f MiB), %llu more voided; %.1f MiB packed "
           "through staging buffers (host memory not registered)",
           d->space.ops->name, d->space.index, (unsigned long long)d->tasks,
           (unsigned long long)d->copies_in, (double)d->bytes_in / (1 << 20),
           (unsigned long long)d->copies_out, (double)d->bytes_out / (1 << 20),
           (unsigned long long)d->evicted,
           (double)(d->committed_peak * d->granule) / (1 << 20),
           (double)d->committed_at_wait / (1 << 20),
           (double)d->resident_at_wait / (1 << 20),
           (unsigned long long)d->direct_sends,
           (double)d->direct_bytes / (1 << 20),
           (unsigned long long)d->written_back,
           (double)d->written_back_bytes / (1 << 20),
           (unsigned long long)d->writebacks_voided,
           (double)d->bytes_packed / (1 << 20));
}

/* Timed mode: what the device did on the model's clock. */
static void write_timing(const struct device *d) {
  struct space_timing t;
  dag__space_timing(&d->space, &t);
  double span = (double)(t.last_ns - t.first_ns) * 1e-9;
  double share = span > 0 ? (double)t.compute_busy_ns * 1e-9 / span : 0;
  dag__log(DAG_LOG_REPORT,
           "model %s: device %d from its first operation to its last "
           "%.4f s, computing %.4f s (busy %.1f%%), copying in %.4f s and "
           "out %.4f s; %.3f GB in, %.3f GB out",
           dag__space_model(&d->space), d->space.index, span,
           (double)t.compute_busy_ns * 1e-9, 100 * share,
           (double)t.copy_in_busy_ns * 1e-9, (double)t.copy_out_busy_ns * 1e-9,
           (double)t.bytes_in * 1e-9, (double)t.bytes_out * 1e-9);
}

void dag__devices_stop(void) {
  if (!dag__ndevices)
    return;
  dag__devices_flush(NULL, 0);
  dag__history_stop();
  pthread_mutex_lock(&dag__devices_lock);
  for (int i = 0; i < dag__ndevices; i++) {
    struct device *d = &dag__devices[i];
    dag__device_drain(d);
    if (dag__stats)
      write_stats(d);
    if (dag__space_model(&d->space))
      write_timing(d);
    dag__copies_report_packed(d);
  }
  dag__registered_close();
  for (int i = 0; i < dag__ndevices; i++) {
    struct device *d = &dag__devices[i];
    dag__residency_release(d);
    dag__stage_release(d);
    pthread_mutex_destroy(&d->stage_lock);
    pthread_cond_destroy(&d->stage_back);
    dag__turns_destroy(&d->turns_done);
    dag__turns_destroy(&d->stages_turn);
    dag__space_close(&d->space);
  }
  dag__unpack_stop();
  dag__validity_release();
  dag__ndevices = 0;
  dag__devices_timed = NULL;
  atomic_store(&dag__devices_on, false);
  pthread_mutex_unlock(&dag__devices_lock);
}
