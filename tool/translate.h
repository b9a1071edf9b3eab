/* translate.h: the rewriter's whole pipeline for one C file, as the driver
 * sees it: scan for pragmas, parse them, analyse the file with libclang,
 * emit edits and write the rewritten file. */
#ifndef DAG_TOOL_TRANSLATE_H
#define DAG_TOOL_TRANSLATE_H

#include <stdbool.h>
#include <stdio.h>

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
 * stderr in the compiler's format. */
enum translate_result translate_file(const char *path,
                                     const struct translate_options *opt,
                                     FILE *out);

#endif
