/* sema_item_warnings.c: the warnings about a task's items, checked in
 * their probe expressions against what the body does: an in item the body
 * never reads (-Wdag-unused-in), and an item over pointers whose targets
 * the body uses (-Wdag-pointer-array): `inout(B[k:len])` on a `float **B`,
 * as OpenMP code ports `depend(inout: B[k:len])`, which OpenMP matches by
 * its start address only, while the body works on B[k][i]; or `out(S1)` on
 * a `double *S1`, OpenMP's token for "the matrix behind S1", which dag
 * takes for the pointer's own bytes (under MPI, what moves between
 * ranks). */
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

/* The key of `a` when `e` is the variable `a`; 0 otherwise. */
static unsigned variable_of(CXCursor e) {
  e = strip(e);
  return clang_getCursorKind(e) == CXCursor_DeclRefExpr
             ? decl_key(clang_getCursorReferenced(e))
             : 0;
}

struct deref_search {
  struct walker *w;
  unsigned key;  /* the array of pointers, or the pointer */
  bool elements; /* the pointers are a[i], not the variable itself */
  bool found;
};

/* Is `e` the pointer looked for: an element of the array, or the
 * variable? */
static bool is_the_pointer(const struct deref_search *ds, CXCursor e) {
  return (ds->elements ? element_of(e) : variable_of(e)) == ds->key;
}

/* Does `c` reach through the pointer (an element of the array, or the
 * variable p): `a[i][j]`, `*a[i]`, `a[i]->f`, or `f(a[i])`, which passes
 * the pointer on? */
static bool reaches_through(struct deref_search *ds, CXCursor c) {
  enum CXCursorKind kind = clang_getCursorKind(c);
  if (kind != CXCursor_ArraySubscriptExpr && kind != CXCursor_UnaryOperator &&
      kind != CXCursor_MemberRefExpr && kind != CXCursor_CallExpr)
    return false;
  struct kids ks = children(c);
  bool yes = false;
  if (kind == CXCursor_CallExpr) {
    for (unsigned i = 1; i < ks.n && !yes; i++)
      yes = is_the_pointer(ds, ks.v[i]);
  } else if (ks.n && is_the_pointer(ds, ks.v[0])) {
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

/* The warning for a pointer variable named whole as a token. */
static void warn_pointer_token(struct item_check *ic, CXCursor paren,
                               const struct unit_file *f,
                               const struct item *it) {
  char *text = item_text(f, it);
  char *type = type_spelling(clang_getCursorType(paren));
  diags_add(ic->w->d, DIAG_WARNING, &f->src, it->at.begin,
            "-Wdag-pointer-array",
            "item '%s' names the pointer variable ('%s'), not the memory "
            "the task body uses through it: name that memory, such as "
            "'%s[0:n]' for n elements (under MPI the pointer's own bytes "
            "would travel between ranks)",
            text, type, text);
  free(type);
  free(text);
}

struct own_write {
  struct walker *w;
  unsigned key;
  bool found;
};

/* Does the body assign the variable itself (`p = malloc(...)`, `p =
 * p->next`)? Then an item on it means the pointer's value, as written. */
static enum CXChildVisitResult find_own_write(CXCursor c, CXCursor parent,
                                              CXClientData data) {
  struct own_write *ow = data;
  CXCursor lhs;
  if (is_write(ow->w, c, &lhs)) {
    bool through_pointer = false;
    CXCursor var = write_target(lhs, &through_pointer);
    if (!clang_Cursor_isNull(var) && !through_pointer &&
        decl_key(var) == ow->key)
      ow->found = true;
  }
  return ow->found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* Whether `p[0:n]` would be an item: p points to a complete object type. */
static bool sectionable(CXCursor pointer) {
  CXType to =
      canonical(clang_getPointeeType(canonical(clang_getCursorType(pointer))));
  return to.kind != CXType_Void && to.kind != CXType_FunctionProto &&
         to.kind != CXType_FunctionNoProto && clang_Type_getSizeOf(to) > 0;
}

/* `paren` is the item's element (its one section's first, or the whole
 * item `a[i]` or `p`): when that is a pointer of an array `a`, or the
 * pointer variable `p`, that the body reaches through, the item names the
 * pointers and not what the body uses. */
static void check_pointer_array(struct item_check *ic, CXCursor paren,
                                const struct unit_file *f,
                                const struct item *it) {
  if (it->nshape || it->nsubs > 1 ||
      canonical(clang_getCursorType(paren)).kind != CXType_Pointer)
    return;
  struct deref_search ds = {ic->w, element_of(paren), true, false};
  if (!ds.key && it->nsubs == 0 && sectionable(paren)) {
    ds.key = variable_of(paren);
    ds.elements = false;
    struct own_write ow = {ic->w, ds.key, false};
    visit_body(ic->w, ic->body, find_own_write, &ow);
    if (ow.found)
      return;
  }
  if (!ds.key)
    return;
  visit_body(ic->w, ic->body, find_deref, &ds);
  if (!ds.found)
    return;
  if (!ds.elements) {
    warn_pointer_token(ic, paren, f, it);
    return;
  }
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
