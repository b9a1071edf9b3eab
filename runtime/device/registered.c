/* registered.c — host memory registered with the devices: dag_alloc memory
 * while a device is in use, and the program's arrays that it registers
 * with dag_register. A device copies it by DMA (copies.c queues it
 * straight, where other memory goes through staging buffers that a core
 * packs), as a GPU user's cudaHostRegister'ed memory.
 *
 * A table of disjoint ranges by address. One registration with the first
 * device of each kind serves every device of that kind (the spaces'
 * registrations are portable). Nothing is asked of a driver until the
 * devices open: what is added before is registered then. A registration
 * goes once no copy of it is in flight: under the devices' lock, after
 * every device has drained, so that no copy planned with it can start
 * later.
 */
#include "device/registered.h"
#include "device/copies.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct registration {
  uintptr_t lo, hi;
  char *alloc; /* the dag_alloc allocation it is; NULL: dag_register */
  bool locked; /* registered with the devices */
};

static struct registration *table;
static size_t used, cap;
/* Written by the program's calls and the devices' opening and closing;
 * read by every copy planned. */
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static bool devices_open; /* under table_lock */

/* The first registration whose end is past lo. Under table_lock. */
static size_t first_ending_after(uintptr_t lo) {
  size_t a = 0, b = used;
  while (a < b) {
    size_t m = (a + b) / 2;
    if (table[m].hi <= lo)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

/* Whether d is the first open device of its kind: the one that registers
 * for all of them. */
static bool registers_for_its_kind(const struct device *d) {
  for (const struct device *e = dag__devices; e < d; e++)
    if (e->space.ops == d->space.ops)
      return false;
  return true;
}

/* Undoes r's registration on the devices before `end`. */
static void unlock_before(const struct registration *r,
                          const struct device *end) {
  for (struct device *d = dag__devices; d < end; d++)
    if (registers_for_its_kind(d))
      dag__space_host_unregister(&d->space, (void *)r->lo);
}

/* Registers r with one device of each kind. Returns 0, or the first
 * device's error, with every registration undone. */
static int lock(struct registration *r) {
  for (struct device *d = dag__devices; d < dag__devices + dag__ndevices; d++) {
    if (!registers_for_its_kind(d))
      continue;
    int err = dag__space_host_register(&d->space, (void *)r->lo, r->hi - r->lo);
    if (err) {
      unlock_before(r, d);
      return err;
    }
  }
  r->locked = true;
  return 0;
}

static void unlock(struct registration *r) {
  if (r->locked)
    unlock_before(r, dag__devices + dag__ndevices);
  r->locked = false;
}

/* "dag_alloc memory of ... allocated at f.c:12", or the program's bytes. */
static void name(char *buf, size_t size, const struct registration *r) {
  if (r->alloc)
    snprintf(buf, size, "%s", r->alloc);
  else
    snprintf(buf, size, "the %zu bytes at %p that dag_register registered",
             (size_t)(r->hi - r->lo), (void *)r->lo);
}

int dag__registered_add(void *p, size_t bytes, const char *alloc) {
  struct registration r = {(uintptr_t)p, (uintptr_t)p + bytes, NULL, false};
  if (alloc && !(r.alloc = strdup(alloc)))
    dag__out_of_memory("a registration");
  pthread_rwlock_wrlock(&table_lock);
  size_t i = first_ending_after(r.lo);
  if (i < used && table[i].lo < r.hi) {
    char other[160];
    name(other, sizeof other, &table[i]);
    pthread_rwlock_unlock(&table_lock);
    free(r.alloc);
    return dag__error_note(DAG_EINVAL,
                           "%zu bytes at %p overlap %s: register memory once",
                           bytes, p, other);
  }
  int err = devices_open ? lock(&r) : 0;
  if (!err) {
    table = dag__grow(table, &cap, used + 1, sizeof *table,
                      "the registered memory");
    memmove(&table[i + 1], &table[i], (used - i) * sizeof *table);
    table[i] = r;
    used++;
  }
  pthread_rwlock_unlock(&table_lock);
  if (err)
    free(r.alloc);
  return err;
}

int dag__registered_remove(void *p) {
  pthread_mutex_lock(&dag__devices_lock);
  for (int d = 0; d < dag__ndevices; d++)
    dag__device_drain(&dag__devices[d]);
  pthread_rwlock_wrlock(&table_lock);
  size_t i = first_ending_after((uintptr_t)p);
  bool found = i < used && table[i].lo == (uintptr_t)p;
  if (found) {
    unlock(&table[i]);
    free(table[i].alloc);
    memmove(&table[i], &table[i + 1], (used - i - 1) * sizeof *table);
    used--;
  }
  pthread_rwlock_unlock(&table_lock);
  pthread_mutex_unlock(&dag__devices_lock);
  return found ? 0
               : dag__error_note(DAG_EINVAL,
                                 "%p is not the start of memory that "
                                 "dag_register registered",
                                 p);
}

size_t dag__registered_run(uintptr_t lo, uintptr_t hi, bool *registered) {
  pthread_rwlock_rdlock(&table_lock);
  size_t i = first_ending_after(lo);
  while (i < used && !table[i].locked && table[i].lo < hi)
    i++;
  uintptr_t end = hi;
  *registered = i < used && table[i].lo <= lo;
  if (*registered && table[i].hi < hi)
    end = table[i].hi;
  else if (!*registered && i < used && table[i].lo < hi)
    end = table[i].lo;
  pthread_rwlock_unlock(&table_lock);
  return end - lo;
}

void dag__registered_open(void) {
  pthread_rwlock_wrlock(&table_lock);
  devices_open = true;
  for (size_t i = 0; i < used; i++) {
    struct registration *r = &table[i];
    if (lock(r)) {
      char what[160];
      name(what, sizeof what, r);
      dag__log(DAG_LOG_WARN,
               "%s could not be registered with the devices (%s): copies of "
               "it are packed through staging buffers",
               what, dag_last_error());
    }
  }
  pthread_rwlock_unlock(&table_lock);
}

void dag__registered_close(void) {
  pthread_rwlock_wrlock(&table_lock);
  for (size_t i = 0; i < used; i++) {
    unlock(&table[i]);
    free(table[i].alloc);
  }
  free(table);
  table = NULL;
  used = cap = 0;
  devices_open = false;
  pthread_rwlock_unlock(&table_lock);
}
