/* sema_internal.h: what the sema files share: the walker that carries one
 * analysis, the state gathered per task before its captures are decided,
 * and the functions one sema file offers the others. With the sema files,
 * the only place that includes clang-c/Index.h. */
#ifndef DAG_TOOL_SEMA_INTERNAL_H
#define DAG_TOOL_SEMA_INTERNAL_H

#include "sema.h"

#include <clang-c/Index.h>

#define MAX_NESTING 64

/* Declarations by key (decl_key), in the order they were added. */
struct decl_set {
  struct decl_entry {
    unsigned key;
    CXCursor decl;
  } * v;
  unsigned n, cap;
};

/* A set of variables, by key (decl_key). */
struct key_set {
  unsigned *v;
  unsigned n, cap;
};

/* Per task, what the walk gathers before captures are decided. */
struct task_state {
  struct span body_probe; /* the body, in probe offsets */
  struct decl_set uses;   /* variables from outside the body */
  struct decl_set locals; /* local declarations to declare again */
  struct key_set shared;  /* roots of items, shared(), static locals */
  struct key_set named;   /* shared(): the user protects their writes */
  struct key_set private; /* firstprivate() */
  struct key_set written; /* referenced by out/inout/commutative/reduction
                             items */
  struct key_set reduced; /* globals that reduction items name: captured */
  struct key_set seen;    /* every variable the body refers to */
  CXCursor probes;        /* the directive's probe block */
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
  CXFile *cxfiles;        /* per unit file */
  struct span toplevel;   /* the function being walked */
  int stack[MAX_NESTING]; /* enclosing statement tasks, innermost last */
  int depth;
  int loops, switches; /* inside the innermost task's body */
  struct task_state *states;
  unsigned cap_tasks;
  struct {
    CXCursor *v; /* the function's child being walked first */
    unsigned n, cap;
  } path; /* the cursors from the function down to the one walked */
  struct pending_ref *refs;
  unsigned nrefs, cap_refs;
  struct source *extra; /* files libclang reported on that have no directive */
  unsigned nextra;
  CXCursor *canonical; /* per task function: its canonical declaration */
  /* libclang's errors, kept apart until ours are known: where we explain
   * an item ourselves, what libclang says about our probe code goes. */
  struct diags clang;
  unsigned cap_functions;
  /* The OpenMP constructs (under -fopenmp) of the main file's functions,
   * original offsets: libclang shows no statement inside them. */
  struct openmp_construct {
    struct span at;
    bool noted; /* an error about it has its note */
  } * omp;
  unsigned nomp, cap_omp;
  /* sema_parts.c: the first length of the section in a block modifier
   * being checked, until its second length comes. */
  struct part_rows {
    const struct item *item;
    bool known; /* a constant */
    long long value;
  } rows;
};

#define GROW(v, n, cap)                                                        \
  do {                                                                         \
    if ((n) == (cap)) {                                                        \
      (cap) = (cap) ? 2 * (cap) : 8;                                           \
      (v) = xrealloc((v), (cap) * sizeof *(v));                                \
    }                                                                          \
  } while (0)

/* The children of a cursor, in order (free `v`). */
struct kids {
  CXCursor *v;
  unsigned n, cap;
};

/* ---- sema_cursor.c: cursors, types, tokens and offsets */

/* The text of `s`, owned by the caller; `s` is disposed of. */
char *take(CXString s);
/* The unit file `f` is, or -1. */
int file_index(const struct walker *w, CXFile f);
/* Probe offset of a location, and which unit file it is in (-1: none). */
int where(const struct walker *w, CXSourceLocation loc, unsigned *offset);
/* The original offset of probe offset `at` of unit file `file`. */
unsigned origin(const struct walker *w, int file, unsigned at);
/* The original offset just after the byte before probe offset `end`: an
 * end may be where generated probe text begins. */
unsigned origin_end(const struct walker *w, int file, unsigned end);
/* The extent of `c` in probe offsets, and its unit file in *file. */
struct span extent_of(const struct walker *w, CXCursor c, int *file);
struct kids children(CXCursor c);
/* Looks through implicit conversions and parentheses. */
CXCursor strip(CXCursor c);
bool is_array_kind(enum CXTypeKind k);
CXType canonical(CXType t);
/* An integer or enumeration type. */
bool is_integer(CXType t);
/* True when `t` or anything it points to or holds is a variable-length
 * array. */
bool is_variably_modified(CXType t);
/* The number of array levels of `t`; *inner is the canonical type inside
 * them (`t` itself when it is no array). */
unsigned array_levels(CXType t, CXType *inner);
/* The value of `e` when libclang can evaluate it to an integer. */
bool constant_integer(CXCursor e, long long *value);
char *type_spelling(CXType t);
/* The operator of a binary operator (or member reference) cursor, whose
 * left operand is `lhs`: the first token after it ("=", ",", "->"), read
 * where the expression is used, macros included; "" when there is none
 * there (an operator a macro's definition holds). */
char *binary_operator(CXTranslationUnit tu, CXCursor c, CXCursor lhs);
/* The operator of a unary operator cursor, prefix or postfix ("++", "*"),
 * read the same way; "" when there is none. */
char *unary_operator(CXTranslationUnit tu, CXCursor c);
bool in_span(struct span sp, unsigned at);
/* Is the main file's text at original offsets `at` exactly `name`? A name
 * that comes from a macro expansion is not: its extent is the macro's. */
bool spelled_as(const struct walker *w, struct span at, const char *name);
/* Identifies a variable: the offset of its declaration. Locals are in the
 * main file, where offsets are unique; a global of a header may share its
 * key with something else, which at worst silences a warning. */
unsigned decl_key(CXCursor decl);
/* A variable declared in a function (not at file scope, not extern). */
bool is_local(CXCursor decl);
/* Whether a statement ends with a block ({ ... }) of its own: a compound
 * statement, or an if, loop or switch whose last sub-statement does. A '}'
 * that closes a compound literal or an initializer ends an expression,
 * which still takes its ';'. */
bool ends_with_block(CXCursor stmt);
/* End of a statement or declaration: its extent, and unless it ends with
 * a block, the ';' after it when the extent stops before one (libclang's
 * expression statements and prototypes do). */
unsigned statement_end(const struct unit_file *f, unsigned end, bool block);

/* ---- sema_errors.c: errors in the user's text */

/* libclang's errors, mapped from the probe text to the user's, into
 * w->clang. Warnings are left to the compiler, which sees the rewritten
 * file. */
void report_clang(struct walker *w);
/* An error at probe offset `probe_offset` of unit file `file`, once; `fmt`
 * takes two strings. */
void error_at(struct walker *w, int file, unsigned probe_offset,
              const char *fmt, const char *a, const char *b);
/* The same at the location of `c`, when it is in a unit file. */
void error_cursor(struct walker *w, CXCursor c, const char *fmt, const char *a,
                  const char *b);
/* The item's text, for messages. */
char *item_text(const struct unit_file *f, const struct item *it);
/* libclang's errors join ours, except those in an item we explained. */
void merge_clang_errors(struct walker *w);

/* ---- sema_items.c: the clauses' expressions */

/* Is `c` (a variable, or an expression naming one) a pointer as far as
 * memory goes: a pointer, or a parameter declared as an array, which C
 * adjusts to a pointer (libclang reports the declared type)? */
bool acts_as_pointer(CXCursor c);
/* The variable an lvalue item names itself (`x`, `a[i]` on an array `a`,
 * `s.f`), as opposed to memory reached through a pointer; or a null
 * cursor. With `through_pointers`, also the pointer variable through which
 * the item reaches its memory (`p` of `*p`, `p[i]`, `p->f`). */
CXCursor item_variable(CXCursor e, bool through_pointers);
/* The probe point of `file` at probe offset `at`, or NULL. */
const struct probe_point *point_at(const struct walker *w, int file,
                                   unsigned at);
/* Where the probe expressions under a cursor (a probe block or function)
 * are checked: a clang_visitChildren visitor of a struct probe_visit. */
struct probe_visit {
  struct walker *w;
  int file;
  int task; /* the task whose clauses they are, or -1 */
};
enum CXChildVisitResult visit_probes(CXCursor c, CXCursor parent,
                                     CXClientData data);

/* ---- sema_reductions.c: reduction items */

/* The checks of probe point `p` (at `paren`) of a reduction item, and what
 * task `task` (-1: a task function) needs for it; sets the item's
 * scalar_levels. */
void check_reduction_point(struct walker *w, int file, CXCursor paren,
                           const struct probe_point *p, int task);
/* An item that directive `directive` of `file`, whose probe expressions
 * are under `probes`, reduces is named in no other of its clauses. */
void check_reduction_items(struct walker *w, int file, unsigned directive,
                           CXCursor probes);

/* ---- sema_parts.c: items in a block modifier (`lower(X)`) */

/* The checks of probe point `p` (at `paren`) of an item in a block
 * modifier: two dimensions, square where that can be told. */
void check_part_point(struct walker *w, int file, CXCursor paren,
                      const struct probe_point *p);

/* ---- sema_walk.c: function bodies */

/* The directive whose probe anchor is at probe offset `at`, or -1. */
int anchored(const struct walker *w, int file, unsigned at);
/* Calls `visit` on the task body `body` and the cursors under it, as
 * clang_visitChildren would on a parent of `body`, but not inside the
 * tasks nested in it, which have their own checks. */
void visit_body(const struct walker *w, CXCursor body, CXCursorVisitor visit,
                CXClientData data);
/* Clauses that mean nothing where their directive is. */
void check_placement(struct walker *w, const struct unit_file *f, unsigned k,
                     bool function);
/* Walks the children of `c` from child `first` on. */
void walk_children_from(struct walker *w, CXCursor c, unsigned first);
/* The innermost OpenMP construct around original offset `at` of the main
 * file, or NULL. */
struct openmp_construct *openmp_around(const struct walker *w, unsigned at);
/* The note that goes with an error about dag and OpenMP pragmas on the
 * same code: the OpenMP construct at original offset `at` of the main
 * file, and what to do. */
void note_openmp(struct walker *w, unsigned at);

/* ---- sema_captures.c: what task bodies capture */

bool key_set_has(const struct key_set *set, unsigned key);
/* Adds `decl` under `key` unless the key is there; true when added. */
bool decl_set_add(struct decl_set *set, unsigned key, CXCursor decl);
void key_set_add(struct key_set *set, unsigned key);
/* A clang_visitChildren visitor: adds every variable referenced under the
 * cursor to the struct key_set `set`. */
enum CXChildVisitResult gather_keys(CXCursor c, CXCursor parent,
                                    CXClientData set);
/* A reference to a variable at probe offset `at` of the main file: every
 * enclosing task whose body does not declare it captures it. */
void note_reference(struct walker *w, CXCursor ref, CXCursor decl);
/* Decides how task `t`, whose statement is `body`, captures each variable
 * its body uses. */
void decide_captures(struct walker *w, int t, CXCursor body);
/* References that must go through the task's pointer to a shared
 * variable. */
void resolve_refs(struct walker *w);

/* ---- sema_locals.c: the function's declarations a body needs */

/* Task `t` (and each enclosing task whose body does not hold it) needs
 * `decl`, if it is a declaration of the function to declare again: a
 * typedef, a tag, an enum constant, an extern declaration. */
void need_declaration(struct walker *w, int t, CXCursor decl);
/* The same for what the type `type` names. */
void need_type(struct walker *w, int t, CXType type);
/* Sets the task's `locals` from what it needs; once its body is walked. */
void settle_locals(struct walker *w, int t);

/* ---- sema_liveness.c: what the code after a task reads */

/* May the code after the task statement at the end of w->path (the
 * enclosing function's, and the tasks' it submits) read the variable `key`
 * before it writes it again? */
bool read_after_task(struct walker *w, unsigned key);
/* Does the task body `body` surely write the variable `key` before any
 * read of it, so that a copy of the submitter's would never be used? The
 * tasks nested in it are taken as run in place: the caller checks that
 * none of them copies or shares the variable. */
bool written_before_read(const struct walker *w, CXCursor body, unsigned key);

/* ---- sema_functions.c: task functions */

/* The functions the probe text adds for the clauses of task functions. */
bool is_probe_function(CXCursor c);
/* The task function `fn` declares, or -1. */
int task_function_of(const struct walker *w, CXCursor fn);
/* Binds each file-scope task directive to the function declaration after
 * it, and checks the probe function of its clauses. */
void bind_functions(struct walker *w, const struct kids *top);

/* ---- sema_main.c: the ways out of main */

/* Fills in w->s->main_fn from the definition of main among `top`, the
 * translation unit's cursors, if the main file has one. */
void find_main_returns(struct walker *w, const struct kids *top);

/* ---- sema_warnings.c: warnings about task bodies */

/* The warnings about task `t`, whose statement is `body`. */
void warn_about_task(struct walker *w, int t, CXCursor body);
/* Whether `c` writes (`=`, a compound assignment, `++`, `--`), and its
 * left operand in *lhs. */
bool is_write(const struct walker *w, CXCursor c, CXCursor *lhs);
/* The variable that the left operand `lhs` of a write names, and whether
 * the write goes through a pointer; a null cursor when no variable. */
CXCursor write_target(CXCursor lhs, bool *through_pointer);

/* ---- sema_mpi_lint.c: -Wdag-mpi, for programs run on several ranks */

/* Task `t`, whose statement is `body`, has no data items and writes what
 * other ranks would need. */
void lint_mpi_task(struct walker *w, int t, CXCursor body);
/* Task function `f` has no data items. */
void lint_mpi_function(struct walker *w, const struct task_function *f);

/* ---- sema_item_warnings.c: warnings about a task's items */

/* The warnings about the items of task `t`, whose statement is `body`. */
void warn_about_items(struct walker *w, int t, CXCursor body);

#endif
