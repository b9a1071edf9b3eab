/* sema_walk.c: the walk of a function's body: task directives on
 * statements, taskwaits, calls of task functions, references to
 * variables, and what may not leave a task body (return, break, continue,
 * goto). Tasks are recorded in source order; a task's captures and
 * warnings are decided when the walk leaves its body. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

static void walk(struct walker *w, CXCursor c, CXCursor parent, unsigned index,
                 unsigned nsiblings);

static int new_task(struct walker *w, enum task_kind kind, int file,
                    unsigned directive) {
  struct sema *s = w->s;
  if (s->ntasks == w->cap_tasks) {
    w->cap_tasks = w->cap_tasks ? 2 * w->cap_tasks : 16;
    s->tasks = xrealloc(s->tasks, w->cap_tasks * sizeof *s->tasks);
    w->states = xrealloc(w->states, w->cap_tasks * sizeof *w->states);
  }
  int t = (int)s->ntasks++;
  s->tasks[t] = (struct task){.kind = kind,
                              .file = &s->files[file],
                              .directive = directive,
                              .function = -1,
                              .toplevel = w->toplevel,
                              .parent = w->depth ? w->stack[w->depth - 1] : -1};
  memset(&w->states[t], 0, sizeof w->states[t]);
  return t;
}

/* Is `c` the probe of a task directive on a statement of the main file? */
static bool is_task_statement(const struct walker *w, CXCursor c) {
  unsigned at;
  return clang_getCursorKind(c) == CXCursor_IfStmt &&
         where(w, clang_getCursorLocation(c), &at) == 0 &&
         anchored(w, 0, at) >= 0;
}

struct body_visit {
  const struct walker *w;
  CXCursorVisitor visit;
  CXClientData data;
};

static enum CXChildVisitResult visit_body_cursor(CXCursor c, CXCursor parent,
                                                 CXClientData data) {
  struct body_visit *bv = data;
  if (is_task_statement(bv->w, c))
    return CXChildVisit_Continue; /* a task of its own */
  return bv->visit(c, parent, bv->data);
}

void visit_body(const struct walker *w, CXCursor body, CXCursorVisitor visit,
                CXClientData data) {
  struct body_visit bv = {w, visit, data};
  if (visit_body_cursor(body, clang_getNullCursor(), &bv) ==
      CXChildVisit_Recurse)
    clang_visitChildren(body, visit_body_cursor, &bv);
}

int anchored(const struct walker *w, int file, unsigned at) {
  const struct unit_file *f = &w->s->files[file];
  for (unsigned k = 0; k < f->scan.ndirectives; k++)
    if (f->probe.anchors[k] == at)
      return (int)k;
  return -1;
}

static char *callee_name(CXCursor stmt) {
  stmt = strip(stmt);
  if (clang_getCursorKind(stmt) != CXCursor_CallExpr)
    return NULL;
  CXCursor fn = clang_getCursorReferenced(stmt);
  if (clang_Cursor_isNull(fn) ||
      clang_getCursorKind(fn) != CXCursor_FunctionDecl)
    return NULL;
  return take(clang_getCursorSpelling(fn));
}

void check_placement(struct walker *w, const struct unit_file *f, unsigned k,
                     bool function) {
  const struct directive *d = &f->dirs[k];
  const struct clause *work = NULL;
  bool variant = false;
  for (unsigned c = 0; c < d->nclauses; c++) {
    enum clause_kind kind = d->clauses[c].kind;
    if (kind == CLAUSE_WORK)
      work = &d->clauses[c];
    variant |= kind == CLAUSE_IMPLEMENTS;
    if (function && (kind == CLAUSE_SHARED || kind == CLAUSE_FIRSTPRIVATE))
      diag_error(w->d, &f->src, d->clauses[c].at.begin,
                 "'%s' is not allowed on a task function: its body is the "
                 "function, which sees only its parameters",
                 clause_name(kind));
    if (!function && kind == CLAUSE_IMPLEMENTS)
      diag_error(w->d, &f->src, d->clauses[c].at.begin,
                 "'implements' is only allowed before a function "
                 "declaration");
    if (!function && kind == CLAUSE_WORK)
      diag_error(w->d, &f->src, d->clauses[c].at.begin,
                 "'work' is only allowed before a task function's "
                 "declaration, where it is an expression of the "
                 "parameters; a task statement cannot declare its work");
  }
  if (function && variant && work)
    diag_error(w->d, &f->src, work->at.begin,
               "'work' goes on the task function that this variant "
               "implements: every variant does the same work");
}

/* An OpenMP directive (libclang parses them under -fopenmp): its
 * statement, captured, is not among its cursor's children. */
static bool is_openmp(CXCursor c) {
  CXString s = clang_getCursorKindSpelling(clang_getCursorKind(c));
  const char *k = clang_getCString(s);
  size_t len = strlen(k);
  bool yes = strncmp(k, "OMP", 3) == 0 && len > 9 &&
             strcmp(k + len - 9, "Directive") == 0;
  clang_disposeString(s);
  return yes;
}

struct openmp_construct *openmp_around(const struct walker *w, unsigned at) {
  struct openmp_construct *inner = NULL;
  for (unsigned i = 0; i < w->nomp; i++)
    if (in_span(w->omp[i].at, at) &&
        (!inner || w->omp[i].at.begin >= inner->at.begin))
      inner = &w->omp[i];
  return inner;
}

/* An OpenMP construct, child `index` of `nsiblings` of `parent`: the
 * extent of its cursor is its pragma line, and its statement is hidden, so
 * it is taken to reach the next sibling, or the end of the parent. */
static void note_openmp_construct(struct walker *w, CXCursor c, CXCursor parent,
                                  unsigned index, unsigned nsiblings) {
  int file;
  struct span sp = extent_of(w, c, &file);
  sp.end = extent_of(w, parent, &file).end;
  struct kids ks = children(parent);
  if (index + 1 < nsiblings && index + 1 < ks.n)
    sp.end = extent_of(w, ks.v[index + 1], &file).begin;
  free(ks.v);
  GROW(w->omp, w->nomp, w->cap_omp);
  w->omp[w->nomp++] = (struct openmp_construct){
      {origin(w, 0, sp.begin), origin_end(w, 0, sp.end)}, false};
}

void note_openmp(struct walker *w, unsigned at) {
  diags_add(w->d, DIAG_NOTE, &w->s->files[0].src, at, NULL,
            "under -fopenmp this OpenMP construct applies to the same code, "
            "and dagcc's parser does not see the statements inside it: "
            "compile without -fopenmp, or keep each kind of pragma to its "
            "own build, the dag ones under '#ifdef _DAG' and the OpenMP "
            "ones under '#else' (dagcc defines _DAG)");
}

static void walk_task_statement(struct walker *w, CXCursor ifstmt, int k) {
  struct kids ks = children(ifstmt);
  const struct unit_file *f = &w->s->files[0];
  check_placement(w, f, (unsigned)k, false);
  int t = new_task(w, TASK_STATEMENT, 0, (unsigned)k);
  struct task *task = &w->s->tasks[t];
  /* The probes are evaluated where the task is submitted: in the
   * enclosing task's body, for captures. */
  if (ks.n >= 2) {
    struct probe_visit v = {w, 0, t};
    w->states[t].probes = ks.v[1];
    clang_visitChildren(ks.v[1], visit_probes, &v);
    check_reduction_items(w, 0, (unsigned)k, ks.v[1]);
    walk(w, ks.v[1], ifstmt, 1, ks.n);
  }
  if (ks.n < 3) {
    error_at(w, 0, f->probe.anchors[k],
             "'#pragma dag task' must be followed by a statement%s%s", "", "");
    free(ks.v);
    return;
  }
  CXCursor body = ks.v[2];
  free(ks.v);
  enum CXCursorKind kind = clang_getCursorKind(body);
  unsigned body_at;
  int next = where(w, clang_getCursorLocation(body), &body_at) == 0
                 ? anchored(w, 0, body_at)
                 : -1;
  if (next >= 0 && f->dirs[next].kind == DIRECTIVE_TASKWAIT) {
    diag_error(w->d, &f->src, f->dirs[next].at.begin,
               "'#pragma dag task' must be followed by a statement, not by "
               "'#pragma dag taskwait'");
    return;
  }
  if (is_openmp(body)) {
    diag_error(w->d, &f->src, f->dirs[k].at.begin,
               "'#pragma dag task' is on an OpenMP construct, which dagcc "
               "cannot rewrite");
    int file;
    note_openmp(w, origin(w, 0, extent_of(w, body, &file).begin));
    return;
  }
  if (kind == CXCursor_DeclStmt || kind == CXCursor_NullStmt ||
      kind == CXCursor_ReturnStmt || kind == CXCursor_LabelStmt ||
      kind == CXCursor_CaseStmt || kind == CXCursor_DefaultStmt) {
    error_cursor(w, body,
                 "'#pragma dag task' must be followed by a statement: an "
                 "expression, a block, a loop or an if%s%s",
                 "", "");
    return;
  }
  int file;
  struct span probe_body = extent_of(w, body, &file);
  unsigned begin = origin(w, 0, probe_body.begin);
  unsigned end =
      statement_end(f, origin_end(w, 0, probe_body.end), ends_with_block(body));
  task = &w->s->tasks[t];
  task->body = (struct span){begin, end};
  task->replace = (struct span){f->dirs[k].at.begin, end};
  task->label = callee_name(body);
  w->states[t].body_probe = probe_body;
  if (w->depth == MAX_NESTING) {
    error_cursor(w, body, "tasks nested more than %s deep%s", "64", "");
    return;
  }
  w->stack[w->depth++] = t;
  int loops = w->loops, switches = w->switches;
  w->loops = w->switches = 0;
  walk(w, body, ifstmt, 2, 3);
  w->loops = loops;
  w->switches = switches;
  w->depth--;
  decide_captures(w, t, body);
  settle_locals(w, t);
  warn_about_task(w, t, body);
}

static void walk_taskwait(struct walker *w, CXCursor block, CXCursor parent,
                          int k) {
  const struct unit_file *f = &w->s->files[0];
  if (clang_getCursorKind(parent) != CXCursor_CompoundStmt) {
    diag_error(w->d, &f->src, f->dirs[k].at.begin,
               "'#pragma dag taskwait' may only be used in compound "
               "statements");
    return;
  }
  int t = new_task(w, TASK_TASKWAIT, 0, (unsigned)k);
  w->s->tasks[t].replace = f->dirs[k].at;
  struct probe_visit v = {w, 0, -1};
  clang_visitChildren(block, visit_probes, &v);
  walk_children_from(w, block, 0);
}

void walk_children_from(struct walker *w, CXCursor c, unsigned first) {
  struct kids ks = children(c);
  for (unsigned i = first; i < ks.n; i++)
    walk(w, ks.v[i], c, i, ks.n);
  free(ks.v);
}

/* Is child `index` of `parent` a statement of its own, so that a call
 * there has its value discarded? */
static bool is_statement_position(CXCursor parent, unsigned index,
                                  unsigned nsiblings) {
  switch (clang_getCursorKind(parent)) {
  case CXCursor_CompoundStmt:
  case CXCursor_CStyleCastExpr: /* (void)f(x) */
    return true;
  case CXCursor_IfStmt:
    return index >= 1;
  case CXCursor_WhileStmt:
  case CXCursor_ForStmt:
  case CXCursor_CaseStmt:
  case CXCursor_DefaultStmt:
  case CXCursor_LabelStmt:
    return index == nsiblings - 1;
  case CXCursor_DoStmt:
    return index == 0;
  default:
    return false;
  }
}

/* A call of a task function that cannot become a task: the error, and the
 * walk of its arguments. */
static void refuse_call(struct walker *w, CXCursor call, const char *fmt,
                        const char *name) {
  error_cursor(w, call, fmt, name, "");
  walk_children_from(w, call, 1);
}

static void walk_call(struct walker *w, CXCursor call, CXCursor parent,
                      unsigned index, unsigned nsiblings) {
  CXCursor fn = clang_getCursorReferenced(call);
  int fi = clang_Cursor_isNull(fn) ? -1 : task_function_of(w, fn);
  if (fi < 0) {
    walk_children_from(w, call, 0);
    return;
  }
  struct task_function *f = &w->s->functions[fi];
  if (!is_statement_position(parent, index, nsiblings)) {
    refuse_call(w, call,
                "a call of task function '%s' must be a statement of its "
                "own: the task runs later and has no value%s",
                f->name);
    return;
  }
  struct kids ks = children(call);
  CXCursor callee = ks.n ? strip(ks.v[0]) : call;
  free(ks.v);
  int file;
  struct span at = extent_of(w, callee, &file);
  if (file == 0)
    at = (struct span){origin(w, 0, at.begin), origin_end(w, 0, at.end)};
  if (file != 0 || clang_getCursorKind(callee) != CXCursor_DeclRefExpr ||
      !spelled_as(w, at, f->name)) {
    refuse_call(w, call,
                "call of task function '%s' through a macro or a pointer: "
                "dagcc cannot make it a task%s",
                f->name);
    return;
  }
  int t = new_task(w, TASK_CALL, (int)(f->file - w->s->files), f->directive);
  struct task *task = &w->s->tasks[t];
  task->function = fi;
  task->replace = at;
  task->label = xstrdup(f->name);
  if (!f->used)
    f->first_use = w->toplevel.begin;
  f->used = true;
  walk_children_from(w, call, 1);
}

/* A goto to a label inside the innermost task's body stays in the task. */
static bool goto_stays_inside(const struct walker *w, CXCursor stmt) {
  struct kids ks = children(stmt);
  CXCursor label =
      ks.n ? clang_getCursorReferenced(ks.v[0]) : clang_getNullCursor();
  free(ks.v);
  unsigned at;
  return !clang_Cursor_isNull(label) &&
         where(w, clang_getCursorLocation(label), &at) == 0 &&
         in_span(w->states[w->stack[w->depth - 1]].body_probe, at);
}

static void walk_cursor(struct walker *w, CXCursor c, CXCursor parent,
                        unsigned index, unsigned nsiblings) {
  enum CXCursorKind kind = clang_getCursorKind(c);
  unsigned at;
  int file = where(w, clang_getCursorLocation(c), &at);
  /* Probes are if statements (tasks) and blocks (taskwaits). */
  int k =
      file == 0 && (kind == CXCursor_IfStmt || kind == CXCursor_CompoundStmt)
          ? anchored(w, 0, at)
          : -1;
  if (k >= 0) {
    enum directive_kind dk = w->s->files[0].dirs[k].kind;
    if (dk == DIRECTIVE_TASK && kind == CXCursor_IfStmt) {
      walk_task_statement(w, c, k);
      return;
    }
    if (dk == DIRECTIVE_TASKWAIT && kind == CXCursor_CompoundStmt) {
      walk_taskwait(w, c, parent, k);
      return;
    }
  }
  if (is_openmp(c) && file == 0)
    note_openmp_construct(w, c, parent, index, nsiblings);
  switch (kind) {
  case CXCursor_DeclRefExpr:
  case CXCursor_TypeRef: {
    CXCursor decl = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(decl) || file != 0)
      break;
    if (kind == CXCursor_DeclRefExpr)
      note_reference(w, c, decl);
    if (w->depth > 0)
      need_declaration(w, w->stack[w->depth - 1], decl);
    break;
  }
  case CXCursor_CallExpr:
    walk_call(w, c, parent, index, nsiblings);
    return;
  case CXCursor_ReturnStmt:
    if (w->depth > 0)
      error_cursor(w, c,
                   "'return' inside a task body: a task ends at the end of "
                   "its statement%s%s",
                   "", "");
    break;
  case CXCursor_GotoStmt:
  case CXCursor_IndirectGotoStmt:
    if (w->depth > 0 && !goto_stays_inside(w, c))
      error_cursor(w, c, "'goto' would leave the task body%s%s", "", "");
    break;
  case CXCursor_BreakStmt:
    if (w->depth > 0 && w->loops + w->switches == 0)
      error_cursor(w, c, "'break' would leave the task body%s%s", "", "");
    break;
  case CXCursor_ContinueStmt:
    if (w->depth > 0 && w->loops == 0)
      error_cursor(w, c, "'continue' would leave the task body%s%s", "", "");
    break;
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
    w->loops++;
    walk_children_from(w, c, 0);
    w->loops--;
    return;
  case CXCursor_SwitchStmt:
    w->switches++;
    walk_children_from(w, c, 0);
    w->switches--;
    return;
  default:
    break;
  }
  walk_children_from(w, c, 0);
}

/* Walks `c`, child `index` of `nsiblings` of `parent`, with `c` on the
 * walker's path. */
static void walk(struct walker *w, CXCursor c, CXCursor parent, unsigned index,
                 unsigned nsiblings) {
  GROW(w->path.v, w->path.n, w->path.cap);
  w->path.v[w->path.n++] = c;
  walk_cursor(w, c, parent, index, nsiblings);
  w->path.n--;
}
