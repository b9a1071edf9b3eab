/* sema_functions.c: task functions, the functions declared after a
 * file-scope `#pragma dag task`: their parameters, their variants
 * (`implements`), and the check of their clauses in their probe
 * functions. */
#include "sema_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool is_probe_function(CXCursor c) {
  char *name = take(clang_getCursorSpelling(c));
  bool probe =
      strncmp(name, PROBE_FUNCTION_PREFIX, strlen(PROBE_FUNCTION_PREFIX)) == 0;
  free(name);
  return probe;
}

int task_function_of(const struct walker *w, CXCursor fn) {
  CXCursor canon = clang_getCanonicalCursor(fn);
  for (unsigned i = 0; i < w->s->nfunctions; i++)
    if (clang_equalCursors(canon, w->canonical[i]))
      return (int)i;
  return -1;
}

static void add_function(struct walker *w, int file, unsigned k,
                         CXCursor decl) {
  struct sema *s = w->s;
  const struct unit_file *uf = &s->files[file];
  int twice = task_function_of(w, decl);
  if (twice >= 0) {
    unsigned line, col;
    const struct task_function *first = &s->functions[twice];
    source_position(&first->file->src,
                    first->file->dirs[first->directive].at.begin, &line, &col);
    diag_error(w->d, &uf->src, uf->dirs[k].at.begin,
               "'%s' is a task function already (its '#pragma dag task' is "
               "at %s:%u): give the pragma once",
               first->name, first->file->src.path, line);
    return;
  }
  if (clang_isFunctionTypeVariadic(clang_getCursorType(decl)) == 1) {
    char *name = take(clang_getCursorSpelling(decl));
    diag_error(w->d, &uf->src, uf->dirs[k].at.begin,
               "task function '%s' takes a variable number of arguments: a "
               "task cannot keep them for later",
               name);
    free(name);
    return;
  }
  if (s->nfunctions == w->cap_functions) {
    w->cap_functions = w->cap_functions ? 2 * w->cap_functions : 8;
    s->functions =
        xrealloc(s->functions, w->cap_functions * sizeof *s->functions);
    w->canonical =
        xrealloc(w->canonical, w->cap_functions * sizeof *w->canonical);
  }
  struct task_function *f = &s->functions[s->nfunctions];
  w->canonical[s->nfunctions++] = clang_getCanonicalCursor(decl);
  int n = clang_Cursor_getNumArguments(decl);
  *f = (struct task_function){
      .file = &s->files[file],
      .directive = k,
      .name = take(clang_getCursorSpelling(decl)),
      .params = xcalloc(n > 0 ? (size_t)n : 1, sizeof *f->params),
      .nparams = n > 0 ? (unsigned)n : 0,
      .in_main = file == 0,
      .implements = -1};
  for (unsigned i = 0; i < f->nparams; i++) {
    CXCursor p = clang_Cursor_getArgument(decl, i);
    CXType t = clang_getCursorType(p);
    bool adjusted = is_array_kind(canonical(t).kind);
    if (adjusted) /* a parameter declared as an array is a pointer */
      t = clang_getArrayElementType(canonical(t));
    f->params[i] =
        (struct param){take(clang_getCursorSpelling(p)), type_spelling(t),
                       type_spelling(canonical(t)),
                       adjusted ? is_variably_modified(t)
                                : is_variably_modified(clang_getCursorType(p)),
                       adjusted || canonical(t).kind == CXType_Pointer};
    if (adjusted) {
      char *elem = f->params[i].type;
      f->params[i].type = xasprintf("__typeof__(%s) *", elem);
      free(elem);
      elem = f->params[i].canonical;
      f->params[i].canonical = xasprintf("%s *", elem);
      free(elem);
    }
    if (!f->params[i].name[0]) {
      free(f->params[i].name);
      f->params[i].name = xasprintf("__dag_param%u", i);
    }
  }
  if (file == 0) {
    int fi;
    struct span ext = extent_of(w, decl, &fi);
    unsigned end = statement_end(&s->files[0], origin_end(w, 0, ext.end),
                                 clang_isCursorDefinition(decl));
    f->decl = (struct span){origin(w, 0, ext.begin), end};
  }
  CXType result = clang_getResultType(clang_getCursorType(decl));
  if (canonical(result).kind != CXType_Void) {
    char *t = type_spelling(result);
    diags_add(w->d, DIAG_WARNING, &s->files[file].src,
              s->files[file].dirs[k].at.begin, "-Wdag-task-result",
              "task function '%s' returns '%s': its value is lost, since a "
              "task's result cannot be used",
              f->name, t);
    free(t);
  }
}

/* `implements(f)`: f is a task function declared before, with the same
 * parameters, so that the variant can run on f's argument copy. */
static void resolve_variants(struct walker *w) {
  struct sema *s = w->s;
  for (unsigned v = 0; v < s->nfunctions; v++) {
    struct task_function *fn = &s->functions[v];
    const struct directive *d = &fn->file->dirs[fn->directive];
    const struct clause *cl = NULL;
    for (unsigned c = 0; c < d->nclauses; c++)
      if (d->clauses[c].kind == CLAUSE_IMPLEMENTS)
        cl = &d->clauses[c];
    if (!cl || !cl->arg.text)
      continue;
    const struct source *src = &fn->file->src;
    int target = -1;
    for (unsigned f = 0; f < v && target < 0; f++)
      if (strcmp(s->functions[f].name, cl->arg.text) == 0)
        target = (int)f;
    if (target < 0) {
      diag_error(w->d, src, cl->arg.at.begin,
                 "'%s' is not a task function declared before '%s'",
                 cl->arg.text, fn->name);
      continue;
    }
    const struct task_function *base = &s->functions[target];
    bool same = base->nparams == fn->nparams && base->implements < 0;
    for (unsigned p = 0; same && p < fn->nparams; p++)
      same = strcmp(base->params[p].canonical, fn->params[p].canonical) == 0;
    if (!same) {
      diag_error(w->d, src, cl->arg.at.begin,
                 "variant '%s' must take the same parameters as '%s', a task "
                 "function that is no variant itself",
                 fn->name, base->name);
      continue;
    }
    fn->implements = target;
  }
}

void bind_functions(struct walker *w, const struct kids *top) {
  for (unsigned fi = 0; fi < w->s->nfiles; fi++) {
    struct unit_file *f = &w->s->files[fi];
    for (unsigned k = 0; k < f->scan.ndirectives; k++) {
      if (!f->ok[k] || !f->active[k] || !f->scan.directives[k].file_scope)
        continue;
      if (f->dirs[k].kind == DIRECTIVE_TASKWAIT) {
        diag_error(w->d, &f->src, f->dirs[k].at.begin,
                   "'#pragma dag taskwait' must be inside a function");
        continue;
      }
      /* The first declaration after the directive (the preprocessing
       * record's cursors come first in the list, out of order). */
      CXCursor decl = clang_getNullCursor();
      unsigned best = UINT_MAX;
      for (unsigned i = 0; i < top->n; i++) {
        unsigned at;
        CXCursor c = top->v[i];
        if (clang_isPreprocessing(clang_getCursorKind(c)) ||
            where(w, clang_getRangeStart(clang_getCursorExtent(c)), &at) !=
                (int)fi ||
            is_probe_function(c))
          continue;
        at = origin(w, (int)fi, at);
        if (at >= f->dirs[k].at.end && at < best) {
          best = at;
          decl = c;
        }
      }
      if (clang_Cursor_isNull(decl) ||
          clang_getCursorKind(decl) != CXCursor_FunctionDecl) {
        diag_error(w->d, &f->src, f->dirs[k].at.begin,
                   "'#pragma dag task' at file scope must be followed by a "
                   "function declaration");
        continue;
      }
      check_placement(w, f, k, true);
      add_function(w, (int)fi, k, decl);
    }
  }
  resolve_variants(w);
  for (unsigned f = 0; f < w->s->nfunctions; f++)
    lint_mpi_function(w, &w->s->functions[f]);
  /* The clauses of task functions, checked in their probe functions. */
  for (unsigned i = 0; i < top->n; i++) {
    unsigned at;
    int fi = where(w, clang_getCursorLocation(top->v[i]), &at);
    if (fi >= 0 && is_probe_function(top->v[i])) {
      struct probe_visit v = {w, fi, -1};
      clang_visitChildren(top->v[i], visit_probes, &v);
      int k = anchored(w, fi, at);
      if (k >= 0)
        check_reduction_items(w, fi, (unsigned)k, top->v[i]);
    }
  }
}
