/* fuzz_pragma.c: the pragma parser (tool/pragma.c) on arbitrary bytes.
 *
 * Built with -fsanitize=fuzzer (DAG_LIBFUZZER defined) it is a libFuzzer
 * target; built without, its main() replays every file of the directories
 * and files named on the command line, so the corpus is a regression test
 * in every build, sanitized ones included.
 *
 * Each input is parsed as one whole directive, and, when it does not start
 * with '#', once more after a `#pragma dag ` prefix so that short inputs
 * reach the clause parser. Beyond the sanitizers' checks, the result must
 * keep the promises of pragma.h: -1 exactly when errors were reported, an
 * empty directive then, every offset inside the directive, and expression
 * texts trimmed, their length that of their span. */
#include "pragma.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__,       \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

static void check_span(struct span at, unsigned begin, unsigned end) {
  CHECK(begin <= at.begin && at.begin <= at.end && at.end <= end);
}

static void check_expr(const struct expr *e, unsigned begin, unsigned end,
                       const char *text, bool required) {
  CHECK(e->text || !required);
  if (!e->text)
    return;
  check_span(e->at, begin, end);
  size_t len = strlen(e->text);
  CHECK(len > 0 && len == e->at.end - e->at.begin);
  CHECK(e->text[0] != ' ' && e->text[len - 1] != ' ');
  CHECK(!strchr(e->text, '\n'));
  for (size_t i = 0; i < len; i++) /* what the file says, or a blank */
    CHECK(e->text[i] == text[e->at.begin + i] || e->text[i] == ' ');
}

static void check_item(const struct item *it, unsigned begin, unsigned end,
                       const char *text) {
  check_span(it->at, begin, end);
  CHECK(it->nshape <= 4 && it->nsubs <= 4);
  for (unsigned i = 0; i < it->nshape; i++)
    check_expr(&it->shape[i], it->at.begin, it->at.end, text, true);
  check_expr(&it->base, it->at.begin, it->at.end, text, true);
  for (unsigned i = 0; i < it->nsubs; i++) {
    const struct subscript *s = &it->subs[i];
    check_span(s->at, it->at.begin, it->at.end);
    check_expr(&s->lo, s->at.begin, s->at.end, text, !s->is_section);
    check_expr(&s->len, s->at.begin, s->at.end, text, s->is_section);
    CHECK(s->is_section || !s->len.text);
  }
}

static void check_directive(const struct directive *d, unsigned begin,
                            unsigned end, const char *text) {
  check_span(d->at, begin, end);
  CHECK(d->kind == DIRECTIVE_TASK || d->kind == DIRECTIVE_TASKWAIT);
  for (unsigned i = 0; i < d->nclauses; i++) {
    const struct clause *c = &d->clauses[i];
    check_span(c->at, begin, end);
    CHECK(strcmp(clause_name(c->kind), "?") != 0);
    CHECK(d->kind == DIRECTIVE_TASK || c->kind == CLAUSE_ON ||
          c->kind == CLAUSE_NOFLUSH);
    for (unsigned j = 0; j < c->nitems; j++)
      check_item(&c->items[j], c->at.begin, c->at.end, text);
    check_expr(&c->arg, c->at.begin, c->at.end, text, false);
  }
}

static FILE *sink(void) {
  static FILE *null;
  if (!null)
    null = fopen("/dev/null", "w");
  return null;
}

/* Parses `prefix` + data as one directive that sits between two lines of
 * other text, so that the directive starts at a nonzero offset. */
static void parse_one(const char *prefix, const uint8_t *data, size_t size) {
  static const char before[] = "int x;\n", after[] = "\nint y;\n";
  size_t plen = strlen(prefix), len = strlen(before) + plen + size;
  char *text = malloc(len + strlen(after));
  if (!text)
    return;
  memcpy(text, before, strlen(before));
  memcpy(text + strlen(before), prefix, plen);
  memcpy(text + strlen(before) + plen, data, size);
  memcpy(text + len, after, strlen(after));

  struct source src;
  source_init_text(&src, "fuzz.c", text, len + strlen(after));
  free(text);
  unsigned begin = (unsigned)strlen(before), end = (unsigned)len;
  struct diags diags = {0};
  struct directive d;
  int rc = pragma_parse(&src, begin, end, &d, &diags);
  CHECK(rc == 0 || rc == -1);
  CHECK((rc == -1) == (diags.errors > 0));
  for (size_t i = 0; i < diags.n; i++)
    CHECK(begin <= diags.v[i].offset && diags.v[i].offset <= end);
  if (rc == 0)
    check_directive(&d, begin, end, src.text);
  else
    CHECK(d.nclauses == 0 && !d.clauses);
  if (sink())
    diags_print(&diags, sink());
  directive_release(&d);
  diags_release(&diags);
  source_release(&src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16)
    return 0;
  parse_one("", data, size);
  if (size == 0 || data[0] != '#')
    parse_one("#pragma dag ", data, size);
  return 0;
}

#ifndef DAG_LIBFUZZER
#include <dirent.h>

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 1 << 12, len = 0, got;
  uint8_t *buf = malloc(cap);
  while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0)
    if ((len += got) == cap)
      buf = realloc(buf, cap *= 2);
  fclose(f);
  if (!buf)
    return 1;
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

/* Replays a file, or every file of a directory (not recursively). */
static int replay(const char *path, unsigned *count) {
  DIR *dir = opendir(path);
  if (!dir) {
    (*count)++;
    return replay_file(path);
  }
  int failed = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *file = malloc(n);
    if (!file)
      return 1;
    snprintf(file, n, "%s/%s", path, e->d_name);
    (*count)++;
    failed |= replay_file(file);
    free(file);
  }
  closedir(dir);
  return failed;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s corpus-dir-or-file...\n", argv[0]);
    return 2;
  }
  unsigned count = 0;
  int failed = 0;
  for (int i = 1; i < argc; i++)
    failed |= replay(argv[i], &count);
  printf("fuzz_pragma: %u inputs replayed\n", count);
  return failed || count == 0;
}
#endif
