/* sema_warnings.c: the warnings about a task body: writes that no out,
 * inout or commutative item covers, nor shared() (-Wdag-uncovered-write);
 * and the entry to all the warnings about a task (its items' in
 * sema_item_warnings.c, the MPI lint in sema_mpi_lint.c). */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

/* The operand of pointer arithmetic (`p + k`, `k + p`, `p - k`) that is
 * the pointer or array; a null cursor for other operators. */
static CXCursor pointer_operand(CXCursor arithmetic) {
  struct kids ks = children(arithmetic);
  CXCursor p = clang_getNullCursor();
  for (unsigned i = 0; i < ks.n && clang_Cursor_isNull(p); i++) {
    enum CXTypeKind t = canonical(clang_getCursorType(strip(ks.v[i]))).kind;
    if (t == CXType_Pointer || is_array_kind(t))
      p = ks.v[i];
  }
  free(ks.v);
  return p;
}

CXCursor write_target(CXCursor lhs, bool *through_pointer) {
  for (;;) {
    lhs = strip(lhs);
    enum CXCursorKind k = clang_getCursorKind(lhs);
    if (k == CXCursor_DeclRefExpr)
      return clang_getCursorReferenced(lhs);
    struct kids ks = children(lhs);
    CXCursor inner = ks.n ? ks.v[0] : clang_getNullCursor();
    free(ks.v);
    if (clang_Cursor_isNull(inner))
      return inner;
    if (k == CXCursor_ArraySubscriptExpr) {
      /* A parameter declared as an array is a pointer too. */
      if (acts_as_pointer(strip(inner)))
        *through_pointer = true;
    } else if (k == CXCursor_MemberRefExpr) {
      if (canonical(clang_getCursorType(strip(inner))).kind == CXType_Pointer)
        *through_pointer = true;
    } else if (k == CXCursor_UnaryOperator) {
      /* Of C's unary operators only `*` gives something to write to, and
       * `*p` is `p[0]`: known by the operand's type, so that an accessor
       * macro hides nothing. */
      enum CXTypeKind t = canonical(clang_getCursorType(strip(inner))).kind;
      if (t != CXType_Pointer && !is_array_kind(t))
        return clang_getNullCursor();
      if (acts_as_pointer(strip(inner)))
        *through_pointer = true;
    } else if (k == CXCursor_BinaryOperator) {
      /* Under `*` or `[]`: `*(p + k)` writes through p. */
      inner = pointer_operand(lhs);
      if (clang_Cursor_isNull(inner))
        return inner;
      if (acts_as_pointer(strip(inner)))
        *through_pointer = true;
    } else {
      return clang_getNullCursor();
    }
    lhs = inner;
  }
}

struct write_check {
  struct walker *w;
  int task;
};

static void check_write(struct write_check *wc, CXCursor at, CXCursor lhs) {
  struct walker *w = wc->w;
  struct task_state *st = &w->states[wc->task];
  struct task *task = &w->s->tasks[wc->task];
  bool through_pointer = false;
  CXCursor var = write_target(lhs, &through_pointer);
  if (clang_Cursor_isNull(var) ||
      (clang_getCursorKind(var) != CXCursor_VarDecl &&
       clang_getCursorKind(var) != CXCursor_ParmDecl))
    return;
  unsigned key = decl_key(var);
  unsigned in_file;
  if (where(w, clang_getCursorLocation(var), &in_file) == 0 &&
      in_span(st->body_probe, key))
    return; /* the body's own variable */
  /* A variable named in shared() is the user's to protect (an atomic, a
   * lock of their own); what a pointer there points to is not. */
  if (key_set_has(&st->written, key) ||
      (!through_pointer && key_set_has(&st->named, key)))
    return;
  char *name = take(clang_getCursorSpelling(var));
  const struct capture_var *cap = NULL;
  for (unsigned i = 0; i < task->nvars; i++)
    if (task->vars[i].key == key)
      cap = &task->vars[i];
  unsigned off;
  int file = where(w, clang_getCursorLocation(at), &off);
  if (file < 0) {
    free(name);
    return;
  }
  const struct source *src = &w->s->files[file].src;
  off = origin(w, file, off);
  if (through_pointer)
    diags_add(w->d, DIAG_WARNING, src, off, "-Wdag-uncovered-write",
              "task body writes through '%s', but no out, inout or "
              "commutative item names it",
              name);
  else if (cap && (cap->how == CAPTURE_VALUE || cap->how == CAPTURE_PRIVATE)) {
    if (read_after_task(w, key))
      diags_add(w->d, DIAG_WARNING, src, off, "-Wdag-uncovered-write",
                "task body assigns '%s', its own copy of the variable: the "
                "value is lost when the task ends (name it in out, inout or "
                "shared() to write the submitter's '%s')",
                name, name);
  } else
    diags_add(w->d, DIAG_WARNING, src, off, "-Wdag-uncovered-write",
              "task body writes '%s', but no out, inout or commutative item "
              "names it",
              name);
  free(name);
}

bool is_write(const struct walker *w, CXCursor c, CXCursor *lhs) {
  enum CXCursorKind kind = clang_getCursorKind(c);
  if (kind != CXCursor_BinaryOperator &&
      kind != CXCursor_CompoundAssignOperator && kind != CXCursor_UnaryOperator)
    return false;
  struct kids ks = children(c);
  if (ks.n == 0) {
    free(ks.v);
    return false;
  }
  *lhs = ks.v[0];
  free(ks.v);
  bool writes = kind == CXCursor_CompoundAssignOperator;
  if (kind == CXCursor_BinaryOperator) {
    char *op = binary_operator(w->tu, c, *lhs);
    writes = strcmp(op, "=") == 0;
    free(op);
  } else if (kind == CXCursor_UnaryOperator) {
    char *op = unary_operator(w->tu, c);
    writes = !strcmp(op, "++") || !strcmp(op, "--");
    free(op);
  }
  return writes;
}

static enum CXChildVisitResult visit_writes(CXCursor c, CXCursor parent,
                                            CXClientData data) {
  struct write_check *wc = data;
  CXCursor lhs;
  if (is_write(wc->w, c, &lhs))
    check_write(wc, c, lhs);
  return CXChildVisit_Recurse;
}

void warn_about_task(struct walker *w, int t, CXCursor body) {
  for (size_t i = 0; i < w->d->n; i++)
    if (w->d->v[i].level == DIAG_ERROR)
      return; /* warnings about code that has errors help nobody */
  struct write_check wc = {w, t};
  visit_body(w, body, visit_writes, &wc);
  warn_about_items(w, t, body);
  lint_mpi_task(w, t, body);
}
