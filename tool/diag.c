/* diag.c: source files, their line tables, and diagnostics printed the way
 * gcc and clang print them. */
#include "diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p) {
    fprintf(stderr, "dagcc: out of memory\n");
    exit(1);
  }
  return p;
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) {
    fprintf(stderr, "dagcc: out of memory\n");
    exit(1);
  }
  return p;
}

void *xrealloc(void *p, size_t size) {
  p = realloc(p, size ? size : 1);
  if (!p) {
    fprintf(stderr, "dagcc: out of memory\n");
    exit(1);
  }
  return p;
}

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xvasprintf(const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *p = xmalloc((size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, again);
  va_end(again);
  return p;
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = xvasprintf(fmt, ap);
  va_end(ap);
  return p;
}

static void index_lines(struct source *src) {
  unsigned cap = 64;
  src->lines = xmalloc(cap * sizeof *src->lines);
  src->nlines = 0;
  src->lines[src->nlines++] = 0;
  for (size_t i = 0; i < src->len; i++) {
    if (src->text[i] != '\n')
      continue;
    if (src->nlines == cap)
      src->lines = xrealloc(src->lines, (cap *= 2) * sizeof *src->lines);
    src->lines[src->nlines++] = (unsigned)i + 1;
  }
}

void source_init_text(struct source *src, const char *path, const char *text,
                      size_t len) {
  src->path = xstrdup(path);
  src->text = xstrndup(text, len);
  src->len = len;
  index_lines(src);
}

int source_load(struct source *src, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  size_t cap = 1 << 16, len = 0;
  char *text = xmalloc(cap);
  size_t got;
  while ((got = fread(text + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap)
      text = xrealloc(text, cap *= 2);
  }
  int failed = ferror(f);
  fclose(f);
  if (failed || len > 0xfffffff0u) {
    free(text);
    errno = failed ? EIO : EFBIG;
    return -1;
  }
  src->path = xstrdup(path);
  src->text = text;
  src->text[len] = '\0';
  src->len = len;
  index_lines(src);
  return 0;
}

void source_release(struct source *src) {
  free(src->path);
  free(src->text);
  free(src->lines);
  memset(src, 0, sizeof *src);
}

void source_position(const struct source *src, unsigned offset, unsigned *line,
                     unsigned *col) {
  unsigned lo = 0, hi = src->nlines; /* last line start <= offset */
  while (hi - lo > 1) {
    unsigned mid = lo + (hi - lo) / 2;
    if (src->lines[mid] <= offset)
      lo = mid;
    else
      hi = mid;
  }
  *line = lo + 1;
  *col = offset - src->lines[lo] + 1;
}

static void add_flag(char ***v, unsigned *n, const char *flag) {
  *v = xrealloc(*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = xasprintf("-W%s", flag);
}

static void remove_flag(char **v, unsigned *n, const char *flag) {
  for (unsigned i = 0; i < *n; i++)
    if (strcmp(v[i], flag) == 0) {
      free(v[i]);
      v[i--] = v[--*n];
    }
}

static bool has_flag(char *const *v, unsigned n, const char *flag) {
  for (unsigned i = 0; i < n; i++)
    if (strcmp(v[i], flag) == 0)
      return true;
  return false;
}

void diags_options(struct diags *d, const char *const *args, int nargs) {
  /* Lints for some programs only, which their options turn on. */
  static const char *const off_by_default[] = {"dag-mpi"};
  for (size_t i = 0; i < sizeof off_by_default / sizeof *off_by_default; i++)
    add_flag(&d->off, &d->noff, off_by_default[i]);
  for (int i = 0; i < nargs; i++) {
    const char *a = args[i];
    if (strcmp(a, "-w") == 0)
      d->no_warnings = true;
    else if (strcmp(a, "-Werror") == 0)
      d->werror = true;
    else if (strcmp(a, "-Wno-error") == 0)
      d->werror = false;
    else if (strncmp(a, "-Wno-error=dag-", 15) == 0)
      add_flag(&d->not_error, &d->nnot_error, a + 11);
    else if (strncmp(a, "-Werror=dag-", 12) == 0)
      add_flag(&d->as_error, &d->nas_error, a + 8);
    else if (strncmp(a, "-Wno-dag-", 9) == 0)
      add_flag(&d->off, &d->noff, a + 5);
    else if (strncmp(a, "-Wdag-", 6) == 0)
      remove_flag(d->off, &d->noff, a); /* the last option wins */
  }
}

/* Whether a warning with `flag` is dropped, and whether it is an error. */
static bool silenced(const struct diags *d, const char *flag) {
  return d->no_warnings || (flag && has_flag(d->off, d->noff, flag));
}

static bool is_error(const struct diags *d, const struct diag *g) {
  if (g->level == DIAG_ERROR)
    return true;
  if (g->level != DIAG_WARNING)
    return false;
  if (g->flag && has_flag(d->as_error, d->nas_error, g->flag))
    return true;
  return d->werror &&
         !(g->flag && has_flag(d->not_error, d->nnot_error, g->flag));
}

void diags_add(struct diags *d, enum diag_level level, const struct source *src,
               unsigned offset, const char *flag, const char *fmt, ...) {
  if (d->n == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 16;
    d->v = xrealloc(d->v, d->cap * sizeof *d->v);
  }
  if (level == DIAG_WARNING && silenced(d, flag))
    return;
  va_list ap;
  va_start(ap, fmt);
  char *message = xvasprintf(fmt, ap);
  va_end(ap);
  d->v[d->n] = (struct diag){level, src, offset, flag, message};
  if (is_error(d, &d->v[d->n]))
    d->errors++;
  else if (level == DIAG_WARNING)
    d->warnings++;
  d->n++;
}

bool diags_failed(const struct diags *d) { return d->errors > 0; }

static const char *level_name(const struct diags *d, const struct diag *g) {
  if (g->level == DIAG_NOTE)
    return "note";
  return is_error(d, g) ? "error" : "warning";
}

/* The source line, then a caret under the column; tabs are kept so that the
 * caret lines up in a terminal. */
static void print_caret(FILE *out, const struct source *src, unsigned offset) {
  unsigned line, col;
  source_position(src, offset, &line, &col);
  const char *start = src->text + src->lines[line - 1];
  const char *end = memchr(start, '\n', src->len - (size_t)(start - src->text));
  size_t len = end ? (size_t)(end - start) : strlen(start);
  fprintf(out, "%.*s\n", (int)len, start);
  for (unsigned i = 0; i + 1 < col && i < len; i++)
    fputc(start[i] == '\t' ? '\t' : ' ', out);
  fputs("^\n", out);
}

static int by_position(const struct diag *x, const struct diag *y) {
  if (x->src != y->src)
    return x->src && y->src ? strcmp(x->src->path, y->src->path)
                            : (x->src ? 1 : -1);
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* A diagnostic, and the one whose position orders it: itself, or for a
 * note the diagnostic it follows. */
struct placed {
  const struct diag *g, *anchor;
};

void diags_print(const struct diags *d, void *out_file) {
  FILE *out = out_file;
  /* Sort by position (stable among equal positions by index) so that the
   * messages of one file come in source order, as compilers print, each
   * note after the message it belongs to. */
  struct placed *v = xmalloc((d->n + 1) * sizeof *v);
  for (size_t i = 0; i < d->n; i++)
    v[i] = (struct placed){&d->v[i], d->v[i].level == DIAG_NOTE && i > 0
                                         ? v[i - 1].anchor
                                         : &d->v[i]};
  for (size_t i = 1; i < d->n; i++) /* insertion sort: stable, n is small */
    for (size_t j = i; j > 0 && by_position(v[j - 1].anchor, v[j].anchor) > 0;
         j--) {
      struct placed t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  for (size_t i = 0; i < d->n; i++) {
    const struct diag *g = v[i].g;
    if (g->src) {
      unsigned line, col;
      source_position(g->src, g->offset, &line, &col);
      fprintf(out, "%s:%u:%u: ", g->src->path, line, col);
    } else {
      fputs("dagcc: ", out);
    }
    fprintf(out, "%s: %s", level_name(d, g), g->message);
    if (g->flag && g->level == DIAG_WARNING && is_error(d, g))
      fprintf(out, " [-Werror,%s]", g->flag);
    else if (g->flag)
      fprintf(out, " [%s]", g->flag);
    fputc('\n', out);
    if (g->src)
      print_caret(out, g->src, g->offset);
  }
  free(v);
}

static void free_flags(char **v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

void diags_release(struct diags *d) {
  for (size_t i = 0; i < d->n; i++)
    free(d->v[i].message);
  free(d->v);
  free_flags(d->off, d->noff);
  free_flags(d->as_error, d->nas_error);
  free_flags(d->not_error, d->nnot_error);
  memset(d, 0, sizeof *d);
}
