/* pool.c — fixed-size object pools, so that submitting a task calls no
 * malloc.
 *
 * Each thread keeps, per pool, a free list of its own (no lock). When that
 * list runs dry the thread takes a batch from the pool's shared list, or
 * carves a new slab; when it grows past two batches it gives one batch
 * back. Only the shared list and the slab list take the pool's mutex, once
 * per batch. Slabs go back to the system at dag__pools_release.
 */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

#define POOL_BATCH 64
#define POOL_SLAB_BYTES (64u * 1024u)

struct free_obj {
  struct free_obj *next;
};

struct slab {
  struct slab *next;
  _Alignas(DAG_CACHELINE) char mem[];
};

struct pool {
  size_t size;
  pthread_mutex_t lock;
  struct free_obj *shared; /* batches given back, chained by next */
  size_t shared_count;
  struct slab *slabs;
  atomic_size_t bytes; /* in slabs */
};

struct thread_cache {
  struct free_obj *head;
  size_t count;
};

static struct pool pools[POOL_COUNT];
static _Thread_local struct thread_cache caches[POOL_COUNT];

static size_t object_size(enum pool_id id) {
  switch (id) {
  case POOL_TASK:
    return sizeof(struct task);
  case POOL_EDGE:
    return sizeof(struct edge);
  case POOL_RECORD:
    return dag__record_size;
  case POOL_LOCK:
    return dag__lock_size;
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

void dag__pools_init(void) {
  for (int i = 0; i < POOL_COUNT; i++) {
    struct pool *p = &pools[i];
    size_t size = object_size((enum pool_id)i);
    /* Round up to 16 bytes so every object is suitably aligned. */
    p->size = (size + 15) & ~(size_t)15;
    pthread_mutex_init(&p->lock, NULL);
    p->shared = NULL;
    p->shared_count = 0;
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
    p->shared = NULL;
    p->shared_count = 0;
    pthread_mutex_destroy(&p->lock);
    /* The calling thread's cache pointed into the slabs just freed. */
    caches[i].head = NULL;
    caches[i].count = 0;
  }
}

/* Refills the calling thread's cache: a shared batch, or a new slab. */
static bool refill(struct pool *p, struct thread_cache *c) {
  pthread_mutex_lock(&p->lock);
  if (p->shared) {
    /* Take up to one batch from the front of the shared list. */
    struct free_obj *first = p->shared, *last = first;
    size_t n = 1;
    while (n < POOL_BATCH && last->next) {
      last = last->next;
      n++;
    }
    p->shared = last->next;
    p->shared_count -= n;
    pthread_mutex_unlock(&p->lock);
    last->next = c->head;
    c->head = first;
    c->count += n;
    return true;
  }
  struct slab *s = malloc(sizeof *s + POOL_SLAB_BYTES);
  if (!s) {
    pthread_mutex_unlock(&p->lock);
    return false;
  }
  s->next = p->slabs;
  p->slabs = s;
  atomic_fetch_add_explicit(&p->bytes, sizeof *s + POOL_SLAB_BYTES,
                            memory_order_relaxed);
  pthread_mutex_unlock(&p->lock);
  size_t n = POOL_SLAB_BYTES / p->size;
  for (size_t k = n; k-- > 0;) {
    struct free_obj *o = (struct free_obj *)(s->mem + k * p->size);
    o->next = c->head;
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
  c->head = o->next;
  c->count--;
  return o;
}

void dag__pool_put(enum pool_id id, void *obj) {
  struct thread_cache *c = &caches[id];
  struct pool *p = &pools[id];
  struct free_obj *o = obj;
  o->next = c->head;
  c->head = o;
  c->count++;
  if (unlikely(c->count >= 2 * POOL_BATCH)) {
    /* Give one batch back so objects freed here can serve other threads. */
    struct free_obj *first = c->head, *last = first;
    for (size_t n = 1; n < POOL_BATCH; n++)
      last = last->next;
    c->head = last->next;
    c->count -= POOL_BATCH;
    pthread_mutex_lock(&p->lock);
    last->next = p->shared;
    p->shared = first;
    p->shared_count += POOL_BATCH;
    pthread_mutex_unlock(&p->lock);
  }
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
