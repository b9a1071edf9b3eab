/* space_gpu.c — a CUDA or a HIP device behind the memory-space table
 * (space.h). One source, compiled once per toolkit found: with
 * DAG_SPACE_CUDA it is dag__space_cuda, with DAG_SPACE_HIP dag__space_hip;
 * space_gpu.h maps the API's names, which differ only in their prefix.
 *
 * The device's queues are non-blocking streams: one for copies each way (a
 * GPU has a copy engine each way), so that the copies of the next tasks
 * overlap the kernels of the ones before and copies back overlap both, and
 * SPACE_LANES lanes for bodies at each of two priorities, the stream
 * priorities the device has, so that a body whose data is there does not
 * wait behind one whose copies are still coming, and urgent ones go first.
 * A body's stream waits for the event recorded after the last copy in it
 * waits for (space.h says why copies need not wait for bodies). Each copy
 * and each device body is followed on its stream by an event, and a FIFO
 * of those events per stream, in the order queued, is served by a thread
 * of the device's own: it waits for each event in turn (sleeping in the
 * driver) and calls the done function. A device body runs on
 * the thread that launches it, with the device current and its stream
 * given by dag_cuda_stream() (dag_hip_stream()); its task is done once what
 * it queued there is. Device memory comes from the virtual memory calls:
 * address ranges reserved, granules created and mapped into them as the
 * caller asks; a full device says so, and the caller evicts.
 *
 * The runtime library (libcudart, libamdhip64), and CUDA's driver library
 * for the virtual memory calls, are not linked: they are loaded when the
 * space is first asked how many devices there are, so that a program that
 * uses no GPU pays nothing for them (linked, libamdhip64 cost every dag
 * program 20 ms and 5 MiB at start), and a machine without them simply has
 * no device of the kind. The library is looked for where a GPU node has
 * it, whatever machine libdag was built on: in the process already (a
 * program linked with it), by its versioned name (libcudart.so.13), by its
 * plain name, and last at the path found at build time; when none loads,
 * the count says which were tried and what the loader said.
 *
 * A call of the API that fails outside queued work is reported
 * (dag__user_error, naming the call and the device). Queued work that
 * fails, to queue or on the device (a failed event included), completes
 * with its failure, never as done: the device layer ends the run.
 *
 * Locking: one mutex per device guards the FIFOs and the spare items;
 * queuing a copy and recording its events happen under it, so that a
 * FIFO's order is its copy stream's. Done functions run outside it.
 */
#include "mem/space_gpu.h"
#include "mem/space.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The libraries' calls, resolved when they are loaded: API(MemcpyAsync) is
 * cudaMemcpyAsync (hipMemcpyAsync), VMM_API(Create) cuMemCreate
 * (hipMemCreate). */
#define API_MEMBER(name) __typeof__(GPU(name)) *name;
#define VMM_MEMBER(name) __typeof__(VMM(name)) *vmm_##name;
static struct {
  GPU_CALLS(API_MEMBER)
  VMM_CALLS(VMM_MEMBER)
  /* GPU_NAME_SYMBOL, optional: only names the file of measured times. */
  int (*device_name)(char *name, int len, int device);
} api;
#define API(name) (api.name)
#define VMM_API(name) (api.vmm_##name)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
/* Why there is no device of this kind, once the count found none. */
static char none_why[1024];

/* The first of `names` that loads (with `probe` defined in the process
 * already, the process itself); NULL, with in none_why what the loader said
 * of each. */
static void *open_library(const char *probe, const char *const *names,
                          size_t n) {
  void *self = dlopen(NULL, RTLD_NOW);
  if (self && dlsym(self, probe))
    return self;
  size_t at = (size_t)snprintf(none_why, sizeof none_why,
                               "%s is not in the process, and", probe);
  for (size_t i = 0; i < n && at < sizeof none_why; i++) {
    void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib)
      return lib;
    const char *err = dlerror();
    at += (size_t)snprintf(none_why + at, sizeof none_why - at, "%s %s",
                           i ? ";" : "", err ? err : names[i]);
  }
  return NULL;
}

/* The runtime library and the virtual memory calls' library, where a GPU
 * node has them (see above); they stay loaded until the process ends. */
static void load(void) {
  static const char *const runtime[] = {DAG_GPU_SONAME, GPU_LIBRARY_NAME,
                                        DAG_GPU_LIBRARY};
  static const char *const driver[] = {VMM_LIBRARY_NAME};
  void *lib = open_library(GPU_PROBE_SYMBOL, runtime, 3);
  void *vmm = lib ? open_library(VMM_SYMBOL(Create), driver, 1) : NULL;
  if (!lib || !vmm)
    return; /* no such runtime here: no device of this kind */
#define API_RESOLVE(name)                                                      \
  if (!(*(void **)&api.name = dlsym(lib, GPU_SYMBOL(name)))) {                 \
    snprintf(none_why, sizeof none_why, "the library loaded has no %s",        \
             GPU_SYMBOL(name));                                                \
    return;                                                                    \
  }
#define VMM_RESOLVE(name)                                                      \
  if (!(*(void **)&api.vmm_##name = dlsym(vmm, VMM_SYMBOL(name)))) {           \
    snprintf(none_why, sizeof none_why, "the library loaded has no %s",        \
             VMM_SYMBOL(name));                                                \
    return;                                                                    \
  }
  GPU_CALLS(API_RESOLVE)
  VMM_CALLS(VMM_RESOLVE)
#undef API_RESOLVE
#undef VMM_RESOLVE
  *(void **)&api.device_name = dlsym(vmm, GPU_NAME_SYMBOL);
  loaded = true;
}

/* One copy or body on the stream, and the event recorded after it. */
struct item {
  struct item *next;
  GPU(Event_t) event; /* kept when the item is reused; NULL: not created */
  uint64_t ticket;    /* a copy in: its number; else 0 */
  bool failed;        /* queuing it or its event failed: failure says how */
  char failure[256];
  space_done_fn done;
  void *arg;
};

struct gpu;

/* A stream, the items queued on it in order, and the thread that waits
 * for their events and calls their done functions. */
struct fifo {
  struct gpu *g;
  const char *name;
  GPU(Stream_t) stream;
  struct item *head, *tail;
  pthread_cond_t wake;
  pthread_t thread;
  bool started;
};

/* Streams: copies in, copies back, then the lanes of urgent bodies and
 * those of the others. */
enum { FIFO_IN, FIFO_BACK, FIFO_LANES, FIFOS = FIFO_LANES + 2 * SPACE_LANES };

struct gpu {
  int device;
  size_t max_pitch; /* the largest pitch of a 2-D copy */
  size_t granule;
  pthread_mutex_t lock;
  struct fifo fifos[FIFOS];
  struct space_lanes urgent_waits, other_waits;
  /* The copies in queued, and those not done by their number: slot
   * ticket % in_cap holds the item of that copy while it is queued (and
   * until the item is reused), whose event a body waits for. One event per
   * copy: a body waits for its own copy, never for a later one. */
  uint64_t copies_in;
  struct item **in_ring;
  size_t in_cap;      /* a power of two */
  struct item *spare; /* done, their events kept for the next ones */
  bool stopping;
};

/* The stream of the device body running on this thread, or NULL. */
static DAG_THREAD_LOCAL GPU(Stream_t) body_stream;

void *GPU_STREAM_FN(void) { return (void *)body_stream; }

/* 0 when err is success; else reports the failed call on `device`, clears
 * the thread's last error and returns DAG_ENOMEM or DAG_EINVAL. */
static int check(int device, const char *call, GPU(Error_t) err) {
  if (likely(err == GPU(Success)))
    return 0;
  (void)API(GetLastError)();
  return dag__user_error(
      NULL, err == GPU(ErrorMemoryAllocation) ? DAG_ENOMEM : DAG_EINVAL,
      "%s failed on " GPU_NAME " device %d: %s", call, device,
      API(GetErrorString)(err));
}

/* For queued work: false when err is success; else says in it->failure
 * which call failed on the device and why, and marks the item failed. */
static bool failed(struct item *it, int device, const char *call,
                   GPU(Error_t) err) {
  if (likely(err == GPU(Success)) || it->failed)
    return it->failed;
  (void)API(GetLastError)();
  snprintf(it->failure, sizeof it->failure,
           "%s failed on " GPU_NAME " device %d: %s", call, device,
           API(GetErrorString)(err));
  return it->failed = true;
}
#define FAILED(it, device, fn, ...)                                            \
  failed(it, device, GPU_NAME #fn, API(fn)(__VA_ARGS__))

/* GPU(fn)(...), reported if it fails: 0 or a DAG_E* code. Through a second
 * macro, so that fn may itself be a macro that names a call
 * (GPU_HOST_ALLOC). */
#define CALL(device, fn, ...) CALL_NAMED(device, fn, __VA_ARGS__)
#define CALL_NAMED(device, fn, ...)                                            \
  check(device, GPU_NAME #fn, API(fn)(__VA_ARGS__))

/* The same for a virtual memory call (whose errors have no string here). */
static int check_vmm(int device, const char *call, vmm_result err) {
  if (likely(err == VMM_SUCCESS))
    return 0;
  return dag__user_error(
      NULL, err == VMM_OUT_OF_MEMORY ? DAG_ENOMEM : DAG_EINVAL,
      "%s failed on " GPU_NAME " device %d: error %d", call, device, (int)err);
}
#define VMM_CALL(device, fn, ...)                                              \
  check_vmm(device, VMM_SYMBOL(fn), VMM_API(fn)(__VA_ARGS__))

static int gpu_count(char *why, size_t len) {
  pthread_once(&load_once, load);
  int n = 0;
  if (!loaded) {
    snprintf(why, len, "%s", none_why);
    return 0;
  }
  GPU(Error_t) err = API(GetDeviceCount)(&n);
  if (err != GPU(Success)) {
    /* No driver, a driver older than the runtime, or no device. */
    (void)API(GetLastError)();
    snprintf(why, len, GPU_NAME "GetDeviceCount: %s", API(GetErrorString)(err));
    return 0;
  }
  if (!n)
    snprintf(why, len, "the driver sees no " GPU_NAME " device");
  return n;
}

/* Waits for each item's event in the FIFO's order, and calls its done
 * function. */
static void *serve(void *p) {
  struct fifo *f = p;
  struct gpu *g = f->g;
  char name[16];
  snprintf(name, sizeof name, "%s%d-%s", GPU_NAME, g->device, f->name);
  dag__log_thread(name);
  CALL(g->device, SetDevice, g->device);
  pthread_mutex_lock(&g->lock);
  for (;;) {
    while (!f->head && !g->stopping)
      pthread_cond_wait(&f->wake, &g->lock);
    struct item *it = f->head;
    if (!it)
      break; /* stopping, and nothing is left */
    pthread_mutex_unlock(&g->lock);
    if (!it->failed)
      FAILED(it, g->device, EventSynchronize, it->event);
    it->done(it->arg, it->failed ? it->failure : NULL);
    pthread_mutex_lock(&g->lock);
    f->head = it->next;
    if (!f->head)
      f->tail = NULL;
    it->next = g->spare;
    g->spare = it;
  }
  pthread_mutex_unlock(&g->lock);
  return NULL;
}

static bool start_fifo(struct gpu *g, struct fifo *f) {
  static const char *const names[FIFOS] = {
      "in",      "back",    "urgent0", "urgent1", "urgent2",
      "urgent3", "bodies0", "bodies1", "bodies2", "bodies3"};
  _Static_assert(SPACE_LANES == 4, "a name for each lane");
  f->g = g;
  f->name = names[f - g->fifos];
  pthread_cond_init(&f->wake, NULL);
  return f->started = !dag__helper_start(&f->thread, serve, f);
}

/* After the last done function. */
static void stop_fifo(struct fifo *f) {
  if (!f->g)
    return; /* never started */
  if (f->started)
    pthread_join(f->thread, NULL);
  pthread_cond_destroy(&f->wake);
}

/* True when the device's attribute says it lacks the virtual memory calls
 * (HIP 6 has the attribute; elsewhere the granularity query tells). */
static bool vmm_said_missing(int index) {
#ifdef GPU_ATTR_VMM
  int supported = 1;
  return API(DeviceGetAttribute)(&supported, GPU_ATTR_VMM, index) ==
             GPU(Success) &&
         !supported;
#else
  (void)index;
  return false;
#endif
}

/* The device's granule, once its virtual memory calls are known to work.
 * Device memory is windows in the host's layout, backed granule by granule;
 * with plain allocations each window would hold its whole extent (a tile of
 * 2048 in a 32768 matrix, its tile-row: 16 times its bytes) and never give
 * part of it back, so a device without the calls is refused, saying why. */
static int vmm_granule(int index, size_t *granule) {
  char why[96] = "the device says so";
  if (!vmm_said_missing(index)) {
    vmm_prop prop = VMM_PROP(index);
    vmm_result err =
        VMM_API(GetAllocationGranularity)(granule, &prop, VMM_GRANULARITY);
    if (err == VMM_SUCCESS)
      return 0;
    snprintf(why, sizeof why,
             VMM_SYMBOL(GetAllocationGranularity) " failed: error %d",
             (int)err);
  }
  /* Kept, not printed: dag_init says it if DAG_DEVICES named the device,
   * DAG_LOG=info otherwise. */
  return dag__error_note(DAG_ENOSYS,
                         GPU_NAME " device %d has no virtual memory management "
                                  "(%s), on which dag builds device memory: "
                                  "it needs " VMM_NEEDS,
                         index, why);
}

/* Destroys the streams and the events of g that were made, and frees g. */
static void free_gpu(struct gpu *g) {
  for (int i = 0; i < FIFOS; i++)
    if (g->fifos[i].stream)
      CALL(g->device, StreamDestroy, g->fifos[i].stream);
  free(g->in_ring);
  free(g);
}

/* The streams of g: the lanes of urgent bodies at the device's greatest
 * priority, the rest at its least. Returns 0 or a DAG_E* code. */
static int make_streams(struct gpu *g) {
  int least = 0, greatest = 0;
  int err = CALL(g->device, DeviceGetStreamPriorityRange, &least, &greatest);
  for (int i = 0; !err && i < FIFOS; i++) {
    bool urgent = i >= FIFO_LANES && i < FIFO_LANES + SPACE_LANES;
    err = CALL(g->device, StreamCreateWithPriority, &g->fifos[i].stream,
               GPU(StreamNonBlocking), urgent ? greatest : least);
  }
  return err;
}

static void gpu_close(void *state);

static int gpu_open(int index, void **state) {
  char why[1024];
  if (index >= gpu_count(why, sizeof why)) /* loads the library, once */
    return dag__user_error(NULL, DAG_ENOSYS, GPU_NAME " device %d: not here",
                           index);
  struct gpu *g = calloc(1, sizeof *g);
  if (!g)
    return dag__user_error(NULL, DAG_ENOMEM, GPU_NAME " device %d: no memory",
                           index);
  g->device = index;
  int max_pitch = 0;
  int err = CALL(index, SetDevice, index);
  if (!err)
    err =
        CALL(index, DeviceGetAttribute, &max_pitch, GPU_ATTR_MAX_PITCH, index);
  if (!err)
    err = vmm_granule(index, &g->granule);
  if (!err)
    err = make_streams(g);
  if (err) {
    free_gpu(g);
    return err;
  }
  g->max_pitch = max_pitch > 0 ? (size_t)max_pitch : 0;
  pthread_mutex_init(&g->lock, NULL);
  bool started = true;
  for (int i = 0; i < FIFOS && started; i++)
    started = start_fifo(g, &g->fifos[i]);
  if (!started) {
    gpu_close(g);
    return dag__user_error(NULL, DAG_ETHREAD,
                           GPU_NAME " device %d: cannot start its threads",
                           index);
  }
  *state = g;
  return 0;
}

static size_t gpu_granule(void *state) {
  return ((struct gpu *)state)->granule;
}

/* Device memory left to the libraries the bodies call (cuBLAS' and
 * cuSOLVER's workspaces, a kernel's own allocations): a twentieth of the
 * device, and at least this much. */
#define LIBRARY_RESERVE ((size_t)256 << 20)

/* What is free when the device opens, less the libraries' reserve: other
 * processes and contexts on the device keep theirs. */
static size_t gpu_memory(void *state) {
  struct gpu *g = state;
  size_t free_bytes = 0, total = 0;
  CALL(g->device, SetDevice, g->device);
  CALL(g->device, MemGetInfo, &free_bytes, &total);
  size_t reserve = total / 20 > LIBRARY_RESERVE ? total / 20 : LIBRARY_RESERVE;
  return free_bytes > reserve ? free_bytes - reserve : 0;
}

static void *gpu_reserve(void *state, size_t bytes) {
  struct gpu *g = state;
  vmm_address at = 0;
  if (VMM_CALL(g->device, AddressReserve, &at, bytes, g->granule, 0, 0))
    return NULL;
  return (void *)(uintptr_t)at;
}

static void gpu_unreserve(void *state, void *at, size_t bytes) {
  struct gpu *g = state;
  VMM_CALL(g->device, AddressFree, (vmm_address)(uintptr_t)at, bytes);
}

static int gpu_commit(void *state, uint64_t *mem) {
  struct gpu *g = state;
  vmm_prop prop = VMM_PROP(g->device);
  vmm_handle h;
  vmm_result err = VMM_API(Create)(&h, g->granule, &prop, 0);
  if (err == VMM_OUT_OF_MEMORY)
    return DAG_ENOMEM; /* full: not an error, the caller evicts */
  if (err != VMM_SUCCESS)
    return dag__error_note(DAG_EDEVICE,
                           VMM_SYMBOL(Create) " failed on " GPU_NAME
                                              " device %d: error %d",
                           g->device, (int)err);
  *mem = (uint64_t)(uintptr_t)h;
  return 0;
}

static void gpu_decommit(void *state, uint64_t mem) {
  struct gpu *g = state;
  VMM_CALL(g->device, Release, (vmm_handle)(uintptr_t)mem);
}

/* A mapping per granule (each is an allocation of its own, so that it can
 * be evicted alone), and one access setting for the run: the costly call,
 * which takes a range of several mappings. */
static int gpu_map(void *state, void *at, const uint64_t *mem, size_t n) {
  struct gpu *g = state;
  vmm_access access = VMM_ACCESS(g->device);
  vmm_address a = (vmm_address)(uintptr_t)at;
  int err = 0;
  size_t mapped = 0;
  while (!err && mapped < n)
    if (!(err = VMM_CALL(g->device, Map, a + mapped * g->granule, g->granule, 0,
                         (vmm_handle)(uintptr_t)mem[mapped], 0)))
      mapped++;
  if (!err)
    err = VMM_CALL(g->device, SetAccess, a, n * g->granule, &access, 1);
  while (err && mapped-- > 0) /* none stays half made */
    VMM_CALL(g->device, Unmap, a + mapped * g->granule, g->granule);
  return err;
}

/* The caller made sure nothing queued uses the granule any more. */
static void gpu_unmap(void *state, void *at) {
  struct gpu *g = state;
  VMM_CALL(g->device, Unmap, (vmm_address)(uintptr_t)at, g->granule);
}

/* An item for work about to be queued, not failed yet. Called with the
 * lock held. */
static struct item *new_item(struct gpu *g, space_done_fn done, void *arg) {
  struct item *it = g->spare;
  if (it) {
    g->spare = it->next;
  } else {
    it = calloc(1, sizeof *it);
    if (!it)
      dag__out_of_memory("the queue of a " GPU_NAME " device");
  }
  it->failed = false;
  it->ticket = 0;
  it->done = done;
  it->arg = arg;
  return it;
}

/* Files copy-in item `it`, queued, under its ticket, the ring grown when
 * the copies not done would not fit. Called with the lock held. */
static void remember_copy_in(struct gpu *g, struct item *it) {
  const struct item *oldest = g->fifos[FIFO_IN].head;
  uint64_t from = oldest ? oldest->ticket : it->ticket;
  if (it->ticket - from >= g->in_cap) {
    size_t cap = g->in_cap ? 2 * g->in_cap : 256;
    while (it->ticket - from >= cap)
      cap *= 2;
    struct item **ring = calloc(cap, sizeof *ring);
    if (!ring)
      dag__out_of_memory("the copies of a " GPU_NAME " device");
    for (uint64_t t = from; g->in_cap && t < it->ticket; t++)
      ring[t & (cap - 1)] = g->in_ring[t & (g->in_cap - 1)];
    free(g->in_ring);
    g->in_ring = ring;
    g->in_cap = cap;
  }
  g->in_ring[it->ticket & (g->in_cap - 1)] = it;
}

/* The item of copy in `ticket` while it is queued, or NULL when it is done
 * (its item gone from the queue, and maybe reused). Called with the lock
 * held. */
static struct item *copy_in_queued(struct gpu *g, uint64_t ticket) {
  struct item *it = g->in_cap ? g->in_ring[ticket & (g->in_cap - 1)] : NULL;
  return it && it->ticket == ticket ? it : NULL;
}

/* Appends it to FIFO f, with an event recorded on its stream after what
 * was just queued there. Called with the lock held. */
static void enqueue_locked(struct fifo *f, struct item *it) {
  struct gpu *g = f->g;
  if (!it->event && FAILED(it, g->device, EventCreateWithFlags, &it->event,
                           GPU(EventDisableTiming) | GPU(EventBlockingSync)))
    it->event = NULL;
  if (it->event)
    FAILED(it, g->device, EventRecord, it->event, f->stream);
  it->next = NULL;
  if (f->tail)
    f->tail->next = it;
  else
    f->head = it;
  f->tail = it;
  pthread_cond_signal(&f->wake);
}

/* Queues the copy c on `stream`: one span as a 1-D copy (which has no
 * largest pitch), rows as one 2-D copy with the strides as the pitches, or,
 * beyond the device's largest pitch, as a copy per row. A call that fails
 * fails it. */
static void queue_copy(struct gpu *g, struct item *it,
                       const struct space_copy *c, GPU_MEMCPY_KIND kind,
                       GPU(Stream_t) stream) {
  if (!c->span || !c->rows)
    return;
  if (c->rows == 1) {
    FAILED(it, g->device, MemcpyAsync, c->dst, c->src, c->span, kind, stream);
  } else if (c->dst_stride <= g->max_pitch && c->src_stride <= g->max_pitch) {
    FAILED(it, g->device, Memcpy2DAsync, c->dst, c->dst_stride, c->src,
           c->src_stride, c->span, c->rows, kind, stream);
  } else {
    for (size_t r = 0; r < c->rows; r++)
      if (FAILED(it, g->device, MemcpyAsync, (char *)c->dst + r * c->dst_stride,
                 (const char *)c->src + r * c->src_stride, c->span, kind,
                 stream))
        break;
  }
}

static uint64_t gpu_copy(void *state, bool to_device,
                         const struct space_copy *c, space_done_fn done,
                         void *arg) {
  struct gpu *g = state;
  struct fifo *f = &g->fifos[to_device ? FIFO_IN : FIFO_BACK];
  pthread_mutex_lock(&g->lock);
  uint64_t ticket = to_device ? ++g->copies_in : 0;
  struct item *it = new_item(g, done, arg);
  it->ticket = ticket;
  if (!FAILED(it, g->device, SetDevice, g->device))
    queue_copy(g, it, c,
               to_device ? GPU(MemcpyHostToDevice) : GPU(MemcpyDeviceToHost),
               f->stream);
  /* A body waits for a copy in through the item's event: if it cannot be
   * recorded, the copy fails, or the body would not wait. */
  enqueue_locked(f, it);
  if (to_device)
    remember_copy_in(g, it);
  pthread_mutex_unlock(&g->lock);
  return ticket;
}

/* The lane of a body of this urgency that waits for copy `after`
 * (space.c). Called with the lock held. */
static struct fifo *lane_for(struct gpu *g, uint64_t after, bool urgent) {
  struct fifo *lanes = &g->fifos[FIFO_LANES + (urgent ? 0 : SPACE_LANES)];
  bool busy[SPACE_LANES];
  for (int i = 0; i < SPACE_LANES; i++)
    busy[i] = lanes[i].head;
  return &lanes[dag__space_lane(urgent ? &g->urgent_waits : &g->other_waits,
                                busy, after)];
}

static void gpu_launch(void *state, dag_task_fn fn, void *args, uint64_t after,
                       bool urgent, space_done_fn done, void *arg) {
  struct gpu *g = state;
  /* The body's work starts after copy `after` (and those before it). */
  pthread_mutex_lock(&g->lock);
  struct fifo *lane = lane_for(g, after, urgent);
  struct item *it = new_item(g, done, arg);
  struct item *copy = after ? copy_in_queued(g, after) : NULL;
  if (!FAILED(it, g->device, SetDevice, g->device) && copy && copy->event)
    FAILED(it, g->device, StreamWaitEvent, lane->stream, copy->event, 0);
  pthread_mutex_unlock(&g->lock);
  if (!it->failed) {
    GPU(Stream_t) outer = body_stream;
    body_stream = lane->stream;
    fn(args);
    body_stream = outer;
    /* A launch of the body's that failed at once (a bad configuration). */
    failed(it, g->device, "a launch of the device body", API(GetLastError)());
    FAILED(it, g->device, SetDevice, g->device); /* if the body changed it */
  }
  pthread_mutex_lock(&g->lock);
  enqueue_locked(lane, it);
  pthread_mutex_unlock(&g->lock);
}

static void gpu_close(void *state) {
  struct gpu *g = state;
  pthread_mutex_lock(&g->lock);
  g->stopping = true;
  for (int i = 0; i < FIFOS; i++)
    if (g->fifos[i].g)
      pthread_cond_signal(&g->fifos[i].wake);
  pthread_mutex_unlock(&g->lock);
  for (int i = 0; i < FIFOS; i++)
    stop_fifo(&g->fifos[i]);
  while (g->spare) {
    struct item *it = g->spare;
    g->spare = it->next;
    if (it->event)
      CALL(g->device, EventDestroy, it->event);
    free(it);
  }
  pthread_mutex_destroy(&g->lock);
  free_gpu(g);
}

static void *gpu_host_alloc(void *state, size_t bytes) {
  struct gpu *g = state;
  void *p = NULL;
  if (CALL(g->device, GPU_HOST_ALLOC, &p, bytes, GPU_HOST_PORTABLE))
    return NULL;
  return p;
}

static void gpu_host_free(void *state, void *p, size_t bytes) {
  struct gpu *g = state;
  (void)bytes;
  CALL(g->device, GPU_HOST_FREE, p);
}

/* Portable: one registration serves every device of the kind. Pinning
 * takes the pages in (about the time of writing them once). */
static int gpu_host_register(void *state, void *p, size_t bytes) {
  struct gpu *g = state;
  if (CALL(g->device, HostRegister, p, bytes, GPU_REGISTER_PORTABLE))
    return DAG_EDEVICE;
  return 0;
}

static void gpu_host_unregister(void *state, void *p) {
  struct gpu *g = state;
  CALL(g->device, HostUnregister, p);
}

static bool gpu_bus_id(void *state, char *buf, size_t len) {
  struct gpu *g = state;
  return !CALL(g->device, DeviceGetPCIBusId, buf, (int)len, g->device);
}

static void gpu_bind(void *state, const cpu_set_t *cpus) {
  struct gpu *g = state;
  /* Failing to pin (a container that forbids it) only costs locality. */
  for (int i = 0; i < FIFOS; i++)
    (void)pthread_setaffinity_np(g->fifos[i].thread, sizeof *cpus, cpus);
}

/* Double-precision flops per clock of one multiprocessor (compute unit) at
 * most, tensor (matrix) cores included, by its architecture: what no
 * kernel beats, for the chooser's estimates before it has measured. */
static double flops_per_clock(int major, int minor) {
#ifdef DAG_SPACE_CUDA
  if (major == 9 || major == 10) /* H100, H200, B200: 64 FMA, twice on DMMA */
    return 256;
  if (major >= 6 && major <= 8 && minor == 0) /* P100, V100, A100 (DMMA) */
    return major == 8 ? 128 : 64;
  return 8; /* consumer parts: a few FP64 units a multiprocessor */
#else
  (void)minor;
  return major == 9 ? 256 : 16; /* CDNA's matrix cores (MI200, MI300) */
#endif
}

static double gpu_peak_flops(void *state) {
  struct gpu *g = state;
  int units = 0, khz = 0, major = 0, minor = 0;
  if (CALL(g->device, DeviceGetAttribute, &units, GPU_ATTR_UNITS, g->device) ||
      CALL(g->device, DeviceGetAttribute, &khz, GPU_ATTR_CLOCK_KHZ,
           g->device) ||
      CALL(g->device, DeviceGetAttribute, &major, GPU_ATTR_MAJOR, g->device) ||
      CALL(g->device, DeviceGetAttribute, &minor, GPU_ATTR_MINOR, g->device))
    return 0;
  return (double)units * khz * 1e3 * flops_per_clock(major, minor);
}

static bool gpu_device_name(void *state, char *buf, size_t len) {
  struct gpu *g = state;
  return api.device_name && len &&
         api.device_name(buf, (int)len, g->device) == 0 && buf[0];
}

/* The lanes of bodies, urgent and not. */
static int gpu_streams(void *state, void **streams, int max) {
  struct gpu *g = state;
  int n = 2 * SPACE_LANES;
  for (int i = 0; i < n && i < max; i++)
    streams[i] = g->fifos[FIFO_LANES + i].stream;
  return n;
}

const struct space_ops GPU_SPACE = {
    .name = GPU_NAME,
    .count = gpu_count,
    .open = gpu_open,
    .close = gpu_close,
    .granule = gpu_granule,
    .memory = gpu_memory,
    .reserve = gpu_reserve,
    .unreserve = gpu_unreserve,
    .commit = gpu_commit,
    .decommit = gpu_decommit,
    .map = gpu_map,
    .unmap = gpu_unmap,
    .copy = gpu_copy,
    .launch = gpu_launch,
    .host_alloc = gpu_host_alloc,
    .host_register = gpu_host_register,
    .host_unregister = gpu_host_unregister,
    .host_free = gpu_host_free,
    .bus_id = gpu_bus_id,
    .bind = gpu_bind,
    .peak_flops = gpu_peak_flops,
    .device_name = gpu_device_name,
    .streams = gpu_streams,
};
