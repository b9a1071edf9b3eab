/* sema_locals.c: the declarations of the enclosing function that a task
 * body needs: typedefs, struct, union and enum tags, enum constants, and
 * block-scope extern declarations of variables and functions. The body is
 * outlined after the function (emit.c), where they are out of scope, so
 * each one the body names, directly, through another such declaration or
 * through the type of a variable it captures, is declared again at the top
 * of the outlined body, in source order. A nested task's needs are its
 * enclosing tasks' too, since its submission is in their bodies. A
 * declaration that depends on the function's variables (`typedef double
 * row[n];`) cannot go along: an error. */
#include "sema_internal.h"

#include <stdlib.h>

/* Is `decl` declared inside a function (a local type or enumerator)? */
static bool declared_in_function(CXCursor decl) {
  for (CXCursor c = clang_getCursorSemanticParent(decl);
       !clang_Cursor_isNull(c) &&
       !clang_isTranslationUnit(clang_getCursorKind(c));
       c = clang_getCursorSemanticParent(c))
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl)
      return true;
  return false;
}

/* Is `decl` made inside a function, and one that a body may declare
 * again? */
static bool is_local_declaration(CXCursor decl) {
  switch (clang_getCursorKind(decl)) {
  case CXCursor_TypedefDecl:
  case CXCursor_StructDecl:
  case CXCursor_UnionDecl:
  case CXCursor_EnumDecl:
  case CXCursor_EnumConstantDecl:
    return declared_in_function(decl);
  case CXCursor_VarDecl:
    if (clang_Cursor_getStorageClass(decl) != CX_SC_Extern)
      return false;
    /* fall through */
  case CXCursor_FunctionDecl:
    return clang_getCursorKind(clang_getCursorLexicalParent(decl)) ==
           CXCursor_FunctionDecl;
  default:
    return false;
  }
}

/* What declares `decl` again: the enum of an enum constant; the definition
 * of a tag that has one. */
static CXCursor declaration_to_repeat(CXCursor decl) {
  if (clang_getCursorKind(decl) == CXCursor_EnumConstantDecl)
    decl = clang_getCursorSemanticParent(decl);
  CXCursor def = clang_getCursorDefinition(decl);
  return clang_Cursor_isNull(def) ? decl : def;
}

static bool declared_in_body(const struct walker *w, int t, CXCursor decl) {
  unsigned at;
  return where(w, clang_getCursorLocation(decl), &at) == 0 &&
         in_span(w->states[t].body_probe, at);
}

struct dependency_visit {
  struct walker *w;
  int task;
  CXCursor owner; /* the declaration whose text is visited */
};

/* What a repeated declaration names in its own text must come along. */
static enum CXChildVisitResult visit_dependencies(CXCursor c, CXCursor parent,
                                                  CXClientData data) {
  struct dependency_visit *v = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k != CXCursor_TypeRef && k != CXCursor_DeclRefExpr)
    return CXChildVisit_Recurse;
  CXCursor ref = clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(ref))
    return CXChildVisit_Recurse;
  if (is_local(ref)) {
    char *owner = take(clang_getCursorSpelling(v->owner));
    char *var = take(clang_getCursorSpelling(ref));
    error_cursor(v->w, c,
                 "a task body needs '%s', which is declared inside the "
                 "function with its variable '%s': a task body cannot take "
                 "it along (declare it in the task body)",
                 owner, var);
    free(owner);
    free(var);
    return CXChildVisit_Continue;
  }
  need_declaration(v->w, v->task, ref);
  return CXChildVisit_Recurse;
}

void need_declaration(struct walker *w, int t, CXCursor decl) {
  if (!is_local_declaration(decl))
    return;
  decl = declaration_to_repeat(decl);
  unsigned key = decl_key(decl);
  bool added = false;
  for (int u = t; u >= 0 && !declared_in_body(w, u, decl);
       u = w->s->tasks[u].parent) {
    if (!decl_set_add(&w->states[u].locals, key, decl))
      break; /* and so its enclosing tasks have it */
    added = true;
  }
  if (added) {
    struct dependency_visit v = {w, t, decl};
    clang_visitChildren(decl, visit_dependencies, &v);
  }
}

void need_type(struct walker *w, int t, CXType type) {
  for (;;) {
    switch (type.kind) {
    case CXType_Elaborated:
      type = clang_Type_getNamedType(type);
      break;
    case CXType_Pointer:
      type = clang_getPointeeType(type);
      break;
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
    case CXType_VariableArray:
      type = clang_getArrayElementType(type);
      break;
    case CXType_Typedef:
    case CXType_Record:
    case CXType_Enum:
      need_declaration(w, t, clang_getTypeDeclaration(type));
      return;
    default:
      return;
    }
  }
}

static int by_begin_then_longest(const void *a, const void *b) {
  const struct span *x = a, *y = b;
  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

void settle_locals(struct walker *w, int t) {
  const struct decl_set *set = &w->states[t].locals;
  struct task *task = &w->s->tasks[t];
  task->locals = xcalloc(set->n + 1, sizeof *task->locals);
  task->local_names = xcalloc(set->n + 1, sizeof *task->local_names);
  for (unsigned i = 0; i < set->n; i++) {
    CXCursor decl = set->v[i].decl;
    int file;
    struct span at = extent_of(w, decl, &file);
    task->locals[i] =
        (struct span){origin(w, 0, at.begin), origin_end(w, 0, at.end)};
    enum CXCursorKind k = clang_getCursorKind(decl);
    if (k == CXCursor_TypedefDecl || k == CXCursor_VarDecl)
      task->local_names[task->nlocal_names++] = (struct local_name){
          take(clang_getCursorSpelling(decl)), k == CXCursor_TypedefDecl};
  }
  /* In source order, each text once: a tag defined inside a typedef goes
   * with the typedef, `typedef int A, *B;` once for both names. */
  qsort(task->locals, set->n, sizeof *task->locals, by_begin_then_longest);
  for (unsigned i = 0; i < set->n; i++) {
    struct span sp = task->locals[i];
    if (task->nlocals && sp.end <= task->locals[task->nlocals - 1].end)
      continue;
    task->locals[task->nlocals++] = sp;
  }
}
