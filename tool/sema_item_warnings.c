/* sema_item_warnings.c: the warnings about a task's items, checked in
 * their probe expressions against what the body does: an in item the body
 * never reads (-Wdag-unused-in), and an item over pointers whose targets
 * the body uses (-Wdag-pointer-array): `inout(B[k:len])` on a `float **B`,
 * as OpenMP code ports `depend(inout: B[k:len])`, which OpenMP matches by
 * its start address only, while the body works on B[k][i]. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

struct item_check {
  struct walker *w;
  int task;
  CXCursor body;
};

static void check_unused_in(struct item_check *ic, CXCursor paren,
                            const struct unit_file *f, const struct item *it) {
  struct key_set refs = {0};
  clang_visitChildren(paren, gather_keys, &refs);
  const struct task_state *st = &ic->w->states[ic->task];
  bool read = refs.n == 0;
  for (unsigned i = 0; i < refs.n && !read; i++)
    read = key_set_has(&st->seen, refs.v[i]);
  free(refs.v);
  if (read)
    return;
  char *text = item_text(f, it);
  diags_add(ic->w->d, DIAG_WARNING, &f->src, it->at.begin, "-Wdag-unused-in",
            "'in' item '%s' is never read by the task body", text);
  free(text);
}

/* The key of `a` when `e` is `a[i]` with `a` a variable; 0 otherwise (no
 * declaration is at offset 0 of a file, which holds at least a token). */
static unsigned element_of(CXCursor e) {
  e = strip(e);
  if (clang_getCursorKind(e) != CXCursor_ArraySubscriptExpr)
    return 0;
  struct kids ks = children(e);
  CXCursor base = ks.n ? strip(ks.v[0]) : clang_getNullCursor();
  free(ks.v);
  return clang_getCursorKind(base) == CXCursor_DeclRefExpr
             ? decl_key(clang_getCursorReferenced(base))
             : 0;
}

struct deref_search {
  struct walker *w;
  unsigned key; /* the array of pointers */
  bool found;
};

/* Does `c` reach through an element of the array: `a[i][j]`, `*a[i]`,
 * `a[i]->f`, or `f(a[i])`, which passes the pointer on? */
static bool reaches_through(struct deref_search *ds, CXCursor c) {
  enum CXCursorKind kind = clang_getCursorKind(c);
  if (kind != CXCursor_ArraySubscriptExpr && kind != CXCursor_UnaryOperator &&
      kind != CXCursor_MemberRefExpr && kind != CXCursor_CallExpr)
    return false;
  struct kids ks = children(c);
  bool yes = false;
  if (kind == CXCursor_CallExpr) {
    for (unsigned i = 1; i < ks.n && !yes; i++)
      yes = element_of(ks.v[i]) == ds->key;
  } else if (ks.n && element_of(ks.v[0]) == ds->key) {
    /* The operand, not the index; a dereference, not `&a[i]` or `a[i].f`. */
    char *op = kind == CXCursor_UnaryOperator ? unary_operator(ds->w->tu, c)
               : kind == CXCursor_MemberRefExpr
                   ? binary_operator(ds->w->tu, c, ks.v[0])
                   : xstrdup("[");
    yes = strcmp(op, "*") == 0 || strcmp(op, "->") == 0 || strcmp(op, "[") == 0;
    free(op);
  }
  free(ks.v);
  return yes;
}

static enum CXChildVisitResult find_deref(CXCursor c, CXCursor parent,
                                          CXClientData data) {
  struct deref_search *ds = data;
  if (reaches_through(ds, c)) {
    ds->found = true;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

/* `paren` is the item's element (its one section's first, or the whole
 * item `a[i]`): when that is a pointer of an array `a` the body reaches
 * through, the item names the pointers and not what the body uses. */
static void check_pointer_array(struct item_check *ic, CXCursor paren,
                                const struct unit_file *f,
                                const struct item *it) {
  if (it->nshape || it->nsubs > 1 ||
      canonical(clang_getCursorType(paren)).kind != CXType_Pointer)
    return;
  struct deref_search ds = {ic->w, element_of(paren), false};
  if (!ds.key)
    return;
  visit_body(ic->w, ic->body, find_deref, &ds);
  if (!ds.found)
    return;
  char *text = item_text(f, it);
  char *suggestion =
      it->nsubs ? xasprintf("%s[%s][0:n]", it->base.text,
                            it->subs[0].lo.text ? it->subs[0].lo.text : "0")
                : xasprintf("%s[0:n]", text);
  char *type = type_spelling(clang_getCursorType(paren));
  diags_add(ic->w->d, DIAG_WARNING, &f->src, it->at.begin,
            "-Wdag-pointer-array",
            "item '%s' names pointers ('%s'), but the task body uses what "
            "they point to: name that memory, such as '%s' for n elements",
            text, type, suggestion);
  free(type);
  free(suggestion);
  free(text);
}

static enum CXChildVisitResult visit_items(CXCursor c, CXCursor parent,
                                           CXClientData data) {
  struct item_check *ic = data;
  struct walker *w = ic->w;
  if (clang_getCursorKind(c) != CXCursor_ParenExpr)
    return CXChildVisit_Recurse;
  unsigned at;
  if (where(w, clang_getCursorLocation(c), &at) != 0)
    return CXChildVisit_Recurse;
  const struct probe_point *p = point_at(w, 0, at);
  if (!p)
    return CXChildVisit_Recurse;
  const struct unit_file *f = &w->s->files[0];
  const struct clause *cl = &f->dirs[p->directive].clauses[p->clause];
  if (!clause_is_dependency(cl->kind))
    return CXChildVisit_Continue;
  const struct item *it = &cl->items[p->item];
  if (cl->kind == CLAUSE_IN &&
      (p->role == PROBE_ADDRESS || p->role == PROBE_BASE))
    check_unused_in(ic, c, f, it);
  if ((p->role == PROBE_ADDRESS && it->nsubs == 0) || p->role == PROBE_ELEMENT)
    check_pointer_array(ic, c, f, it);
  return CXChildVisit_Continue;
}

void warn_about_items(struct walker *w, int t, CXCursor body) {
  struct item_check ic = {w, t, body};
  clang_visitChildren(w->states[t].probes, visit_items, &ic);
}
