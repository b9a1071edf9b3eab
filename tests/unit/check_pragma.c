/* check_pragma.c — the pragma parser (tool/pragma.c).
 *
 * Two tables. Accepted directives are rendered into a compact text (clause
 * names, items cut into shape, base and subscripts) and compared with the
 * expected rendering; every expression is also checked against the file at
 * its offsets. Rejected directives list their errors: the message (a piece
 * of it) and where it points, written as a caret under the directive or as
 * line:col. Then the cases that need more than a line: continuation lines,
 * several errors at once, the byte range, NUL bytes, the small helpers.
 *
 * Every directive sits after PRELUDE, so it starts on line 3 at a nonzero
 * offset, and before a line that must never be read.
 */
#include "pragma.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_suite.h"

#define PRELUDE "int a;\n/* line two */\n"
#define PRAGMA_LINE 3
#define AFTER "\n) junk(\n"

/* A parse of `text` placed between PRELUDE and AFTER. */
struct parse {
  struct source src;
  struct diags diags;
  struct directive d;
  unsigned begin, end;
  int rc;
};

static void parse_n(struct parse *p, const char *text, size_t len) {
  size_t plen = strlen(PRELUDE), alen = strlen(AFTER);
  char *buf = malloc(plen + len + alen);
  ck_assert_ptr_nonnull(buf);
  memcpy(buf, PRELUDE, plen);
  memcpy(buf + plen, text, len);
  memcpy(buf + plen + len, AFTER, alen);
  memset(p, 0, sizeof *p);
  source_init_text(&p->src, "t.c", buf, plen + len + alen);
  free(buf);
  p->begin = (unsigned)plen;
  p->end = (unsigned)(plen + len);
  p->rc = pragma_parse(&p->src, p->begin, p->end, &p->d, &p->diags);
}

static void parse(struct parse *p, const char *text) {
  parse_n(p, text, strlen(text));
}

static void parse_release(struct parse *p) {
  directive_release(&p->d);
  diags_release(&p->diags);
  source_release(&p->src);
}

/* All the messages, one a line with line:col, for failure reports. */
static const char *messages(const struct parse *p) {
  static char buf[4096];
  size_t n = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < p->diags.n && n < sizeof buf; i++) {
    unsigned line, col;
    source_position(&p->src, p->diags.v[i].offset, &line, &col);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "\n  %u:%u: %s", line, col,
                          p->diags.v[i].message);
  }
  return buf;
}

/* ---------------------------------------------------------- rendering */

struct out {
  char text[2048];
  size_t n;
};

static void put(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (o->n < sizeof o->text)
    o->n += (size_t)vsnprintf(o->text + o->n, sizeof o->text - o->n, fmt, ap);
  va_end(ap);
}

static const char *text_or(const struct expr *e, const char *absent) {
  return e->text ? e->text : absent;
}

/* `S(m,n) B(p)[lo:len][=i]`: the shape, the base, then the subscripts,
 * a missing lower bound as '-', a plain index as '=i'. */
static void render_item(struct out *o, const struct item *it) {
  if (it->part != DAG_FULL)
    put(o, "%s: ", part_name(it->part));
  if (it->nshape > 0) {
    put(o, "S(");
    for (unsigned i = 0; i < it->nshape; i++)
      put(o, "%s%s", i ? "," : "", it->shape[i].text);
    put(o, ") ");
  }
  put(o, "B(%s)", it->base.text);
  for (unsigned i = 0; i < it->nsubs; i++) {
    const struct subscript *s = &it->subs[i];
    if (s->is_section)
      put(o, "[%s:%s]", text_or(&s->lo, "-"), text_or(&s->len, "?"));
    else
      put(o, "[=%s]", text_or(&s->lo, "?"));
  }
}

static const char *const device_names[] = {"cpu", "cuda", "hip"};

static void render(struct out *o, const struct directive *d) {
  put(o, "%s", d->kind == DIRECTIVE_TASK ? "task" : "taskwait");
  for (unsigned i = 0; i < d->nclauses; i++) {
    const struct clause *c = &d->clauses[i];
    put(o, " %s", clause_name(c->kind));
    if (c->kind == CLAUSE_NOFLUSH)
      continue;
    put(o, "(");
    if (c->kind == CLAUSE_DEVICE)
      put(o, "%s", device_names[c->device]);
    else if (c->nitems == 0)
      put(o, "%s", text_or(&c->arg, "?"));
    for (unsigned j = 0; j < c->nitems; j++) {
      put(o, "%s", j ? ", " : "");
      render_item(o, &c->items[j]);
    }
    put(o, ")");
  }
}

/* ------------------------------------------------- offsets of the result */

static void check_in(struct span inner, struct span outer, const char *what) {
  ck_assert_msg(outer.begin <= inner.begin && inner.begin <= inner.end &&
                    inner.end <= outer.end,
                "%s [%u,%u) outside [%u,%u)", what, inner.begin, inner.end,
                outer.begin, outer.end);
}

/* An expression's text is the file's text at its span, comments and
 * continuations blanked. */
static void check_expr(const struct parse *p, const struct expr *e,
                       struct span outer) {
  if (!e->text)
    return;
  check_in(e->at, outer, e->text);
  size_t len = strlen(e->text);
  ck_assert_uint_eq(len, e->at.end - e->at.begin);
  for (size_t i = 0; i < len; i++)
    ck_assert_msg(e->text[i] == p->src.text[e->at.begin + i] ||
                      e->text[i] == ' ',
                  "'%s' is not the file's text at [%u,%u)", e->text,
                  e->at.begin, e->at.end);
  ck_assert_msg(e->text[0] != ' ' && e->text[len - 1] != ' ',
                "'%s' not trimmed", e->text);
}

static void check_offsets(const struct parse *p) {
  const struct directive *d = &p->d;
  ck_assert_uint_eq(d->at.begin, p->begin);
  ck_assert_uint_eq(d->at.end, p->end);
  for (unsigned i = 0; i < d->nclauses; i++) {
    const struct clause *c = &d->clauses[i];
    check_in(c->at, d->at, clause_name(c->kind));
    ck_assert_msg(strncmp(p->src.text + c->at.begin, clause_name(c->kind),
                          strlen(clause_name(c->kind))) == 0,
                  "clause '%s' does not start at its name",
                  clause_name(c->kind));
    if (c->kind != CLAUSE_NOFLUSH)
      ck_assert_int_eq(p->src.text[c->at.end - 1], ')');
    check_expr(p, &c->arg, c->at);
    for (unsigned j = 0; j < c->nitems; j++) {
      const struct item *it = &c->items[j];
      check_in(it->at, c->at, "item");
      if (it->part != DAG_FULL) {
        check_in(it->part_at, it->at, "modifier");
        ck_assert_uint_eq(it->part_at.begin, it->at.begin);
        ck_assert_uint_eq(it->part_at.end - it->part_at.begin,
                          strlen(part_name(it->part)));
        ck_assert_int_eq(p->src.text[it->at.end - 1], ')');
      }
      for (unsigned k = 0; k < it->nshape; k++)
        check_expr(p, &it->shape[k], it->at);
      check_expr(p, &it->base, it->at);
      for (unsigned k = 0; k < it->nsubs; k++) {
        const struct subscript *s = &it->subs[k];
        check_in(s->at, it->at, "subscript");
        ck_assert_int_eq(p->src.text[s->at.begin], '[');
        ck_assert_int_eq(p->src.text[s->at.end - 1], ']');
        check_expr(p, &s->lo, s->at);
        check_expr(p, &s->len, s->at);
      }
    }
  }
}

/* ------------------------------------------------------ accepted ones */

struct ok_case {
  const char *text;
  const char *expect; /* the rendering */
};

/* clang-format off */
static const struct ok_case ok_cases[] = {
  /* directives */
  {"#pragma dag task", "task"},
  {"#pragma dag taskwait", "taskwait"},
  {"#  pragma   dag   task  ", "task"},
  {"#\tpragma\tdag\ttaskwait\t", "taskwait"},
  {"#pragma dag taskwait noflush", "taskwait noflush"},
  {"#pragma dag taskwait on(x) noflush", "taskwait on(B(x)) noflush"},
  {"#pragma dag taskwait noflush, on(a[0:n], *p)",
   "taskwait noflush on(B(a)[0:n], B(*p))"},
  /* items */
  {"#pragma dag task in(x)", "task in(B(x))"},
  {"#pragma dag task in(*p)", "task in(B(*p))"},
  /* identifiers as C has them (lex.h): '$' (GCC's) and UTF-8 */
  {"#pragma dag task shared(a$1) firstprivate(\xc3\xa9t\xc3\xa9)",
   "task shared(B(a$1)) firstprivate(B(\xc3\xa9t\xc3\xa9))"},
  {"#pragma dag task in(p->f)", "task in(B(p->f))"},
  {"#pragma dag task in(s.f)", "task in(B(s.f))"},
  {"#pragma dag task in(a[i])", "task in(B(a[i]))"},
  {"#pragma dag task in(a[lo:len])", "task in(B(a)[lo:len])"},
  {"#pragma dag task in(a[:len])", "task in(B(a)[-:len])"},
  {"#pragma dag task in(a[ : len ])", "task in(B(a)[-:len])"},
  {"#pragma dag task in(A[i:m][j:n])", "task in(B(A)[i:m][j:n])"},
  {"#pragma dag task in(A[0:1][0:2][0:3][0:4])",
   "task in(B(A)[0:1][0:2][0:3][0:4])"},
  {"#pragma dag task in(a[i][j:n])", "task in(B(a[i])[j:n])"},
  {"#pragma dag task in(a[i][j:n][k])", "task in(B(a[i])[j:n][=k])"},
  {"#pragma dag task in(a[0:n][k][2:3])", "task in(B(a)[0:n][=k][2:3])"},
  {"#pragma dag task in(p->rows[i].v[0:n])", "task in(B(p->rows[i].v)[0:n])"},
  {"#pragma dag task in(s.a[1:2])", "task in(B(s.a)[1:2])"},
  {"#pragma dag task in((*pp)[0:n])", "task in(B((*pp))[0:n])"},
  {"#pragma dag task in(f(x, y)[0:n])", "task in(B(f(x, y))[0:n])"},
  {"#pragma dag task in(a [ 1 : 2 ] [ 3 : 4 ])",
   "task in(B(a)[1:2][3:4])"},
  {"#pragma dag task in(a[i+1 : n-i-1])", "task in(B(a)[i+1:n-i-1])"},
  {"#pragma dag task in(a[b[0:1]])", "task in(B(a[b[0:1]]))"},
  {"#pragma dag task in(a[g(i, j):n])", "task in(B(a)[g(i, j):n])"},
  /* ternaries in subscripts */
  {"#pragma dag task in(a[c ? 1 : 2])", "task in(B(a[c ? 1 : 2]))"},
  {"#pragma dag task in(a[c ? 1 : 2 : n])", "task in(B(a)[c ? 1 : 2:n])"},
  {"#pragma dag task in(a[i : c ? 1 : 2])", "task in(B(a)[i:c ? 1 : 2])"},
  {"#pragma dag task in(a[c ? d ? 1 : 2 : 3 : n])",
   "task in(B(a)[c ? d ? 1 : 2 : 3:n])"},
  {"#pragma dag task in(a[(c ? 1 : 2):n])", "task in(B(a)[(c ? 1 : 2):n])"},
  /* array shaping */
  {"#pragma dag task in(([m][n])p)", "task in(S(m,n) B(p))"},
  {"#pragma dag task in(([m][n])p[i:2][0:n])",
   "task in(S(m,n) B(p)[i:2][0:n])"},
  {"#pragma dag task in( ( [ m ] [ n*2 ] ) p )", "task in(S(m,n*2) B(p))"},
  {"#pragma dag task in(([a][b][c][d])q)", "task in(S(a,b,c,d) B(q))"},
  {"#pragma dag task in(([n])(p + 1))", "task in(S(n) B((p + 1)))"},
  {"#pragma dag task in((p)[0:2], (int *)q)",
   "task in(B((p))[0:2], B((int *)q))"},
  /* block modifiers */
  {"#pragma dag task inout(lower(A[k*b:b][k*b:b]))",
   "task inout(lower: B(A)[k*b:b][k*b:b])"},
  {"#pragma dag task in( unit_upper ( ([n][n])p ) ) out(upper(T), diagonal(x))",
   "task in(unit_upper: S(n,n) B(p)) out(upper: B(T), diagonal: B(x))"},
  {"#pragma dag task device(hip) out(unit_upper(A))",
   "task device(hip) out(unit_upper: B(A))"},
  {"#pragma dag taskwait on(unit_lower(A[0:n][0:n]))",
   "taskwait on(unit_lower: B(A)[0:n][0:n])"},
  {"#pragma dag task in(lower_bound(x), lower[0:2], (lower)(p)[0:n])",
   "task in(B(lower_bound(x)), B(lower)[0:2], B((lower)(p))[0:n])"},
  /* literals and brackets inside items */
  {"#pragma dag task in(f(\")\")[0:2])", "task in(B(f(\")\"))[0:2])"},
  {"#pragma dag task in(a[']'], b[':':1])",
   "task in(B(a[']']), B(b)[':':1])"},
  {"#pragma dag task in(a[\"x:y\"[0]:1])",
   "task in(B(a)[\"x:y\"[0]:1])"},
  {"#pragma dag task in(a['\\'':2])", "task in(B(a)['\\'':2])"},
  {"#pragma dag task in(g((struct s){1, 2}).v)",
   "task in(B(g((struct s){1, 2}).v))"},
  {"#pragma dag task in(a[-1:2], b[0:-n], c[0:-0])",
   "task in(B(a)[-1:2], B(b)[0:-n], B(c)[0:-0])"},
  {"#pragma dag task in(a[0:3-5], b[0:(-3)])",
   "task in(B(a)[0:3-5], B(b)[0:(-3)])"},
  /* lists and clauses */
  {"#pragma dag task in(a, b) out(c) inout(d) commutative(e)",
   "task in(B(a), B(b)) out(B(c)) inout(B(d)) commutative(B(e))"},
  {"#pragma dag task in(a),out(b) , inout(c)",
   "task in(B(a)) out(B(b)) inout(B(c))"},
  {"#pragma dag task in(a)out(b)", "task in(B(a)) out(B(b))"},
  {"#pragma dag task in(a) in(b)", "task in(B(a)) in(B(b))"},
  {"#pragma dag task in ( a )", "task in(B(a))"},
  {"#pragma dag task device(cpu)", "task device(cpu)"},
  {"#pragma dag task device( cuda )", "task device(cuda)"},
  {"#pragma dag task device(hip)", "task device(hip)"},
  {"#pragma dag task implements(gemm_cpu)", "task implements(gemm_cpu)"},
  {"#pragma dag task on(rank % 2)", "task on(rank % 2)"},
  {"#pragma dag task priority(n - k)", "task priority(n - k)"},
  {"#pragma dag task if(n > 1 && f(a, b))", "task if(n > 1 && f(a, b))"},
  {"#pragma dag task work(2.0 * n * n * n)", "task work(2.0 * n * n * n)"},
  {"#pragma dag task priority(g(a, b)) on((r, s))",
   "task priority(g(a, b)) on((r, s))"},
  {"#pragma dag task in(([c ? 1 : 2])p)", "task in(S(c ? 1 : 2) B(p))"},
  {"#pragma dag task label(\"potrf\")", "task label(\"potrf\")"},
  {"#pragma dag task label( \"a \\\"b\\\" )\" )",
   "task label(\"a \\\"b\\\" )\")"},
  {"#pragma dag task label(\"tile\" \"_\" \"gemm\")",
   "task label(\"tile\" \"_\" \"gemm\")"},
  {"#pragma dag task shared(a, b) firstprivate(c, _d9)",
   "task shared(B(a), B(b)) firstprivate(B(c), B(_d9))"},
  {"#pragma dag task in(a[0:n]) out(b) device(cuda) implements(f) on(0) "
   "priority(1) label(\"x\") if(1) shared(s) firstprivate(t)",
   "task in(B(a)[0:n]) out(B(b)) device(cuda) implements(f) on(0) "
   "priority(1) label(\"x\") if(1) shared(B(s)) firstprivate(B(t))"},
  /* comments and continuations are spaces */
  {"#pragma dag task /* c */ in(a) // tail", "task in(B(a))"},
  {"#/**/pragma/**/dag/**/task/**/in(a)", "task in(B(a))"},
  {"#pragma dag task in(a /* , b */)", "task in(B(a))"},
  {"#pragma dag task in(a /* x */ + b)", "task in(B(a         + b))"},
  {"#pragma dag task in(a[0:/*n*/m])", "task in(B(a)[0:m])"},
  {"#pragma dag task in(a) \\\n  out(b)", "task in(B(a)) out(B(b))"},
  {"#pragma dag task in(a, \\\r\n b)", "task in(B(a), B(b))"},
  {"#pragma dag task in(a) \\  \n  out(b)", "task in(B(a)) out(B(b))"},
  {"#pragma dag task in(a) /* multi\nline */ out(b)",
   "task in(B(a)) out(B(b))"},
  {"#pragma dag task in(a) // c \\\n out(b)", "task in(B(a))"},
  {"#pragma dag task label(\"/* not a comment */\")",
   "task label(\"/* not a comment */\")"},
  {"#pragma dag task in(a)\n", "task in(B(a))"},
  /* non-ASCII identifiers */
  {"#pragma dag task in(\xc3\xa9t\xc3\xa9[0:n])",
   "task in(B(\xc3\xa9t\xc3\xa9)[0:n])"},
};
/* clang-format on */
#define NOK (int)(sizeof ok_cases / sizeof *ok_cases)

START_TEST(test_accepted) {
  const struct ok_case *c = &ok_cases[_i];
  struct parse p;
  parse(&p, c->text);
  ck_assert_msg(p.rc == 0, "%s: rejected:%s", c->text, messages(&p));
  ck_assert_uint_eq(p.diags.n, 0);
  struct out o = {0};
  render(&o, &p.d);
  ck_assert_msg(strcmp(o.text, c->expect) == 0, "%s:\n  got    %s\n  wanted %s",
                c->text, o.text, c->expect);
  check_offsets(&p);
  parse_release(&p);
}
END_TEST

/* ------------------------------------------------------ rejected ones */

/* Each expected error is either "   ^piece": a caret under the column of
 * the directive's first line, then a piece of the message; or
 * "line:col:piece". */
struct bad_case {
  const char *text;
  const char *errors[5];
};

/* clang-format off */
static const struct bad_case bad_cases[] = {
  /* the directive itself */
  {"#pragma dag",
   {"           ^expected 'task' or 'taskwait' after '#pragma dag'"}},
  {"#pragma dag   ",
   {"           ^expected 'task' or 'taskwait' after '#pragma dag'"}},
  {"#pragma dag (x)",
   {"            ^expected 'task' or 'taskwait' after '#pragma dag'"}},
  {"#pragma dag tasks in(a)",
   {"            ^unknown directive 'tasks'; expected 'task' or 'taskwait'"}},
  {"#pragma dag Task",
   {"            ^unknown directive 'Task'"}},
  /* OpenMP's directives: what a port does instead */
  {"#pragma dag parallel",
   {"            ^unknown directive 'parallel'; dag needs no parallel region: remove it, and put a '#pragma dag taskwait' where the region ended"}},
  {"#pragma dag parallel for",
   {"            ^unknown directive 'parallel'; dag has no worksharing: make a task per chunk of the loop"}},
  {"#pragma dag single nowait",
   {"            ^unknown directive 'single'; dag needs no such directive: remove it"}},
  {"#pragma dag master",
   {"            ^unknown directive 'master'; dag needs no such directive: remove it"}},
  {"#pragma dag taskgroup",
   {"            ^unknown directive 'taskgroup'; put a '#pragma dag taskwait' after the group"}},
  {"#pragma dag critical (name)",
   {"            ^unknown directive 'critical'; make the update a task of its own, 'commutative'"}},
  {"#pragma dag atomic",
   {"            ^unknown directive 'atomic'; use a C11 '_Atomic' variable"}},
  {"#pragma dag taskloop grainsize(4)",
   {"            ^unknown directive 'taskloop'; dag has no taskloop"}},
  {"#pragma dag taskyield",
   {"            ^unknown directive 'taskyield'; dag needs no such directive: remove it"}},
  {"#pragma dagger task",
   {"        ^expected 'dag' after '#pragma'"}},
  {"#pragma",
   {"       ^expected 'dag' after '#pragma'"}},
  {"# prgma dag task",
   {"  ^expected 'pragma' after '#'"}},
  {"pragma dag task",
   {"^expected '#pragma dag'"}},
  {"",
   {"^expected '#pragma dag'"}},
  /* clauses */
  {"#pragma dag task foo(x)",
   {"                 ^unknown clause 'foo'"}},
  {"#pragma dag task In(x) out(y)",
   {"                 ^unknown clause 'In'"}},
  {"#pragma dag task in(a) bogus, out(b)",
   {"                       ^unknown clause 'bogus'"}},
  /* OpenMP's clauses: what dag writes instead */
  {"#pragma dag task depend(out: a[0:n])",
   {"                 ^unknown clause 'depend'; write 'depend(out: a[0:n])' as 'out(a[0:n])'"}},
  {"#pragma dag task depend( inout :a, *p )",
   {"                 ^unknown clause 'depend'; write 'depend(inout: a, *p)' as 'inout(a, *p)'"}},
  {"#pragma dag task depend(in: a[0:n], b[0:n], c[0:n], d[0:n], e[0:n])",
   {"                 ^unknown clause 'depend'; write 'depend(in: ...)' as 'in(...)'"}},
  {"#pragma dag task depend(mutexinoutset: s)",
   {"                 ^unknown clause 'depend'; write 'depend(mutexinoutset: s)' as 'commutative(s)'"}},
  {"#pragma dag task depend(inoutset: s)",
   {"                 ^unknown clause 'depend'; dag has no 'inoutset'"}},
  {"#pragma dag task depend(depobj: o)",
   {"                 ^unknown clause 'depend'; dag has no 'depobj'"}},
  {"#pragma dag task depend(iterator(j=0:n), in: a[j])",
   {"                 ^unknown clause 'depend'; dag has no iterators"}},
  {"#pragma dag task depend(a)",
   {"                 ^unknown clause 'depend'; each type of dependence is a clause of its own"}},
  {"#pragma dag task depend",
   {"                 ^unknown clause 'depend'; each type of dependence is a clause of its own"}},
  {"#pragma dag taskwait depend(in: a)",
   {"                     ^unknown clause 'depend'; write 'depend(in: a)' as 'on(a)'"}},
  {"#pragma dag task private(t, u) in(a)",
   {"                 ^unknown clause 'private'; declare 't, u' in the task body: a variable that the body assigns before it reads it is the body's own already"}},
  {"#pragma dag task untied, mergeable",
   {"                 ^unknown clause 'untied'; dag needs no such clause: remove it",
    "                         ^unknown clause 'mergeable'; dag needs no such clause: remove it"}},
  {"#pragma dag task final(n < 8)",
   {"                 ^unknown clause 'final'; write the cutoff in C"}},
  {"#pragma dag task default(none)",
   {"                 ^unknown clause 'default'; dag has no default data sharing"}},
  {"#pragma dag task in_reduction(+: s)",
   {"                 ^unknown clause 'in_reduction'; dag has no task group reductions: write 'reduction(op: item)' on each task"}},
  {"#pragma dag task depend(in: a[0:(n])",
   {"                                  ^expected ')' before ']'",
    "                 ^unknown clause 'depend'"}},
  {"#pragma dag task in a",
   {"                    ^expected '(' after 'in'"}},
  {"#pragma dag task in",
   {"                   ^expected '(' after 'in'"}},
  {"#pragma dag task priority 3, out(b)",
   {"                          ^expected '(' after 'priority'"}},
  {"#pragma dag task in out(b)",
   {"                    ^expected '(' after 'in'"}},
  {"#pragma dag task in(a",
   {"                     ^missing ')' at end of directive"}},
  {"#pragma dag task in(a[0:n) out(b)",
   {"                         ^expected ']' before ')'"}},
  {"#pragma dag task in(a]) out(b)",
   {"                     ^unbalanced ']'"}},
  {"#pragma dag task in(f(a) out(b)",
   {"                               ^missing ')' at end of directive"}},
  {"#pragma dag task in(a)) out(b)",
   {"                      ^unbalanced ')'"}},
  {"#pragma dag task in({a)",
   {"                      ^expected '}' before ')'"}},
  {"#pragma dag task in(a), out(b),",
   {"                              ^expected a clause after ','"}},
  {"#pragma dag task , in(a)",
   {"                 ^unexpected ','; expected a clause"}},
  {"#pragma dag task in(a),, out(b)",
   {"                       ^unexpected ','"}},
  {"#pragma dag task in(a) 42",
   {"                       ^unexpected '42'; expected a clause"}},
  {"#pragma dag task in(a); out(b)",
   {"                      ^unexpected ';'"}},
  {"#pragma dag taskwait noflush (x)",
   {"                             ^clause 'noflush' takes no arguments"}},
  /* lists and items */
  {"#pragma dag task in()",
   {"                    ^empty list in clause 'in'"}},
  {"#pragma dag task out(  )",
   {"                       ^empty list in clause 'out'"}},
  {"#pragma dag taskwait on()",
   {"                        ^empty list in clause 'on'"}},
  {"#pragma dag task in(a,,b)",
   {"                      ^empty item in clause 'in'"}},
  {"#pragma dag task inout(a, )",
   {"                          ^empty item in clause 'inout'"}},
  {"#pragma dag task commutative(,a)",
   {"                             ^empty item in clause 'commutative'"}},
  {"#pragma dag task in(a[])",
   {"                      ^empty subscript"}},
  {"#pragma dag task in(a[0:2][])",
   {"                           ^empty subscript"}},
  {"#pragma dag task in([0:2])",
   {"                    ^expected an expression before '['"}},
  {"#pragma dag task in(a[lo:])",
   {"                         ^missing length in array section; the length is required"}},
  {"#pragma dag task in(a[:])",
   {"                       ^missing length in array section"}},
  {"#pragma dag task in(a[0:n][1: ])",
   {"                              ^missing length"}},
  {"#pragma dag task in(a[0:n:2])",
   {"                         ^stride in array section is not supported"}},
  {"#pragma dag task in(a[0:-3])",
   {"                        ^negative length '-3' in array section"}},
  {"#pragma dag task in(a[0: - 0x10u])",
   {"                         ^negative length '- 0x10u'"}},
  {"#pragma dag task in(a[0:1][0:2][0:3][0:4][0:5])",
   {"                                         ^array section with more than 4 dimensions"}},
  {"#pragma dag task in(a[i][0:1][0:2][0:3][0:4][j])",
   {"                                            ^array section with more than 4 dimensions"}},
  {"#pragma dag task in(a[0:2].f)",
   {"                     ^array section must be the last part of an item"}},
  {"#pragma dag task in(([])p)",
   {"                      ^empty dimension in array shaping"}},
  {"#pragma dag task in(([m][ ])p)",
   {"                          ^empty dimension in array shaping"}},
  {"#pragma dag task in(([m] n)p)",
   {"                         ^expected '[' in array shaping, found 'n'"}},
  {"#pragma dag task in(([m][n]))",
   {"                            ^expected an expression after array shaping"}},
  {"#pragma dag task in(([0:n])p)",
   {"                       ^unexpected ':' in array shaping"}},
  {"#pragma dag task in(([1][2][3][4][5])p)",
   {"                                 ^array shaping with more than 4 dimensions"}},
  /* clause arguments */
  {"#pragma dag task priority()",
   {"                          ^empty expression in clause 'priority'"}},
  {"#pragma dag task if( )",
   {"                     ^empty expression in clause 'if'"}},
  {"#pragma dag task on()",
   {"                    ^empty expression in clause 'on'"}},
  {"#pragma dag task device(fpga)",
   {"                        ^unknown device 'fpga'; expected 'cpu', 'cuda' or 'hip'"}},
  {"#pragma dag task device(CUDA)",
   {"                        ^unknown device 'CUDA'"}},
  {"#pragma dag task device(cuda hip)",
   {"                        ^unknown device 'cuda hip'"}},
  {"#pragma dag task device()",
   {"                        ^missing device in clause 'device'"}},
  {"#pragma dag task implements()",
   {"                            ^expected an identifier in clause 'implements'"}},
  {"#pragma dag task implements(*f)",
   {"                            ^expected an identifier in clause 'implements', found '*f'"}},
  {"#pragma dag task implements(1f)",
   {"                            ^expected an identifier in clause 'implements'"}},
  {"#pragma dag task shared(a, *p)",
   {"                           ^expected an identifier in clause 'shared', found '*p'"}},
  {"#pragma dag task firstprivate(a[0:2])",
   {"                              ^expected an identifier in clause 'firstprivate'"}},
  {"#pragma dag task label(name)",
   {"                       ^expected a string literal in clause 'label'"}},
  {"#pragma dag task label()",
   {"                       ^expected a string literal in clause 'label'"}},
  {"#pragma dag task label(\"a\" x)",
   {"                           ^expected a string literal in clause 'label'"}},
  {"#pragma dag task label(L\"a\")",
   {"                       ^expected a string literal in clause 'label'"}},
  {"#pragma dag task label(\"abc)",
   {"                       ^missing terminating \" character"}},
  {"#pragma dag task in(a['x)])",
   {"                      ^missing terminating ' character"}},
  /* duplicates and the wrong directive */
  {"#pragma dag task device(cpu) device(cuda)",
   {"                             ^duplicate clause 'device'"}},
  {"#pragma dag task implements(f) implements(g)",
   {"                               ^duplicate clause 'implements'"}},
  {"#pragma dag task on(0), on(1)",
   {"                        ^duplicate clause 'on'"}},
  {"#pragma dag task priority(0) priority(1)",
   {"                             ^duplicate clause 'priority'"}},
  {"#pragma dag task label(\"a\") label(\"b\")",
   {"                            ^duplicate clause 'label'"}},
  {"#pragma dag task work(1) work(2)",
   {"                         ^duplicate clause 'work'"}},
  {"#pragma dag taskwait work(1)",
   {"                     ^clause 'work' is not allowed on 'taskwait'"}},
  {"#pragma dag task on(a, b)",
   {"                     ^unexpected ',' in clause 'on'; expected one expression"}},
  {"#pragma dag task priority(1,)",
   {"                           ^unexpected ',' in clause 'priority'"}},
  {"#pragma dag task if(0) if(1)",
   {"                       ^duplicate clause 'if'"}},
  {"#pragma dag taskwait noflush noflush",
   {"                             ^duplicate clause 'noflush'"}},
  {"#pragma dag taskwait on(a) on(b)",
   {"                           ^duplicate clause 'on'"}},
  {"#pragma dag taskwait in(a)",
   {"                     ^clause 'in' is not allowed on 'taskwait'"}},
  {"#pragma dag taskwait device(cuda), label(\"x\")",
   {"                     ^clause 'device' is not allowed on 'taskwait'",
    "                                   ^clause 'label' is not allowed on 'taskwait'"}},
  {"#pragma dag task noflush",
   {"                 ^clause 'noflush' is not allowed on 'task'"}},
  /* block modifiers */
  {"#pragma dag task in(lower(upper(A)))",
   {"                          ^'upper' inside 'lower'"}},
  {"#pragma dag task reduction(+: diagonal(A))",
   {"                              ^'diagonal' in clause 'reduction'"}},
  {"#pragma dag task firstprivate(upper(x))",
   {"                              ^'upper' in clause 'firstprivate'"}},
  {"#pragma dag task in(lower(A)[0:n], upper())",
   {"                            ^unexpected '[' after 'lower(...)'",
    "                                         ^empty item in 'upper(...)'"}},
  {"#pragma dag task in(lowr(A[0:n][0:n]))",
   {"                    ^unknown block modifier 'lowr'; expected 'lower', 'upper', 'unit_lower', 'unit_upper' or 'diagonal'"}},
  /* what is not text */
  {"#pragma dag task in(a) /* open",
   {"                       ^unterminated comment"}},
  {"#pragma dag task in(a\n) out(b)",
   {"                     ^newline inside the directive"}},
  {"#pragma dag task \\\n  in(a, /* x */ ) out(b[1:])",
   {"4:17:empty item in clause 'in'",
    "4:27:missing length in array section"}},
};
/* clang-format on */
#define NBAD (int)(sizeof bad_cases / sizeof *bad_cases)

/* Where an expectation points, and the piece of message it wants. */
static const char *expected_at(const char *e, unsigned *line, unsigned *col) {
  const char *caret = strchr(e, '^');
  int n = 0;
  if (e[0] != ' ' && e[0] != '^' && sscanf(e, "%u:%u:%n", line, col, &n) == 2 &&
      n > 0)
    return e + n;
  ck_assert_ptr_nonnull(caret);
  *line = PRAGMA_LINE;
  *col = (unsigned)(caret - e) + 1;
  return caret + 1;
}

START_TEST(test_rejected) {
  const struct bad_case *c = &bad_cases[_i];
  struct parse p;
  parse(&p, c->text);
  ck_assert_msg(p.rc == -1, "%s: accepted", c->text);
  ck_assert_msg(p.d.nclauses == 0 && p.d.clauses == NULL,
                "%s: the directive is not emptied", c->text);
  size_t want = 0;
  while (want < 5 && c->errors[want])
    want++;
  ck_assert_msg(p.diags.n == want && p.diags.errors == want,
                "%s: %zu errors, wanted %zu:%s", c->text, p.diags.n, want,
                messages(&p));
  for (size_t i = 0; i < want; i++) {
    unsigned line, col, wline, wcol;
    const char *piece = expected_at(c->errors[i], &wline, &wcol);
    const struct diag *g = &p.diags.v[i];
    source_position(&p.src, g->offset, &line, &col);
    ck_assert_int_eq(g->level, DIAG_ERROR);
    ck_assert_msg(strstr(g->message, piece) && line == wline && col == wcol,
                  "%s:\n  got    %u:%u: %s\n  wanted %u:%u: ...%s...", c->text,
                  line, col, g->message, wline, wcol, piece);
  }
  parse_release(&p);
}
END_TEST

/* ------------------------------------------------------ the rest */

/* Offsets across continuation lines and comments point into the file. */
START_TEST(test_continued_offsets) {
  struct parse p;
  parse(&p, "#pragma dag task in(a) \\\n"
            "    out(b[0:/* n */m], \\\n"
            "        ([2][k])q[1:1])");
  ck_assert_msg(p.rc == 0, "rejected:%s", messages(&p));
  ck_assert_uint_eq(p.d.nclauses, 2);
  const struct clause *out = &p.d.clauses[1];
  unsigned line, col;
  source_position(&p.src, out->at.begin, &line, &col);
  ck_assert_uint_eq(line, 4);
  ck_assert_uint_eq(col, 5);
  ck_assert_uint_eq(out->nitems, 2);
  const struct item *b = &out->items[0], *q = &out->items[1];
  ck_assert_str_eq(b->subs[0].len.text, "m");
  source_position(&p.src, b->subs[0].len.at.begin, &line, &col);
  ck_assert_uint_eq(line, 4);
  ck_assert_uint_eq(col, 20);
  source_position(&p.src, q->at.begin, &line, &col);
  ck_assert_uint_eq(line, 5);
  ck_assert_uint_eq(col, 9);
  ck_assert_str_eq(q->shape[1].text, "k");
  source_position(&p.src, q->shape[1].at.begin, &line, &col);
  ck_assert_uint_eq(col, 14);
  source_position(&p.src, q->subs[0].at.end, &line, &col);
  ck_assert_uint_eq(col, 23); /* just past ']' */
  check_offsets(&p);
  parse_release(&p);
}
END_TEST

/* The offsets of an item's parts, exactly. */
START_TEST(test_item_spans) {
  struct parse p;
  /*          0         1         2         3         4
   *          0123456789012345678901234567890123456789012345 */
  parse(&p, "#pragma dag task in( ([m][n])p[i][ : 2][j] )");
  ck_assert_msg(p.rc == 0, "rejected:%s", messages(&p));
  const struct item *it = &p.d.clauses[0].items[0];
  unsigned b = p.begin;
  ck_assert_uint_eq(it->at.begin - b, 21);
  ck_assert_uint_eq(it->at.end - b, 42);
  ck_assert_uint_eq(it->shape[0].at.begin - b, 23);
  ck_assert_uint_eq(it->shape[1].at.begin - b, 26);
  ck_assert_str_eq(it->base.text, "p[i]");
  ck_assert_uint_eq(it->base.at.begin - b, 29);
  ck_assert_uint_eq(it->base.at.end - b, 33);
  ck_assert_uint_eq(it->nsubs, 2);
  ck_assert(it->subs[0].is_section);
  ck_assert_uint_eq(it->subs[0].at.begin - b, 33);
  ck_assert_uint_eq(it->subs[0].at.end - b, 39);
  ck_assert_ptr_null(it->subs[0].lo.text);
  ck_assert_uint_eq(it->subs[0].len.at.begin - b, 37);
  ck_assert(!it->subs[1].is_section);
  ck_assert_str_eq(it->subs[1].lo.text, "j");
  ck_assert_ptr_null(it->subs[1].len.text);
  ck_assert_uint_eq(p.d.clauses[0].at.begin - b, 17);
  ck_assert_uint_eq(p.d.clauses[0].at.end - b, 44);
  parse_release(&p);
}
END_TEST

/* Every error of a directive is reported, each where it belongs, and the
 * parser goes on at the next clause after each. */
START_TEST(test_all_errors) {
  struct parse p;
  parse(&p, "#pragma dag task foo(x) in(a,,b) out() inout(a[1:]) "
            "device(fpga) device(cpu) label(x) shared(*p) noflush "
            "commutative(c[0:-3]) priority() \\\n"
            "  if(1) if(2) bar");
  ck_assert_int_eq(p.rc, -1);
  static const char *const want[] = {
      "unknown clause 'foo'",
      "empty item in clause 'in'",
      "empty list in clause 'out'",
      "missing length in array section",
      "unknown device 'fpga'",
      "duplicate clause 'device'",
      "expected a string literal in clause 'label'",
      "expected an identifier in clause 'shared'",
      "clause 'noflush' is not allowed on 'task'",
      "negative length '-3'",
      "empty expression in clause 'priority'",
      "duplicate clause 'if'",
      "unknown clause 'bar'",
  };
  size_t n = sizeof want / sizeof *want;
  ck_assert_msg(p.diags.n == n, "%zu errors:%s", p.diags.n, messages(&p));
  unsigned last = 0;
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(strstr(p.diags.v[i].message, want[i]), "#%zu: %s", i,
                  p.diags.v[i].message);
    ck_assert_uint_ge(p.diags.v[i].offset, last); /* in source order */
    last = p.diags.v[i].offset;
  }
  unsigned line, col;
  source_position(&p.src, p.diags.v[n - 1].offset, &line, &col);
  ck_assert_uint_eq(line, PRAGMA_LINE + 1);
  ck_assert_uint_eq(col, 15);
  parse_release(&p);
}
END_TEST

/* The parser stops at `end`, whatever follows in the file. */
START_TEST(test_byte_range) {
  struct source src;
  const char *text = "#pragma dag task in(a) out(b[0:n]) ";
  source_init_text(&src, "t.c", text, strlen(text));
  struct diags diags = {0};
  struct directive d;
  unsigned end = (unsigned)(strstr(text, " out") - text);
  ck_assert_int_eq(pragma_parse(&src, 0, end, &d, &diags), 0);
  ck_assert_uint_eq(d.nclauses, 1);
  ck_assert_uint_eq(d.at.end, end);
  directive_release(&d);
  /* a cut inside a clause is a missing ')' at the cut */
  end = (unsigned)(strstr(text, "[0:n]") - text);
  ck_assert_int_eq(pragma_parse(&src, 0, end, &d, &diags), -1);
  ck_assert_uint_eq(diags.n, 1);
  ck_assert_uint_eq(diags.v[0].offset, end);
  /* a range past the file is cut to the file */
  ck_assert_int_eq(pragma_parse(&src, 0, 1000, &d, &diags), 0);
  ck_assert_uint_eq(d.at.end, src.len);
  directive_release(&d);
  directive_release(&d); /* releasing twice is harmless */
  diags_release(&diags);
  source_release(&src);
}
END_TEST

/* NUL and other bytes are errors, never an end of text. */
START_TEST(test_odd_bytes) {
  struct parse p;
  static const char nul[] = "#pragma dag task in(a\0b) out(c)";
  parse_n(&p, nul, sizeof nul - 1);
  ck_assert_int_eq(p.rc, -1);
  ck_assert_uint_ge(p.diags.n, 1);
  ck_assert_ptr_nonnull(strstr(p.diags.v[0].message, "null character"));
  ck_assert_uint_eq(p.diags.v[0].offset - p.begin, 21);
  parse_release(&p);

  parse(&p, "#pragma dag task \x01\xff(x) in(a)");
  ck_assert_int_eq(p.rc, -1);
  ck_assert_uint_eq(p.diags.n, 2); /* junk, then a name in UTF-8 */
  ck_assert_str_eq(p.diags.v[0].message,
                   "unexpected '\\x01'; expected a clause");
  ck_assert_str_eq(p.diags.v[1].message, "unknown clause '\\xff'");
  parse_release(&p);

  parse(&p, "#pragma dag task \xc3\xa9(x)");
  ck_assert_int_eq(p.rc, -1);
  ck_assert_str_eq(p.diags.v[0].message, "unknown clause '\\xc3\\xa9'");
  parse_release(&p);
}
END_TEST

/* A long name is cut in messages. */
START_TEST(test_long_name) {
  char text[600];
  strcpy(text, "#pragma dag task ");
  memset(text + strlen(text), 'x', 500);
  text[17 + 500] = '\0';
  struct parse p;
  parse(&p, text);
  ck_assert_int_eq(p.rc, -1);
  ck_assert_uint_eq(p.diags.n, 1);
  ck_assert_uint_lt(strlen(p.diags.v[0].message), 100);
  ck_assert_ptr_nonnull(strstr(p.diags.v[0].message, "...'"));
  parse_release(&p);
}
END_TEST

/* Deep nesting is fine. */
START_TEST(test_deep_nesting) {
  enum { DEPTH = 2000 };
  char *text = malloc(64 + 2 * DEPTH);
  ck_assert_ptr_nonnull(text);
  char *w = text + sprintf(text, "#pragma dag task in(a[");
  for (int i = 0; i < DEPTH; i++)
    *w++ = '(';
  *w++ = '0';
  for (int i = 0; i < DEPTH; i++)
    *w++ = ')';
  strcpy(w, ":1])");
  struct parse p;
  parse(&p, text);
  ck_assert_msg(p.rc == 0, "rejected:%s", messages(&p));
  ck_assert_uint_eq(p.d.clauses[0].items[0].nsubs, 1);
  parse_release(&p);
  free(text);
}
END_TEST

START_TEST(test_names) {
  static const char *const names[] = {
      "in",     "out",        "inout",  "commutative",  "reduction",
      "device", "implements", "on",     "priority",     "label",
      "if",     "work",       "shared", "firstprivate", "noflush"};
  for (int k = CLAUSE_IN; k <= CLAUSE_NOFLUSH; k++) {
    ck_assert_str_eq(clause_name((enum clause_kind)k), names[k]);
    ck_assert(clause_is_dependency((enum clause_kind)k) ==
              (k == CLAUSE_IN || k == CLAUSE_OUT || k == CLAUSE_INOUT ||
               k == CLAUSE_COMMUTATIVE || k == CLAUSE_REDUCTION));
  }
  ck_assert_str_eq(clause_name((enum clause_kind)99), "?");
}
END_TEST

/* The printed form, as a compiler prints it. */
START_TEST(test_printed) {
  struct parse p;
  parse(&p, "#pragma dag task device(fpga)");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  diags_print(&p.diags, f);
  fclose(f);
  ck_assert_str_eq(buf, "t.c:3:25: error: unknown device 'fpga'; expected "
                        "'cpu', 'cuda' or 'hip'\n"
                        "#pragma dag task device(fpga)\n"
                        "                        ^\n");
  free(buf);
  parse_release(&p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pragma");
  TCase *tc = tcase_create("pragma");
  tcase_add_loop_test(tc, test_accepted, 0, NOK);
  tcase_add_loop_test(tc, test_rejected, 0, NBAD);
  tcase_add_test(tc, test_continued_offsets);
  tcase_add_test(tc, test_item_spans);
  tcase_add_test(tc, test_all_errors);
  tcase_add_test(tc, test_byte_range);
  tcase_add_test(tc, test_odd_bytes);
  tcase_add_test(tc, test_long_name);
  tcase_add_test(tc, test_deep_nesting);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_printed);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
