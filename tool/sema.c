/* sema.c: the rewriter's view of a translation unit through libclang, the
 * only file that includes clang-c/Index.h (see sema.h).
 *
 * One parse of the probe text (probe.h) gives everything: libclang's own
 * errors, mapped back to the user's text; the statement after each task
 * directive (the `else` branch of its probe); the types of the items (the
 * probe expressions); every call of a task function; and every reference
 * to a variable, from which the captures of each task body follow. */
#include "sema.h"

#include <clang-c/Index.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTING 64

/* A variable some task body uses, while the body is walked. */
struct use {
  unsigned key; /* declaration offset */
  CXCursor decl;
};

/* Per task, what the walk gathers before captures are decided. */
struct task_state {
  struct span body_probe; /* the body, in probe offsets */
  struct use *uses;
  unsigned nuses, cap;
  unsigned *shared_keys; /* roots of items, shared(), static locals */
  unsigned nshared, cap_shared;
  unsigned *private_keys; /* firstprivate() */
  unsigned nprivate, cap_private;
  unsigned *written_keys; /* referenced by out/inout/commutative items */
  unsigned nwritten, cap_written;
  unsigned *seen_keys; /* every variable the body refers to */
  unsigned nseen, cap_seen;
  CXCursor probes; /* the directive's probe block */
};

struct pending_ref {
  struct span at; /* original offsets */
  int task;
  unsigned key;
  bool in_macro;
};

struct walker {
  struct sema *s;
  struct diags *d;
  CXTranslationUnit tu;
  CXFile *cxfiles; /* per unit file */
  unsigned toplevel;
  int stack[MAX_NESTING]; /* enclosing statement tasks, innermost last */
  int depth;
  int loops, switches; /* inside the innermost task's body */
  struct task_state *states;
  unsigned cap_tasks;
  struct pending_ref *refs;
  unsigned nrefs, cap_refs;
  struct source *extra; /* files libclang reported on that have no directive */
  unsigned nextra;
  CXCursor *canonical; /* per task function: its canonical declaration */
  /* libclang's errors, kept apart until ours are known: where we explain
   * an item ourselves, what libclang says about our probe code goes. */
  struct diags clang;
  unsigned cap_functions;
};

/* ------------------------------------------------------------ utilities */

static char *take(CXString s) {
  char *copy = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return copy;
}

#define GROW(v, n, cap)                                                        \
  do {                                                                         \
    if ((n) == (cap)) {                                                        \
      (cap) = (cap) ? 2 * (cap) : 8;                                           \
      (v) = xrealloc((v), (cap) * sizeof *(v));                                \
    }                                                                          \
  } while (0)

static int file_index(const struct walker *w, CXFile f) {
  for (unsigned i = 0; i < w->s->nfiles; i++)
    if (w->cxfiles[i] && clang_File_isEqual(w->cxfiles[i], f))
      return (int)i;
  return -1;
}

/* Probe offset of a location, and which unit file it is in (-1: none). */
static int where(const struct walker *w, CXSourceLocation loc,
                 unsigned *offset) {
  CXFile f;
  clang_getFileLocation(loc, &f, NULL, NULL, offset);
  return f ? file_index(w, f) : -1;
}

static unsigned origin(const struct walker *w, int file, unsigned at) {
  return probe_origin(&w->s->files[file].probe, at);
}

/* The original offset just after the byte before probe offset `end`: an
 * end may be where generated probe text begins. */
static unsigned origin_end(const struct walker *w, int file, unsigned end) {
  return end == 0 ? origin(w, file, 0) : origin(w, file, end - 1) + 1;
}

static struct span extent_of(const struct walker *w, CXCursor c, int *file) {
  CXSourceRange r = clang_getCursorExtent(c);
  struct span sp;
  *file = where(w, clang_getRangeStart(r), &sp.begin);
  where(w, clang_getRangeEnd(r), &sp.end);
  return sp;
}

struct kids {
  CXCursor *v;
  unsigned n, cap;
};

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent,
                                       CXClientData data) {
  struct kids *k = data;
  GROW(k->v, k->n, k->cap);
  k->v[k->n++] = c;
  return CXChildVisit_Continue;
}

static struct kids children(CXCursor c) {
  struct kids k = {0};
  clang_visitChildren(c, collect, &k);
  return k;
}

/* Looks through implicit conversions and parentheses. */
static CXCursor strip(CXCursor c) {
  for (;;) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
      return c;
    struct kids ks = children(c);
    if (ks.n != 1) {
      free(ks.v);
      return c;
    }
    c = ks.v[0];
    free(ks.v);
  }
}

static bool is_array_kind(enum CXTypeKind k) {
  return k == CXType_ConstantArray || k == CXType_VariableArray ||
         k == CXType_IncompleteArray || k == CXType_DependentSizedArray;
}

static CXType canonical(CXType t) { return clang_getCanonicalType(t); }

static bool is_integer(CXType t) {
  enum CXTypeKind k = canonical(t).kind;
  return (k >= CXType_Bool && k <= CXType_Int128) || k == CXType_Enum;
}

/* True when `t` or anything it points to or holds is a variable-length
 * array. */
static bool is_variably_modified(CXType t) {
  t = canonical(t);
  for (;;) {
    if (t.kind == CXType_VariableArray)
      return true;
    if (t.kind == CXType_Pointer)
      t = canonical(clang_getPointeeType(t));
    else if (is_array_kind(t.kind))
      t = canonical(clang_getArrayElementType(t));
    else
      return false;
  }
}

static char *type_spelling(CXType t) { return take(clang_getTypeSpelling(t)); }

/* The spelling of the first token of `c` (or "" ). */
static char *first_token(CXTranslationUnit tu, CXCursor c, bool last) {
  CXToken *toks;
  unsigned n;
  clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
  char *s = n ? take(clang_getTokenSpelling(tu, toks[last ? n - 1 : 0]))
              : xstrdup("");
  clang_disposeTokens(tu, toks, n);
  return s;
}

/* The operator of a binary operator cursor: the first token after its
 * left operand. */
static char *binary_operator(CXTranslationUnit tu, CXCursor c, CXCursor lhs) {
  CXToken *toks;
  unsigned n;
  clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
  unsigned lhs_end;
  clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(lhs)), NULL,
                        NULL, NULL, &lhs_end);
  char *op = xstrdup("");
  for (unsigned i = 0; i < n; i++) {
    unsigned at;
    clang_getFileLocation(clang_getTokenLocation(tu, toks[i]), NULL, NULL, NULL,
                          &at);
    if (at >= lhs_end) {
      free(op);
      op = take(clang_getTokenSpelling(tu, toks[i]));
      break;
    }
  }
  clang_disposeTokens(tu, toks, n);
  return op;
}

/* --------------------------------------------------------- diagnostics */

static bool already_reported(const struct diags *d, const struct source *src,
                             unsigned offset, const char *message) {
  for (size_t i = 0; i < d->n; i++)
    if (d->v[i].src == src && d->v[i].offset == offset &&
        strcmp(d->v[i].message, message) == 0)
      return true;
  return false;
}

/* libclang's errors, mapped from the probe text to the user's, into
 * w->clang. Warnings are left to the compiler, which sees the rewritten
 * file. */
static void report_clang(struct walker *w) {
  unsigned n = clang_getNumDiagnostics(w->tu);
  /* At most one extra file per diagnostic: allocated once, so that the
   * diagnostics can point into it. */
  w->extra = xcalloc(n + 1, sizeof *w->extra);
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic g = clang_getDiagnostic(w->tu, i);
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(g);
    if (sev < CXDiagnostic_Error) {
      clang_disposeDiagnostic(g);
      continue;
    }
    char *message = take(clang_getDiagnosticSpelling(g));
    CXFile f;
    unsigned offset;
    clang_getFileLocation(clang_getDiagnosticLocation(g), &f, NULL, NULL,
                          &offset);
    const struct source *src = NULL;
    if (f) {
      int fi = file_index(w, f);
      if (fi >= 0) {
        offset = origin(w, fi, offset);
        src = &w->s->files[fi].src;
      } else {
        char *name = take(clang_getFileName(f));
        for (unsigned k = 0; k < w->nextra && !src; k++)
          if (strcmp(w->extra[k].path, name) == 0)
            src = &w->extra[k];
        if (!src && source_load(&w->extra[w->nextra], name) == 0)
          src = &w->extra[w->nextra++];
        free(name);
      }
    }
    /* Without a place, the error is about the command line (a flag libclang
     * does not know): the compiler has the last word on those. */
    if (!already_reported(&w->clang, src, offset, message))
      diags_add(&w->clang, src ? DIAG_ERROR : DIAG_WARNING, src,
                src ? offset : 0, NULL, "%s", message);
    free(message);
    clang_disposeDiagnostic(g);
  }
}

static void error_at(struct walker *w, int file, unsigned probe_offset,
                     const char *fmt, const char *a, const char *b) {
  char *message = xasprintf(fmt, a, b);
  const struct source *src = &w->s->files[file].src;
  unsigned at = origin(w, file, probe_offset);
  if (!already_reported(w->d, src, at, message))
    diags_add(w->d, DIAG_ERROR, src, at, NULL, "%s", message);
  free(message);
}

static void error_cursor(struct walker *w, CXCursor c, const char *fmt,
                         const char *a, const char *b) {
  unsigned at;
  int file = where(w, clang_getCursorLocation(c), &at);
  if (file >= 0)
    error_at(w, file, at, fmt, a, b);
}

/* The item's text, for messages. */
static char *item_text(const struct unit_file *f, const struct item *it) {
  return xstrndup(f->clean + it->at.begin, it->at.end - it->at.begin);
}

/* ---------------------------------------------------------- tasks, uses */

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

static bool has_key(const unsigned *keys, unsigned n, unsigned key) {
  for (unsigned i = 0; i < n; i++)
    if (keys[i] == key)
      return true;
  return false;
}

static void add_key(unsigned **keys, unsigned *n, unsigned *cap, unsigned key) {
  if (has_key(*keys, *n, key))
    return;
  GROW(*keys, *n, *cap);
  (*keys)[(*n)++] = key;
}

static void add_use(struct task_state *st, unsigned key, CXCursor decl) {
  for (unsigned i = 0; i < st->nuses; i++)
    if (st->uses[i].key == key)
      return;
  GROW(st->uses, st->nuses, st->cap);
  st->uses[st->nuses++] = (struct use){key, decl};
}

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

/* Is the main file's text at original offsets `at` exactly `name`? A name
 * that comes from a macro expansion is not: its extent is the macro's. */
static bool spelled_as(const struct walker *w, struct span at,
                       const char *name) {
  const struct source *src = &w->s->files[0].src;
  size_t len = strlen(name);
  return at.end >= at.begin && at.end - at.begin == len && at.end <= src->len &&
         memcmp(src->text + at.begin, name, len) == 0;
}

/* A variable declared in a function (not at file scope, not extern). */
static bool is_local(CXCursor decl) {
  enum CXCursorKind k = clang_getCursorKind(decl);
  if (k == CXCursor_ParmDecl)
    return true;
  if (k != CXCursor_VarDecl)
    return false;
  if (clang_getCursorKind(clang_getCursorSemanticParent(decl)) ==
      CXCursor_TranslationUnit)
    return false;
  return clang_Cursor_getStorageClass(decl) != CX_SC_Extern;
}

/* Identifies a variable: the offset of its declaration. Locals are in the
 * main file, where offsets are unique; a global of a header may share its
 * key with something else, which at worst silences a warning. */
static unsigned decl_key(CXCursor decl) {
  unsigned key;
  clang_getFileLocation(clang_getCursorLocation(decl), NULL, NULL, NULL, &key);
  return key;
}

static bool in_span(struct span sp, unsigned at) {
  return at >= sp.begin && at < sp.end;
}

/* A reference to a variable at probe offset `at` of the main file: every
 * enclosing task whose body does not declare it captures it. */
static void note_reference(struct walker *w, CXCursor ref, CXCursor decl) {
  unsigned key = decl_key(decl);
  for (int i = 0; i < w->depth; i++) {
    struct task_state *st = &w->states[w->stack[i]];
    add_key(&st->seen_keys, &st->nseen, &st->cap_seen, key);
  }
  if (!is_local(decl) || where(w, clang_getCursorLocation(decl), &key) != 0)
    return;
  for (int i = w->depth - 1; i >= 0; i--) {
    struct task_state *st = &w->states[w->stack[i]];
    if (in_span(st->body_probe, key))
      break;
    add_use(st, key, decl);
    if (clang_Cursor_getStorageClass(decl) == CX_SC_Static)
      add_key(&st->shared_keys, &st->nshared, &st->cap_shared, key);
  }
  if (w->depth == 0)
    return;
  /* Rewritten later if the innermost task shares it. */
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

/* --------------------------------------------------------------- items */

/* Is `c` (a variable, or an expression naming one) a pointer as far as
 * memory goes: a pointer, or a parameter declared as an array, which C
 * adjusts to a pointer (libclang reports the declared type)? */
static bool acts_as_pointer(CXCursor c) {
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

/* The variable an lvalue item names itself (`x`, `a[i]` on an array `a`,
 * `s.f`), as opposed to memory reached through a pointer; or a null
 * cursor. */
static CXCursor root_variable(CXCursor e) {
  for (;;) {
    e = strip(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_DeclRefExpr)
      return clang_getCursorReferenced(e);
    if (k != CXCursor_MemberRefExpr && k != CXCursor_ArraySubscriptExpr)
      return clang_getNullCursor();
    struct kids ks = children(e);
    CXCursor base = ks.n ? strip(ks.v[0]) : clang_getNullCursor();
    free(ks.v);
    if (clang_Cursor_isNull(base))
      return base;
    /* Through a pointer (`p->f`, `p[i]`) the memory is not the variable. */
    if (k == CXCursor_ArraySubscriptExpr
            ? acts_as_pointer(base)
            : canonical(clang_getCursorType(base)).kind == CXType_Pointer)
      return clang_getNullCursor();
    e = base;
  }
}

/* Every variable referenced inside `e`. */
static enum CXChildVisitResult gather_refs(CXCursor c, CXCursor parent,
                                           CXClientData data) {
  struct task_state *st = data;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr)
    add_key(&st->written_keys, &st->nwritten, &st->cap_written,
            decl_key(clang_getCursorReferenced(c)));
  return CXChildVisit_Recurse;
}

static bool is_write_mode(enum clause_kind k) {
  return k == CLAUSE_OUT || k == CLAUSE_INOUT || k == CLAUSE_COMMUTATIVE;
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
    CXCursor root = root_variable(paren);
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
      add_key(&st->shared_keys, &st->nshared, &st->cap_shared, root_key);
    if (st && is_write_mode(cl->kind))
      clang_visitChildren(paren, gather_refs, st);
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
      CXEvalResult r = clang_Cursor_Evaluate(paren);
      if (r && clang_EvalResult_getKind(r) == CXEval_Int &&
          clang_EvalResult_getAsLongLong(r) < 0) {
        char *len = xasprintf("%lld", clang_EvalResult_getAsLongLong(r));
        error_at(w, file, p->offset, "section '%s' has a negative length (%s)",
                 what, len);
        free(len);
      }
      if (r)
        clang_EvalResult_dispose(r);
    }
    break;
  case PROBE_NAME: {
    free(what);
    what = item_text(f, &cl->items[p->item]);
    CXCursor ref = strip(paren);
    CXCursor decl = clang_getCursorReferenced(ref);
    unsigned key;
    if (clang_getCursorKind(ref) != CXCursor_DeclRefExpr || !is_local(decl) ||
        where(w, clang_getCursorLocation(decl), &key) != 0) {
      error_at(w, file, p->offset,
               "'%s' in '%s' is not a local variable or parameter", what,
               clause_name(cl->kind));
    } else if (st && cl->kind == CLAUSE_SHARED) {
      add_key(&st->shared_keys, &st->nshared, &st->cap_shared, key);
    } else if (st) {
      add_key(&st->private_keys, &st->nprivate, &st->cap_private, key);
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

/* The probe point of `file` at probe offset `at`, or NULL. */
static const struct probe_point *point_at(const struct walker *w, int file,
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

/* Checks the probe expressions under `c` (a probe block or function). */
static enum CXChildVisitResult visit_probes(CXCursor c, CXCursor parent,
                                            CXClientData data);

struct probe_visit {
  struct walker *w;
  int file;
  int task;
};

static enum CXChildVisitResult visit_probes(CXCursor c, CXCursor parent,
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

/* ------------------------------------------------------------ the walk */

static void walk(struct walker *w, CXCursor c, CXCursor parent, unsigned index,
                 unsigned nsiblings);
static void walk_children_from(struct walker *w, CXCursor c, unsigned first);
static void decide_captures(struct walker *w, int t);
static void warn_about_task(struct walker *w, int t, CXCursor body);

/* The directive whose probe anchor is at probe offset `at`, or -1. */
static int anchored(const struct walker *w, int file, unsigned at) {
  const struct unit_file *f = &w->s->files[file];
  for (unsigned k = 0; k < f->scan.ndirectives; k++)
    if (f->probe.anchors[k] == at)
      return (int)k;
  return -1;
}

/* End of a statement: its extent, and the ';' after it when the extent
 * stops before one (libclang's expression statements do). */
static unsigned statement_end(const struct unit_file *f, unsigned end) {
  const char *s = f->src.text;
  if (end > 0 && s[end - 1] == '}')
    return end;
  for (unsigned i = end; i < f->src.len; i++) {
    if (s[i] == ';')
      return i + 1;
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
      break;
  }
  return end;
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

/* Clauses that mean nothing where their directive is. */
static void check_placement(struct walker *w, const struct unit_file *f,
                            unsigned k, bool function) {
  const struct directive *d = &f->dirs[k];
  for (unsigned c = 0; c < d->nclauses; c++) {
    enum clause_kind kind = d->clauses[c].kind;
    if (function && (kind == CLAUSE_SHARED || kind == CLAUSE_FIRSTPRIVATE))
      diag_error(w->d, &f->src, d->clauses[c].at.begin,
                 "'%s' is not allowed on a task function: its body is the "
                 "function, which sees only its parameters",
                 clause_name(kind));
    if (!function && kind == CLAUSE_IMPLEMENTS)
      diag_error(w->d, &f->src, d->clauses[c].at.begin,
                 "'implements' is only allowed before a function "
                 "declaration");
  }
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
  unsigned end = statement_end(f, origin_end(w, 0, probe_body.end));
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
  decide_captures(w, t);
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

/* ------------------------------------------------------- the body walk */

static void walk_children_from(struct walker *w, CXCursor c, unsigned first) {
  struct kids ks = children(c);
  for (unsigned i = first; i < ks.n; i++)
    walk(w, ks.v[i], c, i, ks.n);
  free(ks.v);
}

/* A task body moves to file scope: what it names must be visible there. */
static void check_local_declaration(struct walker *w, CXCursor ref,
                                    CXCursor decl) {
  enum CXCursorKind k = clang_getCursorKind(decl);
  bool local_type = (k == CXCursor_EnumConstantDecl ||
                     k == CXCursor_TypedefDecl || k == CXCursor_StructDecl ||
                     k == CXCursor_UnionDecl || k == CXCursor_EnumDecl) &&
                    declared_in_function(decl);
  /* `extern int g;` or `void f(int);` inside a function. */
  bool local_extern = (k == CXCursor_FunctionDecl ||
                       (k == CXCursor_VarDecl &&
                        clang_Cursor_getStorageClass(decl) == CX_SC_Extern)) &&
                      clang_getCursorKind(clang_getCursorLexicalParent(decl)) ==
                          CXCursor_FunctionDecl;
  if (w->depth == 0 || (!local_type && !local_extern))
    return;
  unsigned at;
  if (where(w, clang_getCursorLocation(decl), &at) == 0 &&
      in_span(w->states[w->stack[w->depth - 1]].body_probe, at))
    return; /* declared in the task body itself */
  char *name = take(clang_getCursorSpelling(decl));
  error_cursor(w, ref,
               "task body uses '%s', which is declared inside the function: "
               "task bodies are moved out of it, so declare '%s' at file "
               "scope",
               name, name);
  free(name);
}

static int task_function_of(const struct walker *w, CXCursor fn) {
  CXCursor canon = clang_getCanonicalCursor(fn);
  for (unsigned i = 0; i < w->s->nfunctions; i++)
    if (clang_equalCursors(canon, w->canonical[i]))
      return (int)i;
  return -1;
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
    error_cursor(w, call,
                 "a call of task function '%s' must be a statement of its "
                 "own: the task runs later and has no value%s",
                 f->name, "");
    walk_children_from(w, call, 1);
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
    error_cursor(w, call,
                 "call of task function '%s' through a macro or a pointer: "
                 "dagcc cannot make it a task%s",
                 f->name, "");
    walk_children_from(w, call, 1);
    return;
  }
  int t = new_task(w, TASK_CALL, (int)(f->file - w->s->files), f->directive);
  struct task *task = &w->s->tasks[t];
  task->function = fi;
  task->replace = at;
  task->label = xstrdup(f->name);
  if (!f->used)
    f->first_use = w->toplevel;
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

static void walk(struct walker *w, CXCursor c, CXCursor parent, unsigned index,
                 unsigned nsiblings) {
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
  switch (kind) {
  case CXCursor_DeclRefExpr:
  case CXCursor_TypeRef: {
    CXCursor decl = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(decl) || file != 0)
      break;
    if (kind == CXCursor_DeclRefExpr)
      note_reference(w, c, decl);
    check_local_declaration(w, c, decl);
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

/* ------------------------------------------------------------ captures */

static bool spelling_is_unnamed(const char *type) {
  return strstr(type, "(anonymous") || strstr(type, "(unnamed");
}

/* The innermost element type and the number of array levels of `t`. */
static char *array_levels(CXType t, unsigned *ndims) {
  t = canonical(t);
  *ndims = 0;
  while (is_array_kind(t.kind)) {
    ++*ndims;
    t = canonical(clang_getArrayElementType(t));
  }
  return type_spelling(t);
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

static void decide_captures(struct walker *w, int t) {
  struct task_state *st = &w->states[t];
  struct task *task = &w->s->tasks[t];
  task->vars = xcalloc(st->nuses, sizeof *task->vars);
  for (unsigned i = 0; i < st->nuses; i++) {
    CXCursor decl = st->uses[i].decl;
    unsigned key = st->uses[i].key;
    struct capture_var *v = &task->vars[task->nvars];
    CXType type = clang_getCursorType(decl);
    bool shared = !has_key(st->private_keys, st->nprivate, key) &&
                  has_key(st->shared_keys, st->nshared, key);
    bool vm = is_variably_modified(type);
    bool array = is_array_kind(canonical(type).kind);
    *v = (struct capture_var){.name = take(clang_getCursorSpelling(decl)),
                              .type = type_spelling(type),
                              .how = shared ? CAPTURE_SHARED : CAPTURE_VALUE,
                              .key = key};
    task->nvars++;
    if (array && acts_as_pointer(decl)) {
      /* A parameter declared as an array is a pointer to its element. */
      CXType elem = clang_getArrayElementType(canonical(type));
      if (is_variably_modified(elem)) {
        v->how = CAPTURE_VALUE_VM;
        v->elem = array_levels(elem, &v->ndims);
      } else {
        char *e = type_spelling(elem);
        free(v->type);
        v->type = xasprintf("__typeof__(%s) *", e);
        free(e);
        v->how = CAPTURE_VALUE;
      }
      if (shared)
        capture_error(w, t,
                      "parameter '%s' is a pointer (declared as an array): "
                      "what it points to is shared already; name it in "
                      "firstprivate() or not at all%s",
                      v->name);
      continue;
    }
    CXCursor type_decl = clang_getTypeDeclaration(canonical(type));
    if (!clang_Cursor_isNull(type_decl) && declared_in_function(type_decl)) {
      capture_error(w, t,
                    "the type of '%s', which a task body uses, is declared "
                    "inside the function: declare it at file scope%s",
                    v->name);
    } else if (spelling_is_unnamed(v->type)) {
      capture_error(w, t,
                    "the type of '%s', which a task body uses, has no name: "
                    "give it a tag or a typedef at file scope%s",
                    v->name);
    } else if (vm && array && !shared) {
      capture_error(w, t,
                    "variable-length array '%s' is used by a task body but "
                    "cannot be copied: name it in a dependency clause or in "
                    "shared()%s",
                    v->name);
    } else if (vm && array) {
      v->how = CAPTURE_SHARED_VM;
      v->elem = array_levels(type, &v->ndims);
    } else if (vm && canonical(type).kind == CXType_Pointer) {
      if (shared)
        capture_error(w, t,
                      "'%s', a pointer to a variable-length array, cannot be "
                      "shared; what it points to is shared already%s",
                      v->name);
      v->how = CAPTURE_VALUE_VM;
      v->elem = array_levels(clang_getPointeeType(canonical(type)), &v->ndims);
    } else if (vm) {
      capture_error(w, t,
                    "'%s' has a variably modified type that a task cannot "
                    "capture%s",
                    v->name);
    } else if (array && !shared) {
      v->is_array = true;
    }
  }
}

/* ------------------------------------------------------------ warnings */

/* The variable an assignment writes, and whether through a pointer. */
static CXCursor write_target(CXTranslationUnit tu, CXCursor lhs,
                             bool *through_pointer) {
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
    if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr) {
      if (canonical(clang_getCursorType(strip(inner))).kind == CXType_Pointer)
        *through_pointer = true;
    } else if (k == CXCursor_UnaryOperator) {
      char *op = first_token(tu, lhs, false);
      bool deref = strcmp(op, "*") == 0;
      free(op);
      if (!deref)
        return clang_getNullCursor();
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
  CXCursor var = write_target(w->tu, lhs, &through_pointer);
  if (clang_Cursor_isNull(var) ||
      (clang_getCursorKind(var) != CXCursor_VarDecl &&
       clang_getCursorKind(var) != CXCursor_ParmDecl))
    return;
  unsigned key = decl_key(var);
  unsigned in_file;
  if (where(w, clang_getCursorLocation(var), &in_file) == 0 &&
      in_span(st->body_probe, key))
    return; /* the body's own variable */
  if (has_key(st->written_keys, st->nwritten, key))
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
  else if (cap && cap->how == CAPTURE_VALUE)
    diags_add(w->d, DIAG_WARNING, src, off, "-Wdag-uncovered-write",
              "task body assigns '%s', its own copy of the variable: the "
              "value is lost when the task ends (name it in out, inout or "
              "shared() to write the submitter's '%s')",
              name, name);
  else
    diags_add(w->d, DIAG_WARNING, src, off, "-Wdag-uncovered-write",
              "task body writes '%s', but no out, inout or commutative item "
              "names it",
              name);
  free(name);
}

static enum CXChildVisitResult visit_writes(CXCursor c, CXCursor parent,
                                            CXClientData data) {
  struct write_check *wc = data;
  struct walker *w = wc->w;
  enum CXCursorKind kind = clang_getCursorKind(c);
  unsigned at;
  if (kind == CXCursor_IfStmt &&
      where(w, clang_getCursorLocation(c), &at) == 0 && anchored(w, 0, at) >= 0)
    return CXChildVisit_Continue; /* a nested task checks its own body */
  if (kind != CXCursor_BinaryOperator &&
      kind != CXCursor_CompoundAssignOperator && kind != CXCursor_UnaryOperator)
    return CXChildVisit_Recurse;
  struct kids ks = children(c);
  if (ks.n == 0) {
    free(ks.v);
    return CXChildVisit_Recurse;
  }
  CXCursor lhs = ks.v[0];
  free(ks.v);
  bool writes = kind == CXCursor_CompoundAssignOperator;
  char *op =
      kind == CXCursor_BinaryOperator ? binary_operator(w->tu, c, lhs) : NULL;
  if (op)
    writes = strcmp(op, "=") == 0;
  free(op);
  if (kind == CXCursor_UnaryOperator) {
    char *first = first_token(w->tu, c, false);
    char *last = first_token(w->tu, c, true);
    writes = !strcmp(first, "++") || !strcmp(first, "--") ||
             !strcmp(last, "++") || !strcmp(last, "--");
    free(first);
    free(last);
  }
  if (writes)
    check_write(wc, c, lhs);
  return CXChildVisit_Recurse;
}

/* Keys of the variables an item expression refers to. */
static enum CXChildVisitResult gather_item_refs(CXCursor c, CXCursor parent,
                                                CXClientData data) {
  struct task_state *tmp = data;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr)
    add_key(&tmp->shared_keys, &tmp->nshared, &tmp->cap_shared,
            decl_key(clang_getCursorReferenced(c)));
  return CXChildVisit_Recurse;
}

struct unused_check {
  struct walker *w;
  int task;
};

static enum CXChildVisitResult visit_in_items(CXCursor c, CXCursor parent,
                                              CXClientData data) {
  struct unused_check *uc = data;
  struct walker *w = uc->w;
  if (clang_getCursorKind(c) != CXCursor_ParenExpr)
    return CXChildVisit_Recurse;
  unsigned at;
  if (where(w, clang_getCursorLocation(c), &at) != 0)
    return CXChildVisit_Recurse;
  const struct probe_point *p = point_at(w, 0, at);
  const struct unit_file *f = &w->s->files[0];
  if (!p || (p->role != PROBE_ADDRESS && p->role != PROBE_BASE) ||
      f->dirs[p->directive].clauses[p->clause].kind != CLAUSE_IN)
    return CXChildVisit_Recurse;
  struct task_state refs = {0};
  clang_visitChildren(c, gather_item_refs, &refs);
  const struct task_state *st = &w->states[uc->task];
  bool read = refs.nshared == 0;
  for (unsigned i = 0; i < refs.nshared && !read; i++)
    read = has_key(st->seen_keys, st->nseen, refs.shared_keys[i]);
  free(refs.shared_keys);
  if (!read) {
    const struct item *it =
        &f->dirs[p->directive].clauses[p->clause].items[p->item];
    char *text = item_text(f, it);
    diags_add(w->d, DIAG_WARNING, &f->src, it->at.begin, "-Wdag-unused-in",
              "'in' item '%s' is never read by the task body", text);
    free(text);
  }
  return CXChildVisit_Continue;
}

static void warn_about_task(struct walker *w, int t, CXCursor body) {
  for (size_t i = 0; i < w->d->n; i++)
    if (w->d->v[i].level == DIAG_ERROR)
      return; /* warnings about code that has errors help nobody */
  struct write_check wc = {w, t};
  visit_writes(body, clang_getNullCursor(), &wc);
  clang_visitChildren(body, visit_writes, &wc);
  struct unused_check uc = {w, t};
  clang_visitChildren(w->states[t].probes, visit_in_items, &uc);
}

/* ----------------------------------------------------------- top level */

static bool is_probe_function(CXCursor c) {
  char *name = take(clang_getCursorSpelling(c));
  bool probe =
      strncmp(name, PROBE_FUNCTION_PREFIX, strlen(PROBE_FUNCTION_PREFIX)) == 0;
  free(name);
  return probe;
}

static void add_function(struct walker *w, int file, unsigned k,
                         CXCursor decl) {
  struct sema *s = w->s;
  const struct unit_file *uf = &s->files[file];
  int twice = task_function_of(w, decl);
  if (twice >= 0) {
    unsigned line, col;
    const struct task_function *first = &s->functions[twice];
    source_position(&first->file->src,
                    first->file->dirs[first->directive].at.begin, &line, &col);
    diag_error(w->d, &uf->src, uf->dirs[k].at.begin,
               "'%s' is a task function already (its '#pragma dag task' is "
               "at %s:%u): give the pragma once",
               first->name, first->file->src.path, line);
    return;
  }
  if (clang_isFunctionTypeVariadic(clang_getCursorType(decl)) == 1) {
    char *name = take(clang_getCursorSpelling(decl));
    diag_error(w->d, &uf->src, uf->dirs[k].at.begin,
               "task function '%s' takes a variable number of arguments: a "
               "task cannot keep them for later",
               name);
    free(name);
    return;
  }
  if (s->nfunctions == w->cap_functions) {
    w->cap_functions = w->cap_functions ? 2 * w->cap_functions : 8;
    s->functions =
        xrealloc(s->functions, w->cap_functions * sizeof *s->functions);
    w->canonical =
        xrealloc(w->canonical, w->cap_functions * sizeof *w->canonical);
  }
  struct task_function *f = &s->functions[s->nfunctions];
  w->canonical[s->nfunctions++] = clang_getCanonicalCursor(decl);
  int n = clang_Cursor_getNumArguments(decl);
  *f = (struct task_function){
      .file = &s->files[file],
      .directive = k,
      .name = take(clang_getCursorSpelling(decl)),
      .params = xcalloc(n > 0 ? (size_t)n : 1, sizeof *f->params),
      .nparams = n > 0 ? (unsigned)n : 0,
      .in_main = file == 0,
      .implements = -1};
  for (unsigned i = 0; i < f->nparams; i++) {
    CXCursor p = clang_Cursor_getArgument(decl, i);
    CXType t = clang_getCursorType(p);
    bool adjusted = is_array_kind(canonical(t).kind);
    if (adjusted) /* a parameter declared as an array is a pointer */
      t = clang_getArrayElementType(canonical(t));
    f->params[i] =
        (struct param){take(clang_getCursorSpelling(p)), type_spelling(t),
                       type_spelling(canonical(t)),
                       adjusted ? is_variably_modified(t)
                                : is_variably_modified(clang_getCursorType(p))};
    if (adjusted) {
      char *elem = f->params[i].type;
      f->params[i].type = xasprintf("__typeof__(%s) *", elem);
      free(elem);
      elem = f->params[i].canonical;
      f->params[i].canonical = xasprintf("%s *", elem);
      free(elem);
    }
    if (!f->params[i].name[0]) {
      free(f->params[i].name);
      f->params[i].name = xasprintf("__dag_param%u", i);
    }
  }
  if (file == 0) {
    int fi;
    struct span ext = extent_of(w, decl, &fi);
    unsigned end = statement_end(&s->files[0], origin_end(w, 0, ext.end));
    f->decl = (struct span){origin(w, 0, ext.begin), end};
  }
  CXType result = clang_getResultType(clang_getCursorType(decl));
  if (canonical(result).kind != CXType_Void) {
    char *t = type_spelling(result);
    diags_add(w->d, DIAG_WARNING, &s->files[file].src,
              s->files[file].dirs[k].at.begin, "-Wdag-task-result",
              "task function '%s' returns '%s': its value is lost, since a "
              "task's result cannot be used",
              f->name, t);
    free(t);
  }
}

/* `implements(f)`: f is a task function declared before, with the same
 * parameters, so that the variant can run on f's argument copy. */
static void resolve_variants(struct walker *w) {
  struct sema *s = w->s;
  for (unsigned v = 0; v < s->nfunctions; v++) {
    struct task_function *fn = &s->functions[v];
    const struct directive *d = &fn->file->dirs[fn->directive];
    const struct clause *cl = NULL;
    for (unsigned c = 0; c < d->nclauses; c++)
      if (d->clauses[c].kind == CLAUSE_IMPLEMENTS)
        cl = &d->clauses[c];
    if (!cl || !cl->arg.text)
      continue;
    const struct source *src = &fn->file->src;
    int target = -1;
    for (unsigned f = 0; f < v && target < 0; f++)
      if (strcmp(s->functions[f].name, cl->arg.text) == 0)
        target = (int)f;
    if (target < 0) {
      diag_error(w->d, src, cl->arg.at.begin,
                 "'%s' is not a task function declared before '%s'",
                 cl->arg.text, fn->name);
      continue;
    }
    const struct task_function *base = &s->functions[target];
    bool same = base->nparams == fn->nparams && base->implements < 0;
    for (unsigned p = 0; same && p < fn->nparams; p++)
      same = strcmp(base->params[p].canonical, fn->params[p].canonical) == 0;
    if (!same) {
      diag_error(w->d, src, cl->arg.at.begin,
                 "variant '%s' must take the same parameters as '%s', a task "
                 "function that is no variant itself",
                 fn->name, base->name);
      continue;
    }
    fn->implements = target;
  }
}

/* Binds each file-scope task directive to the function declaration after
 * it, and checks the probe function of its clauses. */
static void bind_functions(struct walker *w, const struct kids *top) {
  for (unsigned fi = 0; fi < w->s->nfiles; fi++) {
    struct unit_file *f = &w->s->files[fi];
    for (unsigned k = 0; k < f->scan.ndirectives; k++) {
      if (!f->ok[k] || !f->active[k] || !f->scan.directives[k].file_scope)
        continue;
      if (f->dirs[k].kind == DIRECTIVE_TASKWAIT) {
        diag_error(w->d, &f->src, f->dirs[k].at.begin,
                   "'#pragma dag taskwait' must be inside a function");
        continue;
      }
      /* The first declaration after the directive (the preprocessing
       * record's cursors come first in the list, out of order). */
      CXCursor decl = clang_getNullCursor();
      unsigned best = UINT_MAX;
      for (unsigned i = 0; i < top->n; i++) {
        unsigned at;
        CXCursor c = top->v[i];
        if (clang_isPreprocessing(clang_getCursorKind(c)) ||
            where(w, clang_getRangeStart(clang_getCursorExtent(c)), &at) !=
                (int)fi ||
            is_probe_function(c))
          continue;
        at = origin(w, (int)fi, at);
        if (at >= f->dirs[k].at.end && at < best) {
          best = at;
          decl = c;
        }
      }
      if (clang_Cursor_isNull(decl) ||
          clang_getCursorKind(decl) != CXCursor_FunctionDecl) {
        diag_error(w->d, &f->src, f->dirs[k].at.begin,
                   "'#pragma dag task' at file scope must be followed by a "
                   "function declaration");
        continue;
      }
      check_placement(w, f, k, true);
      add_function(w, (int)fi, k, decl);
    }
  }
  resolve_variants(w);
  /* The clauses of task functions, checked in their probe functions. */
  for (unsigned i = 0; i < top->n; i++) {
    unsigned at;
    int fi = where(w, clang_getCursorLocation(top->v[i]), &at);
    if (fi >= 0 && is_probe_function(top->v[i])) {
      struct probe_visit v = {w, fi, -1};
      clang_visitChildren(top->v[i], visit_probes, &v);
    }
  }
}

static bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Does the function at original offsets [begin, end) of the main file hold
 * anything to rewrite: a directive, or maybe a call of a task function (its
 * name, or a macro that may hide it)? The others need no walk, and most
 * functions of a big file are others. `macros` are the offsets of the main
 * file's macro expansions, in order. */
static bool needs_walk(const struct walker *w, unsigned begin, unsigned end,
                       const unsigned *macros, unsigned nmacros) {
  const struct unit_file *f = &w->s->files[0];
  for (unsigned k = 0; k < f->scan.ndirectives; k++)
    if (in_span((struct span){begin, end}, f->scan.directives[k].at.begin))
      return true;
  if (w->s->nfunctions == 0)
    return false;
  unsigned lo = 0, hi = nmacros; /* the first expansion at or after begin */
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (macros[mid] < begin)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < nmacros && macros[lo] < end)
    return true;
  for (unsigned i = 0; i < w->s->nfunctions; i++) {
    const char *name = w->s->functions[i].name;
    size_t len = strlen(name);
    for (const char *p = f->src.text + begin;
         (p = memmem(p, f->src.text + end - p, name, len)) != NULL; p++) {
      bool starts = p == f->src.text || !is_identifier_char(p[-1]);
      if (starts && !is_identifier_char(p[len]))
        return true;
    }
  }
  return false;
}

static int by_value(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

static void walk_main_functions(struct walker *w, const struct kids *top) {
  unsigned *macros = xmalloc((top->n + 1) * sizeof *macros), nmacros = 0;
  for (unsigned i = 0; i < top->n; i++) {
    unsigned at;
    if (clang_getCursorKind(top->v[i]) == CXCursor_MacroExpansion &&
        where(w, clang_getCursorLocation(top->v[i]), &at) == 0)
      macros[nmacros++] = origin(w, 0, at);
  }
  qsort(macros, nmacros, sizeof *macros, by_value);
  for (unsigned i = 0; i < top->n; i++) {
    CXCursor c = top->v[i];
    int file;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl ||
        !clang_isCursorDefinition(c) || is_probe_function(c))
      continue;
    struct span at = extent_of(w, c, &file);
    if (file != 0)
      continue;
    unsigned begin = origin(w, 0, at.begin), end = origin_end(w, 0, at.end);
    if (!needs_walk(w, begin, end, macros, nmacros))
      continue;
    w->toplevel = begin;
    walk_children_from(w, c, 0);
  }
  free(macros);
}

/* Directives that libclang skipped (#if 0) are not part of the program. */
static void mark_active(struct walker *w) {
  for (unsigned fi = 0; fi < w->s->nfiles; fi++) {
    struct unit_file *f = &w->s->files[fi];
    for (unsigned k = 0; k < f->scan.ndirectives; k++)
      f->active[k] = true;
    if (!w->cxfiles[fi])
      continue;
    CXSourceRangeList *skipped = clang_getSkippedRanges(w->tu, w->cxfiles[fi]);
    for (unsigned r = 0; skipped && r < skipped->count; r++) {
      unsigned b, e;
      clang_getFileLocation(clang_getRangeStart(skipped->ranges[r]), NULL, NULL,
                            NULL, &b);
      clang_getFileLocation(clang_getRangeEnd(skipped->ranges[r]), NULL, NULL,
                            NULL, &e);
      b = origin(w, (int)fi, b);
      e = origin_end(w, (int)fi, e);
      for (unsigned k = 0; k < f->scan.ndirectives; k++)
        if (f->scan.directives[k].at.begin >= b &&
            f->scan.directives[k].at.begin < e)
          f->active[k] = false;
    }
    clang_disposeSourceRangeList(skipped);
  }
}

/* Every active directive inside a function must have found its place; in
 * a header none can, since only the main file is rewritten. */
static void check_bound(struct walker *w) {
  for (unsigned fi = 1; fi < w->s->nfiles; fi++) {
    const struct unit_file *h = &w->s->files[fi];
    for (unsigned k = 0; k < h->scan.ndirectives; k++)
      if (h->ok[k] && h->active[k] && !h->scan.directives[k].file_scope)
        diag_error(w->d, &h->src, h->dirs[k].at.begin,
                   "'#pragma dag %s' inside a function of a header: only "
                   "the file being compiled is rewritten, so move the "
                   "function into a .c file",
                   h->dirs[k].kind == DIRECTIVE_TASK ? "task" : "taskwait");
  }
  const struct unit_file *f = &w->s->files[0];
  for (unsigned k = 0; k < f->scan.ndirectives; k++) {
    if (!f->ok[k] || !f->active[k] || f->scan.directives[k].file_scope)
      continue;
    bool bound = false; /* or already reported */
    for (size_t i = 0; i < w->d->n && !bound; i++)
      bound =
          w->d->v[i].src == &f->src && w->d->v[i].offset == f->dirs[k].at.begin;
    for (unsigned t = 0; t < w->s->ntasks && !bound; t++)
      bound = w->s->tasks[t].kind != TASK_CALL && w->s->tasks[t].directive == k;
    if (!bound)
      diag_error(w->d, &f->src, f->dirs[k].at.begin,
                 "'#pragma dag %s' is not in a place where a statement can "
                 "be",
                 f->dirs[k].kind == DIRECTIVE_TASK ? "task" : "taskwait");
  }
}

/* References that must go through the task's pointer to a shared
 * variable. */
static void resolve_refs(struct walker *w) {
  struct sema *s = w->s;
  s->refs = xcalloc(w->nrefs + 1, sizeof *s->refs);
  for (unsigned i = 0; i < w->nrefs; i++) {
    const struct pending_ref *r = &w->refs[i];
    const struct task *t = &s->tasks[r->task];
    for (unsigned v = 0; v < t->nvars; v++) {
      if (t->vars[v].key != r->key || t->vars[v].how == CAPTURE_VALUE ||
          t->vars[v].how == CAPTURE_VALUE_VM)
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

/* The item of a unit file's directives that holds `offset`, if any. */
static const struct item *item_at(const struct unit_file *f, unsigned offset) {
  for (unsigned k = 0; k < f->scan.ndirectives; k++) {
    if (!f->ok[k] || offset < f->dirs[k].at.begin ||
        offset >= f->dirs[k].at.end)
      continue;
    for (unsigned c = 0; c < f->dirs[k].nclauses; c++)
      for (unsigned i = 0; i < f->dirs[k].clauses[c].nitems; i++) {
        const struct item *it = &f->dirs[k].clauses[c].items[i];
        if (offset >= it->at.begin && offset < it->at.end)
          return it;
      }
  }
  return NULL;
}

/* libclang's errors join ours, except those in an item we explained. */
static void merge_clang_errors(struct walker *w) {
  size_t ours = w->d->n;
  for (size_t i = 0; i < w->clang.n; i++) {
    const struct diag *g = &w->clang.v[i];
    const struct item *it = NULL;
    for (unsigned fi = 0; fi < w->s->nfiles && g->src; fi++)
      if (g->src == &w->s->files[fi].src)
        it = item_at(&w->s->files[fi], g->offset);
    bool explained = false;
    for (size_t j = 0; it && j < ours && !explained; j++)
      explained = w->d->v[j].src == g->src &&
                  w->d->v[j].offset >= it->at.begin &&
                  w->d->v[j].offset < it->at.end;
    if (!explained)
      diags_add(w->d, g->level, g->src, g->offset, NULL, "%s", g->message);
  }
  diags_release(&w->clang);
}

static void release_walker(struct walker *w) {
  for (unsigned t = 0; t < w->s->ntasks; t++) {
    struct task_state *st = &w->states[t];
    free(st->uses);
    free(st->shared_keys);
    free(st->private_keys);
    free(st->written_keys);
    free(st->seen_keys);
  }
  free(w->states);
  free(w->refs);
  free(w->canonical);
  free(w->cxfiles);
}

int sema_analyse(struct sema *s, const char *const *args, int nargs,
                 struct diags *diags, struct source **extra, unsigned *nextra) {
  CXIndex index = clang_createIndex(0, 0);
  struct CXUnsavedFile *unsaved = xcalloc(s->nfiles, sizeof *unsaved);
  for (unsigned i = 0; i < s->nfiles; i++)
    unsaved[i] = (struct CXUnsavedFile){
        s->files[i].src.path, s->files[i].probe.text, s->files[i].probe.len};
  const char **argv = xcalloc((size_t)nargs + 2, sizeof *argv);
  for (int i = 0; i < nargs; i++)
    argv[i] = args[i];
  argv[nargs] = "-ferror-limit=0";
  CXTranslationUnit tu = NULL;
  enum CXErrorCode rc = clang_parseTranslationUnit2(
      index, s->files[0].src.path, argv, nargs + 1, unsaved, s->nfiles,
      CXTranslationUnit_KeepGoing |
          CXTranslationUnit_DetailedPreprocessingRecord |
          CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
      &tu);
  free(argv);
  free(unsaved);
  if (rc != CXError_Success || !tu) {
    diag_error(diags, NULL, 0, "libclang could not parse '%s' (error %d)",
               s->files[0].src.path, (int)rc);
    clang_disposeIndex(index);
    return -1;
  }
  struct walker w = {.s = s, .d = diags, .tu = tu};
  w.cxfiles = xcalloc(s->nfiles, sizeof *w.cxfiles);
  for (unsigned i = 0; i < s->nfiles; i++)
    w.cxfiles[i] = clang_getFile(tu, s->files[i].src.path);
  report_clang(&w);
  mark_active(&w);
  struct kids top = children(clang_getTranslationUnitCursor(tu));
  bind_functions(&w, &top);
  walk_main_functions(&w, &top);
  free(top.v);
  check_bound(&w);
  resolve_refs(&w);
  merge_clang_errors(&w);
  *extra = w.extra;
  *nextra = w.nextra;
  release_walker(&w);
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  return diags_failed(diags) ? -1 : 0;
}

void sema_release(struct sema *s) {
  for (unsigned t = 0; t < s->ntasks; t++) {
    for (unsigned v = 0; v < s->tasks[t].nvars; v++) {
      free(s->tasks[t].vars[v].name);
      free(s->tasks[t].vars[v].type);
      free(s->tasks[t].vars[v].elem);
    }
    free(s->tasks[t].vars);
    free(s->tasks[t].label);
  }
  free(s->tasks);
  for (unsigned f = 0; f < s->nfunctions; f++) {
    for (unsigned p = 0; p < s->functions[f].nparams; p++) {
      free(s->functions[f].params[p].name);
      free(s->functions[f].params[p].type);
      free(s->functions[f].params[p].canonical);
    }
    free(s->functions[f].params);
    free(s->functions[f].name);
  }
  free(s->functions);
  free(s->refs);
  s->tasks = NULL;
  s->functions = NULL;
  s->refs = NULL;
  s->ntasks = s->nfunctions = s->nrefs = 0;
}
