/* sema_errors.c: errors found by libclang or by the sema passes, placed in
 * the user's text. libclang's wait in their own list until ours are known,
 * since an item we explain ourselves needs no second message about its
 * probe code. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

static bool already_reported(const struct diags *d, const struct source *src,
                             unsigned offset, const char *message) {
  for (size_t i = 0; i < d->n; i++)
    if (d->v[i].src == src && d->v[i].offset == offset &&
        strcmp(d->v[i].message, message) == 0)
      return true;
  return false;
}

void report_clang(struct walker *w) {
  unsigned n = clang_getNumDiagnostics(w->tu);
  /* At most one extra file per diagnostic: allocated once, so that the
   * diagnostics can point into it. */
  w->extra = xcalloc(n + 1, sizeof *w->extra);
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic g = clang_getDiagnostic(w->tu, i);
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(g);
    if (sev < CXDiagnostic_Error) {
      clang_disposeDiagnostic(g);
      continue;
    }
    char *message = take(clang_getDiagnosticSpelling(g));
    CXFile f;
    unsigned offset;
    clang_getFileLocation(clang_getDiagnosticLocation(g), &f, NULL, NULL,
                          &offset);
    const struct source *src = NULL;
    if (f) {
      int fi = file_index(w, f);
      if (fi >= 0) {
        offset = origin(w, fi, offset);
        src = &w->s->files[fi].src;
      } else {
        char *name = take(clang_getFileName(f));
        for (unsigned k = 0; k < w->nextra && !src; k++)
          if (strcmp(w->extra[k].path, name) == 0)
            src = &w->extra[k];
        if (!src && source_load(&w->extra[w->nextra], name) == 0)
          src = &w->extra[w->nextra++];
        free(name);
      }
    }
    /* Without a place, the error is about the command line (a flag libclang
     * does not know): the compiler has the last word on those. */
    if (!already_reported(&w->clang, src, offset, message))
      diags_add(&w->clang, src ? DIAG_ERROR : DIAG_WARNING, src,
                src ? offset : 0, NULL, "%s", message);
    free(message);
    clang_disposeDiagnostic(g);
  }
}

void error_at(struct walker *w, int file, unsigned probe_offset,
              const char *fmt, const char *a, const char *b) {
  char *message = xasprintf(fmt, a, b);
  const struct source *src = &w->s->files[file].src;
  unsigned at = origin(w, file, probe_offset);
  if (!already_reported(w->d, src, at, message))
    diags_add(w->d, DIAG_ERROR, src, at, NULL, "%s", message);
  free(message);
}

void error_cursor(struct walker *w, CXCursor c, const char *fmt, const char *a,
                  const char *b) {
  unsigned at;
  int file = where(w, clang_getCursorLocation(c), &at);
  if (file >= 0)
    error_at(w, file, at, fmt, a, b);
}

char *item_text(const struct unit_file *f, const struct item *it) {
  return xstrndup(f->clean + it->at.begin, it->at.end - it->at.begin);
}

/* The item of a unit file's directives that holds `offset`, if any. */
static const struct item *item_at(const struct unit_file *f, unsigned offset) {
  for (unsigned k = 0; k < f->scan.ndirectives; k++) {
    if (!f->ok[k] || offset < f->dirs[k].at.begin ||
        offset >= f->dirs[k].at.end)
      continue;
    for (unsigned c = 0; c < f->dirs[k].nclauses; c++)
      for (unsigned i = 0; i < f->dirs[k].clauses[c].nitems; i++) {
        const struct item *it = &f->dirs[k].clauses[c].items[i];
        if (offset >= it->at.begin && offset < it->at.end)
          return it;
      }
  }
  return NULL;
}

void merge_clang_errors(struct walker *w) {
  size_t ours = w->d->n;
  for (size_t i = 0; i < w->clang.n; i++) {
    const struct diag *g = &w->clang.v[i];
    const struct item *it = NULL;
    for (unsigned fi = 0; fi < w->s->nfiles && g->src; fi++)
      if (g->src == &w->s->files[fi].src)
        it = item_at(&w->s->files[fi], g->offset);
    bool explained = false;
    for (size_t j = 0; it && j < ours && !explained; j++)
      explained = w->d->v[j].src == g->src &&
                  w->d->v[j].offset >= it->at.begin &&
                  w->d->v[j].offset < it->at.end;
    if (!explained)
      diags_add(w->d, g->level, g->src, g->offset, NULL, "%s", g->message);
  }
  diags_release(&w->clang);
}
