/* free_check.c — free() and realloc() for the whole process: the C
 * library's, but for dag_alloc memory, which they would treat as a chunk of
 * malloc's and crash on (the page before an allocation is mapped with no
 * access), losing the output still buffered. A program ported from malloc
 * keeps such a call easily; here it gets a message naming the call and the
 * allocation, and the memory stays allocated until dag_free or the end of
 * the run.
 *
 * libdag comes before the C library in the order the dynamic linker
 * searches, so its free and realloc are the process's (a sanitizer's own,
 * loaded first, still wins). Each call costs a look-up that answers at once
 * for memory nowhere near dag_alloc memory (dag__dist_find). glibc names
 * its own functions __libc_free and __libc_realloc. Never inlined: the
 * runtime's own calls, inlined with the look-up, grew its hot paths.
 */
#include "api/api.h"
#include "plan/dist.h"

#include <errno.h>

void __libc_free(void *p);
void *__libc_realloc(void *p, size_t bytes);

/* Says that `call` was given dag_alloc memory at p, in allocation a. */
static void refuse(const char *call, const void *p,
                   const struct allocation *a) {
  char memory[300];
  dag__dist_name(memory, sizeof memory, a);
  dag__user_error(NULL, DAG_EINVAL,
                  "%s(%p): that is %s; %s leaves it alone: release it with "
                  "dag_free, called on every rank (or leave it to the end of "
                  "the run)",
                  call, p, memory, call);
}

DAG_API __attribute__((noinline)) void free(void *p) {
  const struct allocation *a = dag__dist_find(p);
  if (unlikely(a != NULL)) {
    refuse("free", p, a);
    return;
  }
  __libc_free(p);
}

DAG_API __attribute__((noinline)) void *realloc(void *p, size_t bytes) {
  const struct allocation *a = dag__dist_find(p);
  if (unlikely(a != NULL)) {
    refuse("realloc", p, a);
    errno = ENOMEM;
    return NULL;
  }
  return __libc_realloc(p, bytes);
}
