/* scan.h: a light lexical pass over a C file, before libclang sees it.
 *
 * It finds the `#pragma dag` directives (and whether each is at file scope
 * or inside a function), the headers the file includes with quotes, and,
 * after a file-scope directive, the function declaration it precedes; and,
 * for a warning, the `#pragma omp` lines. It
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

/* The first token at or after `from`, past blanks, comments and line
 * continuations; a preprocessor line is one token. Returns false at the
 * end of the file. */
bool scan_next_token(const struct source *src, unsigned from, struct span *tok);

#endif
