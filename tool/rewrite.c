/* rewrite.c: applies the edits of a file in one pass (see rewrite.h). */
#include "rewrite.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct edit *edits_add(struct edits *e, struct span at, bool inline_use) {
  if (e->n == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 32;
    e->v = xrealloc(e->v, e->cap * sizeof *e->v);
  }
  struct edit *ed = &e->v[e->n];
  *ed = (struct edit){.at = at, .inline_use = inline_use, .order = e->n};
  e->n++;
  return ed;
}

static struct piece *add_piece(struct edit *ed) {
  if (ed->npieces == ed->cap) {
    ed->cap = ed->cap ? 2 * ed->cap : 8;
    ed->pieces = xrealloc(ed->pieces, ed->cap * sizeof *ed->pieces);
  }
  struct piece *p = &ed->pieces[ed->npieces++];
  memset(p, 0, sizeof *p);
  return p;
}

void edit_text(struct edit *ed, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = xvasprintf(fmt, ap);
  va_end(ap);
  /* Generated code stays on the line of its #line directive, so that what
   * the compiler says about it points at the pragma. */
  char *to = text;
  for (const char *c = text; *c; c++) {
    if (*c != '\n') {
      *to++ = *c;
      continue;
    }
    if (to > text && to[-1] != ' ')
      *to++ = ' ';
    while (c[1] == ' ')
      c++;
  }
  *to = '\0';
  size_t n = (size_t)(to - text);
  /* Consecutive text pieces merge: fewer, larger pieces. */
  struct piece *p =
      ed->npieces && ed->pieces[ed->npieces - 1].kind == PIECE_TEXT
          ? &ed->pieces[ed->npieces - 1]
          : NULL;
  if (!p) {
    p = add_piece(ed);
    p->kind = PIECE_TEXT;
  }
  if (p->len + n + 1 > p->cap) {
    p->cap = 2 * (p->len + n + 1);
    p->text = xrealloc(p->text, p->cap);
  }
  memcpy(p->text + p->len, text, n + 1);
  p->len += n;
  free(text);
}

void edit_directive(struct edit *ed, const char *text) {
  struct piece *p = add_piece(ed);
  p->kind = PIECE_DIRECTIVE;
  p->text = xstrdup(text);
  p->len = p->cap = strlen(text);
}

void edit_piece(struct edit *ed, enum piece_kind kind, const struct source *src,
                const char *clean, struct span at) {
  struct piece *p = add_piece(ed);
  p->kind = kind;
  p->src = src;
  p->clean = clean;
  p->at = at;
}

void buf_c_string(struct buf *b, const char *s) {
  buf_puts(b, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      buf_add(b, "\\", 1);
    buf_add(b, s, 1);
  }
  buf_puts(b, "\"");
}

static void line_directive(struct buf *out, const struct source *src,
                           unsigned offset, bool pad) {
  unsigned line, col;
  source_position(src, offset, &line, &col);
  if (out->len && out->s[out->len - 1] != '\n')
    buf_puts(out, "\n");
  buf_printf(out, "#line %u ", line);
  buf_c_string(out, src->path);
  buf_puts(out, "\n");
  /* Keep columns right for the first line, so carets line up. */
  bool blank = offset >= src->len || src->text[offset] == '\n';
  for (unsigned i = 1; pad && !blank && i < col; i++)
    buf_puts(out, " ");
}

static int by_position(const void *x, const void *y) {
  const struct edit *a = x, *b = y;
  if (a->at.begin != b->at.begin)
    return a->at.begin < b->at.begin ? -1 : 1;
  bool ai = a->at.begin == a->at.end, bi = b->at.begin == b->at.end;
  if (ai != bi)
    return ai ? -1 : 1; /* insertions before a replacement at one offset */
  return a->order < b->order ? -1 : a->order > b->order;
}

struct renderer {
  struct edits *e;
  struct buf *out;
};

static void render_range(struct renderer *r, const char *text, unsigned begin,
                         unsigned end, bool lines);

static void render_edit(struct renderer *r, const struct edit *ed) {
  for (unsigned i = 0; i < ed->npieces; i++) {
    const struct piece *p = &ed->pieces[i];
    bool ours = p->src == r->e->src; /* edits apply to the main file only */
    switch (p->kind) {
    case PIECE_TEXT:
      buf_puts(r->out, p->text);
      break;
    case PIECE_LINE:
      line_directive(r->out, p->src, p->at.begin, false);
      break;
    case PIECE_DIRECTIVE:
      if (r->out->len && r->out->s[r->out->len - 1] != '\n')
        buf_puts(r->out, "\n");
      buf_puts(r->out, p->text);
      buf_puts(r->out, "\n");
      break;
    case PIECE_SOURCE:
      line_directive(r->out, p->src, p->at.begin, true);
      if (ours)
        render_range(r, p->src->text, p->at.begin, p->at.end, true);
      else
        buf_add(r->out, p->src->text + p->at.begin, p->at.end - p->at.begin);
      buf_puts(r->out, "\n");
      break;
    case PIECE_EXPR:
      if (ours)
        render_range(r, p->clean, p->at.begin, p->at.end, false);
      else
        buf_add(r->out, p->clean + p->at.begin, p->at.end - p->at.begin);
      break;
    }
  }
}

/* The first edit at or after `begin`. */
static unsigned first_edit(const struct edits *e, unsigned begin) {
  unsigned lo = 0, hi = e->n;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (e->v[mid].at.begin < begin)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Renders [begin, end) of `text` (the file or its cleaned copy) with the
 * edits that lie inside it. */
static void render_range(struct renderer *r, const char *text, unsigned begin,
                         unsigned end, bool lines) {
  const struct edits *e = r->e;
  bool whole = begin == 0 && end == e->src->len;
  unsigned pos = begin;
  for (unsigned i = first_edit(e, begin); i < e->n; i++) {
    const struct edit *ed = &e->v[i];
    if (ed->at.begin < pos)
      continue; /* nested in an edit already applied */
    if (ed->moved && ed->at.begin == begin && ed->at.end == end)
      continue; /* rendering the moved range itself */
    if (ed->at.end > end || (ed->at.begin == end && !whole))
      break;
    buf_add(r->out, text + pos, ed->at.begin - pos);
    render_edit(r, ed);
    pos = ed->at.end;
    if (lines && !ed->inline_use)
      line_directive(r->out, e->src, pos, true);
  }
  buf_add(r->out, text + pos, end - pos);
}

void rewrite_render(struct edits *e, struct buf *out) {
  if (e->n) /* none when every directive is in a skipped #if branch */
    qsort(e->v, e->n, sizeof *e->v, by_position);
  struct renderer r = {e, out};
  render_range(&r, e->src->text, 0, (unsigned)e->src->len, true);
}

void edits_release(struct edits *e) {
  for (unsigned i = 0; i < e->n; i++) {
    for (unsigned j = 0; j < e->v[i].npieces; j++)
      free(e->v[i].pieces[j].text);
    free(e->v[i].pieces);
  }
  free(e->v);
  memset(e, 0, sizeof *e);
}
