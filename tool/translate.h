/* translate.h: the rewriter's whole pipeline for one C file, as the driver
 * sees it: scan for pragmas, parse them, analyse the file with libclang,
 * emit edits and write the rewritten file. */
#ifndef DAG_TOOL_TRANSLATE_H
#define DAG_TOOL_TRANSLATE_H

#include <stdbool.h>
#include <stdio.h>

/* _DAG tells code that dagcc builds it, pragmas at work, as _OPENMP does
 * for OpenMP; its value is the year and month of the pragma language
 * (yyyymm). The rewriter's parse defines it, and so does the compile that
 * dagcc runs, so that both see the same branches; flags that define or
 * undefine _DAG themselves win, in both. */
#define DAG_MACRO "_DAG"
#define DAG_MACRO_VALUE "202612"

/* True when `args` define or undefine _DAG: -D_DAG, -D_DAG=v, -U_DAG, joined
 * or separate. */
bool translate_args_set_dag_macro(const char *const *args, int nargs);

/* True when `args` turn OpenMP on: -fopenmp or -fopenmp=<runtime>, not
 * undone by a later -fno-openmp. */
bool translate_args_openmp(const char *const *args, int nargs);

struct translate_options {
  /* Flags for libclang, as the compiler gets them: -I, -D, -U, -std, -W...,
   * -f... (not the input file, -c, -o). */
  const char *const *clang_args;
  int nclang_args;
  bool werror; /* -Werror: -Wdag-* warnings are errors */
};

enum translate_result {
  TRANSLATE_UNCHANGED, /* nothing for dag in the file: compile it as it is */
  TRANSLATE_REWRITTEN, /* `out` holds the rewritten file */
  TRANSLATE_FAILED,    /* errors were printed on stderr */
};

/* Rewrites the C file at `path` into `out`. A file with no `#pragma dag`
 * (in itself or in the headers it includes with quotes) and no call of a
 * task function is UNCHANGED and `out` is left alone. Diagnostics go to
 * stderr in the compiler's format. libclang parses the file as the
 * compiler will see its rewrite: with _DAG defined (see DAG_MACRO) and
 * <dag.h> included after the flags' -include files, as the rewrite's first
 * line does; so dag.h must be on the flags' include path. */
enum translate_result translate_file(const char *path,
                                     const struct translate_options *opt,
                                     FILE *out);

/* The folder of libclang's own headers, as sema_builtin_headers() finds
 * it (sema.h), or NULL. The caller frees it. */
char *translate_builtin_headers(void);

#endif
