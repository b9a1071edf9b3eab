/* sema_reductions.c: the checks of `reduction(op: list)` items, in their
 * probe expressions (probe.h), and what a task needs for them.
 *
 * The runtime runs each task of a reduction group on a private copy of the
 * item's region, and the task reaches its copy because the runtime
 * translates the pointers of the task's argument block whose value lies in
 * the region (dag.h, DAG_REDUCE). Hence the rules here: the item's scalar
 * is one the runtime combines (and an integer for a bitwise operator); the
 * item starts where the pointer the task gets points, at its variable's
 * first element; a global named by an item travels to the body by address,
 * as a shared local does, instead of being named directly; and an item
 * that a task reduces appears in no other of its clauses. */
#include "sema_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error at probe offset `at` of unit file `file`. */
__attribute__((format(printf, 4, 5))) static void
reduction_error(struct walker *w, int file, unsigned at, const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  error_at(w, file, at, "%s%s", message, "");
}

/* The types of DAG_REDUCE_TYPES (an enumeration is one of its integer
 * types to _Generic). */
static bool reducible(CXType t) {
  switch (canonical(t).kind) {
  case CXType_Bool:
  case CXType_Char_U:
  case CXType_UChar:
  case CXType_Char_S:
  case CXType_SChar:
  case CXType_Short:
  case CXType_UShort:
  case CXType_Int:
  case CXType_UInt:
  case CXType_Long:
  case CXType_ULong:
  case CXType_LongLong:
  case CXType_ULongLong:
  case CXType_Enum:
  case CXType_Float:
  case CXType_Double:
  case CXType_LongDouble:
    return true;
  default:
    return false;
  }
}

static bool is_bitwise(enum dag_reduce_op op) {
  return op == DAG_REDUCE_BAND || op == DAG_REDUCE_BOR || op == DAG_REDUCE_BXOR;
}

/* The item's first element, `paren` of type `type`: the scalar it holds
 * first, which the runtime combines, and how many array levels down it is
 * (the emitter names it with as many `[0]`). */
static void check_element(struct walker *w, int file, CXCursor paren,
                          const struct clause *cl, struct item *it) {
  CXType t = canonical(clang_getCursorType(paren));
  if (t.kind == CXType_Invalid)
    return;
  it->scalar_levels = array_levels(t, &t);
  unsigned at;
  where(w, clang_getCursorLocation(paren), &at);
  char *text = item_text(&w->s->files[file], it);
  char *type = type_spelling(t);
  if (!reducible(t))
    reduction_error(w, file, at,
                    "reduction item '%s' holds values of type '%s', which a "
                    "reduction cannot combine: it needs an integer or real "
                    "floating type (not a pointer, structure, union or "
                    "complex number)",
                    text, type);
  else if (is_bitwise(cl->reduce) && !is_integer(t))
    reduction_error(w, file, at,
                    "reduction item '%s' holds values of type '%s', but the "
                    "operator '%s' needs an integer type",
                    text, type, reduce_op_name(cl->reduce));
  free(type);
  free(text);
}

/* The variable whose first element the item's base `e` starts at: `x`
 * itself, or the pointer `p` of `*p` (and of `p[0:n]`, `([m][n])p`, whose
 * base is p), with *through true when the item is what a pointer points
 * to; a null cursor for any other base. */
static CXCursor reduced_variable(struct walker *w, CXCursor e, bool *through) {
  e = strip(e);
  *through = false;
  if (clang_getCursorKind(e) == CXCursor_UnaryOperator) {
    char *op = unary_operator(w->tu, e);
    struct kids ks = children(e);
    CXCursor operand = ks.n == 1 && strcmp(op, "*") == 0
                           ? strip(ks.v[0])
                           : clang_getNullCursor();
    free(ks.v);
    free(op);
    if (clang_Cursor_isNull(operand))
      return operand;
    *through = true;
    e = operand;
  }
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
    return clang_getNullCursor();
  *through |= acts_as_pointer(e);
  CXCursor decl = clang_getCursorReferenced(e);
  enum CXCursorKind k = clang_getCursorKind(decl);
  return k == CXCursor_VarDecl || k == CXCursor_ParmDecl
             ? decl
             : clang_getNullCursor();
}

/* The item's base, `paren`: where the item starts, and how the body of the
 * task `task` (-1: a task function) reaches it. */
static void check_base(struct walker *w, int file, CXCursor paren,
                       const struct probe_point *p, int task) {
  const struct unit_file *f = &w->s->files[file];
  const struct item *it =
      &f->dirs[p->directive].clauses[p->clause].items[p->item];
  bool through;
  CXCursor var = reduced_variable(w, paren, &through);
  char *text = item_text(f, it);
  if (clang_Cursor_isNull(var)) {
    reduction_error(w, file, p->offset,
                    "reduction item '%s' must be a variable, '*p', or a "
                    "section of one from 0 such as 'a[0:n]': the task "
                    "reaches its private copy through the variable's "
                    "address or the pointer's value, where the item must "
                    "start",
                    text);
  } else if (task < 0 && clang_getCursorKind(var) != CXCursor_ParmDecl) {
    char *name = take(clang_getCursorSpelling(var));
    reduction_error(w, file, p->offset,
                    "reduction item '%s' of a task function names '%s', "
                    "which is not a parameter: the function would use it "
                    "directly, where the runtime cannot give it the task's "
                    "private copy; pass a pointer to it, and name what the "
                    "pointer points to",
                    text, name);
    free(name);
  } else if (task >= 0 && !is_local(var)) {
    /* A global: the body reaches it through the argument block, by
     * address, or by the pointer's value for what a pointer points to. */
    struct task_state *st = &w->states[task];
    unsigned key = decl_key(var);
    key_set_add(&st->reduced, key);
    if (!through)
      key_set_add(&st->shared, key);
  }
  free(text);
}

void check_reduction_point(struct walker *w, int file, CXCursor paren,
                           const struct probe_point *p, int task) {
  struct unit_file *f = &w->s->files[file];
  const struct clause *cl = &f->dirs[p->directive].clauses[p->clause];
  struct item *it = &cl->items[p->item];
  switch (p->role) {
  case PROBE_ADDRESS:
    if (it->nsubs == 0)
      check_element(w, file, paren, cl, it);
    if (it->nshape == 0)
      check_base(w, file, paren, p, task);
    break;
  case PROBE_BASE:
    if (it->nshape == 0)
      check_base(w, file, paren, p, task);
    break;
  case PROBE_SHAPED:
    check_base(w, file, paren, p, task);
    break;
  case PROBE_ELEMENT:
    check_element(w, file, paren, cl, it);
    break;
  case PROBE_LO: {
    const char *lo = it->subs[p->sub].lo.text;
    if (strcmp(lo, "0") != 0) {
      char *text = item_text(f, it);
      reduction_error(w, file, p->offset,
                      "reduction item '%s' must start at the first element "
                      "of its variable, not at '%s': the task reaches its "
                      "private copy through the variable's address or the "
                      "pointer's value; reduce a section from 0, such as "
                      "'a[0:n]'",
                      text, lo);
      free(text);
    }
    break;
  }
  default:
    break;
  }
}

/* ------------------------------------------------- items named twice */

struct named_item {
  const struct probe_point *point;
  unsigned key;
};

struct named_items {
  struct walker *w;
  int file;
  struct named_item *v;
  unsigned n, cap;
};

static enum CXChildVisitResult gather_items(CXCursor c, CXCursor parent,
                                            CXClientData data) {
  struct named_items *ni = data;
  unsigned at;
  if (clang_getCursorKind(c) != CXCursor_ParenExpr ||
      where(ni->w, clang_getCursorLocation(c), &at) != ni->file)
    return CXChildVisit_Recurse;
  const struct probe_point *p = point_at(ni->w, ni->file, at);
  if (!p)
    return CXChildVisit_Recurse;
  const struct clause *cl =
      &ni->w->s->files[ni->file].dirs[p->directive].clauses[p->clause];
  bool shaped = cl->nitems > p->item && cl->items[p->item].nshape > 0;
  bool base = shaped ? p->role == PROBE_SHAPED
                     : p->role == PROBE_ADDRESS || p->role == PROBE_BASE;
  CXCursor var = item_variable(c, true);
  /* firstprivate(x) would give the body a copy of a reduced x. */
  bool copied = cl->kind == CLAUSE_FIRSTPRIVATE && p->role == PROBE_NAME;
  if (((clause_is_dependency(cl->kind) && base) || copied) &&
      !clang_Cursor_isNull(var)) {
    GROW(ni->v, ni->n, ni->cap);
    ni->v[ni->n++] = (struct named_item){p, decl_key(var)};
  }
  return CXChildVisit_Continue;
}

void check_reduction_items(struct walker *w, int file, unsigned directive,
                           CXCursor probes) {
  const struct unit_file *f = &w->s->files[file];
  bool reduces = false;
  for (unsigned c = 0; c < f->dirs[directive].nclauses; c++)
    reduces |= f->dirs[directive].clauses[c].kind == CLAUSE_REDUCTION;
  if (!reduces)
    return;
  struct named_items ni = {w, file, NULL, 0, 0};
  clang_visitChildren(probes, gather_items, &ni);
  for (unsigned j = 0; j < ni.n; j++) {
    const struct probe_point *b = ni.v[j].point;
    const struct directive *d = &f->dirs[b->directive];
    for (unsigned i = 0; i < j; i++) {
      const struct probe_point *a = ni.v[i].point;
      if (ni.v[i].key != ni.v[j].key ||
          (d->clauses[a->clause].kind != CLAUSE_REDUCTION &&
           d->clauses[b->clause].kind != CLAUSE_REDUCTION))
        continue;
      char *text = item_text(f, &d->clauses[b->clause].items[b->item]);
      reduction_error(w, file, b->offset,
                      "'%s' is named in clause '%s' of this task too: an "
                      "item that a task reduces may appear in no other "
                      "clause, nor twice",
                      text, clause_name(d->clauses[a->clause].kind));
      free(text);
      break;
    }
  }
  free(ni.v);
}
