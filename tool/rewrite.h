/* rewrite.h: edits of a file and the one pass that applies them.
 *
 * An edit replaces a range of the original file (or inserts at an offset)
 * with pieces: generated text, or ranges of the original file that are
 * themselves rendered with the edits inside them. That is how a task body
 * moves into its outlined function with the tasks nested in it rewritten.
 * Moved source and the text after a block edit carry `#line` directives,
 * so the compiler and the debugger point at the user's file. */
#ifndef DAG_TOOL_REWRITE_H
#define DAG_TOOL_REWRITE_H

#include <stdio.h>

#include "buf.h"
#include "pragma.h"

enum piece_kind {
  PIECE_TEXT,      /* generated text, kept on one line */
  PIECE_SOURCE,    /* original lines, after a #line for where they start,
                      and a line break after them */
  PIECE_EXPR,      /* an expression from a directive, inline */
  PIECE_LINE,      /* a #line directive for the line of `at.begin` */
  PIECE_DIRECTIVE, /* a generated preprocessor line, on a line of its own */
};

struct piece {
  enum piece_kind kind;
  char *text;               /* PIECE_TEXT, PIECE_DIRECTIVE */
  size_t len, cap;          /* PIECE_TEXT: bytes in text, allocated */
  const struct source *src; /* SOURCE, EXPR, LINE: which file */
  const char *clean;        /* EXPR: that file's cleaned text */
  struct span at;
};

struct edit {
  struct span at;  /* replaced range; empty: an insertion */
  bool inline_use; /* within a line: no #line needed after it */
  bool moved;      /* the range moved into another edit's PIECE_SOURCE: it
                      is gone from its place, not from there */
  unsigned order;  /* among insertions at one offset: smaller first */
  struct piece *pieces;
  unsigned npieces, cap;
};

struct edits {
  const struct source *src; /* the file being rewritten */
  struct edit *v;
  unsigned n, cap;
};

struct edit *edits_add(struct edits *e, struct span at, bool inline_use);
void edit_text(struct edit *ed, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A preprocessor line, `text` without its newline. */
void edit_directive(struct edit *ed, const char *text);
void edit_piece(struct edit *ed, enum piece_kind kind, const struct source *src,
                const char *clean, struct span at);
/* Writes the file with every edit applied to `out`. */
void rewrite_render(struct edits *e, struct buf *out);
void edits_release(struct edits *e);
/* Appends `path` as a C string literal. */
void buf_c_string(struct buf *b, const char *path);

#endif
