/* sema_main.c: where `main` of the main file returns, so that the program
 * waits for its tasks there, as an OpenMP parallel region ends with a
 * barrier (emit.c writes the wait). Tasks may write main's locals: once main
 * has returned, its frame is gone while they still run. So each return
 * statement of main waits before its expression is evaluated (the
 * expression may read what a task wrote), and so does the end of its body
 * when control can fall off it. A return that a macro's definition spells
 * cannot be edited where it is written: the macro's invocation is, with
 * `return` itself defined as a macro around it. exit() is left alone: the
 * runtime waits for the tasks at exit, while main's frame is still there. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

struct return_visit {
  struct walker *w;
  const struct kids *top; /* the translation unit's cursors */
};

/* The original offsets of the widest macro invocation of the main file
 * that holds original offset `at`: the one a return spelled in a macro's
 * definition, or in a macro that another one's expansion holds, comes
 * from. {0, 0} when there is none. */
static struct span invocation_around(const struct walker *w,
                                     const struct kids *top, unsigned at) {
  struct span widest = {0, 0};
  for (unsigned i = 0; i < top->n; i++) {
    if (clang_getCursorKind(top->v[i]) != CXCursor_MacroExpansion)
      continue;
    int file;
    struct span sp = extent_of(w, top->v[i], &file);
    if (file != 0)
      continue;
    sp = (struct span){origin(w, 0, sp.begin), origin_end(w, 0, sp.end)};
    if (at >= sp.begin && at < sp.end &&
        sp.end - sp.begin > widest.end - widest.begin)
      widest = sp;
  }
  return widest;
}

static void add_return(struct sema *s, struct span at, bool macro,
                       bool in_argument) {
  for (unsigned i = 0; i < s->main_fn.nreturns; i++)
    if (s->main_fn.returns[i].at.begin == at.begin)
      return; /* another return of the same macro invocation */
  s->main_fn.returns =
      xrealloc(s->main_fn.returns,
               (s->main_fn.nreturns + 1) * sizeof *s->main_fn.returns);
  s->main_fn.returns[s->main_fn.nreturns++] =
      (struct main_return){at, macro, in_argument};
}

static enum CXChildVisitResult visit_return(CXCursor c, CXCursor parent,
                                            CXClientData data) {
  (void)parent;
  struct return_visit *v = data;
  enum CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_BlockExpr)
    return CXChildVisit_Continue; /* a block's return leaves the block */
  if (kind != CXCursor_ReturnStmt)
    return CXChildVisit_Recurse;
  unsigned at;
  if (where(v->w, clang_getCursorLocation(c), &at) != 0)
    return CXChildVisit_Continue;
  at = origin(v->w, 0, at);
  struct span inv = invocation_around(v->w, v->top, at);
  bool in_macro = inv.end > inv.begin;
  if (spelled_as(v->w, (struct span){at, at + 6}, "return"))
    add_return(v->w->s, (struct span){at, at}, false, in_macro);
  else if (in_macro)
    add_return(v->w->s, inv, true, false);
  return CXChildVisit_Recurse; /* a statement expression may hold more */
}

/* Whether control may reach the end of main's body `body`: it does not
 * end with a return statement. */
static bool may_fall_off(CXCursor body) {
  struct kids ks = children(body);
  bool falls =
      ks.n == 0 || clang_getCursorKind(ks.v[ks.n - 1]) != CXCursor_ReturnStmt;
  free(ks.v);
  return falls;
}

void find_main_returns(struct walker *w, const struct kids *top) {
  struct sema *s = w->s;
  for (unsigned i = 0; i < top->n; i++) {
    CXCursor c = top->v[i];
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl ||
        !clang_isCursorDefinition(c))
      continue;
    char *name = take(clang_getCursorSpelling(c));
    bool is_main = strcmp(name, "main") == 0;
    free(name);
    int file;
    struct span at = extent_of(w, c, &file);
    if (!is_main || file != 0)
      continue;
    struct kids ks = children(c);
    CXCursor body = ks.n ? ks.v[ks.n - 1] : clang_getNullCursor();
    free(ks.v);
    if (clang_getCursorKind(body) != CXCursor_CompoundStmt)
      return;
    struct span b = extent_of(w, body, &file);
    b = (struct span){origin(w, 0, b.begin), origin_end(w, 0, b.end)};
    const char *text = s->files[0].src.text;
    s->main_fn.present = true;
    s->main_fn.begin = origin(w, 0, at.begin);
    /* The end of the body gets a wait where the '}' is the file's own. */
    s->main_fn.end = b.end - 1;
    s->main_fn.falls_off =
        b.end > b.begin && text[b.end - 1] == '}' && may_fall_off(body);
    struct return_visit v = {w, top};
    clang_visitChildren(body, visit_return, &v);
    return;
  }
}
