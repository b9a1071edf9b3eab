/* space_gpu.c — a CUDA or a HIP device behind the memory-space table
 * (space.h). One source, compiled once per toolkit found: with
 * DAG_SPACE_CUDA it is dag__space_cuda, with DAG_SPACE_HIP dag__space_hip;
 * space_gpu.h maps the runtime API's names, which differ only in their
 * prefix.
 *
 * The device's queue is one non-blocking stream. Each copy and each device
 * body is followed on it by an event, and a FIFO of those events, in the
 * stream's order, tells a poll what has completed. A device body runs on the
 * thread that launches it, with the device current and its stream given by
 * dag_cuda_stream() (dag_hip_stream()); its task is done once what it queued
 * there is. Device memory comes from cudaMalloc (hipMalloc) as it is asked
 * for: a full device answers NULL, and the caller evicts.
 *
 * The runtime library (libcudart, libamdhip64) is not linked: it is loaded
 * when the space is first asked how many devices there are, so that a
 * program that uses no GPU pays nothing for it (linked, libamdhip64 cost
 * every dag program 20 ms and 5 MiB at start), and a machine without the
 * library simply has no device of the kind.
 *
 * A call of the API that fails is reported (dag__user_error, naming the call
 * and the device); what was queued still completes, so that nobody waits
 * for ever on a broken device.
 *
 * Locking: one mutex per device guards the FIFO, the spare items and the
 * poll in progress; queuing a copy and recording its event happen under it,
 * so that the FIFO's order is the stream's. Done functions run outside it,
 * from one polling thread at a time, in order.
 */
#include "mem/space_gpu.h"
#include "mem/space.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

/* The runtime library's calls, resolved when it is loaded: API(Malloc) is
 * cudaMalloc (hipMalloc). */
#define API_MEMBER(name) __typeof__(GPU(name)) *name;
static struct { GPU_CALLS(API_MEMBER) } api;
#define API(name) (api.name)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;

/* The library found when libdag was built, else the loader's own search. */
static void load(void) {
  void *lib = dlopen(DAG_GPU_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    lib = dlopen(GPU_LIBRARY_NAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return; /* no such runtime here: no device of this kind */
#define API_RESOLVE(name)                                                      \
  if (!(*(void **)&api.name = dlsym(lib, GPU_SYMBOL(name)))) {                 \
    dlclose(lib);                                                              \
    return;                                                                    \
  }
  GPU_CALLS(API_RESOLVE)
#undef API_RESOLVE
  loaded = true; /* the library stays loaded until the process ends */
}

/* One copy or body on the stream, and the event recorded after it. */
struct item {
  struct item *next;
  GPU(Event_t) event; /* kept when the item is reused; NULL: not created */
  bool recorded;      /* false: no event stands for it, it is done at once */
  dag_space_done_fn done;
  void *arg;
};

struct gpu {
  int device;
  size_t max_pitch; /* the largest pitch of a 2-D copy */
  GPU(Stream_t) stream;
  pthread_mutex_t lock;
  struct item *head, *tail; /* queued, in the stream's order */
  struct item *spare;       /* done, their events kept for the next ones */
  bool polling;             /* a thread is calling done functions */
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

/* GPU(fn)(...), reported if it fails: 0 or a DAG_E* code. */
#define CALL(device, fn, ...) check(device, GPU_NAME #fn, API(fn)(__VA_ARGS__))

static int gpu_count(void) {
  pthread_once(&load_once, load);
  int n = 0;
  if (!loaded)
    return 0;
  if (API(GetDeviceCount)(&n) != GPU(Success)) {
    (void)API(GetLastError)(); /* no driver, or no device: none, silently */
    return 0;
  }
  return n;
}

static int gpu_open(int index, void **state) {
  if (index >= gpu_count()) /* loads the library, once */
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
    err =
        CALL(index, StreamCreateWithFlags, &g->stream, GPU(StreamNonBlocking));
  if (err) {
    free(g);
    return err;
  }
  g->max_pitch = max_pitch > 0 ? (size_t)max_pitch : 0;
  pthread_mutex_init(&g->lock, NULL);
  *state = g;
  return 0;
}

static void *gpu_alloc(void *state, size_t bytes) {
  struct gpu *g = state;
  void *p = NULL;
  if (CALL(g->device, SetDevice, g->device))
    return NULL;
  GPU(Error_t) err = API(Malloc)(&p, bytes ? bytes : 1);
  if (err == GPU(ErrorMemoryAllocation)) {
    (void)API(GetLastError)(); /* full: not an error, the caller evicts */
    return NULL;
  }
  return check(g->device, GPU_NAME "Malloc", err) ? NULL : p;
}

static void gpu_free(void *state, void *p, size_t bytes) {
  struct gpu *g = state;
  if (!CALL(g->device, SetDevice, g->device))
    CALL(g->device, Free, p);
}

/* Appends to the FIFO what was just queued on the stream, with an event
 * recorded after it. Called with the lock held. */
static void enqueue_locked(struct gpu *g, dag_space_done_fn done, void *arg) {
  struct item *it = g->spare;
  if (it) {
    g->spare = it->next;
  } else {
    it = calloc(1, sizeof *it);
    if (!it)
      dag__out_of_memory("the queue of a " GPU_NAME " device");
  }
  if (!it->event && CALL(g->device, EventCreateWithFlags, &it->event,
                         GPU(EventDisableTiming)))
    it->event = NULL;
  it->recorded =
      it->event && !CALL(g->device, EventRecord, it->event, g->stream);
  it->done = done;
  it->arg = arg;
  it->next = NULL;
  if (g->tail)
    g->tail->next = it;
  else
    g->head = it;
  g->tail = it;
}

/* Queues the copy c on the stream: one span as a 1-D copy (which has no
 * largest pitch), rows as one 2-D copy with the stride as the pitch on both
 * sides, or, beyond the device's largest pitch, as a copy per row. */
static void queue_copy(struct gpu *g, const struct space_copy *c,
                       GPU_MEMCPY_KIND kind) {
  if (!c->span || !c->rows)
    return;
  if (c->rows == 1) {
    CALL(g->device, MemcpyAsync, c->dst, c->src, c->span, kind, g->stream);
  } else if (c->stride <= g->max_pitch) {
    CALL(g->device, Memcpy2DAsync, c->dst, c->stride, c->src, c->stride,
         c->span, c->rows, kind, g->stream);
  } else {
    for (size_t r = 0; r < c->rows; r++)
      if (CALL(g->device, MemcpyAsync, (char *)c->dst + r * c->stride,
               (const char *)c->src + r * c->stride, c->span, kind, g->stream))
        break;
  }
}

static void gpu_copy(void *state, bool to_device, const struct space_copy *c,
                     dag_space_done_fn done, void *arg) {
  struct gpu *g = state;
  pthread_mutex_lock(&g->lock);
  if (!CALL(g->device, SetDevice, g->device))
    queue_copy(g, c,
               to_device ? GPU(MemcpyHostToDevice) : GPU(MemcpyDeviceToHost));
  enqueue_locked(g, done, arg);
  pthread_mutex_unlock(&g->lock);
}

static void gpu_launch(void *state, dag_task_fn fn, void *args,
                       dag_space_done_fn done, void *arg) {
  struct gpu *g = state;
  if (!CALL(g->device, SetDevice, g->device)) {
    GPU(Stream_t) outer = body_stream;
    body_stream = g->stream;
    fn(args);
    body_stream = outer;
    /* A launch of the body's that failed at once (a bad configuration). */
    check(g->device, "a device body", API(GetLastError)());
    CALL(g->device, SetDevice, g->device); /* if the body changed it */
  }
  pthread_mutex_lock(&g->lock);
  enqueue_locked(g, done, arg);
  pthread_mutex_unlock(&g->lock);
}

/* Whether the work of `it` is complete: its event has been reached, or
 * querying it failed (reported), or it has no event. */
static bool complete(const struct gpu *g, const struct item *it) {
  if (!it->recorded)
    return true;
  GPU(Error_t) err = API(EventQuery)(it->event);
  if (err == GPU(ErrorNotReady))
    return false;
  check(g->device, GPU_NAME "EventQuery", err);
  return true;
}

static bool gpu_poll(void *state) {
  struct gpu *g = state;
  pthread_mutex_lock(&g->lock);
  if (g->polling) { /* another thread: it keeps the done functions in order */
    pthread_mutex_unlock(&g->lock);
    return false;
  }
  /* The stream runs in order: the completed items are a prefix. */
  struct item *first = g->head, *last = NULL;
  while (g->head && complete(g, g->head)) {
    last = g->head;
    g->head = last->next;
  }
  if (!last) {
    pthread_mutex_unlock(&g->lock);
    return false;
  }
  if (!g->head)
    g->tail = NULL;
  last->next = NULL;
  g->polling = true;
  pthread_mutex_unlock(&g->lock);

  for (struct item *it = first; it; it = it->next)
    it->done(it->arg);

  pthread_mutex_lock(&g->lock);
  last->next = g->spare;
  g->spare = first;
  g->polling = false;
  pthread_mutex_unlock(&g->lock);
  return true;
}

static void gpu_close(void *state) {
  struct gpu *g = state;
  if (CALL(g->device, SetDevice, g->device) ||
      CALL(g->device, StreamSynchronize, g->stream))
    for (struct item *it = g->head; it; it = it->next)
      it->recorded = false; /* the device is broken: done without waiting */
  while (g->head)
    gpu_poll(g);
  while (g->spare) {
    struct item *it = g->spare;
    g->spare = it->next;
    if (it->event)
      CALL(g->device, EventDestroy, it->event);
    free(it);
  }
  CALL(g->device, StreamDestroy, g->stream);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

const struct dag_space_ops GPU_SPACE = {GPU_NAME,  gpu_count,  gpu_open,
                                        gpu_close, gpu_alloc,  gpu_free,
                                        gpu_copy,  gpu_launch, gpu_poll};
