/* register.c — host memory registered with the devices (page-locked), so
 * that they copy it by DMA at the link's rate: the program's arrays,
 * through dag_register and dag_unregister, and dag_alloc memory, which
 * the runtime registers itself (its lifetime is known: from dag_alloc to
 * dag_free). device/registered.c keeps the registrations.
 */
#include "api/api.h"
#include "device/registered.h"
#include "plan/dist.h"

#include <unistd.h>

int dag_register(void *p, size_t bytes) {
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, NULL, "dag_register");
  if ((err = dag__outside_tasks("dag_register")))
    return err;
  if (!p || !bytes)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_register(%p, %zu): no memory to register", p,
                           bytes);
  const struct allocation *a = dag__dist_find(p);
  if (!a)
    a = dag__dist_find((char *)p + bytes - 1);
  if (a) {
    char name[160];
    dag__dist_name(name, sizeof name, a);
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_register(%p, %zu): the memory is %s, which "
                           "dag registers itself",
                           p, bytes, name);
  }
  err = dag__registered_add(p, bytes, NULL);
  return err ? dag__user_error(NULL, err, "dag_register: %s", dag_last_error())
             : 0;
}

int dag_unregister(void *p) {
  int err = dag__ensure_started();
  if (err)
    return dag__not_running(err, NULL, "dag_unregister");
  if ((err = dag__outside_tasks("dag_unregister")))
    return err;
  err = dag__registered_remove(p);
  return err ? dag__user_error(NULL, err, "dag_unregister: %s",
                               dag_last_error())
             : 0;
}

/* The whole pages of a that this rank owns in one run: all of a where one
 * rank owns everything; under dag_dist_block, the rank's run of blocks.
 * False where it owns no such run: its blocks are copied through staging
 * buffers. */
static bool owned_run(const struct allocation *a, uintptr_t *lo,
                      uintptr_t *hi) {
  size_t begin = 0, end = a->bytes;
  if (dag__nranks > 1) {
    if (a->dist.kind != DAG_DIST_BLOCK)
      return false;
    begin = a->bytes;
    end = 0;
    for (size_t at = 0, b, e; at < a->bytes; at = e) {
      dag__dist_block(a, at, &b, &e);
      if (dag__dist_home(a, at) != dag__rank)
        continue;
      begin = begin < b ? begin : b;
      end = e;
    }
  }
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  *lo = ((uintptr_t)a->base + begin + page - 1) & ~(page - 1);
  *hi = ((uintptr_t)a->base + end) & ~(page - 1);
  return *lo < *hi;
}

void dag__register_allocation(const struct allocation *a) {
  uintptr_t lo, hi;
  if (!a || !owned_run(a, &lo, &hi))
    return;
  char name[160];
  dag__dist_name(name, sizeof name, a);
  if (dag__registered_add((void *)lo, hi - lo, name))
    dag__log(DAG_LOG_WARN,
             "%s could not be registered with the devices (%s): copies of it "
             "are packed through staging buffers",
             name, dag_last_error());
}

void dag__unregister_allocation(const struct allocation *a) {
  uintptr_t lo, hi;
  if (owned_run(a, &lo, &hi))
    dag__registered_remove((void *)lo); /* none when it could not be */
}
