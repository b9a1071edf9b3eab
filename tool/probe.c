/* probe.c: builds the text libclang parses in place of a file with pragmas,
 * and the map from its offsets back to the file (see probe.h). */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

struct builder {
  struct buf text;
  const char *clean; /* the original text, directives cleaned */
  struct probe_file *out;
  unsigned cap_segs, cap_points;
  unsigned directive, clause, item; /* what the probes being added are for */
  unsigned file_id;
};

static void add_segment(struct builder *b, unsigned begin, unsigned len,
                        unsigned origin, bool copied) {
  struct probe_file *p = b->out;
  if (len == 0)
    return;
  if (p->nsegs == b->cap_segs)
    p->segs =
        xrealloc(p->segs, (b->cap_segs = b->cap_segs ? 2 * b->cap_segs : 64) *
                              sizeof *p->segs);
  p->segs[p->nsegs++] = (struct probe_segment){begin, len, origin, copied};
}

/* Copies original bytes [from, to): they map to themselves. */
static void copy(struct builder *b, unsigned from, unsigned to) {
  add_segment(b, (unsigned)b->text.len, to - from, from, true);
  buf_add(&b->text, b->clean + from, to - from);
}

static void copy_expr(struct builder *b, const struct expr *e) {
  copy(b, e->at.begin, e->at.end);
}

/* Adds generated text; its bytes map to `origin`. */
static void gen(struct builder *b, unsigned origin, const char *s) {
  add_segment(b, (unsigned)b->text.len, (unsigned)strlen(s), origin, false);
  buf_puts(&b->text, s);
}

/* Records that the '(' about to be generated opens a probe expression. */
static void point(struct builder *b, enum probe_role role, unsigned sub) {
  struct probe_file *p = b->out;
  if (p->npoints == b->cap_points)
    p->points = xrealloc(
        p->points, (b->cap_points = b->cap_points ? 2 * b->cap_points : 64) *
                       sizeof *p->points);
  p->points[p->npoints++] = (struct probe_point){
      (unsigned)b->text.len, role, b->directive, b->clause, b->item, sub};
}

/* The item's base as an expression: `(base)`, or for array shaping
 * `(*(__typeof__(*(p)) (*)[d0][d1])(p))`, an lvalue of the shaped type. */
static void gen_base(struct builder *b, const struct item *it) {
  unsigned at = it->at.begin;
  if (it->nshape == 0) {
    gen(b, at, "(");
    copy_expr(b, &it->base);
    gen(b, at, ")");
    return;
  }
  gen(b, at, "(*(__typeof__(*(");
  copy_expr(b, &it->base);
  gen(b, at, ")) (*)");
  for (unsigned k = 0; k < it->nshape; k++) {
    gen(b, at, "[");
    copy_expr(b, &it->shape[k]);
    gen(b, at, "]");
  }
  gen(b, at, ")(");
  copy_expr(b, &it->base);
  gen(b, at, "))");
}

/* `(base)[lo0]...[lo(n-1)]`, absent lows being 0. */
static void gen_subscripted(struct builder *b, const struct item *it,
                            unsigned n) {
  gen_base(b, it);
  for (unsigned k = 0; k < n; k++) {
    const struct subscript *s = &it->subs[k];
    gen(b, s->at.begin, "[");
    if (s->lo.text)
      copy_expr(b, &s->lo);
    else
      gen(b, s->at.begin, "0");
    gen(b, s->at.begin, "]");
  }
}

static void gen_item(struct builder *b, const struct item *it) {
  unsigned at = it->at.begin;
  if (it->nshape) {
    gen(b, at, "(void)");
    point(b, PROBE_SHAPED, 0);
    gen(b, at, "(");
    copy_expr(b, &it->base);
    gen(b, at, "); ");
  }
  if (it->nsubs == 0) {
    gen(b, at, "(void)&");
    point(b, PROBE_ADDRESS, 0);
    gen_base(b, it);
    gen(b, at, "; ");
    return;
  }
  gen(b, at, "(void)");
  point(b, PROBE_BASE, 0);
  gen_base(b, it);
  gen(b, at, "; ");
  for (unsigned k = 1; k < it->nsubs; k++) {
    gen(b, at, "(void)");
    point(b, PROBE_PREFIX, k);
    gen(b, at, "(");
    gen_subscripted(b, it, k);
    gen(b, at, "); ");
  }
  gen(b, at, "(void)&");
  point(b, PROBE_ELEMENT, 0);
  gen(b, at, "(");
  gen_subscripted(b, it, it->nsubs);
  gen(b, at, "); ");
  for (unsigned k = 0; k < it->nsubs; k++) {
    const struct subscript *s = &it->subs[k];
    const struct expr *parts[2] = {&s->lo, &s->len};
    for (int j = 0; j < 2; j++) {
      if (!parts[j]->text)
        continue;
      gen(b, parts[j]->at.begin, "(void)");
      point(b, j == 0 ? PROBE_LO : PROBE_LEN, k);
      gen(b, parts[j]->at.begin, "(");
      copy_expr(b, parts[j]);
      gen(b, parts[j]->at.begin, "); ");
    }
  }
}

static void gen_expr_probe(struct builder *b, enum probe_role role,
                           const struct expr *e) {
  gen(b, e->at.begin, "(void)");
  point(b, role, 0);
  gen(b, e->at.begin, "(");
  copy_expr(b, e);
  gen(b, e->at.begin, "); ");
}

static void gen_probes(struct builder *b, const struct directive *d) {
  for (unsigned c = 0; c < d->nclauses; c++) {
    const struct clause *cl = &d->clauses[c];
    b->clause = c;
    switch (cl->kind) {
    case CLAUSE_ON:
    case CLAUSE_PRIORITY:
    case CLAUSE_IF:
    case CLAUSE_WORK:
      if (cl->arg.text)
        gen_expr_probe(b, PROBE_ARG, &cl->arg);
      break;
    default:
      break;
    }
    for (unsigned i = 0; i < cl->nitems; i++) {
      b->item = i;
      if (cl->kind == CLAUSE_SHARED || cl->kind == CLAUSE_FIRSTPRIVATE)
        gen_expr_probe(b, PROBE_NAME, &cl->items[i].base);
      else
        gen_item(b, &cl->items[i]);
    }
  }
}

/* The directive's line breaks, so that the lines after it keep their
 * numbers. */
static void gen_newlines(struct builder *b, const struct source *src,
                         struct span at) {
  for (unsigned i = at.begin; i < at.end; i++)
    if (src->text[i] == '\n')
      gen(b, at.end, "\n");
}

/* An edit of the original text: a directive replaced, or a probe function
 * inserted after a declaration. */
struct op {
  unsigned begin, end;
  unsigned directive;
  bool insert_function;
  struct span params;
};

static int by_offset(const void *x, const void *y) {
  const struct op *a = x, *b = y;
  return a->begin < b->begin ? -1 : a->begin > b->begin;
}

static void apply(struct builder *b, const struct source *src,
                  const struct scan_result *scan, const struct directive *dirs,
                  const bool *ok, const struct op *op) {
  unsigned k = op->directive;
  const struct directive *d = &dirs[k];
  b->directive = k;
  if (op->insert_function) {
    char name[48];
    snprintf(name, sizeof name, " static void " PROBE_FUNCTION_PREFIX "%u_%u",
             b->file_id, k);
    gen(b, d->at.begin, name);
    b->out->anchors[k] = (unsigned)b->text.len - (unsigned)strlen(name) +
                         (unsigned)strlen(" static void ");
    copy(b, op->params.begin, op->params.end);
    gen(b, d->at.begin, " { ");
    gen_probes(b, d);
    gen(b, d->at.begin, "}");
    return;
  }
  if (ok[k] && !scan->directives[k].file_scope) {
    b->out->anchors[k] = (unsigned)b->text.len;
    gen(b, d->at.begin, d->kind == DIRECTIVE_TASK ? "if (0) { " : "{ ");
    gen_probes(b, d);
    gen(b, d->at.begin, d->kind == DIRECTIVE_TASK ? "} else " : "}");
  }
  gen_newlines(b, src, scan->directives[k].at);
}

void probe_build(const struct source *src, const char *clean,
                 const struct scan_result *scan, const struct directive *dirs,
                 const bool *ok, unsigned file_id, struct probe_file *out) {
  memset(out, 0, sizeof *out);
  unsigned n = scan->ndirectives;
  out->anchors = xmalloc((n ? n : 1) * sizeof *out->anchors);
  struct op *ops = xmalloc((2 * n + 1) * sizeof *ops);
  unsigned nops = 0;
  for (unsigned k = 0; k < n; k++) {
    struct span at = scan->directives[k].at;
    out->anchors[k] = PROBE_NONE;
    ops[nops++] = (struct op){at.begin, at.end, k, false, {0, 0}};
    struct span name, params;
    unsigned end;
    if (ok[k] && scan->directives[k].file_scope &&
        dirs[k].kind == DIRECTIVE_TASK &&
        scan_function_declaration(src, at.end, &name, &params, &end))
      ops[nops++] = (struct op){end, end, k, true, params};
  }
  qsort(ops, nops, sizeof *ops, by_offset);
  struct builder b = {.clean = clean, .out = out, .file_id = file_id};
  unsigned done = 0;
  for (unsigned i = 0; i < nops; i++) {
    if (ops[i].begin < done) /* inside a replaced range: cannot happen */
      continue;
    copy(&b, done, ops[i].begin);
    apply(&b, src, scan, dirs, ok, &ops[i]);
    done = ops[i].end;
  }
  copy(&b, done, (unsigned)src->len);
  free(ops);
  out->len = (unsigned)b.text.len;
  out->text = buf_detach(&b.text);
}

void probe_release(struct probe_file *p) {
  free(p->text);
  free(p->segs);
  free(p->points);
  free(p->anchors);
  memset(p, 0, sizeof *p);
}

unsigned probe_origin(const struct probe_file *p, unsigned at) {
  unsigned lo = 0, hi = p->nsegs;
  if (hi == 0)
    return at;
  while (hi - lo > 1) { /* last segment with begin <= at */
    unsigned mid = lo + (hi - lo) / 2;
    if (p->segs[mid].begin <= at)
      lo = mid;
    else
      hi = mid;
  }
  const struct probe_segment *s = &p->segs[lo];
  if (!s->copied)
    return s->origin;
  unsigned delta = at - s->begin;
  return s->origin + (delta < s->len ? delta : s->len);
}
