/* lex.h — the characters of C source as both of dagcc's readers of raw text
 * see them: the pragma parser (pragma.c) and the scanner of directives and
 * declarations (scan.c). One definition, so that the two agree on what an
 * identifier and a literal are.
 */
#ifndef DAG_LEX_H
#define DAG_LEX_H

#include <stdbool.h>

static inline bool lex_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

static inline bool lex_is_digit(char c) { return c >= '0' && c <= '9'; }

/* Letters, '_', '$' (GCC's extension) and the bytes of UTF-8 sequences, as
 * in C identifiers. */
static inline bool lex_is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '$' || (unsigned char)c >= 0x80;
}

static inline bool lex_is_ident_char(char c) {
  return lex_is_ident_start(c) || lex_is_digit(c);
}

/* Just past the literal that opens with the quote at s[i] (a '"' or a
 * '\''), within s[0, n): a backslash escapes the next character (a
 * backslash-newline continues the literal, as the preprocessor splices
 * it). *closed is false when an unescaped newline or the text ends first;
 * the result is then that newline's offset, or n. */
static inline unsigned lex_literal_end(const char *s, unsigned i, unsigned n,
                                       bool *closed) {
  char quote = s[i];
  for (i++; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n)
      i++;
    else if (s[i] == quote) {
      *closed = true;
      return i + 1;
    } else if (s[i] == '\n')
      break;
  }
  *closed = false;
  return i;
}

#endif /* DAG_LEX_H */
