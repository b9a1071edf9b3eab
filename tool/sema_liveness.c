/* sema_liveness.c: whether the code after a task statement may read a
 * variable before writing it again, the question behind "the value is
 * lost when the task ends": a variable the body uses as OpenMP's private
 * ones (a loop counter, scratch written before it is read) loses nothing.
 * And whether a task body surely writes a variable before it reads it,
 * so that the body needs no copy of it.
 *
 * The look is structural and errs towards "may read": from the task
 * statement up to the function's body, the statements after it in each
 * block, then, inside a loop, the loop's condition and increment and its
 * body up to the task (the next iteration). In that order the first
 * statement that names the variable decides: `v = e;` or `for (v = e; ...)`
 * with no `v` in `e` writes it first, and so does such an assignment that
 * comes first in a comma expression (`for (i = 0, v = 0; ...)`); any other
 * mention may read it.
 * Jumps (break, return, goto) are not followed. */
#include "sema_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum access { ACCESS_NONE, ACCESS_WRITE, ACCESS_READ };

struct mention {
  unsigned key;
  bool found;
};

static enum CXChildVisitResult find_mention(CXCursor c, CXCursor parent,
                                            CXClientData data) {
  struct mention *m = data;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
      decl_key(clang_getCursorReferenced(c)) == m->key) {
    m->found = true;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static bool mentions(CXCursor c, unsigned key) {
  struct mention m = {key, false};
  find_mention(c, clang_getNullCursor(), &m);
  if (!m.found)
    clang_visitChildren(c, find_mention, &m);
  return m.found;
}

static bool mentions_any(const CXCursor *v, unsigned n, unsigned key) {
  for (unsigned i = 0; i < n; i++)
    if (mentions(v[i], key))
      return true;
  return false;
}

/* What expression `e` does to the variable first: `v = e2` with no `v` in
 * `e2` writes it; the operands of a comma are taken in their order, as in
 * `i = 0, len = 0`; any other mention may read it. */
static enum access expression_access(const struct walker *w, CXCursor e,
                                     unsigned key) {
  e = strip(e);
  if (!mentions(e, key))
    return ACCESS_NONE;
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator)
    return ACCESS_READ;
  struct kids ks = children(e);
  enum access a = ACCESS_READ;
  if (ks.n == 2) {
    CXCursor lhs = strip(ks.v[0]);
    char *op = binary_operator(w->tu, e, ks.v[0]);
    if (strcmp(op, ",") == 0) {
      a = expression_access(w, ks.v[0], key);
      if (a == ACCESS_NONE)
        a = expression_access(w, ks.v[1], key);
    } else if (strcmp(op, "=") == 0 &&
               clang_getCursorKind(lhs) == CXCursor_DeclRefExpr &&
               decl_key(clang_getCursorReferenced(lhs)) == key &&
               !mentions(ks.v[1], key)) {
      a = ACCESS_WRITE;
    }
    free(op);
  }
  free(ks.v);
  return a;
}

/* Is `child` of the for statement `stmt` its init clause? It then starts
 * at the token after `for (`, which is not the `;` of an empty one. */
static bool is_for_init(const struct walker *w, CXCursor stmt, CXCursor child) {
  CXToken *toks;
  unsigned n;
  clang_tokenize(w->tu, clang_getCursorExtent(stmt), &toks, &n);
  bool yes = false;
  if (n > 2 && clang_getTokenKind(toks[2]) != CXToken_Punctuation) {
    unsigned tok_at, child_at;
    clang_getFileLocation(clang_getTokenLocation(w->tu, toks[2]), NULL, NULL,
                          NULL, &tok_at);
    clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(child)),
                          NULL, NULL, NULL, &child_at);
    yes = tok_at == child_at;
  }
  clang_disposeTokens(w->tu, toks, n);
  return yes;
}

static enum access first_in_children(const struct walker *w, CXCursor c,
                                     unsigned from, unsigned to, unsigned key);

/* A statement that may run or not: what it does when it runs, unless that
 * is to write first, which leaves the question to what follows. */
static enum access maybe(enum access a) {
  return a == ACCESS_READ ? ACCESS_READ : ACCESS_NONE;
}

/* What statement `stmt`, run from its start, does to the variable first:
 * a loop's body may not run, an if runs one branch. */
static enum access first_access(const struct walker *w, CXCursor stmt,
                                unsigned key) {
  if (!mentions(stmt, key))
    return ACCESS_NONE;
  struct kids ks = children(stmt);
  enum access a = ACCESS_READ;
  switch (clang_getCursorKind(stmt)) {
  case CXCursor_CompoundStmt:
    a = first_in_children(w, stmt, 0, ks.n, key);
    break;
  case CXCursor_ForStmt: {
    bool init = ks.n && is_for_init(w, stmt, ks.v[0]);
    if (init && expression_access(w, ks.v[0], key) == ACCESS_WRITE)
      a = ACCESS_WRITE;
    else if (!mentions_any(ks.v, ks.n - 1, key))
      a = maybe(first_access(w, ks.v[ks.n - 1], key));
    break;
  }
  case CXCursor_WhileStmt:
    if (!mentions_any(ks.v, ks.n - 1, key))
      a = maybe(first_access(w, ks.v[ks.n - 1], key));
    break;
  case CXCursor_DoStmt:
    a = first_access(w, ks.v[0], key);
    if (a == ACCESS_NONE)
      a = ACCESS_READ; /* the condition */
    break;
  case CXCursor_IfStmt:
    if (!mentions(ks.v[0], key)) {
      enum access then = first_access(w, ks.v[1], key);
      enum access other =
          ks.n > 2 ? first_access(w, ks.v[2], key) : ACCESS_NONE;
      a = then == ACCESS_READ || other == ACCESS_READ     ? ACCESS_READ
          : then == ACCESS_WRITE && other == ACCESS_WRITE ? ACCESS_WRITE
                                                          : ACCESS_NONE;
    }
    break;
  default:
    if (expression_access(w, stmt, key) == ACCESS_WRITE)
      a = ACCESS_WRITE;
    break;
  }
  free(ks.v);
  return a;
}

/* The first access among children [from, to) of `c`. */
static enum access first_in_children(const struct walker *w, CXCursor c,
                                     unsigned from, unsigned to, unsigned key) {
  struct kids ks = children(c);
  enum access a = ACCESS_NONE;
  for (unsigned i = from; i < ks.n && i < to && a == ACCESS_NONE; i++)
    a = first_access(w, ks.v[i], key);
  free(ks.v);
  return a;
}

/* The index of `child` among the children of `c`. */
static unsigned child_index(CXCursor c, CXCursor child) {
  struct kids ks = children(c);
  unsigned i = 0;
  while (i < ks.n && !clang_equalCursors(ks.v[i], child))
    i++;
  free(ks.v);
  return i;
}

/* The next iteration of `loop`, whose body `body` holds the task in its
 * child `inner` (or is the task, `inner` null): the condition and the
 * increment, then the body up to the task. */
static enum access next_iteration(const struct walker *w, CXCursor loop,
                                  CXCursor body, CXCursor inner, unsigned key) {
  struct kids ks = children(loop);
  bool read = false;
  for (unsigned i = 0; i < ks.n && !read; i++)
    if (!clang_equalCursors(ks.v[i], body) &&
        !(clang_getCursorKind(loop) == CXCursor_ForStmt && i == 0 &&
          is_for_init(w, loop, ks.v[0])))
      read = mentions(ks.v[i], key);
  free(ks.v);
  if (read)
    return ACCESS_READ;
  if (clang_Cursor_isNull(inner) ||
      clang_getCursorKind(body) != CXCursor_CompoundStmt)
    return ACCESS_NONE;
  return first_in_children(w, body, 0, child_index(body, inner), key);
}

bool read_after_task(struct walker *w, unsigned key) {
  const CXCursor *path = w->path.v;
  for (unsigned j = w->path.n - 1; j-- > 0;) {
    CXCursor c = path[j], inner = path[j + 1];
    enum access a = ACCESS_NONE;
    switch (clang_getCursorKind(c)) {
    case CXCursor_CompoundStmt:
      a = first_in_children(w, c, child_index(c, inner) + 1, UINT_MAX, key);
      break;
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
      a = next_iteration(
          w, c, inner, j + 2 < w->path.n ? path[j + 2] : clang_getNullCursor(),
          key);
      break;
    default:
      break;
    }
    if (a != ACCESS_NONE)
      return a == ACCESS_READ;
  }
  return false;
}

static enum CXChildVisitResult find_loop_jump(CXCursor c, CXCursor parent,
                                              CXClientData found) {
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt)
    *(bool *)found = true;
  return *(bool *)found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* Jumps that the structural look does not follow and that may skip a
 * write: a goto, and a break or continue in a do loop, whose body it
 * takes as run whole. */
static enum CXChildVisitResult find_jump(CXCursor c, CXCursor parent,
                                         CXClientData found) {
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_GotoStmt || k == CXCursor_IndirectGotoStmt)
    *(bool *)found = true;
  else if (k == CXCursor_DoStmt)
    clang_visitChildren(c, find_loop_jump, found);
  return *(bool *)found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

bool written_before_read(const struct walker *w, CXCursor body, unsigned key) {
  bool jumps = false;
  visit_body(w, body, find_jump, &jumps);
  /* NONE: no path reads it first (a loop may write it, or not run). */
  return !jumps && first_access(w, body, key) != ACCESS_READ;
}
