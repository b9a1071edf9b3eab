/* scan.c: a light lexical pass over a C file (see scan.h). It tokenizes
 * just enough C to skip comments, literals and preprocessor lines, to count
 * braces and to match parentheses. */
#include "scan.h"
#include "lex.h"

#include <stdlib.h>
#include <string.h>

enum tok_kind { TOK_EOF, TOK_IDENT, TOK_PUNCT, TOK_LITERAL, TOK_DIRECTIVE };

struct tok {
  enum tok_kind kind;
  unsigned begin, end;
};

struct lexer {
  const char *s;
  unsigned n, i;
  bool line_start; /* nothing but blanks since the last newline */
};

/* Skips a backslash-newline at i, if there is one. */
static bool skip_continuation(struct lexer *lx) {
  unsigned i = lx->i;
  if (i < lx->n && lx->s[i] == '\\') {
    if (i + 1 < lx->n && lx->s[i + 1] == '\n') {
      lx->i = i + 2;
      return true;
    }
    if (i + 2 < lx->n && lx->s[i + 1] == '\r' && lx->s[i + 2] == '\n') {
      lx->i = i + 3;
      return true;
    }
  }
  return false;
}

/* Skips blanks and comments; newlines too unless `in_directive`. Returns
 * false at a newline that ends a directive. */
static bool skip_space_and_comments(struct lexer *lx, bool in_directive) {
  while (lx->i < lx->n) {
    char c = lx->s[lx->i];
    if (skip_continuation(lx))
      continue;
    if (c == '\n') {
      if (in_directive)
        return false;
      lx->line_start = true;
      lx->i++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->i++;
    } else if (c == '/' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '*') {
      const char *close = NULL;
      if (lx->i + 2 < lx->n)
        close = memmem(lx->s + lx->i + 2, lx->n - lx->i - 2, "*/", 2);
      lx->i = close ? (unsigned)(close - lx->s) + 2 : lx->n;
    } else if (c == '/' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '/') {
      while (lx->i < lx->n && lx->s[lx->i] != '\n')
        if (!skip_continuation(lx))
          lx->i++;
    } else {
      return true;
    }
  }
  return true;
}

/* One token of a directive's line, or EOF at the end of the line. */
static struct tok next_in_line(struct lexer *lx, bool in_directive) {
  struct tok t = {TOK_EOF, lx->i, lx->i};
  if (!skip_space_and_comments(lx, in_directive) || lx->i >= lx->n)
    return (struct tok){TOK_EOF, lx->i, lx->i};
  t.begin = lx->i;
  char c = lx->s[lx->i];
  if (c == '"' || c == '\'') {
    bool closed;
    lx->i = lex_literal_end(lx->s, lx->i, lx->n, &closed);
    t.kind = TOK_LITERAL;
  } else if (lex_is_ident_char(c)) {
    while (lx->i < lx->n && lex_is_ident_char(lx->s[lx->i]))
      lx->i++;
    t.kind = lex_is_digit(c) ? TOK_LITERAL : TOK_IDENT;
  } else {
    lx->i++;
    t.kind = TOK_PUNCT;
  }
  t.end = lx->i;
  return t;
}

/* Skips to the end of a preprocessor line (not past its newline). */
static void skip_directive(struct lexer *lx) {
  while (next_in_line(lx, true).kind != TOK_EOF)
    ;
}

static bool tok_is(const struct lexer *lx, struct tok t, const char *word) {
  size_t len = strlen(word);
  return t.end - t.begin == len && memcmp(lx->s + t.begin, word, len) == 0;
}

/* The next token of the file; a whole preprocessor line is one token. */
static struct tok next_token(struct lexer *lx) {
  skip_space_and_comments(lx, false);
  if (lx->i >= lx->n)
    return (struct tok){TOK_EOF, lx->n, lx->n};
  if (lx->line_start && lx->s[lx->i] == '#') {
    struct tok t = {TOK_DIRECTIVE, lx->i, 0};
    lx->i++;
    skip_directive(lx);
    t.end = lx->i;
    lx->line_start = false;
    return t;
  }
  lx->line_start = false;
  return next_in_line(lx, false);
}

static void lexer_init(struct lexer *lx, const struct source *src,
                       unsigned from) {
  lx->s = src->text;
  lx->n = (unsigned)src->len;
  lx->i = from;
  lx->line_start = from == 0 || src->text[from - 1] == '\n';
}

/* Classifies a directive token: a dag pragma, an include (its name in
 * `inc`), or something else. */
enum directive_class { OTHER_DIRECTIVE, DAG_PRAGMA, INCLUDE };

static enum directive_class classify(const struct source *src, struct tok d,
                                     struct scan_include *inc) {
  struct lexer lx = {src->text, d.end, d.begin + 1, false};
  struct tok word = next_in_line(&lx, true);
  if (tok_is(&lx, word, "pragma"))
    return tok_is(&lx, next_in_line(&lx, true), "dag") ? DAG_PRAGMA
                                                       : OTHER_DIRECTIVE;
  if (!tok_is(&lx, word, "include"))
    return OTHER_DIRECTIVE;
  struct tok file = next_in_line(&lx, true);
  const char *t = src->text;
  if (file.kind == TOK_LITERAL && t[file.begin] == '"' &&
      file.end - file.begin >= 2 && t[file.end - 1] == '"') {
    *inc = (struct scan_include){{file.begin + 1, file.end - 1}, false};
    return INCLUDE;
  }
  if (file.kind == TOK_PUNCT && t[file.begin] == '<') {
    const char *close = memchr(t + file.end, '>', d.end - file.end);
    if (!close)
      return OTHER_DIRECTIVE;
    *inc = (struct scan_include){{file.end, (unsigned)(close - t)}, true};
    return INCLUDE;
  }
  return OTHER_DIRECTIVE;
}

void scan_source(const struct source *src, struct scan_result *out) {
  memset(out, 0, sizeof *out);
  unsigned cap_d = 0, cap_i = 0;
  struct lexer lx;
  lexer_init(&lx, src, 0);
  int depth = 0;
  char before = 0;
  for (struct tok t; (t = next_token(&lx)).kind != TOK_EOF;) {
    if (t.kind == TOK_PUNCT) {
      char c = before = src->text[t.begin];
      depth += c == '{' ? 1 : c == '}' && depth > 0 ? -1 : 0;
      continue;
    }
    if (t.kind != TOK_DIRECTIVE)
      before = 'a';
    if (t.kind != TOK_DIRECTIVE)
      continue;
    struct scan_include inc;
    switch (classify(src, t, &inc)) {
    case DAG_PRAGMA:
      if (out->ndirectives == cap_d)
        out->directives =
            xrealloc(out->directives, (cap_d = cap_d ? 2 * cap_d : 16) *
                                          sizeof *out->directives);
      out->directives[out->ndirectives++] =
          (struct scan_directive){{t.begin, t.end}, depth == 0, before};
      break;
    case INCLUDE:
      if (out->nincludes == cap_i)
        out->includes =
            xrealloc(out->includes,
                     (cap_i = cap_i ? 2 * cap_i : 8) * sizeof *out->includes);
      out->includes[out->nincludes++] = inc;
      break;
    case OTHER_DIRECTIVE:
      break;
    }
  }
}

void scan_release(struct scan_result *r) {
  free(r->directives);
  free(r->includes);
  memset(r, 0, sizeof *r);
}

char *scan_clean_directives(const struct source *src,
                            const struct scan_result *r) {
  char *text = xstrndup(src->text, src->len);
  for (unsigned k = 0; k < r->ndirectives; k++) {
    struct lexer lx = {src->text, r->directives[k].at.end,
                       r->directives[k].at.begin, false};
    while (lx.i < lx.n) {
      unsigned from = lx.i;
      /* Everything skip_space passes over is blank, a comment or a
       * continuation: all of it becomes spaces. */
      skip_space_and_comments(&lx, true);
      memset(text + from, ' ', lx.i - from);
      if (lx.i >= lx.n || next_in_line(&lx, true).kind == TOK_EOF)
        break;
    }
  }
  return text;
}

static bool is_declaration_keyword(const struct lexer *lx, struct tok t) {
  static const char *const words[] = {
      "__attribute__", "__attribute", "__declspec",    "_Alignas",
      "__asm__",       "__asm",       "asm",           "__typeof__",
      "typeof",        "sizeof",      "_Static_assert"};
  for (size_t k = 0; k < sizeof words / sizeof *words; k++)
    if (tok_is(lx, t, words[k]))
      return true;
  return false;
}

/* From an opening bracket at t, the offset just after its match, or 0. */
static unsigned matching_end(struct lexer *lx, char open, char close) {
  int depth = 1;
  for (struct tok t; (t = next_token(lx)).kind != TOK_EOF;) {
    if (t.kind != TOK_PUNCT)
      continue;
    char c = lx->s[t.begin];
    if (c == open)
      depth++;
    else if (c == close && --depth == 0)
      return t.end;
  }
  return 0;
}

bool scan_function_declaration(const struct source *src, unsigned from,
                               struct span *name, struct span *params,
                               unsigned *end) {
  struct lexer lx;
  lexer_init(&lx, src, from);
  bool found = false;
  struct tok prev = {TOK_EOF, 0, 0};
  for (struct tok t; (t = next_token(&lx)).kind != TOK_EOF; prev = t) {
    if (t.kind == TOK_DIRECTIVE)
      return false;
    if (t.kind != TOK_PUNCT)
      continue;
    char c = src->text[t.begin];
    if (c == '(') {
      unsigned close = matching_end(&lx, '(', ')');
      if (!close)
        return false;
      if (!found && prev.kind == TOK_IDENT &&
          !is_declaration_keyword(&lx, prev)) {
        found = true;
        *name = (struct span){prev.begin, prev.end};
        *params = (struct span){t.begin, close};
      }
      t.end = close;
    } else if (c == ';' || c == '{') {
      if (!found)
        return false;
      *end = c == ';' ? t.end : matching_end(&lx, '{', '}');
      return *end != 0;
    } else if (c == '}' || c == '=') {
      return false;
    }
  }
  return false;
}

bool scan_next_token(const struct source *src, unsigned from,
                     struct span *tok) {
  struct lexer lx;
  lexer_init(&lx, src, from);
  struct tok t = next_token(&lx);
  *tok = (struct span){t.begin, t.end};
  return t.kind != TOK_EOF;
}

/* ---------------------------------------------------- #pragma omp */

/* `#pragma omp NAME` that the warning is about: not `simd` or `declare
 * simd`. */
static bool openmp_pragma(struct lexer *line, struct span *name) {
  if (!tok_is(line, next_in_line(line, true), "omp"))
    return false;
  struct tok w = next_in_line(line, true);
  *name = (struct span){w.begin, w.kind == TOK_IDENT ? w.end : w.begin};
  if (tok_is(line, w, "simd"))
    return false;
  return !tok_is(line, w, "declare") ||
         !tok_is(line, next_in_line(line, true), "simd");
}

unsigned scan_openmp_pragmas(const struct source *src,
                             struct scan_openmp **out) {
  struct scan_openmp *v = NULL;
  unsigned n = 0;
  struct lexer lx;
  lexer_init(&lx, src, 0);
  for (struct tok t; (t = next_token(&lx)).kind != TOK_EOF;) {
    if (t.kind != TOK_DIRECTIVE)
      continue;
    struct lexer line = {src->text, t.end, t.begin + 1, false};
    struct span name;
    if (tok_is(&line, next_in_line(&line, true), "pragma") &&
        openmp_pragma(&line, &name)) {
      v = xrealloc(v, (n + 1) * sizeof *v);
      v[n++] = (struct scan_openmp){{t.begin, t.end}, name};
    }
  }
  *out = v;
  return n;
}

/* --------------------------------- OpenMP in a file without dag pragmas */

static bool names_have(const struct scan_names *set, const char *s,
                       size_t len) {
  for (unsigned i = 0; i < set->n; i++)
    if (strlen(set->v[i]) == len && memcmp(set->v[i], s, len) == 0)
      return true;
  return false;
}

/* An OpenMP directive name that asks for more than vector code. */
static bool parallel_word(const char *s, size_t len, const char *next,
                          size_t next_len) {
  if (len == 4 && memcmp(s, "simd", 4) == 0)
    return false;
  return !(len == 7 && memcmp(s, "declare", 7) == 0 && next_len == 4 &&
           memcmp(next, "simd", 4) == 0);
}

/* Whether the literal at `lit` is "omp NAME ..." with NAME not simd, the
 * text of a _Pragma; the name in *name. */
static bool openmp_string(const char *s, struct tok lit, struct span *name) {
  if (lit.kind != TOK_LITERAL || s[lit.begin] != '"')
    return false;
  unsigned i = lit.begin + 1, end = lit.end > i ? lit.end - 1 : i;
  while (i < end && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (end - i < 3 || memcmp(s + i, "omp", 3) != 0 ||
      (i + 3 < end && lex_is_ident_char(s[i + 3])))
    return false;
  unsigned w[2][2] = {{0, 0}, {0, 0}}; /* the next two words */
  unsigned k = i + 3;
  for (int j = 0; j < 2; j++) {
    while (k < end && (s[k] == ' ' || s[k] == '\t'))
      k++;
    w[j][0] = k;
    while (k < end && lex_is_ident_char(s[k]))
      k++;
    w[j][1] = k;
  }
  *name = (struct span){w[0][0], w[0][1]};
  return parallel_word(s + w[0][0], w[0][1] - w[0][0], s + w[1][0],
                       w[1][1] - w[1][0]);
}

/* The next token of a directive's line (`line`), or of the file. */
static struct tok peek(struct lexer *lx, bool line) {
  return line ? next_in_line(lx, true) : next_token(lx);
}

/* Reads tokens from `lx` (a line, or the file) and says whether the one at
 * `t` starts an OpenMP pragma: `_Pragma("omp NAME")`, or `(omp NAME` as a
 * pragma-making macro's argument (`PRAGMA(omp task)`); or is one of
 * `macros`. Consumes nothing: looks ahead on a copy. The pragma's name or
 * the macro goes to *what. */
static bool openmp_at(const struct lexer *lx, struct tok t, bool line,
                      const struct scan_names *macros, struct span *what) {
  const char *s = lx->s;
  if (t.kind == TOK_IDENT && names_have(macros, s + t.begin, t.end - t.begin)) {
    *what = (struct span){t.begin, t.end};
    return true;
  }
  struct lexer ahead = *lx;
  if (t.kind == TOK_IDENT && tok_is(lx, t, "_Pragma")) {
    struct tok open = peek(&ahead, line);
    struct tok lit = peek(&ahead, line);
    return open.kind == TOK_PUNCT && s[open.begin] == '(' &&
           openmp_string(s, lit, what);
  }
  if (t.kind != TOK_PUNCT || s[t.begin] != '(')
    return false;
  struct tok omp = peek(&ahead, line);
  if (!tok_is(lx, omp, "omp"))
    return false;
  struct tok w = peek(&ahead, line);
  struct tok w2 = peek(&ahead, line);
  if (w.kind != TOK_IDENT)
    return false;
  *what = (struct span){w.begin, w.end};
  return parallel_word(s + w.begin, w.end - w.begin, s + w2.begin,
                       w2.kind == TOK_IDENT ? w2.end - w2.begin : 0);
}

/* The name a `#define` line defines, or an empty span; `line` is left
 * after it (and after the parameters of a function-like macro). */
static struct span defined_name(struct lexer *line) {
  struct tok word = next_in_line(line, true);
  if (!tok_is(line, word, "define"))
    return (struct span){0, 0};
  struct tok name = next_in_line(line, true);
  if (name.kind != TOK_IDENT)
    return (struct span){0, 0};
  if (line->i < line->n && line->s[line->i] == '(') /* function-like */
    while (next_in_line(line, true).kind != TOK_EOF &&
           line->s[line->i - 1] != ')')
      ;
  return (struct span){name.begin, name.end};
}

unsigned scan_openmp_macros(const struct source *src,
                            struct scan_names *macros) {
  unsigned added = 0;
  struct lexer lx;
  lexer_init(&lx, src, 0);
  for (struct tok t; (t = next_token(&lx)).kind != TOK_EOF;) {
    if (t.kind != TOK_DIRECTIVE)
      continue;
    struct lexer line = {src->text, t.end, t.begin + 1, false};
    struct span name = defined_name(&line);
    if (name.end == name.begin ||
        names_have(macros, src->text + name.begin, name.end - name.begin))
      continue;
    struct span what;
    for (struct tok b; (b = next_in_line(&line, true)).kind != TOK_EOF;)
      if (openmp_at(&line, b, true, macros, &what)) {
        if (macros->n == macros->cap)
          macros->v = xrealloc(
              macros->v, (macros->cap = macros->cap ? 2 * macros->cap : 8) *
                             sizeof *macros->v);
        macros->v[macros->n++] =
            xstrndup(src->text + name.begin, name.end - name.begin);
        added++;
        break;
      }
  }
  return added;
}

bool scan_openmp_use(const struct source *src, const struct scan_names *macros,
                     struct span *at, char **what) {
  struct lexer lx;
  lexer_init(&lx, src, 0);
  for (struct tok t; (t = next_token(&lx)).kind != TOK_EOF;) {
    struct span name;
    if (t.kind == TOK_DIRECTIVE) {
      struct lexer line = {src->text, t.end, t.begin + 1, false};
      if (!tok_is(&line, next_in_line(&line, true), "pragma") ||
          !openmp_pragma(&line, &name))
        continue;
    } else if (!openmp_at(&lx, t, false, macros, &name)) {
      continue;
    }
    *at = (struct span){t.begin, t.end};
    bool macro = t.kind == TOK_IDENT && !tok_is(&lx, t, "_Pragma");
    *what =
        macro ? xstrndup(src->text + name.begin, name.end - name.begin)
              : xasprintf("#pragma omp%s%.*s", name.end > name.begin ? " " : "",
                          (int)(name.end - name.begin), src->text + name.begin);
    return true;
  }
  return false;
}

bool scan_mentions(const struct source *src, const char *name) {
  struct lexer lx;
  lexer_init(&lx, src, 0);
  for (struct tok t; (t = next_token(&lx)).kind != TOK_EOF;) {
    if (t.kind == TOK_IDENT && tok_is(&lx, t, name))
      return true;
    if (t.kind != TOK_DIRECTIVE)
      continue;
    struct lexer line = {src->text, t.end, t.begin + 1, false};
    for (struct tok w; (w = next_in_line(&line, true)).kind != TOK_EOF;)
      if (w.kind == TOK_IDENT && tok_is(&line, w, name))
        return true;
  }
  return false;
}

void scan_names_release(struct scan_names *set) {
  for (unsigned i = 0; i < set->n; i++)
    free(set->v[i]);
  free(set->v);
  memset(set, 0, sizeof *set);
}
