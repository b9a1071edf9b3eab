/* dagcc_util.c: the driver's small helpers: argument vectors (struct strv),
 * the parts of a path, reading a whole file, and fatal(). */
#include "dagcc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strv_take(struct strv *s, char *str) {
  if (s->n + 2 > s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->v = xrealloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = str;
  s->v[s->n] = NULL;
}

void strv_push(struct strv *s, const char *str) { strv_take(s, xstrdup(str)); }

void strv_append(struct strv *s, const struct strv *t) {
  for (size_t i = 0; i < t->n; i++)
    strv_push(s, t->v[i]);
}

void strv_release(struct strv *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->v[i]);
  free(s->v);
  *s = (struct strv){0};
}

void strv_split(struct strv *s, const char *text) {
  const char *blanks = " \t\n";
  while (*text) {
    text += strspn(text, blanks);
    size_t len = strcspn(text, blanks);
    if (len) {
      char *word = xstrndup(text, len);
      strv_push(s, word);
      free(word);
    }
    text += len;
  }
}

void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dagcc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

char *dir_name(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return xstrdup(".");
  return slash == path ? xstrdup("/") : xstrndup(path, slash - path);
}

char *stem(const char *path) {
  const char *base = base_name(path);
  const char *dot = strrchr(base, '.');
  return dot && dot != base ? xstrndup(base, dot - base) : xstrdup(base);
}

char *with_extension(const char *path, const char *ext) {
  const char *base = base_name(path);
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  return xasprintf("%.*s%s", (int)keep, path, ext);
}

char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096;
  char *text = xmalloc(cap);
  *len = 0;
  size_t got;
  while ((got = fread(text + *len, 1, cap - *len, f)) > 0)
    if ((*len += got) == cap)
      text = xrealloc(text, cap *= 2);
  fclose(f);
  return text;
}
