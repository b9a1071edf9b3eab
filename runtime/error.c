/* error.c — error codes, user errors and our own bugs.
 *
 * The last user error's message is kept per thread for dag_last_error();
 * nothing here takes a lock.
 */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>

static _Thread_local char last_error[1024];

void (*dag__last_words)(void);

const char *dag_strerror(int err) {
  switch (err) {
#define DAG_ERR_CASE_(name, value, msg)                                        \
  case DAG_##name:                                                             \
    return msg;
    DAG_ERR_MAP(DAG_ERR_CASE_)
#undef DAG_ERR_CASE_
  case 0:
    return "success";
  default:
    return "unknown error";
  }
}

const char *dag_last_error(void) { return last_error; }

int dag_check(int err) {
  if (err >= 0)
    return err;
  /* User errors were printed when they happened. */
  if (!last_error[0])
    dag__log(DAG_LOG_ERROR, "%s", dag_strerror(err));
  fflush(NULL);
  _Exit(1);
}

void dag__task_name(char *buf, size_t size, const char *label, const char *file,
                    int line) {
  if (label)
    snprintf(buf, size, "%s", label);
  else if (file)
    snprintf(buf, size, "%s:%d", file, line);
  else
    snprintf(buf, size, "(unnamed)");
}

void dag__task_where(char *buf, size_t size, const char *label,
                     const char *file, int line) {
  if (!label && file)
    snprintf(buf, size, "task at %s:%d", file, line);
  else if (file)
    snprintf(buf, size, "task '%s' (%s:%d)", label, file, line);
  else
    snprintf(buf, size, "task '%s'", label ? label : "(unnamed)");
}

int dag__user_error(const struct dag_task_info *task, int err, const char *fmt,
                    ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);

  if (task) {
    char where[384];
    dag__task_where(where, sizeof where, task->label, task->file, task->line);
    snprintf(last_error, sizeof last_error, "%s: %s", where, what);
  } else {
    snprintf(last_error, sizeof last_error, "%s", what);
  }
  dag__log(DAG_LOG_ERROR, "%s", last_error);
  return err;
}

int dag__error_note(int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return err;
}

noreturn void dag__bug(const char *file, int line, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  dag__log(DAG_LOG_REPORT, "BUG at %s:%d: %s", file, line, what);
  abort();
}

noreturn void dag__out_of_memory(const char *where) {
  dag__log(DAG_LOG_ERROR, "out of memory in %s", where);
  abort();
}

void *dag__grow(void *items, size_t *cap, size_t n, size_t size,
                const char *what) {
  if (n < *cap)
    return items;
  size_t c = *cap ? 2 * *cap : 64;
  while (c <= n)
    c *= 2;
  void *p = realloc(items, c * size);
  if (!p)
    dag__out_of_memory(what);
  *cap = c;
  return p;
}
