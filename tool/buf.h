/* buf.h: a growable byte buffer for building text. */
#ifndef DAG_TOOL_BUF_H
#define DAG_TOOL_BUF_H

#include <stddef.h>

struct buf {
  char *s; /* NUL-terminated once anything was added */
  size_t len, cap;
};

void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the text over (never NULL) and leaves the buffer empty. */
char *buf_detach(struct buf *b);
void buf_release(struct buf *b);

#endif
