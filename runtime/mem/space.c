/* space.c — the wrappers through which the layers above use a memory
 * space (space.h): one call into the space's table each, so that no layer
 * holds a table itself.
 */
#include "mem/space.h"

int dag__space_open(struct space *s, const struct dag_space_ops *ops,
                    int index) {
  s->ops = ops;
  s->index = index;
  s->state = NULL;
  return ops->open(index, &s->state);
}

void dag__space_close(struct space *s) {
  s->ops->close(s->state);
  s->state = NULL;
}

void *dag__space_alloc(struct space *s, size_t bytes) {
  return s->ops->alloc(s->state, bytes);
}

void dag__space_free(struct space *s, void *p, size_t bytes) {
  s->ops->free(s->state, p, bytes);
}

void dag__space_copy(struct space *s, bool to_device,
                     const struct space_copy *c, dag_space_done_fn done,
                     void *arg) {
  s->ops->copy(s->state, to_device, c, done, arg);
}

void dag__space_launch(struct space *s, dag_task_fn fn, void *args,
                       dag_space_done_fn done, void *arg) {
  s->ops->launch(s->state, fn, args, done, arg);
}

bool dag__space_poll(struct space *s) { return s->ops->poll(s->state); }
