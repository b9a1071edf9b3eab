/* pragma.c: the text of one `#pragma dag` directive to a struct directive.
 *
 * This file owns the directive's syntax and nothing else: it finds the
 * clauses, splits their lists into items, cuts each item into its block
 * modifier (`lower(...)`), its array-shaping prefix, its base and its
 * trailing array-section subscripts, and reports every syntax error at the
 * offset of the offending token. It never looks at C types (the sema files
 * do) and never includes libclang.
 *
 * The directive is first copied with its comments and line continuations
 * turned into spaces, so that an offset in the copy plus `begin` is an offset
 * in the file. Every scan works on that copy, never on the file, so nothing
 * outside [begin, end) is read. Brackets are matched with a stack once per
 * clause; after that the clause's text is known to balance, and the item
 * scanners only count depth. String and character literals are skipped with
 * their escapes wherever brackets, commas or colons are looked for. */
#include "pragma.h"
#include "lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 4 /* of an array section or an array shaping */
#define NCLAUSES (CLAUSE_NOFLUSH + 1)

static const char *const clause_names[NCLAUSES] = {
    [CLAUSE_IN] = "in",
    [CLAUSE_OUT] = "out",
    [CLAUSE_INOUT] = "inout",
    [CLAUSE_COMMUTATIVE] = "commutative",
    [CLAUSE_REDUCTION] = "reduction",
    [CLAUSE_DEVICE] = "device",
    [CLAUSE_IMPLEMENTS] = "implements",
    [CLAUSE_ON] = "on",
    [CLAUSE_PRIORITY] = "priority",
    [CLAUSE_LABEL] = "label",
    [CLAUSE_IF] = "if",
    [CLAUSE_WORK] = "work",
    [CLAUSE_SHARED] = "shared",
    [CLAUSE_FIRSTPRIVATE] = "firstprivate",
    [CLAUSE_NOFLUSH] = "noflush",
};

const char *clause_name(enum clause_kind kind) {
  return (unsigned)kind < NCLAUSES ? clause_names[kind] : "?";
}

bool clause_is_dependency(enum clause_kind kind) {
  return kind == CLAUSE_IN || kind == CLAUSE_OUT || kind == CLAUSE_INOUT ||
         kind == CLAUSE_COMMUTATIVE || kind == CLAUSE_REDUCTION;
}

#define NREDUCE_OPS (sizeof reduce_ops / sizeof *reduce_ops)

static const char *const reduce_ops[] = {
#define REDUCE_OP_SPELLING(id, spelling) [DAG_REDUCE_##id] = spelling,
    DAG_REDUCE_OPS(REDUCE_OP_SPELLING)
#undef REDUCE_OP_SPELLING
};

const char *reduce_op_name(enum dag_reduce_op op) {
  return (unsigned)op < NREDUCE_OPS ? reduce_ops[op] : "?";
}

/* The block modifiers of list items: X(ENUMERATOR, name), DAG_<ENUMERATOR>
 * being the dag_shape that `name(item)` selects. */
#define BLOCK_PARTS(X)                                                         \
  X(LOWER, lower)                                                              \
  X(UPPER, upper)                                                              \
  X(UNIT_LOWER, unit_lower)                                                    \
  X(UNIT_UPPER, unit_upper)                                                    \
  X(DIAGONAL, diagonal)

static const struct block_part {
  enum dag_shape part;
  const char *name, *enumerator;
} block_parts[] = {
#define BLOCK_PART_ROW(id, name) {DAG_##id, #name, "DAG_" #id},
    BLOCK_PARTS(BLOCK_PART_ROW)
#undef BLOCK_PART_ROW
};

#define NBLOCK_PARTS (sizeof block_parts / sizeof *block_parts)

static const struct block_part *block_part(enum dag_shape part) {
  for (size_t k = 0; k < NBLOCK_PARTS; k++)
    if (block_parts[k].part == part)
      return &block_parts[k];
  return NULL;
}

const char *part_name(enum dag_shape part) {
  const struct block_part *b = block_part(part);
  return b ? b->name : NULL;
}

const char *part_enumerator(enum dag_shape part) {
  const struct block_part *b = block_part(part);
  return b ? b->enumerator : "DAG_FULL";
}

/* Clauses that may appear once per directive. */
static bool clause_is_unique(enum clause_kind kind) {
  return kind == CLAUSE_DEVICE || kind == CLAUSE_IMPLEMENTS ||
         kind == CLAUSE_ON || kind == CLAUSE_PRIORITY || kind == CLAUSE_LABEL ||
         kind == CLAUSE_IF || kind == CLAUSE_WORK || kind == CLAUSE_NOFLUSH;
}

/* ------------------------------------------------------------- release */

static void item_release(struct item *it) {
  for (unsigned i = 0; i < it->nshape; i++)
    free(it->shape[i].text);
  free(it->shape);
  free(it->base.text);
  for (unsigned i = 0; i < it->nsubs; i++) {
    free(it->subs[i].lo.text);
    free(it->subs[i].len.text);
  }
  free(it->subs);
}

void directive_release(struct directive *d) {
  for (unsigned i = 0; i < d->nclauses; i++) {
    struct clause *c = &d->clauses[i];
    for (unsigned j = 0; j < c->nitems; j++)
      item_release(&c->items[j]);
    free(c->items);
    free(c->arg.text);
  }
  free(d->clauses);
  memset(d, 0, sizeof *d);
}

/* Makes room for element `n` of an array whose capacity is implied by its
 * length: the least power of two not below it. */
static void *reserve(void *v, unsigned n, size_t size) {
  if ((n & (n - 1)) == 0)
    v = xrealloc(v, (n ? 2 * (size_t)n : 1) * size);
  return v;
}

/* -------------------------------------------------------------- parser */

struct parser {
  const struct source *src;
  struct diags *diags;
  unsigned base; /* file offset of s[0] */
  char *s;       /* the directive, comments and continuations blanked */
  unsigned n;    /* up to the end of its last token */
  unsigned errors;
};

/* A piece of the directive fit for a message: printable ASCII as it is,
 * other bytes as \xNN, long texts cut with "...". Returned by value so that
 * it lives until the end of the call it is an argument of. */
struct shown {
  char text[8 + 4 * 32];
};

static struct shown show(const char *s, unsigned len) {
  struct shown out;
  char *w = out.text;
  for (unsigned i = 0; i < len && i < 32; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f)
      *w++ = (char)c;
    else
      w += sprintf(w, "\\x%02x", c);
  }
  if (len > 32)
    w += sprintf(w, "...");
  *w = '\0';
  return out;
}

/* Reports an error at s[pos]. */
__attribute__((format(printf, 3, 4))) static void
parse_error(struct parser *p, unsigned pos, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(p->diags, p->src, p->base + pos, "%s", msg);
  p->errors++;
}

/* -------------------------------------------------------- characters */

static char closer_of(char c) {
  return c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : 0;
}

static bool is_closer(char c) { return c == ')' || c == ']' || c == '}'; }

static unsigned skip_blanks(const struct parser *p, unsigned i, unsigned lim) {
  while (i < lim && lex_is_space(p->s[i]))
    i++;
  return i;
}

/* The end of the identifier at s[i] (i itself when there is none). */
static unsigned ident_end(const struct parser *p, unsigned i, unsigned lim) {
  if (i >= lim || !lex_is_ident_start(p->s[i]))
    return i;
  while (i < lim && lex_is_ident_char(p->s[i]))
    i++;
  return i;
}

static bool is_word(const struct parser *p, unsigned i, unsigned e,
                    const char *word) {
  return strlen(word) == e - i && memcmp(p->s + i, word, e - i) == 0;
}

/* [*lo, *hi) without the spaces at its ends. */
static void trim(const struct parser *p, unsigned *lo, unsigned *hi) {
  *lo = skip_blanks(p, *lo, *hi);
  while (*hi > *lo && lex_is_space(p->s[*hi - 1]))
    (*hi)--;
}

/* Just past the group that opens at s[i], counting brackets of any kind:
 * for text already known to balance, or for skipping junk quietly. */
static unsigned group_end(const struct parser *p, unsigned i, unsigned lim) {
  unsigned depth = 0;
  bool closed;
  while (i < lim) {
    char c = p->s[i];
    if (c == '"' || c == '\'') {
      i = lex_literal_end(p->s, i, lim, &closed);
      continue;
    }
    if (closer_of(c))
      depth++;
    else if (is_closer(c) && depth > 0 && --depth == 0)
      return i + 1;
    i++;
  }
  return lim;
}

/* Just past the token at s[i], for messages and junk: an identifier or a
 * number, a literal, or one character. */
static unsigned token_end(const struct parser *p, unsigned i, unsigned lim) {
  bool closed;
  if (lex_is_ident_char(p->s[i]))
    while (i < lim && lex_is_ident_char(p->s[i]))
      i++;
  else if (p->s[i] == '"' || p->s[i] == '\'')
    i = lex_literal_end(p->s, i, lim, &closed);
  else
    i++;
  return i;
}

/* The next ',' outside brackets and literals in balanced text, or hi. */
static unsigned next_comma(const struct parser *p, unsigned i, unsigned hi) {
  bool closed;
  while (i < hi && p->s[i] != ',') {
    if (p->s[i] == '"' || p->s[i] == '\'')
      i = lex_literal_end(p->s, i, hi, &closed);
    else if (closer_of(p->s[i]))
      i = group_end(p, i, hi);
    else
      i++;
  }
  return i;
}

/* ------------------------------------------------------------- cleaning */

/* The length of the line continuation at raw[i], or 0: a '\\', maybe
 * spaces or tabs (gcc and clang accept them with a warning), maybe a '\r',
 * and a newline. */
static unsigned continuation(const char *raw, unsigned i, unsigned n) {
  if (raw[i] != '\\')
    return 0;
  unsigned k = i + 1;
  while (k < n && (raw[k] == ' ' || raw[k] == '\t'))
    k++;
  if (k < n && raw[k] == '\r')
    k++;
  return k < n && raw[k] == '\n' ? k + 1 - i : 0;
}

/* Copies the directive into p->s with comments and continuations turned
 * into as many spaces. A continuation counts as a space everywhere, also
 * inside a literal (a label continued across lines gets spaces) and a `//`
 * comment (which then goes on to the next line, as in C). */
static void clean(struct parser *p, const char *raw) {
  enum { CODE, BLOCK, LINE, STRING } state = CODE;
  char *s = p->s, quote = 0;
  unsigned n = p->n, opened = 0;
  memcpy(s, raw, n);
  for (unsigned i = 0; i < n;) {
    unsigned k = continuation(s, i, n);
    if (k) {
      memset(s + i, ' ', k);
      i += k;
      continue;
    }
    char c = s[i], next = i + 1 < n ? s[i + 1] : 0;
    switch (state) {
    case CODE:
      if (c == '/' && (next == '*' || next == '/')) {
        state = next == '*' ? BLOCK : LINE;
        opened = i;
        s[i++] = ' ';
        s[i++] = ' ';
        continue;
      }
      if (c == '"' || c == '\'') {
        state = STRING;
        quote = c;
      }
      break;
    case BLOCK:
      if (c == '*' && next == '/') {
        state = CODE;
        s[i++] = ' ';
      }
      s[i] = ' ';
      break;
    case LINE:
      if (c == '\n')
        state = CODE;
      else
        s[i] = ' ';
      break;
    case STRING:
      if (c == '\\' && i + 1 < n && next != '\n')
        i++;
      else if (c == quote || c == '\n')
        state = CODE;
      break;
    }
    i++;
  }
  if (state == BLOCK)
    parse_error(p, opened, "unterminated comment");
  while (p->n > 0 && lex_is_space(s[p->n - 1]))
    p->n--;
  const char *nul = memchr(s, '\0', p->n), *newline = memchr(s, '\n', p->n);
  if (nul)
    parse_error(p, (unsigned)(nul - s), "null character in directive");
  if (newline)
    parse_error(p, (unsigned)(newline - s),
                "newline inside the directive; continue the line with '\\'");
}

/* ------------------------------------------------------------- brackets */

enum group {
  GROUP_OK,     /* closed, balanced inside */
  GROUP_BROKEN, /* closed, but something inside was unbalanced (reported) */
  GROUP_OPEN,   /* never closed: the rest of the directive is gone */
};

/* Matches the bracket at s[open] with its closer before lim, checking every
 * bracket inside. A closer that matches a bracket further out closes the
 * ones in between (each reported); a closer that matches none is reported
 * and ignored. */
static enum group match_group(struct parser *p, unsigned open, unsigned lim,
                              unsigned *close) {
  unsigned *stack = xmalloc((lim - open) * sizeof *stack);
  unsigned depth = 0, i = open;
  enum group result = GROUP_OPEN;
  bool broken = false, closed;
  *close = lim;
  while (i < lim) {
    char c = p->s[i];
    if (c == '"' || c == '\'') {
      unsigned e = lex_literal_end(p->s, i, lim, &closed);
      if (!closed) {
        parse_error(p, i, "missing terminating %c character", c);
        goto out;
      }
      i = e;
      continue;
    }
    if (closer_of(c)) {
      stack[depth++] = i;
    } else if (is_closer(c)) {
      unsigned k = depth;
      while (k > 0 && closer_of(p->s[stack[k - 1]]) != c)
        k--;
      if (k == 0) {
        parse_error(p, i, "unbalanced '%c'", c);
        broken = true;
      } else {
        if (k != depth) {
          parse_error(p, i, "expected '%c' before '%c'",
                      closer_of(p->s[stack[depth - 1]]), c);
          broken = true;
        }
        depth = k - 1;
        if (depth == 0) {
          *close = i;
          result = broken ? GROUP_BROKEN : GROUP_OK;
          goto out;
        }
      }
    }
    i++;
  }
  parse_error(p, lim, "missing '%c' at end of directive",
              closer_of(p->s[stack[depth - 1]]));
out:
  free(stack);
  return result;
}

/* ---------------------------------------------------------- expressions */

/* The trimmed text of [lo, hi); text NULL, and an empty span at the place,
 * when there is none. */
static struct expr make_expr(const struct parser *p, unsigned lo, unsigned hi) {
  trim(p, &lo, &hi);
  struct expr e = {NULL, {p->base + lo, p->base + hi}};
  if (hi > lo)
    e.text = xstrndup(p->s + lo, hi - lo);
  return e;
}

/* True for a plain negative integer literal other than zero, such as `-3`,
 * `- 0x10` or `-2u`. */
static bool is_negative_literal(const char *t, unsigned len) {
  unsigned i = 0;
  if (len == 0 || t[i++] != '-')
    return false;
  while (i < len && lex_is_space(t[i]))
    i++;
  bool hex = i + 2 < len && t[i] == '0' && (t[i + 1] | 0x20) == 'x';
  if (hex)
    i += 2;
  unsigned digits = i;
  bool nonzero = false;
  for (; i < len; i++) {
    char c = t[i], lower = (char)(c | 0x20);
    if (!lex_is_digit(c) && !(hex && lower >= 'a' && lower <= 'f'))
      break;
    nonzero |= c != '0';
  }
  if (i == digits)
    return false;
  while (i < len && ((t[i] | 0x20) == 'u' || (t[i] | 0x20) == 'l'))
    i++;
  return i == len && nonzero;
}

/* ---------------------------------------------------------------- items */

/* A top-level `[...]` of an item. */
struct bracket {
  unsigned open, close;
};

/* Finds the section colon of the subscript [lo, hi): the first ':' outside
 * brackets that no '?' of a conditional claims. *stride is a second such
 * ':', or hi. Returns hi when there is no section colon. */
static unsigned section_colon(const struct parser *p, unsigned lo, unsigned hi,
                              unsigned *stride) {
  unsigned questions = 0, colon = hi, i = lo;
  bool closed;
  *stride = hi;
  while (i < hi) {
    char c = p->s[i];
    if (c == '"' || c == '\'') {
      i = lex_literal_end(p->s, i, hi, &closed);
      continue;
    }
    if (closer_of(c)) {
      i = group_end(p, i, hi);
      continue;
    }
    if (c == '?') {
      questions++;
    } else if (c == ':') {
      if (questions > 0)
        questions--;
      else if (colon == hi)
        colon = i;
      else if (*stride == hi)
        *stride = i;
    }
    i++;
  }
  return colon;
}

static bool has_section(const struct parser *p, struct bracket b) {
  unsigned stride;
  return section_colon(p, b.open + 1, b.close, &stride) < b.close;
}

/* `([d0][d1]...)` in [lo, hi), the inside of the parentheses. */
static void parse_shape(struct parser *p, struct item *it, unsigned lo,
                        unsigned hi) {
  for (unsigned i = skip_blanks(p, lo, hi); i < hi; i = skip_blanks(p, i, hi)) {
    if (p->s[i] != '[') {
      parse_error(p, i, "expected '[' in array shaping, found '%s'",
                  show(p->s + i, token_end(p, i, hi) - i).text);
      return;
    }
    unsigned close = group_end(p, i, hi) - 1;
    if (it->nshape == MAX_DIMS)
      parse_error(p, i, "array shaping with more than %d dimensions", MAX_DIMS);
    unsigned stride, colon = section_colon(p, i + 1, close, &stride);
    struct expr dim = make_expr(p, i + 1, close);
    if (!dim.text)
      parse_error(p, close, "empty dimension in array shaping");
    else if (colon < close)
      parse_error(p, colon, "unexpected ':' in array shaping");
    it->shape = reserve(it->shape, it->nshape, sizeof *it->shape);
    it->shape[it->nshape++] = dim;
    i = close + 1;
  }
}

/* The top-level `[...]` groups at the end of [lo, hi), into *run. Sections
 * found before the last other token are misplaced and reported. */
static unsigned trailing_brackets(struct parser *p, unsigned lo, unsigned hi,
                                  struct bracket **run) {
  unsigned n = 0, i = lo;
  bool closed;
  while (i < hi) {
    char c = p->s[i];
    if (lex_is_space(c)) {
      i++;
      continue;
    }
    if (c == '[') {
      *run = reserve(*run, n, sizeof **run);
      unsigned e = group_end(p, i, hi);
      (*run)[n++] = (struct bracket){i, e - 1};
      i = e;
      continue;
    }
    for (unsigned k = 0; k < n; k++)
      if (has_section(p, (*run)[k]))
        parse_error(p, (*run)[k].open,
                    "array section must be the last part of an item");
    n = 0;
    if (closer_of(c))
      i = group_end(p, i, hi);
    else if (c == '"' || c == '\'')
      i = lex_literal_end(p->s, i, hi, &closed);
    else
      i++;
  }
  return n;
}

/* One subscript from the first section on: `[lo:len]`, `[:len]` or `[i]`. */
static struct subscript parse_subscript(struct parser *p, struct bracket b) {
  unsigned stride, colon = section_colon(p, b.open + 1, b.close, &stride);
  struct subscript sub = {.at = {p->base + b.open, p->base + b.close + 1}};
  if (colon == b.close) {
    sub.lo = make_expr(p, b.open + 1, b.close);
    sub.len = (struct expr){NULL, {sub.lo.at.end, sub.lo.at.end}};
    if (!sub.lo.text)
      parse_error(p, b.close, "empty subscript");
    return sub;
  }
  sub.is_section = true;
  sub.lo = make_expr(p, b.open + 1, colon);
  sub.len = make_expr(p, colon + 1, stride);
  if (stride < b.close)
    parse_error(p, stride, "stride in array section is not supported");
  if (!sub.len.text)
    parse_error(p, stride,
                "missing length in array section; the length is "
                "required, as in '[lo:len]'");
  else if (is_negative_literal(sub.len.text, strlen(sub.len.text)))
    parse_error(p, sub.len.at.begin - p->base,
                "negative length '%s' in array section",
                show(sub.len.text, strlen(sub.len.text)).text);
  return sub;
}

/* The base and the subscripts of an item in [lo, hi), after any shaping. */
static void parse_sections(struct parser *p, struct item *it, unsigned lo,
                           unsigned hi) {
  struct bracket *run = NULL;
  unsigned n = trailing_brackets(p, lo, hi, &run), first = 0;
  while (first < n && !has_section(p, run[first]))
    first++;
  for (unsigned k = 0; k < first; k++)
    if (skip_blanks(p, run[k].open + 1, run[k].close) == run[k].close)
      parse_error(p, run[k].close, "empty subscript");
  it->base = make_expr(p, lo, first < n ? run[first].open : hi);
  if (!it->base.text) {
    if (n > 0)
      parse_error(p, run[0].open, "expected an expression before '['");
    else
      parse_error(p, hi, "expected an expression after array shaping");
  }
  for (unsigned k = first; k < n; k++) {
    if (k - first == MAX_DIMS)
      parse_error(p, run[k].open, "array section with more than %d dimensions",
                  MAX_DIMS);
    it->subs = reserve(it->subs, it->nsubs, sizeof *it->subs);
    it->subs[it->nsubs++] = parse_subscript(p, run[k]);
  }
  free(run);
}

/* The block modifier that item [lo, hi) starts with: its name followed by
 * '(' (at *open); DAG_FULL when there is none. *name_end is just past the
 * name. */
static enum dag_shape modifier_at(const struct parser *p, unsigned lo,
                                  unsigned hi, unsigned *name_end,
                                  unsigned *open) {
  unsigned e = ident_end(p, lo, hi), j = skip_blanks(p, e, hi);
  if (j == hi || p->s[j] != '(')
    return DAG_FULL;
  for (size_t k = 0; k < NBLOCK_PARTS; k++)
    if (is_word(p, lo, e, block_parts[k].name)) {
      *name_end = e;
      *open = j;
      return block_parts[k].part;
    }
  return DAG_FULL;
}

static const char *part_choices(void);

/* Whether [lo, hi) holds an array section at any depth. */
static bool holds_section(const struct parser *p, unsigned lo, unsigned hi) {
  bool closed;
  for (unsigned i = lo; i < hi;) {
    if (p->s[i] == '"' || p->s[i] == '\'') {
      i = lex_literal_end(p->s, i, hi, &closed);
      continue;
    }
    if (p->s[i] == '[' &&
        has_section(p, (struct bracket){i, group_end(p, i, hi) - 1}))
      return true;
    i++;
  }
  return false;
}

/* An item `name(...)` with a section inside, which C has no use for: a
 * block modifier misspelled, such as `lowr(A[0:n][0:n])`. */
static bool misspelled_modifier(struct parser *p, unsigned lo, unsigned hi) {
  unsigned e = ident_end(p, lo, hi), open = skip_blanks(p, e, hi);
  if (e == lo || open == hi || p->s[open] != '(' ||
      group_end(p, open, hi) != hi || !holds_section(p, open + 1, hi - 1))
    return false;
  parse_error(p, lo, "unknown block modifier '%s'; expected %s",
              show(p->s + lo, e - lo).text, part_choices());
  return true;
}

/* A block modifier around the item [*lo, *hi) of clause `c`, such as
 * `lower(A[i:n][j:n])`: noted in `it`, and [*lo, *hi) narrowed to the item
 * inside. False after an error that leaves no item to parse. */
static bool parse_modifier(struct parser *p, const struct clause *c,
                           struct item *it, unsigned *lo, unsigned *hi) {
  unsigned name_end, open;
  enum dag_shape part = modifier_at(p, *lo, *hi, &name_end, &open);
  if (part == DAG_FULL)
    return !misspelled_modifier(p, *lo, *hi);
  const char *name = part_name(part);
  it->part = part;
  it->part_at = (struct span){p->base + *lo, p->base + name_end};
  if (c->kind == CLAUSE_REDUCTION) {
    parse_error(p, *lo,
                "'%s' in clause 'reduction': a reduction combines whole "
                "items; name the whole block",
                name);
    return false;
  }
  unsigned close = group_end(p, open, *hi) - 1;
  unsigned after = skip_blanks(p, close + 1, *hi);
  if (after < *hi) {
    parse_error(p, after,
                "unexpected '%s' after '%s(...)'; the modifier holds the "
                "whole item, as in '%s(A[i:n][j:n])'",
                show(p->s + after, token_end(p, after, *hi) - after).text, name,
                name);
    return false;
  }
  unsigned a = open + 1, b = close, inner_end, inner_open;
  trim(p, &a, &b);
  if (a == b) {
    parse_error(p, close, "empty item in '%s(...)'", name);
    return false;
  }
  enum dag_shape inner = modifier_at(p, a, b, &inner_end, &inner_open);
  if (inner != DAG_FULL) {
    parse_error(p, a,
                "'%s' inside '%s': an item takes one block modifier at most",
                part_name(inner), name);
    return false;
  }
  *lo = a;
  *hi = b;
  return true;
}

/* An item of a dependency list, [lo, hi) trimmed and balanced. */
static void parse_item(struct parser *p, const struct clause *c,
                       struct item *it, unsigned lo, unsigned hi) {
  it->at = (struct span){p->base + lo, p->base + hi};
  if (!parse_modifier(p, c, it, &lo, &hi))
    return;
  if (p->s[lo] == '(') {
    unsigned close = group_end(p, lo, hi) - 1;
    unsigned k = skip_blanks(p, lo + 1, close);
    if (k < close && p->s[k] == '[') {
      parse_shape(p, it, k, close);
      lo = close + 1;
    }
  }
  parse_sections(p, it, lo, hi);
}

/* shared, firstprivate: the item must be a plain identifier. */
static void parse_name_item(struct parser *p, struct clause *c, struct item *it,
                            unsigned lo, unsigned hi) {
  it->at = (struct span){p->base + lo, p->base + hi};
  it->base = make_expr(p, lo, hi);
  unsigned name_end, open;
  enum dag_shape part = modifier_at(p, lo, hi, &name_end, &open);
  if (part != DAG_FULL)
    parse_error(p, lo,
                "'%s' in clause '%s': a block modifier selects the part of a "
                "block that a task accesses, in 'in', 'out', 'inout', "
                "'commutative' or 'taskwait on'",
                part_name(part), clause_name(c->kind));
  else if (ident_end(p, lo, hi) != hi)
    parse_error(p, lo, "expected an identifier in clause '%s', found '%s'",
                clause_name(c->kind), show(p->s + lo, hi - lo).text);
}

/* A list of items in [lo, hi), the inside of the parentheses. */
static void parse_list(struct parser *p, struct clause *c, unsigned lo,
                       unsigned hi) {
  if (skip_blanks(p, lo, hi) == hi) {
    parse_error(p, hi, "empty list in clause '%s'", clause_name(c->kind));
    return;
  }
  for (unsigned i = lo;; i++) {
    unsigned e = next_comma(p, i, hi), a = i, b = e;
    trim(p, &a, &b);
    if (a == b) {
      parse_error(p, e, "empty item in clause '%s'", clause_name(c->kind));
    } else {
      c->items = reserve(c->items, c->nitems, sizeof *c->items);
      struct item *it = &c->items[c->nitems++];
      memset(it, 0, sizeof *it);
      if (c->kind == CLAUSE_SHARED || c->kind == CLAUSE_FIRSTPRIVATE)
        parse_name_item(p, c, it, a, b);
      else
        parse_item(p, c, it, a, b);
    }
    if (e == hi)
      break;
    i = e;
  }
}

/* ------------------------------------------------------------- clauses */

static void parse_expr_arg(struct parser *p, struct clause *c, unsigned lo,
                           unsigned hi) {
  c->arg = make_expr(p, lo, hi);
  unsigned comma = next_comma(p, lo, hi);
  if (!c->arg.text)
    parse_error(p, hi, "empty expression in clause '%s'", clause_name(c->kind));
  else if (comma < hi) /* a comma operator would split a call's arguments */
    parse_error(p, comma,
                "unexpected ',' in clause '%s'; expected one expression",
                clause_name(c->kind));
}

static const char *const device_names[DAG_NDEVICE_KINDS] = {
#define DEVICE_NAME(id, name) [DAG_DEVICE_##id] = #name,
    DAG_DEVICE_KINDS(DEVICE_NAME)
#undef DEVICE_NAME
};

/* "'a', 'b' or 'c'": the `n` words a clause may take, into `list` (once:
 * the words never change). */
static const char *choices(char *list, size_t size, const char *const *words,
                           size_t n) {
  if (!list[0])
    for (size_t k = 0; k < n; k++)
      snprintf(list + strlen(list), size - strlen(list), "%s'%s'",
               k == 0       ? ""
               : k == n - 1 ? " or "
                            : ", ",
               words[k]);
  return list;
}

/* "'cpu', 'cuda' or 'hip'": the kinds a device clause may name. */
static const char *device_choices(void) {
  static char list[256];
  return choices(list, sizeof list, device_names, DAG_NDEVICE_KINDS);
}

/* "'+', '*', ... or '||'": the operators of a reduction. */
static const char *reduce_choices(void) {
  static char list[256];
  return choices(list, sizeof list, reduce_ops, NREDUCE_OPS);
}

/* "'lower', 'upper', ... or 'diagonal'": the block modifiers. */
static const char *part_choices(void) {
  static char list[256];
  const char *names[NBLOCK_PARTS];
  for (size_t k = 0; k < NBLOCK_PARTS; k++)
    names[k] = block_parts[k].name;
  return choices(list, sizeof list, names, NBLOCK_PARTS);
}

/* reduction(op: list): the operator, then the items. */
static void parse_reduction(struct parser *p, struct clause *c, unsigned lo,
                            unsigned hi) {
  unsigned stride, colon = section_colon(p, lo, hi, &stride), a = lo, b;
  if (colon == hi) {
    parse_error(p, skip_blanks(p, lo, hi),
                "missing ':' in clause 'reduction'; write the operator, a "
                "colon and the items, as in 'reduction(+: s)'");
    return;
  }
  b = colon;
  trim(p, &a, &b);
  bool known = false;
  for (size_t k = 0; k < NREDUCE_OPS && !known; k++)
    if (is_word(p, a, b, reduce_ops[k])) {
      c->reduce = (enum dag_reduce_op)k;
      known = true;
    }
  if (a == b)
    parse_error(p, colon,
                "missing operator before ':' in clause 'reduction'; expected "
                "%s",
                reduce_choices());
  else if (is_word(p, a, b, "-"))
    parse_error(p, a,
                "reduction operator '-' is '+' in dag (OpenMP's '-' adds the "
                "partial results all the same): write 'reduction(+: ...)'");
  else if (!known)
    parse_error(p, a, "unknown reduction operator '%s'; expected %s",
                show(p->s + a, b - a).text, reduce_choices());
  parse_list(p, c, colon + 1, hi);
}

static void parse_device(struct parser *p, struct clause *c, unsigned lo,
                         unsigned hi) {
  trim(p, &lo, &hi);
  if (lo == hi) {
    parse_error(p, hi, "missing device in clause 'device'; expected %s",
                device_choices());
    return;
  }
  for (int k = 0; k < DAG_NDEVICE_KINDS; k++)
    if (ident_end(p, lo, hi) == hi && is_word(p, lo, hi, device_names[k])) {
      c->device = (enum dag_device)k;
      return;
    }
  parse_error(p, lo, "unknown device '%s'; expected %s",
              show(p->s + lo, hi - lo).text, device_choices());
}

static void parse_ident_arg(struct parser *p, struct clause *c, unsigned lo,
                            unsigned hi) {
  c->arg = make_expr(p, lo, hi);
  trim(p, &lo, &hi);
  if (lo == hi)
    parse_error(p, lo, "expected an identifier in clause '%s'",
                clause_name(c->kind));
  else if (ident_end(p, lo, hi) != hi)
    parse_error(p, lo, "expected an identifier in clause '%s', found '%s'",
                clause_name(c->kind), show(p->s + lo, hi - lo).text);
}

/* label("text"): one string literal or several adjacent ones, kept as
 * written, quotes included. */
static void parse_label(struct parser *p, struct clause *c, unsigned lo,
                        unsigned hi) {
  c->arg = make_expr(p, lo, hi);
  bool closed;
  unsigned i = skip_blanks(p, lo, hi);
  do {
    if (i == hi || p->s[i] != '"') {
      parse_error(p, i, "expected a string literal in clause 'label'");
      return;
    }
    i = skip_blanks(p, lex_literal_end(p->s, i, hi, &closed), hi);
  } while (i < hi);
}

/* The inside [lo, hi) of a clause's balanced parentheses. */
static void parse_argument(struct parser *p, enum directive_kind dk,
                           struct clause *c, unsigned lo, unsigned hi) {
  switch (c->kind) {
  case CLAUSE_ON:
    if (dk == DIRECTIVE_TASK)
      parse_expr_arg(p, c, lo, hi);
    else
      parse_list(p, c, lo, hi);
    break;
  case CLAUSE_PRIORITY:
  case CLAUSE_IF:
  case CLAUSE_WORK:
    parse_expr_arg(p, c, lo, hi);
    break;
  case CLAUSE_DEVICE:
    parse_device(p, c, lo, hi);
    break;
  case CLAUSE_IMPLEMENTS:
    parse_ident_arg(p, c, lo, hi);
    break;
  case CLAUSE_LABEL:
    parse_label(p, c, lo, hi);
    break;
  case CLAUSE_REDUCTION:
    parse_reduction(p, c, lo, hi);
    break;
  default: /* in, out, inout, commutative, shared, firstprivate */
    parse_list(p, c, lo, hi);
    break;
  }
}

/* After an error at the clause name ending at e: just past its argument, if
 * it has one, still checked for balance. */
static unsigned skip_argument(struct parser *p, unsigned e) {
  unsigned j = skip_blanks(p, e, p->n), close;
  if (j == p->n || p->s[j] != '(')
    return e;
  return match_group(p, j, p->n, &close) == GROUP_OPEN ? p->n : close + 1;
}

/* Just past a run of junk that starts at s[i] (already reported): up to the
 * next space, comma or identifier, brackets and literals skipped whole. */
static unsigned skip_junk(const struct parser *p, unsigned i) {
  do {
    if (closer_of(p->s[i]))
      i = group_end(p, i, p->n);
    else
      i = token_end(p, i, p->n);
  } while (i < p->n && !lex_is_space(p->s[i]) && p->s[i] != ',' &&
           !lex_is_ident_start(p->s[i]));
  return i;
}

static int lookup_clause(const struct parser *p, unsigned i, unsigned e) {
  for (int k = 0; k < NCLAUSES; k++)
    if (is_word(p, i, e, clause_names[k]))
      return k;
  return -1;
}

struct clause_state {
  struct directive *d;
  bool seen[NCLAUSES];
};

/* Whether clause `kind`, named at [i, e), may appear here; reports why not. */
static bool clause_allowed(struct parser *p, struct clause_state *st,
                           enum clause_kind kind, unsigned i) {
  const char *name = clause_name(kind);
  if (st->d->kind == DIRECTIVE_TASKWAIT && kind != CLAUSE_ON &&
      kind != CLAUSE_NOFLUSH) {
    parse_error(p, i, "clause '%s' is not allowed on 'taskwait'", name);
    return false;
  }
  if (st->d->kind == DIRECTIVE_TASK && kind == CLAUSE_NOFLUSH) {
    parse_error(p, i, "clause 'noflush' is not allowed on 'task'");
    return false;
  }
  if (clause_is_unique(kind) && st->seen[kind])
    parse_error(p, i, "duplicate clause '%s'", name);
  st->seen[kind] = true;
  return true;
}

static struct clause *add_clause(struct directive *d, enum clause_kind kind,
                                 unsigned begin, unsigned end) {
  d->clauses = reserve(d->clauses, d->nclauses, sizeof *d->clauses);
  struct clause *c = &d->clauses[d->nclauses++];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->at = (struct span){begin, end};
  return c;
}

/* --------------------------------------------------- OpenMP's words
 *
 * A port from OpenMP that changes `omp` to `dag` meets OpenMP's clauses and
 * directives first. They stay errors, each with the dag form that
 * docs/porting.md gives. */

struct openmp_word {
  const char *word, *hint;
};

#define NO_SUCH_CLAUSE "dag needs no such clause: remove it"
#define IN_REDUCTION                                                           \
  "dag has no task group reductions: write 'reduction(op: item)' on each "     \
  "task that combines into the item; dag groups consecutive ones itself"

static const struct openmp_word openmp_clauses[] = {
    {"default", "dag has no default data sharing: a task copies the locals "
                "it uses, unless an item or 'shared()' names them"},
    {"final", "write the cutoff in C, calling a serial version below it"},
    {"private", "declare the variable in the task body: a variable that the "
                "body assigns before it reads it is the body's own already"},
    {"mergeable", NO_SUCH_CLAUSE},
    {"untied", NO_SUCH_CLAUSE},
    {"in_reduction", IN_REDUCTION},
    {"task_reduction", IN_REDUCTION},
};

#define NO_SUCH_DIRECTIVE "dag needs no such directive: remove it"
#define WORKSHARING "dag has no worksharing: make a task per chunk of the loop"

static const struct openmp_word openmp_directives[] = {
    {"parallel", "dag needs no parallel region: remove it, and put a '#pragma "
                 "dag taskwait' where the region ended"},
    {"single", NO_SUCH_DIRECTIVE ", since the code outside tasks runs once"},
    {"master", NO_SUCH_DIRECTIVE ", since the code outside tasks runs once"},
    {"masked", NO_SUCH_DIRECTIVE ", since the code outside tasks runs once"},
    {"for", WORKSHARING},
    {"sections", WORKSHARING},
    {"loop", WORKSHARING},
    {"taskloop", "dag has no taskloop: write the loop over chunks, a task per "
                 "chunk"},
    {"taskgroup", "put a '#pragma dag taskwait' after the group, or make the "
                  "group one task"},
    {"critical", "make the update a task of its own, 'commutative' on the "
                 "data it updates"},
    {"atomic", "use a C11 '_Atomic' variable, or let each task write a "
               "partial result"},
    {"taskyield", NO_SUCH_DIRECTIVE},
};

static const char *openmp_hint(const struct parser *p, unsigned i, unsigned e,
                               const struct openmp_word *words, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (is_word(p, i, e, words[k].word))
      return words[k].hint;
  return NULL;
}

/* A list of a clause, [lo, hi) trimmed, fit for a message: "..." when it is
 * long. */
static struct shown show_list(const struct parser *p, unsigned lo,
                              unsigned hi) {
  trim(p, &lo, &hi);
  return hi - lo > 32 ? show("...", 3) : show(p->s + lo, hi - lo);
}

/* `depend(type: list)`, its inside [lo, hi): the dag clause to write. */
static void unknown_depend(struct parser *p, enum directive_kind dk,
                           unsigned at, unsigned lo, unsigned hi) {
  static const char *const same[] = {"in", "out", "inout"};
  unsigned stride, colon = section_colon(p, lo, hi, &stride);
  unsigned t = lo, te = colon;
  trim(p, &t, &te);
  const char *clause = NULL;
  for (size_t k = 0; k < sizeof same / sizeof *same; k++)
    if (is_word(p, t, te, same[k]))
      clause = dk == DIRECTIVE_TASKWAIT ? "on" : same[k];
  if (dk == DIRECTIVE_TASK && is_word(p, t, te, "mutexinoutset"))
    clause = "commutative";
  if (colon < hi && clause && skip_blanks(p, colon + 1, hi) < hi)
    parse_error(p, at,
                "unknown clause 'depend'; write 'depend(%s: %s)' as '%s(%s)'",
                show(p->s + t, te - t).text, show_list(p, colon + 1, hi).text,
                clause, show_list(p, colon + 1, hi).text);
  else if (colon < hi && is_word(p, t, te, "inoutset"))
    parse_error(
        p, at,
        "unknown clause 'depend'; dag has no 'inoutset': give each task "
        "the part it writes, in 'out' items that do not overlap");
  else if (colon < hi && is_word(p, t, te, "depobj"))
    parse_error(p, at,
                "unknown clause 'depend'; dag has no 'depobj': write the items "
                "in the pragma");
  else if (colon < hi && is_word(p, t, ident_end(p, t, te), "iterator"))
    parse_error(p, at,
                "unknown clause 'depend'; dag has no iterators: name the whole "
                "range in one section, such as 'in(a[0:n])'");
  else if (dk == DIRECTIVE_TASKWAIT)
    parse_error(p, at,
                "unknown clause 'depend'; write 'depend(inout: x)' as "
                "'on(x)'");
  else
    parse_error(
        p, at,
        "unknown clause 'depend'; each type of dependence is a clause of "
        "its own: 'in(x)', 'out(x)', 'inout(x)', or 'commutative(x)' for "
        "mutexinoutset");
}

/* A clause that dag does not know, named at [i, e); `next` is just past its
 * argument, if it has one. */
static void unknown_clause(struct parser *p, enum directive_kind dk, unsigned i,
                           unsigned e, unsigned next) {
  unsigned j = skip_blanks(p, e, next), lo = j + 1, hi = next - 1;
  bool arg = j < next && p->s[j] == '(' && p->s[hi] == ')';
  const char *hint = openmp_hint(
      p, i, e, openmp_clauses, sizeof openmp_clauses / sizeof *openmp_clauses);
  if (is_word(p, i, e, "depend"))
    unknown_depend(p, dk, i, arg ? lo : next, arg ? hi : next);
  else if (is_word(p, i, e, "private") && arg && skip_blanks(p, lo, hi) < hi)
    parse_error(p, i,
                "unknown clause 'private'; declare '%s' in the task body: a "
                "variable that the body assigns before it reads it is the "
                "body's own already",
                show_list(p, lo, hi).text);
  else if (hint)
    parse_error(p, i, "unknown clause '%s'; %s", show(p->s + i, e - i).text,
                hint);
  else
    parse_error(p, i, "unknown clause '%s'", show(p->s + i, e - i).text);
}

/* The clause whose name starts at s[i]; returns where the next one may. */
static unsigned parse_clause(struct parser *p, struct clause_state *st,
                             unsigned i) {
  unsigned e = ident_end(p, i, p->n), close;
  int k = lookup_clause(p, i, e);
  if (k < 0) {
    unsigned next = skip_argument(p, e);
    unknown_clause(p, st->d->kind, i, e, next);
    return next;
  }
  enum clause_kind kind = (enum clause_kind)k;
  if (!clause_allowed(p, st, kind, i))
    return skip_argument(p, e);
  unsigned j = skip_blanks(p, e, p->n);
  if (kind == CLAUSE_NOFLUSH) {
    if (j < p->n && p->s[j] == '(') {
      parse_error(p, j, "clause 'noflush' takes no arguments");
      return skip_argument(p, e);
    }
    add_clause(st->d, kind, p->base + i, p->base + e);
    return e;
  }
  if (j == p->n || p->s[j] != '(') {
    parse_error(p, j, "expected '(' after '%s'", clause_name(kind));
    unsigned name_end = ident_end(p, j, p->n);
    if (j == p->n || (name_end > j && lookup_clause(p, j, name_end) >= 0))
      return j;
    return skip_junk(p, j);
  }
  enum group g = match_group(p, j, p->n, &close);
  if (g != GROUP_OK)
    return g == GROUP_OPEN ? p->n : close + 1;
  struct clause *c = add_clause(st->d, kind, p->base + i, p->base + close + 1);
  parse_argument(p, st->d->kind, c, j + 1, close);
  return close + 1;
}

/* Junk where a clause should start. */
static unsigned junk(struct parser *p, unsigned i) {
  char c = p->s[i];
  if (is_closer(c))
    parse_error(p, i, "unbalanced '%c'", c);
  else
    parse_error(p, i, "unexpected '%s'; expected a clause",
                show(p->s + i, token_end(p, i, p->n) - i).text);
  return c == ',' ? i + 1 : skip_junk(p, i);
}

static void parse_clauses(struct parser *p, struct directive *d, unsigned i) {
  struct clause_state st = {.d = d};
  for (;;) {
    i = skip_blanks(p, i, p->n);
    if (i == p->n)
      break;
    if (!lex_is_ident_start(p->s[i])) {
      i = junk(p, i);
      continue;
    }
    i = parse_clause(p, &st, i);
    i = skip_blanks(p, i, p->n);
    if (i < p->n && p->s[i] == ',') {
      if (skip_blanks(p, i + 1, p->n) == p->n)
        parse_error(p, i, "expected a clause after ','");
      i++;
    }
  }
}

/* `# pragma dag task|taskwait`; returns where the clauses start, or 0 after
 * an error (the clauses cannot be read without knowing the directive). */
static unsigned parse_header(struct parser *p, struct directive *d) {
  unsigned i = skip_blanks(p, 0, p->n), e;
  if (i == p->n || p->s[i] != '#') {
    parse_error(p, i, "expected '#pragma dag'");
    return 0;
  }
  i = skip_blanks(p, i + 1, p->n);
  e = ident_end(p, i, p->n);
  if (!is_word(p, i, e, "pragma")) {
    parse_error(p, i, "expected 'pragma' after '#'");
    return 0;
  }
  i = skip_blanks(p, e, p->n);
  e = ident_end(p, i, p->n);
  if (!is_word(p, i, e, "dag")) {
    parse_error(p, i, "expected 'dag' after '#pragma'");
    return 0;
  }
  i = skip_blanks(p, e, p->n);
  e = ident_end(p, i, p->n);
  if (is_word(p, i, e, "task")) {
    d->kind = DIRECTIVE_TASK;
  } else if (is_word(p, i, e, "taskwait")) {
    d->kind = DIRECTIVE_TASKWAIT;
  } else if (e == i) {
    parse_error(p, i, "expected 'task' or 'taskwait' after '#pragma dag'");
    return 0;
  } else {
    /* `parallel for`: the loop is what needs the hint. */
    unsigned w = skip_blanks(p, e, p->n), we = ident_end(p, w, p->n);
    const char *hint = NULL;
    if (is_word(p, i, e, "parallel") &&
        (is_word(p, w, we, "for") || is_word(p, w, we, "sections") ||
         is_word(p, w, we, "loop")))
      hint = WORKSHARING;
    else
      hint = openmp_hint(p, i, e, openmp_directives,
                         sizeof openmp_directives / sizeof *openmp_directives);
    parse_error(p, i, "unknown directive '%s'; %s", show(p->s + i, e - i).text,
                hint ? hint : "expected 'task' or 'taskwait'");
    return 0;
  }
  return e;
}

int pragma_parse(const struct source *src, unsigned begin, unsigned end,
                 struct directive *out, struct diags *diags) {
  memset(out, 0, sizeof *out);
  if (end > src->len)
    end = (unsigned)src->len;
  if (begin > end)
    begin = end;
  /* Exactly the directive's bytes, no terminator: a scan that runs past the
   * end is a bug that the sanitizers then see. */
  struct parser p = {
      .src = src, .diags = diags, .base = begin, .n = end - begin};
  p.s = xmalloc(p.n);
  clean(&p, src->text + begin);
  out->at = (struct span){begin, end};
  unsigned i = parse_header(&p, out);
  if (i > 0)
    parse_clauses(&p, out, i);
  free(p.s);
  if (p.errors == 0)
    return 0;
  directive_release(out);
  return -1;
}
