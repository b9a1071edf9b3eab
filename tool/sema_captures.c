/* sema_captures.c: the variables each task body uses from outside it, and
 * how each travels: by value, as OpenMP's firstprivate, unless an item,
 * shared() or a static storage makes it shared; arrays and variable-length
 * arrays have rules of their own; a variable the body surely writes before
 * it reads it does not travel: it is the body's own (OpenMP's private).
 * Globals are used in place, except those that a reduction item of the task
 * names (sema_reductions.c). Also the references that must go through the
 * task's pointer to a shared variable. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

bool key_set_has(const struct key_set *set, unsigned key) {
  for (unsigned i = 0; i < set->n; i++)
    if (set->v[i] == key)
      return true;
  return false;
}

void key_set_add(struct key_set *set, unsigned key) {
  if (key_set_has(set, key))
    return;
  GROW(set->v, set->n, set->cap);
  set->v[set->n++] = key;
}

enum CXChildVisitResult gather_keys(CXCursor c, CXCursor parent,
                                    CXClientData set) {
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr)
    key_set_add(set, decl_key(clang_getCursorReferenced(c)));
  return CXChildVisit_Recurse;
}

bool decl_set_add(struct decl_set *set, unsigned key, CXCursor decl) {
  for (unsigned i = 0; i < set->n; i++)
    if (set->v[i].key == key)
      return false;
  GROW(set->v, set->n, set->cap);
  set->v[set->n++] = (struct decl_entry){key, decl};
  return true;
}

/* The reference `ref` to `decl`, in the body of the innermost task: it is
 * rewritten later if that task shares the variable. */
static void pending_ref(struct walker *w, CXCursor ref, CXCursor decl,
                        unsigned key) {
  CXSourceRange r = clang_getCursorExtent(ref);
  unsigned b, e;
  clang_getFileLocation(clang_getRangeStart(r), NULL, NULL, NULL, &b);
  clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
  struct span at = {origin(w, 0, b), origin_end(w, 0, e)};
  char *name = take(clang_getCursorSpelling(decl));
  bool in_macro = !spelled_as(w, at, name);
  free(name);
  GROW(w->refs, w->nrefs, w->cap_refs);
  w->refs[w->nrefs++] =
      (struct pending_ref){at, w->stack[w->depth - 1], key, in_macro};
}

void note_reference(struct walker *w, CXCursor ref, CXCursor decl) {
  unsigned key = decl_key(decl);
  for (int i = 0; i < w->depth; i++) {
    struct task_state *st = &w->states[w->stack[i]];
    key_set_add(&st->seen, key);
  }
  if (!is_local(decl)) {
    if (clang_getCursorKind(decl) != CXCursor_VarDecl)
      return;
    /* A body uses a global in place, unless its task reduces it: the
     * runtime then redirects the body to a private copy, which only a
     * pointer of the argument block can do. */
    bool innermost = false;
    for (int i = 0; i < w->depth; i++) {
      struct task_state *st = &w->states[w->stack[i]];
      innermost = key_set_has(&st->reduced, key);
      if (innermost)
        decl_set_add(&st->uses, key, decl);
    }
    if (innermost)
      pending_ref(w, ref, decl, key);
    return;
  }
  if (where(w, clang_getCursorLocation(decl), &key) != 0)
    return;
  for (int i = w->depth - 1; i >= 0; i--) {
    struct task_state *st = &w->states[w->stack[i]];
    if (in_span(st->body_probe, key))
      break;
    decl_set_add(&st->uses, key, decl);
    if (clang_Cursor_getStorageClass(decl) == CX_SC_Static)
      key_set_add(&st->shared, key);
  }
  if (w->depth > 0)
    pending_ref(w, ref, decl, key);
}

static bool spelling_is_unnamed(const char *type) {
  return strstr(type, "(anonymous") || strstr(type, "(unnamed");
}

/* The innermost element type and the number of array levels of `t`. */
static char *element_spelling(CXType t, unsigned *ndims) {
  CXType inner;
  *ndims = array_levels(t, &inner);
  return type_spelling(inner);
}

/* Whether a value of type `t` is a pointer or an array of them. */
static bool holds_pointers(CXType t) {
  CXType inner;
  array_levels(t, &inner);
  return inner.kind == CXType_Pointer;
}

/* A capture problem, reported at the task that captures. */
static void capture_error(struct walker *w, int t, const char *fmt,
                          const char *name) {
  const struct task *task = &w->s->tasks[t];
  char *message = xasprintf(fmt, name, "");
  diags_add(w->d, DIAG_ERROR, &task->file->src,
            task->file->dirs[task->directive].at.begin, NULL, "%s", message);
  free(message);
}

/* Can task `t` keep the variable `key` to its body? Not when a task nested
 * in it takes it along (copied or shared) at its submission: the tasks of
 * the body are decided before it. */
static bool private_to_body(struct walker *w, int t, CXCursor body,
                            unsigned key) {
  for (unsigned c = (unsigned)t + 1; c < w->s->ntasks; c++) {
    const struct task *child = &w->s->tasks[c];
    for (unsigned i = 0; child->parent == t && i < child->nvars; i++)
      if (child->vars[i].key == key && child->vars[i].how != CAPTURE_PRIVATE)
        return false;
  }
  return written_before_read(w, body, key);
}

void decide_captures(struct walker *w, int t, CXCursor body) {
  struct task_state *st = &w->states[t];
  struct task *task = &w->s->tasks[t];
  task->vars = xcalloc(st->uses.n, sizeof *task->vars);
  for (unsigned i = 0; i < st->uses.n; i++) {
    CXCursor decl = st->uses.v[i].decl;
    unsigned key = st->uses.v[i].key;
    struct capture_var *v = &task->vars[task->nvars];
    CXType type = clang_getCursorType(decl);
    bool shared =
        !key_set_has(&st->private, key) && key_set_has(&st->shared, key);
    bool vm = is_variably_modified(type);
    bool array = is_array_kind(canonical(type).kind);
    *v = (struct capture_var){.name = take(clang_getCursorSpelling(decl)),
                              .type = type_spelling(type),
                              .how = shared ? CAPTURE_SHARED : CAPTURE_VALUE,
                              .pointers = holds_pointers(type),
                              .key = key};
    task->nvars++;
    if (array && acts_as_pointer(decl)) {
      /* A parameter declared as an array is a pointer to its element. */
      CXType elem = clang_getArrayElementType(canonical(type));
      if (is_variably_modified(elem)) {
        v->how = CAPTURE_VALUE_VM;
        v->elem = element_spelling(elem, &v->ndims);
      } else {
        char *e = type_spelling(elem);
        free(v->type);
        v->type = xasprintf("__typeof__(%s) *", e);
        free(e);
        v->how = CAPTURE_VALUE;
        v->pointers = true;
      }
      if (shared)
        capture_error(w, t,
                      "parameter '%s' is a pointer (declared as an array): "
                      "what it points to is shared already; name it in "
                      "firstprivate() or not at all%s",
                      v->name);
      continue;
    }
    /* Its type is spelled in the body too; a variably modified one by its
     * innermost element. */
    need_type(w, t, vm ? canonical(type) : type);
    if (spelling_is_unnamed(v->type)) {
      capture_error(w, t,
                    "the type of '%s', which a task body uses, has no name: "
                    "give it a tag or a typedef%s",
                    v->name);
    } else if (vm && array && !shared) {
      capture_error(w, t,
                    "variable-length array '%s' is used by a task body but "
                    "cannot be copied: name it in a dependency clause or in "
                    "shared()%s",
                    v->name);
    } else if (vm && array) {
      v->how = CAPTURE_SHARED_VM;
      v->elem = element_spelling(type, &v->ndims);
    } else if (vm && canonical(type).kind == CXType_Pointer) {
      if (shared)
        capture_error(w, t,
                      "'%s', a pointer to a variable-length array, cannot be "
                      "shared; what it points to is shared already%s",
                      v->name);
      v->how = CAPTURE_VALUE_VM;
      v->elem =
          element_spelling(clang_getPointeeType(canonical(type)), &v->ndims);
    } else if (vm) {
      capture_error(w, t,
                    "'%s' has a variably modified type that a task cannot "
                    "capture%s",
                    v->name);
    } else if (array && !shared) {
      v->is_array = true;
    } else if (!shared && !key_set_has(&st->private, key) &&
               private_to_body(w, t, body, key)) {
      v->how = CAPTURE_PRIVATE; /* a copy would never be read */
    }
  }
}

void resolve_refs(struct walker *w) {
  struct sema *s = w->s;
  s->refs = xcalloc(w->nrefs + 1, sizeof *s->refs);
  for (unsigned i = 0; i < w->nrefs; i++) {
    const struct pending_ref *r = &w->refs[i];
    const struct task *t = &s->tasks[r->task];
    for (unsigned v = 0; v < t->nvars; v++) {
      if (t->vars[v].key != r->key || (t->vars[v].how != CAPTURE_SHARED &&
                                       t->vars[v].how != CAPTURE_SHARED_VM))
        continue;
      bool dup = false;
      for (unsigned j = 0; j < s->nrefs && !dup; j++)
        dup = s->refs[j].at.begin == r->at.begin;
      if (dup)
        break;
      if (r->in_macro)
        diag_error(w->d, &s->files[0].src, r->at.begin,
                   "shared variable '%s' is used inside a macro expansion in "
                   "the task body: dagcc cannot redirect it",
                   t->vars[v].name);
      s->refs[s->nrefs++] = (struct shared_ref){r->at, r->task, v};
      break;
    }
  }
}
