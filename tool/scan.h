/* scan.h: a light lexical pass over a C file, before libclang sees it.
 *
 * It finds the `#pragma dag` directives (and whether each is at file scope
 * or inside a function), the headers the file includes with quotes, and,
 * after a file-scope directive, the function declaration it precedes; and,
 * for warnings, the OpenMP pragmas a file asks for: `#pragma omp` lines,
 * `_Pragma`s and the macros that make them. It
 * understands comments, string and character literals, line continuations
 * and preprocessor lines; it does not expand macros. */
#ifndef DAG_TOOL_SCAN_H
#define DAG_TOOL_SCAN_H

#include "pragma.h"

struct scan_directive {
  struct span at;  /* from '#' to the end of the last line, newline excluded */
  bool file_scope; /* outside every brace: precedes a function declaration */
  char before;     /* the punctuation just before it, or 'a' after a name or
                      literal, or 0 at the start of the file */
};

struct scan_include {
  struct span name; /* without the quotes or brackets */
  bool angled;      /* <name>, not "name" */
};

struct scan_result {
  struct scan_directive *directives;
  unsigned ndirectives;
  struct scan_include *includes;
  unsigned nincludes;
};

void scan_source(const struct source *src, struct scan_result *out);
void scan_release(struct scan_result *r);

/* The file's text with the comments and line continuations inside each
 * directive turned into spaces: offsets are unchanged, so expression text
 * can be cut from it at the offsets pragma.c reports. */
char *scan_clean_directives(const struct source *src,
                            const struct scan_result *r);

/* The function declaration that starts at or after `from`: `name` is its
 * identifier, `params` its parameter list with the parentheses, `end` the
 * offset just after its ';' or closing '}'. Returns false when the text from
 * `from` on does not look like a function declaration. */
bool scan_function_declaration(const struct source *src, unsigned from,
                               struct span *name, struct span *params,
                               unsigned *end);

/* A `#pragma omp` directive: from its '#', and its first word after `omp`
 * (empty when there is none). */
struct scan_openmp {
  struct span at, name;
};

/* The file's `#pragma omp` directives, whatever `#if` groups they are in,
 * except `simd` and `declare simd`, which only ask for vector code: their
 * number, and the array in *out (the caller frees it). */
unsigned scan_openmp_pragmas(const struct source *src,
                             struct scan_openmp **out);

/* Names of macros, for the OpenMP that a file asks for through macros. */
struct scan_names {
  char **v;
  unsigned n, cap;
};
void scan_names_release(struct scan_names *set);

/* Adds to `macros` each macro that `src` defines, in any `#if` group, whose
 * definition makes an OpenMP pragma other than `simd` and `declare simd`:
 * one holding `_Pragma("omp NAME")`, `(omp NAME` (an argument of a macro
 * that makes a pragma of it: `#define PRAGMA(x) _Pragma(#x)` then
 * `PRAGMA(omp task)`), or a macro of `macros`. Returns how many it added:
 * call it again on every file until none is, for macros defined with one
 * another. */
unsigned scan_openmp_macros(const struct source *src,
                            struct scan_names *macros);

/* The first OpenMP pragma that `src` asks for, outside `#define` lines and
 * in any `#if` group: a `#pragma omp` line, `_Pragma("omp ...")`, `(omp
 * NAME`, or a use of one of `macros`, leaving out `simd` and `declare simd`
 * as above. Its text in *at; *what (the caller frees it) names it for a
 * message: "#pragma omp task", or the macro's name. */
bool scan_openmp_use(const struct source *src, const struct scan_names *macros,
                     struct span *at, char **what);

/* Whether identifier `name` appears in `src`, in code or in a preprocessor
 * line, outside comments and literals. */
bool scan_mentions(const struct source *src, const char *name);

/* The first token at or after `from`, past blanks, comments and line
 * continuations; a preprocessor line is one token. Returns false at the
 * end of the file. */
bool scan_next_token(const struct source *src, unsigned from, struct span *tok);

#endif
