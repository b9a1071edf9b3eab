/* sema_mpi_lint.c: -Wdag-mpi, the lint for programs meant for several MPI
 * ranks, off by default. Under MPI a task without data items is placed on
 * one rank (round robin), and what it writes outside itself stays on that
 * rank: a silent wrong result on the others. So a task with no in, out,
 * inout or commutative item, and no on() that places it on purpose, is
 * flagged when its body writes through a pointer or to a variable it does
 * not own (a global, a static, a shared one) or calls a function (other
 * than a task function, whose calls are tasks of their own); and so is a
 * task function without data items, whose body is a function. */
#include "sema_internal.h"

#include <stdlib.h>

/* Whether the directive places its task by its data or on purpose. */
static bool placed(const struct directive *d) {
  for (unsigned c = 0; c < d->nclauses; c++)
    if ((clause_is_dependency(d->clauses[c].kind) && d->clauses[c].nitems) ||
        d->clauses[c].kind == CLAUSE_ON)
      return true;
  return false;
}

struct escape_search {
  struct walker *w;
  int task;
  char *what; /* the first escape found, for the message */
};

/* A write that leaves the task: through a pointer, or to a variable that
 * is neither the body's own nor its copy. */
static char *escaping_write(struct escape_search *es, CXCursor lhs) {
  bool through_pointer = false;
  CXCursor var = write_target(lhs, &through_pointer);
  enum CXCursorKind k = clang_getCursorKind(var);
  if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
    return NULL;
  const struct task *t = &es->w->s->tasks[es->task];
  unsigned key = decl_key(var), at;
  bool own = where(es->w, clang_getCursorLocation(var), &at) == 0 &&
             in_span(es->w->states[es->task].body_probe, at);
  for (unsigned i = 0; i < t->nvars && !own; i++)
    own = t->vars[i].key == key && (t->vars[i].how == CAPTURE_VALUE ||
                                    t->vars[i].how == CAPTURE_PRIVATE);
  if (!through_pointer && own)
    return NULL;
  char *name = take(clang_getCursorSpelling(var));
  char *what =
      xasprintf("writes %s'%s'", through_pointer ? "through " : "", name);
  free(name);
  return what;
}

static enum CXChildVisitResult find_escape(CXCursor c, CXCursor parent,
                                           CXClientData data) {
  struct escape_search *es = data;
  CXCursor lhs;
  if (is_write(es->w, c, &lhs))
    es->what = escaping_write(es, lhs);
  if (!es->what && clang_getCursorKind(c) == CXCursor_CallExpr) {
    CXCursor fn = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(fn))
      es->what = xasprintf("calls a function through a pointer");
    else if (task_function_of(es->w, fn) < 0) {
      char *name = take(clang_getCursorSpelling(fn));
      es->what = xasprintf("calls '%s'", name);
      free(name);
    }
  }
  return es->what ? CXChildVisit_Break : CXChildVisit_Recurse;
}

void lint_mpi_task(struct walker *w, int t, CXCursor body) {
  const struct task *task = &w->s->tasks[t];
  const struct directive *d = &task->file->dirs[task->directive];
  if (placed(d))
    return;
  struct escape_search es = {w, t, NULL};
  visit_body(w, body, find_escape, &es);
  if (!es.what)
    return;
  diags_add(w->d, DIAG_WARNING, &task->file->src, d->at.begin, "-Wdag-mpi",
            "task without data items %s: under MPI it runs on one rank, "
            "and what it writes stays there (name the data it writes in "
            "out or inout items, or place it with on())",
            es.what);
  free(es.what);
}

void lint_mpi_function(struct walker *w, const struct task_function *f) {
  const struct directive *d = &f->file->dirs[f->directive];
  if (placed(d) || f->implements >= 0)
    return;
  diags_add(w->d, DIAG_WARNING, &f->file->src, d->at.begin, "-Wdag-mpi",
            "task function '%s' has no data items: under MPI each call runs "
            "on one rank, and what it writes stays there (name the data it "
            "writes in out or inout items, or place it with on())",
            f->name);
}
