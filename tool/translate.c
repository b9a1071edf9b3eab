/* translate.c: the rewriter's pipeline for one C file (see translate.h):
 * scan the file and the headers it includes with quotes, parse their
 * directives, build the probe texts, analyse with libclang, emit the edits
 * and render the rewritten file. */
#include "translate.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"

/* Real paths of the files scanned. */
struct path_set {
  char **v;
  unsigned n;
};

struct unit {
  struct sema sema;
  unsigned cap;
  struct path_set seen;
  struct diags pending; /* errors of directives, kept until we know which
                           directives are active */
};

static bool seen_before(struct path_set *seen, const char *path) {
  char real[PATH_MAX];
  if (!realpath(path, real))
    return true; /* libclang will say it is missing */
  for (unsigned i = 0; i < seen->n; i++)
    if (strcmp(seen->v[i], real) == 0)
      return true;
  seen->v = xrealloc(seen->v, (seen->n + 1) * sizeof *seen->v);
  seen->v[seen->n++] = xstrdup(real);
  return false;
}

static void path_set_release(struct path_set *seen) {
  for (unsigned i = 0; i < seen->n; i++)
    free(seen->v[i]);
  free(seen->v);
}

/* The directory that argument i names for includes, and how many
 * arguments that took beyond i: -iquote for "name" only, -I for both. */
static const char *include_dir(const struct translate_options *opt, int i,
                               bool angled, int *skip) {
  const char *a = opt->clang_args[i];
  *skip = 0;
  const char *flags[] = {"-I", "-iquote"};
  for (int f = 0; f < (angled ? 1 : 2); f++) {
    size_t n = strlen(flags[f]);
    if (strncmp(a, flags[f], n) != 0)
      continue;
    if (a[n])
      return a + n;
    if (i + 1 < opt->nclang_args) {
      *skip = 1;
      return opt->clang_args[i + 1];
    }
  }
  return NULL;
}

/* Where the compiler finds an included header among the user's folders:
 * "name" next to the including file first, then -iquote and -I; <name>
 * in -I only. System headers hold no pragmas and are not searched. */
static char *resolve_include(const char *from, const char *name, bool angled,
                             const struct translate_options *opt) {
  if (!angled) {
    char *copy = xstrdup(from);
    char *path = xasprintf("%s/%s", dirname(copy), name);
    free(copy);
    if (access(path, R_OK) == 0)
      return path;
    free(path);
  }
  for (int i = 0; i < opt->nclang_args; i++) {
    int skip;
    const char *dir = include_dir(opt, i, angled, &skip);
    i += skip;
    if (!dir)
      continue;
    char *path = xasprintf("%s/%s", dir, name);
    if (access(path, R_OK) == 0)
      return path;
    free(path);
  }
  return NULL;
}

static void add_file(struct unit *u, struct source *src,
                     struct scan_result *scan) {
  struct sema *s = &u->sema;
  if (s->nfiles == u->cap) {
    u->cap = u->cap ? 2 * u->cap : 4;
    s->files = xrealloc(s->files, u->cap * sizeof *s->files);
  }
  struct unit_file *f = &s->files[s->nfiles++];
  memset(f, 0, sizeof *f);
  f->src = *src;
  f->scan = *scan;
}

/* Scans `src` and the user's headers it includes, recursively; files with
 * directives (and the main file) become unit files. */
static void gather(struct unit *u, struct source *src, bool main_file,
                   const struct translate_options *opt, unsigned depth) {
  struct scan_result scan;
  scan_source(src, &scan);
  /* The includes are read before `src` moves into the unit. */
  unsigned n = scan.nincludes;
  char **names = xcalloc(n ? n : 1, sizeof *names);
  bool *angled = xcalloc(n ? n : 1, sizeof *angled);
  for (unsigned i = 0; i < n; i++) {
    struct span at = scan.includes[i].name;
    names[i] = xstrndup(src->text + at.begin, at.end - at.begin);
    angled[i] = scan.includes[i].angled;
  }
  char *path = xstrdup(src->path);
  if (main_file || scan.ndirectives) {
    add_file(u, src, &scan);
  } else {
    scan_release(&scan);
    source_release(src);
  }
  for (unsigned i = 0; i < n; i++) {
    char *header =
        depth < 64 ? resolve_include(path, names[i], angled[i], opt) : NULL;
    struct source h;
    if (header && !seen_before(&u->seen, header) &&
        source_load(&h, header) == 0)
      gather(u, &h, false, opt, depth + 1);
    free(header);
    free(names[i]);
  }
  free(names);
  free(angled);
  free(path);
}

static unsigned total_directives(const struct unit *u) {
  unsigned n = 0;
  for (unsigned i = 0; i < u->sema.nfiles; i++)
    n += u->sema.files[i].scan.ndirectives;
  return n;
}

/* A directive inside a function must stand where a statement can, and a
 * task directive needs a statement after it: what breaks these simple
 * rules is reported here, in words, rather than by libclang on the probe
 * code. Returns false when so. */
static bool statement_follows(struct unit *u, const struct unit_file *f,
                              unsigned k) {
  static const char *const declaration_words[] = {
      "int",     "char",     "short",    "long",     "float",  "double",
      "signed",  "unsigned", "void",     "_Bool",    "struct", "union",
      "enum",    "const",    "volatile", "static",   "extern", "register",
      "typedef", "auto",     "_Atomic",  "_Alignas", "inline", "_Thread_local"};
  struct span tok;
  const struct scan_directive *sd = &f->scan.directives[k];
  if (!sd->file_scope && sd->before &&
      strchr(",([=?+-*/%&|^<>!~.", sd->before)) {
    diag_error(&u->pending, &f->src, f->dirs[k].at.begin,
               "'#pragma dag %s' is inside an expression or an initializer: "
               "it must stand where a statement can",
               f->dirs[k].kind == DIRECTIVE_TASK ? "task" : "taskwait");
    return false;
  }
  if (f->dirs[k].kind != DIRECTIVE_TASK || sd->file_scope)
    return true;
  bool any = scan_next_token(&f->src, f->scan.directives[k].at.end, &tok);
  const char *text = f->src.text + tok.begin;
  size_t len = tok.end - tok.begin;
  if (!any || (len == 1 && *text == '}')) {
    diag_error(&u->pending, &f->src, f->dirs[k].at.begin,
               "'#pragma dag task' must be followed by a statement");
    return false;
  }
  for (size_t i = 0; i < sizeof declaration_words / sizeof *declaration_words;
       i++)
    if (strlen(declaration_words[i]) == len &&
        memcmp(text, declaration_words[i], len) == 0) {
      diag_error(&u->pending, &f->src, tok.begin,
                 "'#pragma dag task' must be followed by a statement, not by "
                 "a declaration");
      return false;
    }
  return true;
}

static void parse_directives(struct unit *u) {
  for (unsigned i = 0; i < u->sema.nfiles; i++) {
    struct unit_file *f = &u->sema.files[i];
    unsigned n = f->scan.ndirectives;
    f->dirs = xcalloc(n ? n : 1, sizeof *f->dirs);
    f->ok = xcalloc(n ? n : 1, sizeof *f->ok);
    f->active = xcalloc(n ? n : 1, sizeof *f->active);
    for (unsigned k = 0; k < n; k++) {
      f->ok[k] = pragma_parse(&f->src, f->scan.directives[k].at.begin,
                              f->scan.directives[k].at.end, &f->dirs[k],
                              &u->pending) == 0;
      if (f->ok[k] && !statement_follows(u, f, k)) {
        directive_release(&f->dirs[k]);
        f->ok[k] = false;
      }
    }
    f->clean = scan_clean_directives(&f->src, &f->scan);
    probe_build(&f->src, f->clean, &f->scan, f->dirs, f->ok, i, &f->probe);
  }
}

/* The errors of directives that the preprocessor keeps. */
static void keep_active_errors(struct unit *u, struct diags *d) {
  for (size_t i = 0; i < u->pending.n; i++) {
    struct diag *g = &u->pending.v[i];
    bool active = true;
    for (unsigned fi = 0; fi < u->sema.nfiles; fi++) {
      const struct unit_file *f = &u->sema.files[fi];
      for (unsigned k = 0; k < f->scan.ndirectives && g->src == &f->src; k++)
        if (g->offset >= f->scan.directives[k].at.begin &&
            g->offset <= f->scan.directives[k].at.end)
          active = f->active[k];
    }
    if (active)
      diags_add(d, g->level, g->src, g->offset, g->flag, "%s", g->message);
  }
}

static void release_unit(struct unit *u) {
  for (unsigned i = 0; i < u->sema.nfiles; i++) {
    struct unit_file *f = &u->sema.files[i];
    for (unsigned k = 0; k < f->scan.ndirectives; k++)
      if (f->ok[k])
        directive_release(&f->dirs[k]);
    free(f->dirs);
    free(f->ok);
    free(f->active);
    free(f->clean);
    probe_release(&f->probe);
    scan_release(&f->scan);
    source_release(&f->src);
  }
  sema_release(&u->sema);
  free(u->sema.files);
  path_set_release(&u->seen);
  diags_release(&u->pending);
}

bool translate_args_set_dag_macro(const char *const *args, int nargs) {
  size_t len = strlen(DAG_MACRO);
  for (int i = 0; i < nargs; i++) {
    const char *a = args[i];
    if (strcmp(a, "-D") == 0 || strcmp(a, "-U") == 0)
      a = i + 1 < nargs ? args[++i] : "";
    else if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-U", 2) == 0)
      a += 2;
    else
      continue;
    if (strncmp(a, DAG_MACRO, len) == 0 && (a[len] == '\0' || a[len] == '='))
      return true;
  }
  return false;
}

bool translate_args_openmp(const char *const *args, int nargs) {
  bool on = false;
  for (int i = 0; i < nargs; i++)
    if (strcmp(args[i], "-fopenmp") == 0 ||
        strncmp(args[i], "-fopenmp=", 9) == 0)
      on = true;
    else if (strcmp(args[i], "-fno-openmp") == 0)
      on = false;
  return on;
}

/* The flags of the parse: the user's, with _DAG defined first and <dag.h>
 * included last, as in the compile of the rewritten file. */
static const char **clang_parse_flags(const struct translate_options *opt,
                                      int *nargs) {
  const char **args = xcalloc((size_t)opt->nclang_args + 3, sizeof *args);
  int n = 0;
  if (!translate_args_set_dag_macro(opt->clang_args, opt->nclang_args))
    args[n++] = "-D" DAG_MACRO "=" DAG_MACRO_VALUE;
  for (int i = 0; i < opt->nclang_args; i++)
    args[n++] = opt->clang_args[i];
  args[n++] = "-include";
  args[n++] = "dag.h";
  *nargs = n;
  return args;
}

static void write_output(const struct sema *s, FILE *out) {
  struct edits e = {.src = &s->files[0].src};
  emit_edits(s, &e);
  struct buf text = {0};
  buf_puts(&text, "#include <dag.h>\n#line 1 ");
  buf_c_string(&text, s->files[0].src.path);
  buf_puts(&text, "\n");
  rewrite_render(&e, &text);
  fwrite(text.s, 1, text.len, out);
  buf_release(&text);
  edits_release(&e);
}

/* The main file and the headers it includes with quotes, recursively, for
 * the OpenMP they use: those are the program's own; a header found in -I
 * through <name> may be a library's, whose OpenMP the program may not use. */
struct quoted_files {
  struct source *v;
  unsigned n;
  struct path_set seen;
};

static void load_quoted(struct quoted_files *q, struct source *src,
                        const struct translate_options *opt, unsigned depth) {
  unsigned me = q->n;
  q->v = xrealloc(q->v, (q->n + 1) * sizeof *q->v);
  q->v[q->n++] = *src;
  struct scan_result scan;
  scan_source(&q->v[me], &scan);
  char *path = xstrdup(q->v[me].path);
  for (unsigned i = 0; i < scan.nincludes && depth < 64; i++) {
    if (scan.includes[i].angled)
      continue;
    struct span name = scan.includes[i].name;
    /* q->v moves as headers are added. */
    char *text = xstrndup(q->v[me].text + name.begin, name.end - name.begin);
    char *header = resolve_include(path, text, false, opt);
    struct source h;
    if (header && !seen_before(&q->seen, header) &&
        source_load(&h, header) == 0)
      load_quoted(q, &h, opt, depth + 1);
    free(header);
    free(text);
  }
  free(path);
  scan_release(&scan);
}

/* -Wdag-openmp for a file with no dag pragma: it is compiled as it is, and
 * without -fopenmp the OpenMP pragmas it asks for, directly or through
 * macros that vanish without _OPENMP, do nothing: a program ported to
 * dagcc by changing CC alone would run serially without a word. Said once,
 * at the first such pragma, in the file or else in a header it includes
 * with quotes; not when the file names _DAG (it is written for dagcc
 * already). Returns false when -Werror makes it an error. */
static bool warn_openmp_without_dag(const char *path,
                                    const struct translate_options *opt) {
  if (translate_args_openmp(opt->clang_args, opt->nclang_args))
    return true;
  struct quoted_files q = {0};
  struct source src;
  if (source_load(&src, path) != 0)
    return true;
  seen_before(&q.seen, path);
  load_quoted(&q, &src, opt, 0);
  bool ok = true;
  if (!scan_mentions(&q.v[0], DAG_MACRO)) {
    struct scan_names macros = {0};
    bool more = true;
    while (more) {
      more = false;
      for (unsigned i = 0; i < q.n; i++)
        more |= scan_openmp_macros(&q.v[i], &macros) > 0;
    }
    struct diags d = {.werror = opt->werror};
    diags_options(&d, opt->clang_args, opt->nclang_args);
    struct span at;
    char *what = NULL;
    for (unsigned i = 0; i < q.n && !what; i++)
      if (scan_openmp_use(&q.v[i], &macros, &at, &what))
        diags_add(
            &d, DIAG_WARNING, &q.v[i], at.begin, "-Wdag-openmp",
            "'%s' uses OpenMP but has no dag pragma, and dagcc compiles it "
            "without OpenMP: this '%s'%s and the file's other OpenMP "
            "pragmas do nothing, so it runs serially (port it to dag pragmas: "
            "see "
            "docs/porting.md; or compile it with -fopenmp)",
            path, what,
            strncmp(what, "#pragma", 7) ? " (a macro for an OpenMP pragma)"
                                        : "");
    diags_print(&d, stderr);
    ok = !diags_failed(&d);
    diags_release(&d);
    free(what);
    scan_names_release(&macros);
  }
  for (unsigned i = 0; i < q.n; i++)
    source_release(&q.v[i]);
  free(q.v);
  path_set_release(&q.seen);
  return ok;
}

enum translate_result translate_file(const char *path,
                                     const struct translate_options *opt,
                                     FILE *out) {
  struct source src;
  if (source_load(&src, path) != 0) {
    fprintf(stderr, "dagcc: error: cannot read '%s': %m\n", path);
    return TRANSLATE_FAILED;
  }
  struct unit u = {0};
  seen_before(&u.seen, path);
  gather(&u, &src, true, opt, 0);
  if (total_directives(&u) == 0) {
    release_unit(&u);
    return warn_openmp_without_dag(path, opt) ? TRANSLATE_UNCHANGED
                                              : TRANSLATE_FAILED;
  }
  parse_directives(&u);
  struct diags d = {.werror = opt->werror};
  diags_options(&d, opt->clang_args, opt->nclang_args);
  u.sema.openmp = translate_args_openmp(opt->clang_args, opt->nclang_args);
  struct source *extra = NULL;
  unsigned nextra = 0;
  int nargs;
  const char **args = clang_parse_flags(opt, &nargs);
  sema_analyse(&u.sema, args, nargs, &d, &extra, &nextra);
  free(args);
  keep_active_errors(&u, &d);
  diags_print(&d, stderr);
  enum translate_result result = TRANSLATE_FAILED;
  if (!diags_failed(&d)) {
    write_output(&u.sema, out);
    result = TRANSLATE_REWRITTEN;
  }
  diags_release(&d);
  for (unsigned i = 0; i < nextra; i++)
    source_release(&extra[i]);
  free(extra);
  release_unit(&u);
  return result;
}

char *translate_builtin_headers(void) { return sema_builtin_headers(); }
