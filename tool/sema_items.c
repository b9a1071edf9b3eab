/* sema_items.c: the checks of the clauses' expressions, each in its probe
 * expression (probe.h): items are complete objects, sections of arrays or
 * pointers, with integer bounds; a written item is not const; names in
 * shared() and firstprivate() are local variables. What a task needs from
 * its items (the variables they share, those they write) is noted in its
 * state for the captures and the warnings. */
#include "sema_internal.h"

#include <stdlib.h>

bool acts_as_pointer(CXCursor c) {
  CXType t = canonical(clang_getCursorType(c));
  if (t.kind == CXType_Pointer)
    return true;
  if (!is_array_kind(t.kind))
    return false;
  CXCursor decl = clang_getCursorKind(c) == CXCursor_DeclRefExpr
                      ? clang_getCursorReferenced(c)
                      : c;
  return clang_getCursorKind(decl) == CXCursor_ParmDecl;
}

CXCursor item_variable(CXCursor e, bool through_pointers) {
  for (;;) {
    e = strip(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_DeclRefExpr)
      return clang_getCursorReferenced(e);
    if (k != CXCursor_MemberRefExpr && k != CXCursor_ArraySubscriptExpr &&
        !(through_pointers && k == CXCursor_UnaryOperator))
      return clang_getNullCursor();
    struct kids ks = children(e);
    CXCursor base = ks.n ? strip(ks.v[0]) : clang_getNullCursor();
    free(ks.v);
    if (clang_Cursor_isNull(base))
      return base;
    /* Through a pointer (`p->f`, `p[i]`) the memory is not the variable. */
    if (!through_pointers &&
        (k == CXCursor_ArraySubscriptExpr
             ? acts_as_pointer(base)
             : canonical(clang_getCursorType(base)).kind == CXType_Pointer))
      return clang_getNullCursor();
    e = base;
  }
}

static bool is_write_mode(enum clause_kind k) {
  return k == CLAUSE_OUT || k == CLAUSE_INOUT || k == CLAUSE_COMMUTATIVE ||
         k == CLAUSE_REDUCTION;
}

/* Is the object of type `t` (or its elements) const? */
static bool object_is_const(CXType t) {
  t = canonical(t);
  /* libclang drops the const of an array's elements when it gives the
   * element type: test at each level. */
  while (is_array_kind(t.kind) && !clang_isConstQualifiedType(t))
    t = canonical(clang_getArrayElementType(t));
  return clang_isConstQualifiedType(t);
}

/* A region needs the size of its object. */
static bool check_complete(struct walker *w, int file, unsigned at,
                           const char *what, CXType type) {
  CXType t = canonical(type);
  /* Variable-length arrays have a size too, only not a constant one. */
  if (t.kind != CXType_Void &&
      clang_Type_getSizeOf(t) != CXTypeLayoutError_Incomplete)
    return true;
  char *tname = type_spelling(type);
  error_at(w, file, at,
           "'%s' has incomplete type '%s': the size of its region is not "
           "known",
           what, tname);
  free(tname);
  return false;
}

/* Checks one probe expression and records what the task needs from it. */
static void check_point(struct walker *w, int file, CXCursor paren,
                        const struct probe_point *p, int task) {
  const struct unit_file *f = &w->s->files[file];
  const struct clause *cl = &f->dirs[p->directive].clauses[p->clause];
  CXType type = clang_getCursorType(paren);
  if (type.kind == CXType_Invalid)
    return; /* libclang reported why */
  struct task_state *st = task >= 0 ? &w->states[task] : NULL;
  char *what = p->role == PROBE_ARG || p->role == PROBE_NAME
                   ? xstrdup(cl->arg.text ? cl->arg.text : "")
                   : item_text(f, &cl->items[p->item]);
  char *tname = type_spelling(type);
  if (cl->kind == CLAUSE_REDUCTION)
    check_reduction_point(w, file, paren, p, task);
  if (p->role != PROBE_ARG && p->role != PROBE_NAME &&
      cl->items[p->item].part != DAG_FULL)
    check_part_point(w, file, paren, p);
  switch (p->role) {
  case PROBE_ADDRESS:
  case PROBE_BASE:
    if (p->role == PROBE_BASE) {
      enum CXTypeKind k = canonical(type).kind;
      if (k != CXType_Pointer && !is_array_kind(k))
        error_at(w, file, p->offset,
                 "section of '%s', whose type '%s' is neither an array nor "
                 "a pointer",
                 what, tname);
    } else if (check_complete(w, file, p->offset, what, type) &&
               is_write_mode(cl->kind) && object_is_const(type)) {
      error_at(w, file, p->offset,
               "'%s' is const, but the clause '%s' "
               "writes it",
               what, clause_name(cl->kind));
    }
    CXCursor root = item_variable(paren, false);
    if (!st && f->scan.directives[p->directive].file_scope &&
        p->role == PROBE_ADDRESS && cl->kind != CLAUSE_ON) {
      if (!clang_Cursor_isNull(root) &&
          clang_getCursorKind(root) == CXCursor_ParmDecl) {
        char *param = take(clang_getCursorSpelling(root));
        error_at(w, file, p->offset,
                 "'%s' names the parameter '%s' itself: the task gets a copy "
                 "of its parameters, so this orders nothing; name the memory "
                 "it points to instead",
                 what, param);
        free(param);
      }
    }
    /* The variable an item names is shared; but a section through a
     * pointer variable shares what it points to, and the pointer is
     * copied. */
    unsigned root_key;
    if (st && cl->kind != CLAUSE_ON && !clang_Cursor_isNull(root) &&
        !(p->role == PROBE_BASE && acts_as_pointer(root)) && is_local(root) &&
        where(w, clang_getCursorLocation(root), &root_key) == 0)
      key_set_add(&st->shared, root_key);
    if (st && is_write_mode(cl->kind))
      clang_visitChildren(paren, gather_keys, &st->written);
    break;
  case PROBE_PREFIX:
    if (!is_array_kind(canonical(type).kind))
      error_at(w, file, p->offset,
               "in '%s', a subscript after the first section applies to "
               "'%s', which is not an array: the rows of a section must lie "
               "in one array (use a pointer to an array, such as "
               "'double (*a)[n]', or one item per row)",
               what, tname);
    break;
  case PROBE_ELEMENT:
    check_complete(w, file, p->offset, what, type);
    if (is_write_mode(cl->kind) && object_is_const(type))
      error_at(w, file, p->offset,
               "'%s' is const, but the clause '%s' "
               "writes it",
               what, clause_name(cl->kind));
    break;
  case PROBE_LO:
  case PROBE_LEN:
    if (!is_integer(type)) {
      error_at(w, file, p->offset, "the %s of section '%s' is not an integer",
               p->role == PROBE_LO ? "lower bound" : "length", what);
    } else if (p->role == PROBE_LEN) {
      long long value;
      if (constant_integer(paren, &value) && value < 0) {
        char *len = xasprintf("%lld", value);
        error_at(w, file, p->offset, "section '%s' has a negative length (%s)",
                 what, len);
        free(len);
      }
    }
    break;
  case PROBE_NAME: {
    free(what);
    what = item_text(f, &cl->items[p->item]);
    CXCursor ref = strip(paren);
    CXCursor decl = clang_getCursorReferenced(ref);
    bool named = clang_getCursorKind(ref) == CXCursor_DeclRefExpr;
    unsigned key;
    /* OpenMP's shared(global) says what holds anyway: a body uses a global
     * in place. */
    if (named && cl->kind == CLAUSE_SHARED &&
        clang_getCursorKind(decl) == CXCursor_VarDecl && !is_local(decl)) {
      if (st) /* the user protects its writes, as for a shared local */
        key_set_add(&st->named, decl_key(decl));
      break;
    }
    if (!named || !is_local(decl) ||
        where(w, clang_getCursorLocation(decl), &key) != 0) {
      error_at(w, file, p->offset,
               "'%s' in '%s' is not a local variable or parameter", what,
               clause_name(cl->kind));
    } else if (st && cl->kind == CLAUSE_SHARED) {
      key_set_add(&st->shared, key);
      key_set_add(&st->named, key);
    } else if (st) {
      key_set_add(&st->private, key);
    }
    break;
  }
  case PROBE_SHAPED: {
    CXType t = canonical(type);
    CXType pointee = canonical(clang_getPointeeType(t));
    if (t.kind != CXType_Pointer || pointee.kind == CXType_Void ||
        clang_Type_getSizeOf(pointee) == CXTypeLayoutError_Incomplete) {
      char *base = xstrdup(cl->items[p->item].base.text);
      error_at(w, file, p->offset,
               "array shaping of '%s', whose type '%s' is not a pointer to "
               "a complete object type",
               base, tname);
      free(base);
    }
    break;
  }
  case PROBE_ARG:
    break;
  }
  free(tname);
  free(what);
}

const struct probe_point *point_at(const struct walker *w, int file,
                                   unsigned at) {
  const struct probe_file *p = &w->s->files[file].probe;
  unsigned lo = 0, hi = p->npoints;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (p->points[mid].offset < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->npoints && p->points[lo].offset == at ? &p->points[lo] : NULL;
}

enum CXChildVisitResult visit_probes(CXCursor c, CXCursor parent,
                                     CXClientData data) {
  struct probe_visit *v = data;
  if (clang_getCursorKind(c) == CXCursor_ParenExpr) {
    unsigned at;
    if (where(v->w, clang_getCursorLocation(c), &at) == v->file) {
      const struct probe_point *p = point_at(v->w, v->file, at);
      if (p)
        check_point(v->w, v->file, c, p, v->task);
    }
  }
  return CXChildVisit_Recurse;
}
