/* pool.c — fixed-size object pools, so that submitting a task calls no
 * malloc.
 *
 * Each thread keeps, per pool, a free list of its own (no lock). When that
 * list runs dry the thread takes a whole batch of POOL_BATCH objects from the
 * pool's shared stack of batches, or carves a new slab; when it grows past
 * two batches it pushes one batch back. Objects freed on another thread than
 * the one that took them (a task submitted on one worker, run on another)
 * thus flow back in batches. A batch moves in O(1) under the pool's spin
 * lock (held for a few instructions, so spinning beats sleeping); the slab
 * list takes the same lock. Slabs go back to the system at
 * dag__pools_release.
 */
#include "core/internal.h"

#include <stdlib.h>

#define POOL_BATCH 64
#define POOL_SLAB_BYTES (64u * 1024u)

/* A free object; the first of a batch also links to the next batch. */
struct free_obj {
  /* Atomic because dag__task_link may read the first word of an edge that
   * was freed a moment ago (task.c, linked_already); relaxed, it costs
   * nothing. */
  _Atomic(struct free_obj *) next;
  struct free_obj *next_batch;
};

static struct free_obj *next_of(struct free_obj *o) {
  return atomic_load_explicit(&o->next, memory_order_relaxed);
}

static void set_next(struct free_obj *o, struct free_obj *next) {
  atomic_store_explicit(&o->next, next, memory_order_relaxed);
}

struct slab {
  struct slab *next;
  _Alignas(DAG_CACHELINE) char mem[];
};

struct pool {
  _Alignas(DAG_CACHELINE) atomic_flag lock;
  size_t size;
  struct free_obj *batches; /* full batches given back */
  struct slab *slabs;
  atomic_size_t bytes; /* in slabs */
};

struct thread_cache {
  struct free_obj *head;
  size_t count;
};

static struct pool pools[POOL_COUNT];
static DAG_THREAD_LOCAL struct thread_cache caches[POOL_COUNT];

static void pool_lock(struct pool *p) {
  while (atomic_flag_test_and_set_explicit(&p->lock, memory_order_acquire))
    ;
}

static void pool_unlock(struct pool *p) {
  atomic_flag_clear_explicit(&p->lock, memory_order_release);
}

static size_t object_size(enum pool_id id) {
  switch (id) {
  case POOL_TASK:
    return sizeof(struct task) + DAG_ARGS_INLINE;
  case POOL_TASK_SMALL:
    return sizeof(struct task) + DAG_ARGS_SMALL;
  case POOL_EDGE:
    return sizeof(struct edge);
  case POOL_RECORD_RUN:
    return dag__record_bytes(0);
  case POOL_RECORD_ROWS:
    return dag__record_bytes(1);
  case POOL_RECORD:
    return dag__record_bytes(DAG_MAX_DIMS);
  case POOL_LOCK:
    return dag__lock_size;
  case POOL_DEPS:
    return dag__deps_size;
  case POOL_ARGS_128:
    return 128;
  case POOL_ARGS_512:
    return 512;
  case POOL_ARGS_2K:
    return 2048;
  case POOL_ARGS_8K:
    return 8192;
  case POOL_COUNT:
    break;
  }
  DAG_BUG("no pool %d", (int)id);
}

/* Objects that hold a program's argument blocks are aligned like malloc's
 * (16 bytes: an argument struct may hold a long double or a vector); the
 * runtime's own records need only 8, and every byte counts in them. */
static size_t alignment(enum pool_id id) {
  switch (id) {
  case POOL_EDGE:
  case POOL_RECORD_RUN:
  case POOL_RECORD_ROWS:
  case POOL_RECORD:
  case POOL_LOCK:
    return 8;
  default:
    return 16;
  }
}

void dag__pools_init(void) {
  for (int i = 0; i < POOL_COUNT; i++) {
    struct pool *p = &pools[i];
    size_t size = object_size((enum pool_id)i), align = alignment(i);
    p->size = (size + align - 1) & ~(align - 1);
    atomic_flag_clear(&p->lock);
    p->batches = NULL;
    p->slabs = NULL;
    atomic_init(&p->bytes, 0);
  }
}

void dag__pools_release(void) {
  for (int i = 0; i < POOL_COUNT; i++) {
    struct pool *p = &pools[i];
    for (struct slab *s = p->slabs, *next; s; s = next) {
      next = s->next;
      free(s);
    }
    p->slabs = NULL;
    p->batches = NULL;
    /* The calling thread's cache pointed into the slabs just freed. */
    caches[i].head = NULL;
    caches[i].count = 0;
  }
}

/* Refills the calling thread's empty cache: a shared batch, or a slab. */
static bool refill(struct pool *p, struct thread_cache *c) {
  pool_lock(p);
  struct free_obj *batch = p->batches;
  if (batch) {
    p->batches = batch->next_batch;
    pool_unlock(p);
    c->head = batch;
    c->count = POOL_BATCH;
    return true;
  }
  pool_unlock(p);
  struct slab *s = malloc(sizeof *s + POOL_SLAB_BYTES);
  if (!s)
    return false;
  pool_lock(p);
  s->next = p->slabs;
  p->slabs = s;
  pool_unlock(p);
  atomic_fetch_add_explicit(&p->bytes, sizeof *s + POOL_SLAB_BYTES,
                            memory_order_relaxed);
  size_t n = POOL_SLAB_BYTES / p->size;
  for (size_t k = n; k-- > 0;) {
    struct free_obj *o = (struct free_obj *)(s->mem + k * p->size);
    set_next(o, c->head);
    c->head = o;
  }
  c->count += n;
  return true;
}

void *dag__pool_get(enum pool_id id) {
  struct thread_cache *c = &caches[id];
  if (unlikely(!c->head) && !refill(&pools[id], c))
    return NULL;
  struct free_obj *o = c->head;
  c->head = next_of(o);
  c->count--;
  if (c->head) {
    /* The next object was probably freed on another core: start bringing
     * its lines here now, so that the next get does not wait for them. */
    char *next = (char *)c->head;
    for (size_t off = 0; off < pools[id].size; off += DAG_CACHELINE)
      __builtin_prefetch(next + off, 1);
  }
  return o;
}

void dag__pool_put(enum pool_id id, void *obj) {
  struct thread_cache *c = &caches[id];
  struct free_obj *o = obj;
  set_next(o, c->head);
  c->head = o;
  if (likely(++c->count < 2 * POOL_BATCH))
    return;
  /* Give the newest batch back so objects freed here serve other threads.
   * The batch ends where the remaining POOL_BATCH objects begin. */
  struct free_obj *last = o;
  for (size_t n = 1; n < POOL_BATCH; n++)
    last = next_of(last);
  c->head = next_of(last);
  c->count -= POOL_BATCH;
  set_next(last, NULL);
  struct pool *p = &pools[id];
  pool_lock(p);
  o->next_batch = p->batches;
  p->batches = o;
  pool_unlock(p);
}

size_t dag__pool_bytes(enum pool_id id) {
  return atomic_load_explicit(&pools[id].bytes, memory_order_relaxed);
}

static const struct {
  enum pool_id id;
  size_t size;
} args_classes[] = {{POOL_ARGS_128, 128},
                    {POOL_ARGS_512, 512},
                    {POOL_ARGS_2K, 2048},
                    {POOL_ARGS_8K, 8192}};

void *dag__args_alloc(size_t size) {
  for (size_t i = 0; i < sizeof args_classes / sizeof args_classes[0]; i++)
    if (size <= args_classes[i].size)
      return dag__pool_get(args_classes[i].id);
  return malloc(size);
}

void dag__args_free(void *args, size_t size) {
  for (size_t i = 0; i < sizeof args_classes / sizeof args_classes[0]; i++)
    if (size <= args_classes[i].size) {
      dag__pool_put(args_classes[i].id, args);
      return;
    }
  free(args);
}
