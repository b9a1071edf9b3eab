/* sema.h: what libclang tells the rewriter about a file, as plain data.
 *
 * The sema files (sema.c, which runs the passes, and sema_*.c) parse the
 * probe text (probe.h) with the user's flags, bind each directive to its
 * statement or function declaration, resolve the types of the items, work
 * out which variables each task body captures and how, and report what is
 * wrong. emit.c turns the result into edits. */
#ifndef DAG_TOOL_SEMA_H
#define DAG_TOOL_SEMA_H

#include "probe.h"

/* A file of the translation unit that holds directives: the main file or a
 * header it includes with quotes. */
struct unit_file {
  struct source src;
  char *clean; /* src's text with directives cleaned (scan.h) */
  struct scan_result scan;
  struct directive *dirs; /* one per scanned directive */
  bool *ok;               /* dirs[k] parsed without errors */
  bool *active;           /* dirs[k] is not in a skipped #if block */
  struct probe_file probe;
};

enum capture {
  CAPTURE_VALUE,    /* copied at submission; the body has its own copy */
  CAPTURE_PRIVATE,  /* the body writes it before any read: its own variable,
                       declared there, nothing copied (OpenMP's private) */
  CAPTURE_VALUE_VM, /* a pointer to a variable-length array, copied */
  CAPTURE_SHARED,   /* the body uses the submitter's object, by address */
  CAPTURE_SHARED_VM /* a variable-length array, by address */
};

/* A variable that a task body uses from outside the body. */
struct capture_var {
  char *name;
  char *type;     /* spelling of its type, for __typeof__ */
  char *elem;     /* VM and arrays: spelling of the innermost element */
  unsigned ndims; /* VM: array levels below the pointer (VALUE_VM) or of the
                     array (SHARED_VM) */
  enum capture how;
  bool is_array; /* CAPTURE_VALUE of an array: copied with memcpy */
  bool pointers; /* CAPTURE_VALUE: a pointer, or an array of pointers */
  unsigned key;  /* the declaration's offset: identifies the variable */
};

enum task_kind {
  TASK_STATEMENT, /* `#pragma dag task` on a statement */
  TASK_CALL,      /* a call of a task function */
  TASK_TASKWAIT,  /* `#pragma dag taskwait` */
};

struct task {
  enum task_kind kind;
  const struct unit_file *file; /* where the directive is */
  unsigned directive;           /* index in file->dirs */
  int function;                 /* TASK_CALL: index in sema.functions */
  /* STATEMENT and TASKWAIT: the range replaced (directive and statement);
   * CALL: the callee's name. In the main file. */
  struct span replace;
  struct span body;     /* STATEMENT: the statement, outlined */
  struct span toplevel; /* the function definition around it */
  int parent;           /* the task whose body holds this one, or -1 */
  char *label;          /* default label: the callee's name, or NULL */
  struct capture_var *vars;
  unsigned nvars;
  /* STATEMENT: declarations of the enclosing function that the body needs
   * (types, tags, enum constants, extern declarations), declared again in
   * the outlined body: their text in the main file, in source order. */
  struct span *locals;
  unsigned nlocals;
  /* The typedefs and extern variables among them: the submission names
   * each, so that the function's own stay used (-Wunused-local-typedefs,
   * -Wunused-variable). */
  struct local_name {
    char *name;
    bool type; /* a typedef, else a variable */
  } * local_names;
  unsigned nlocal_names;
};

/* A function declared with `#pragma dag task`. */
struct param {
  char *name;
  char *type;      /* spelling; VM types are passed as void * */
  char *canonical; /* spelling of the canonical type, to compare */
  bool vm;
  bool pointer; /* passed as a pointer (a VM one as void *) */
};

struct task_function {
  const struct unit_file *file; /* where the directive is */
  unsigned directive;
  char *name;
  struct param *params;
  unsigned nparams;
  bool in_main;       /* declared in the main file */
  struct span decl;   /* in_main: the declaration */
  unsigned first_use; /* toplevel of the first call in the main file */
  bool used;
  int implements; /* `implements(f)`: the index of f; -1 if none */
};

/* A reference, in the main file, to a variable that the innermost task
 * around it shares: emit rewrites it to go through the task's pointer. */
struct shared_ref {
  struct span at;
  int task;
  unsigned var; /* index in tasks[task].vars */
};

/* A way out of `main` in the main file, where the program waits for its
 * tasks first (emit.c). */
struct main_return {
  /* A return statement: empty, at its `return`. A return that a macro's
   * definition spells: the macro's invocation in main. */
  struct span at;
  bool macro;
  bool in_argument; /* the return is written in a macro's argument */
};

struct main_function {
  bool present;   /* the main file defines main */
  unsigned begin; /* where its definition starts */
  unsigned end;   /* its body's closing '}' */
  bool falls_off; /* control may reach that '}', the file's own */
  struct main_return *returns;
  unsigned nreturns;
};

struct sema {
  struct unit_file *files; /* files[0] is the main file */
  unsigned nfiles;
  struct task *tasks; /* in source order of `replace.begin` */
  unsigned ntasks;
  struct task_function *functions;
  unsigned nfunctions;
  struct shared_ref *refs;
  unsigned nrefs;
  bool openmp; /* -fopenmp: the compiler reads '#pragma omp' */
  struct main_function main_fn;
};

/* Analyses the translation unit whose files (main first, with directives
 * scanned, parsed and probed) are in `s->files`, and fills in `active` of
 * each. Reports to `diags`; files libclang reported on that are not unit
 * files are loaded into `*extra` (the caller releases them once the
 * diagnostics are printed). Returns 0 when nothing stops the rewrite. */
int sema_analyse(struct sema *s, const char *const *args, int nargs,
                 struct diags *diags, struct source **extra, unsigned *nextra);
void sema_release(struct sema *s);

/* The folder of libclang's own headers (stddef.h, stdatomic.h...), which
 * its parse searches before the system's, found by asking libclang; NULL
 * when it does not say. The caller frees it. */
char *sema_builtin_headers(void);

#endif
