/* diag.h: source files and the compiler-style diagnostics about them.
 *
 * A `struct source` is one file's text with its line table, so a byte offset
 * becomes line:col. Diagnostics collect in a `struct diags` and print the way
 * gcc and clang print theirs: `file:line:col: error: message`, the source
 * line, and a caret under the column. */
#ifndef DAG_TOOL_DIAG_H
#define DAG_TOOL_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct source {
  char *path;      /* as the user named it; used in messages and #line */
  char *text;      /* the file's bytes, NUL-terminated */
  size_t len;      /* bytes in text, without the NUL */
  unsigned *lines; /* offset of the first byte of each line */
  unsigned nlines;
};

/* Reads `path` into `src`. Returns 0, or -1 with errno set. */
int source_load(struct source *src, const char *path);
/* Makes a source from `len` bytes of `text` (copied), named `path`. */
void source_init_text(struct source *src, const char *path, const char *text,
                      size_t len);
void source_release(struct source *src);
/* 1-based line and column (in bytes) of `offset`. */
void source_position(const struct source *src, unsigned offset, unsigned *line,
                     unsigned *col);

enum diag_level { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR };

struct diag {
  enum diag_level level;
  const struct source *src; /* NULL: no location */
  unsigned offset;          /* byte offset in src */
  const char *flag;         /* warning option, such as "-Wdag-unused-in" */
  char *message;            /* lowercase, problem first, names quoted */
};

struct diags {
  struct diag *v;
  size_t n, cap;
  unsigned errors, warnings;
  bool werror;      /* -Werror: warnings count as errors */
  bool no_warnings; /* -w */
  /* -Wno-<flag>: warnings dropped; -Werror=<flag>: warnings that are errors;
   * -Wno-error=<flag>: warnings that stay warnings under -Werror. Each entry
   * is a flag as diagnostics name it ("-Wdag-unused-in"). */
  char **off, **as_error, **not_error;
  unsigned noff, nas_error, nnot_error;
};

/* Takes the warning options (-w, -Werror, -W[no-][error=]dag-...) from a
 * compiler command line; other arguments are ignored. The lints that are
 * off by default (-Wdag-mpi) need their -Wdag-<name>. */
void diags_options(struct diags *d, const char *const *args, int nargs);

/* Records a diagnostic; `flag` may be NULL. A warning that the options
 * silence is dropped. */
void diags_add(struct diags *d, enum diag_level level, const struct source *src,
               unsigned offset, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
#define diag_error(d, src, off, ...)                                           \
  diags_add((d), DIAG_ERROR, (src), (off), NULL, __VA_ARGS__)
/* Prints every diagnostic in order of file and offset to `out`. */
void diags_print(const struct diags *d, void *out /* FILE * */);
/* True when the diagnostics stop the compilation. */
bool diags_failed(const struct diags *d);
void diags_release(struct diags *d);

/* Allocation that dies with a message when memory runs out: the tool has
 * nothing to save when it cannot allocate. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrndup(const char *s, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

#endif
