/* sema.c: the rewriter's view of a translation unit through libclang (see
 * sema.h): the parse and the order of the passes.
 *
 * One parse of the probe text (probe.h) gives everything: libclang's own
 * errors, mapped back to the user's text (sema_errors.c); the function
 * after each file-scope directive (sema_functions.c); the statement after
 * each task directive, every call of a task function and every reference
 * to a variable, found by walking the functions that need it
 * (sema_walk.c); the types of the items, in the probe expressions
 * (sema_items.c, and sema_reductions.c for reductions); the captures of each
 * task body (sema_captures.c), the function's declarations it needs
 * (sema_locals.c), and the warnings about it (sema_warnings.c, with
 * sema_liveness.c, sema_item_warnings.c and sema_mpi_lint.c); and where
 * main returns, which waits for the tasks there (sema_main.c). Libclang's
 * cursors, types and offsets come through sema_cursor.c. Also where libclang's
 * own headers are, which the driver must know. Only the sema files include
 * clang-c/Index.h. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Does the function at original offsets [begin, end) of the main file hold
 * anything to rewrite: a directive, or maybe a call of a task function (its
 * name, or a macro that may hide it)? The others need no walk, and most
 * functions of a big file are others. `macros` are the offsets of the main
 * file's macro expansions, in order. */
static bool needs_walk(const struct walker *w, unsigned begin, unsigned end,
                       const unsigned *macros, unsigned nmacros) {
  const struct unit_file *f = &w->s->files[0];
  for (unsigned k = 0; k < f->scan.ndirectives; k++)
    if (in_span((struct span){begin, end}, f->scan.directives[k].at.begin))
      return true;
  if (w->s->nfunctions == 0)
    return false;
  unsigned lo = 0, hi = nmacros; /* the first expansion at or after begin */
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (macros[mid] < begin)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < nmacros && macros[lo] < end)
    return true;
  for (unsigned i = 0; i < w->s->nfunctions; i++) {
    const char *name = w->s->functions[i].name;
    size_t len = strlen(name);
    for (const char *p = f->src.text + begin;
         (p = memmem(p, f->src.text + end - p, name, len)) != NULL; p++) {
      bool starts = p == f->src.text || !is_identifier_char(p[-1]);
      if (starts && !is_identifier_char(p[len]))
        return true;
    }
  }
  return false;
}

static int by_value(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

static void walk_main_functions(struct walker *w, const struct kids *top) {
  unsigned *macros = xmalloc((top->n + 1) * sizeof *macros), nmacros = 0;
  for (unsigned i = 0; i < top->n; i++) {
    unsigned at;
    if (clang_getCursorKind(top->v[i]) == CXCursor_MacroExpansion &&
        where(w, clang_getCursorLocation(top->v[i]), &at) == 0)
      macros[nmacros++] = origin(w, 0, at);
  }
  qsort(macros, nmacros, sizeof *macros, by_value);
  for (unsigned i = 0; i < top->n; i++) {
    CXCursor c = top->v[i];
    int file;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl ||
        !clang_isCursorDefinition(c) || is_probe_function(c))
      continue;
    struct span at = extent_of(w, c, &file);
    if (file != 0)
      continue;
    unsigned begin = origin(w, 0, at.begin), end = origin_end(w, 0, at.end);
    if (!needs_walk(w, begin, end, macros, nmacros))
      continue;
    w->toplevel = (struct span){begin, end};
    walk_children_from(w, c, 0);
  }
  free(macros);
}

/* The `#if` groups libclang's preprocessor skipped in file fi (NULL: none
 * known); the caller disposes of the list. */
static CXSourceRangeList *skipped_ranges(const struct walker *w, unsigned fi) {
  return w->cxfiles[fi] ? clang_getSkippedRanges(w->tu, w->cxfiles[fi]) : NULL;
}

/* Whether original offset `at` of file fi lies in one of `ranges`. */
static bool skipped(const struct walker *w, unsigned fi,
                    const CXSourceRangeList *ranges, unsigned at) {
  for (unsigned r = 0; ranges && r < ranges->count; r++) {
    unsigned b, e;
    clang_getFileLocation(clang_getRangeStart(ranges->ranges[r]), NULL, NULL,
                          NULL, &b);
    clang_getFileLocation(clang_getRangeEnd(ranges->ranges[r]), NULL, NULL,
                          NULL, &e);
    if (at >= origin(w, (int)fi, b) && at < origin_end(w, (int)fi, e))
      return true;
  }
  return false;
}

/* Directives that libclang skipped (#if 0) are not part of the program. */
static void mark_active(struct walker *w) {
  for (unsigned fi = 0; fi < w->s->nfiles; fi++) {
    struct unit_file *f = &w->s->files[fi];
    CXSourceRangeList *ranges = skipped_ranges(w, fi);
    for (unsigned k = 0; k < f->scan.ndirectives; k++)
      f->active[k] = !skipped(w, fi, ranges, f->scan.directives[k].at.begin);
    if (ranges)
      clang_disposeSourceRangeList(ranges);
  }
}

/* -Wdag-openmp: without -fopenmp the compiler ignores OpenMP's pragmas, so
 * a port that keeps some (a taskwait above all) builds without a word.
 * Said once, at the first the preprocessor keeps. */
static void warn_openmp(struct walker *w) {
  if (w->s->openmp)
    return;
  const struct source *src = &w->s->files[0].src;
  struct scan_openmp *omp;
  unsigned n = scan_openmp_pragmas(src, &omp);
  CXSourceRangeList *ranges = skipped_ranges(w, 0);
  for (unsigned i = 0; i < n; i++) {
    if (skipped(w, 0, ranges, omp[i].at.begin))
      continue;
    struct span name = omp[i].name;
    diags_add(w->d, DIAG_WARNING, src, omp[i].at.begin, "-Wdag-openmp",
              "dagcc ignores OpenMP pragmas: this '#pragma omp%s%.*s' and "
              "the file's other '#pragma omp' lines have no effect (write "
              "them as dag pragmas: see docs/porting.md)",
              name.end > name.begin ? " " : "", (int)(name.end - name.begin),
              src->text + name.begin);
    break;
  }
  if (ranges)
    clang_disposeSourceRangeList(ranges);
  free(omp);
}

/* Every active directive inside a function must have found its place; in
 * a header none can, since only the main file is rewritten. */
static void check_bound(struct walker *w) {
  for (unsigned fi = 1; fi < w->s->nfiles; fi++) {
    const struct unit_file *h = &w->s->files[fi];
    for (unsigned k = 0; k < h->scan.ndirectives; k++)
      if (h->ok[k] && h->active[k] && !h->scan.directives[k].file_scope)
        diag_error(w->d, &h->src, h->dirs[k].at.begin,
                   "'#pragma dag %s' inside a function of a header: only "
                   "the file being compiled is rewritten, so move the "
                   "function into a .c file%s",
                   h->dirs[k].kind == DIRECTIVE_TASK ? "task" : "taskwait",
                   h->dirs[k].kind == DIRECTIVE_TASK
                       ? ", or keep it in the header without the pragma and "
                         "make its calls in the .c file tasks (see "
                         "docs/porting.md)"
                       : "");
  }
  const struct unit_file *f = &w->s->files[0];
  for (unsigned k = 0; k < f->scan.ndirectives; k++) {
    if (!f->ok[k] || !f->active[k] || f->scan.directives[k].file_scope)
      continue;
    bool bound = false; /* or already reported */
    for (size_t i = 0; i < w->d->n && !bound; i++)
      bound =
          w->d->v[i].src == &f->src && w->d->v[i].offset == f->dirs[k].at.begin;
    for (unsigned t = 0; t < w->s->ntasks && !bound; t++)
      bound = w->s->tasks[t].kind != TASK_CALL && w->s->tasks[t].directive == k;
    struct openmp_construct *omp = openmp_around(w, f->dirs[k].at.begin);
    if (!bound && omp) {
      diag_error(w->d, &f->src, f->dirs[k].at.begin,
                 "'#pragma dag %s' is inside an OpenMP construct, which "
                 "dagcc cannot rewrite",
                 f->dirs[k].kind == DIRECTIVE_TASK ? "task" : "taskwait");
      if (!omp->noted)
        note_openmp(w, omp->at.begin);
      omp->noted = true;
    } else if (!bound) {
      diag_error(w->d, &f->src, f->dirs[k].at.begin,
                 "'#pragma dag %s' is not in a place where a statement can "
                 "be",
                 f->dirs[k].kind == DIRECTIVE_TASK ? "task" : "taskwait");
    }
  }
}

static void release_walker(struct walker *w) {
  for (unsigned t = 0; t < w->s->ntasks; t++) {
    struct task_state *st = &w->states[t];
    free(st->uses.v);
    free(st->locals.v);
    free(st->shared.v);
    free(st->named.v);
    free(st->private.v);
    free(st->written.v);
    free(st->reduced.v);
    free(st->seen.v);
  }
  free(w->states);
  free(w->refs);
  free(w->path.v);
  free(w->canonical);
  free(w->cxfiles);
  free(w->omp);
}

int sema_analyse(struct sema *s, const char *const *args, int nargs,
                 struct diags *diags, struct source **extra, unsigned *nextra) {
  CXIndex index = clang_createIndex(0, 0);
  struct CXUnsavedFile *unsaved = xcalloc(s->nfiles, sizeof *unsaved);
  for (unsigned i = 0; i < s->nfiles; i++)
    unsaved[i] = (struct CXUnsavedFile){
        s->files[i].src.path, s->files[i].probe.text, s->files[i].probe.len};
  const char **argv = xcalloc((size_t)nargs + 2, sizeof *argv);
  for (int i = 0; i < nargs; i++)
    argv[i] = args[i];
  argv[nargs] = "-ferror-limit=0";
  CXTranslationUnit tu = NULL;
  enum CXErrorCode rc = clang_parseTranslationUnit2(
      index, s->files[0].src.path, argv, nargs + 1, unsaved, s->nfiles,
      CXTranslationUnit_KeepGoing |
          CXTranslationUnit_DetailedPreprocessingRecord |
          CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
      &tu);
  free(argv);
  free(unsaved);
  if (rc != CXError_Success || !tu) {
    diag_error(diags, NULL, 0, "libclang could not parse '%s' (error %d)",
               s->files[0].src.path, (int)rc);
    clang_disposeIndex(index);
    return -1;
  }
  struct walker w = {.s = s, .d = diags, .tu = tu};
  w.cxfiles = xcalloc(s->nfiles, sizeof *w.cxfiles);
  for (unsigned i = 0; i < s->nfiles; i++)
    w.cxfiles[i] = clang_getFile(tu, s->files[i].src.path);
  report_clang(&w);
  mark_active(&w);
  warn_openmp(&w);
  struct kids top = children(clang_getTranslationUnitCursor(tu));
  bind_functions(&w, &top);
  walk_main_functions(&w, &top);
  find_main_returns(&w, &top);
  free(top.v);
  check_bound(&w);
  resolve_refs(&w);
  merge_clang_errors(&w);
  *extra = w.extra;
  *nextra = w.nextra;
  release_walker(&w);
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  return diags_failed(diags) ? -1 : 0;
}

struct found_header {
  char *path;
};

static void note_inclusion(CXFile included, CXSourceLocation *stack,
                           unsigned depth, CXClientData data) {
  struct found_header *h = data;
  if (depth == 1 && !h->path)
    h->path = take(clang_File_tryGetRealPathName(included));
}

char *sema_builtin_headers(void) {
  /* Where libclang finds <stddef.h> when it may search only its own
   * folder. */
  static const char probe[] = "#include <stddef.h>\n";
  struct CXUnsavedFile file = {"__dag_builtin.c", probe, sizeof probe - 1};
  const char *argv[] = {"-nostdlibinc"};
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit tu = NULL;
  struct found_header h = {NULL};
  if (clang_parseTranslationUnit2(index, file.Filename, argv, 1, &file, 1,
                                  CXTranslationUnit_None,
                                  &tu) == CXError_Success) {
    clang_getInclusions(tu, note_inclusion, &h);
    clang_disposeTranslationUnit(tu);
  }
  clang_disposeIndex(index);
  char *slash = h.path ? strrchr(h.path, '/') : NULL;
  if (!slash || slash == h.path) {
    free(h.path);
    return NULL;
  }
  *slash = '\0';
  return h.path;
}

void sema_release(struct sema *s) {
  for (unsigned t = 0; t < s->ntasks; t++) {
    for (unsigned v = 0; v < s->tasks[t].nvars; v++) {
      free(s->tasks[t].vars[v].name);
      free(s->tasks[t].vars[v].type);
      free(s->tasks[t].vars[v].elem);
    }
    free(s->tasks[t].vars);
    free(s->tasks[t].locals);
    for (unsigned i = 0; i < s->tasks[t].nlocal_names; i++)
      free(s->tasks[t].local_names[i].name);
    free(s->tasks[t].local_names);
    free(s->tasks[t].label);
  }
  free(s->tasks);
  for (unsigned f = 0; f < s->nfunctions; f++) {
    for (unsigned p = 0; p < s->functions[f].nparams; p++) {
      free(s->functions[f].params[p].name);
      free(s->functions[f].params[p].type);
      free(s->functions[f].params[p].canonical);
    }
    free(s->functions[f].params);
    free(s->functions[f].name);
  }
  free(s->functions);
  free(s->refs);
  free(s->main_fn.returns);
  memset(&s->main_fn, 0, sizeof s->main_fn);
  s->tasks = NULL;
  s->functions = NULL;
  s->refs = NULL;
  s->ntasks = s->nfunctions = s->nrefs = 0;
}
