/* buf.c: a growable byte buffer for building text. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static void reserve(struct buf *b, size_t more) {
  if (b->len + more + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1)
    cap *= 2;
  b->s = xrealloc(b->s, cap);
  b->cap = cap;
}

void buf_add(struct buf *b, const char *s, size_t n) {
  reserve(b, n);
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_printf(struct buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *buf_detach(struct buf *b) {
  char *s = b->s ? b->s : xstrdup("");
  memset(b, 0, sizeof *b);
  return s;
}

void buf_release(struct buf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}
