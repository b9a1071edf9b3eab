/* dagcc.c: the compiler driver, used like mpicc: its modes and main().
 *
 * dagcc reads a C compiler's command line (dagcc_args.c), rewrites each C
 * file that holds a `#pragma dag` into a temporary file (translate.h), and
 * runs the underlying compiler (DAG_CC, default mpicc; dagcc_find.c) on the
 * rewritten files in place of the originals, adding dag's include directory
 * and, when it links, libdag (dagcc_plan.c). Files the rewriter leaves alone
 * reach the compiler untouched. Besides compiling, dagcc can show the
 * commands (--showme, -###), dag's own flags (--showme:compile,
 * --showme:link) or the rewritten source (--rewrite-only). */
#include "dagcc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The arguments libclang gets: dag's headers, the wrapper's, those of
 * DAG_CC's flags and of the user's that change how C parses, the
 * compiler's headers, and silence about pragmas and warning options it
 * does not know. */
static void clang_args(const struct invocation *inv, const struct home *h,
                       const struct strv *cc, struct strv *args) {
  strv_take(args, xasprintf("-I%s", h->include));
  wrapper_flags(cc, args);
  push_clang_flags(args, cc->v + 1, cc->n - 1);
  strv_append(args, &inv->clang);
  compiler_headers(cc, args);
  strv_push(args, "-Wno-unknown-pragmas");
  strv_push(args, "-Wno-unknown-warning-option");
}

static struct translate_options translate_options(const struct invocation *inv,
                                                  const struct strv *args) {
  return (struct translate_options){
      .clang_args = (const char *const *)args->v,
      .nclang_args = (int)args->n,
      .werror = inv->werror,
  };
}

/* Rewrites one input into a temporary. Returns false when the rewriter
 * reported errors. */
static bool rewrite_input(struct input *in, const struct translate_options *opt,
                          bool keep) {
  int fd;
  char *tmp = temp_create(in->path, ".c", &fd);
  FILE *out = fdopen(fd, "w");
  if (!out)
    fatal("cannot open '%s': %s", tmp, strerror(errno));
  enum translate_result r = translate_file(in->path, opt, out);
  if (fclose(out) != 0 && r == TRANSLATE_REWRITTEN)
    fatal("cannot write '%s': %s", tmp, strerror(errno));
  if (r != TRANSLATE_REWRITTEN) {
    temp_remove(tmp);
    free(tmp);
    return r == TRANSLATE_UNCHANGED;
  }
  in->tmp = tmp;
  if (keep) {
    temp_forget(tmp);
    fprintf(stderr, "dagcc: note: kept the rewritten '%s' in '%s'\n", in->path,
            tmp);
  }
  return true;
}

/* -Wdag-fopenmp: -fopenmp (the user's or DAG_CC's, in `args`) in a build
 * that rewrote `path`. Returns false when -Werror makes it an error. */
static bool warn_fopenmp(const struct invocation *inv, const struct strv *args,
                         const char *path) {
  const char *const *v = (const char *const *)args->v;
  if (!translate_args_openmp(v, (int)args->n))
    return true;
  struct diags d = {.werror = inv->werror};
  diags_options(&d, v, (int)args->n);
  diags_add(&d, DIAG_WARNING, NULL, 0, "-Wdag-fopenmp",
            "-fopenmp with the dag tasks of '%s': it brings in OpenMP's "
            "runtime, whose threads compete with dag's workers for the cores "
            "when an OpenMP construct runs (build without -fopenmp, unless "
            "the program uses OpenMP itself: see docs/porting.md)",
            path);
  diags_print(&d, stderr);
  bool ok = !diags_failed(&d);
  diags_release(&d);
  return ok;
}

/* Rewrites every C input. A file that cannot be read is left to the
 * compiler, which says so the way users expect. */
static bool rewrite_inputs(struct invocation *inv, const struct home *h,
                           const struct strv *cc) {
  size_t nc = 0;
  for (size_t i = 0; i < inv->nin; i++)
    nc += inv->in[i].is_c;
  if (!nc)
    return true;
  struct strv args = {0};
  clang_args(inv, h, cc, &args);
  struct translate_options opt = translate_options(inv, &args);
  bool ok = true;
  const char *rewritten = NULL;
  for (size_t i = 0; i < inv->nin; i++)
    if (inv->in[i].is_c && access(inv->in[i].path, R_OK) == 0) {
      ok = rewrite_input(&inv->in[i], &opt, inv->keep) && ok;
      if (inv->in[i].tmp && !rewritten)
        rewritten = inv->in[i].path;
    }
  if (ok && rewritten)
    ok = warn_fopenmp(inv, &args, rewritten);
  strv_release(&args);
  return ok;
}

/* -### and --showme: the commands, rewriting included, run nothing. */
static int show_commands(struct invocation *inv, const struct home *h,
                         const struct strv *cc) {
  for (size_t i = 0; i < inv->nin; i++) {
    struct input *in = &inv->in[i];
    if (!in->is_c)
      continue;
    in->tmp = temp_template(in->path, ".c");
    struct strv argv = {0};
    strv_push(&argv, "dagcc");
    strv_push(&argv, "--rewrite-only");
    strv_append(&argv, &inv->clang);
    strv_push(&argv, "-o");
    strv_push(&argv, in->tmp);
    strv_push(&argv, in->path);
    print_command(stdout, argv.v);
    strv_release(&argv);
  }
  struct plan p = {.show = true};
  plan_make(&p, inv, h, cc);
  for (size_t i = 0; i < p.n; i++)
    print_command(stdout, p.cmd[i].argv.v);
  plan_release(&p);
  return 0;
}

/* --showme:compile and --showme:link: dag's flags alone. */
static int show_flags(const struct invocation *inv, const struct home *h) {
  struct strv argv = {0};
  if (inv->show == SHOW_COMPILE)
    strv_take(&argv, xasprintf("-I%s", h->include));
  else
    push_link_flags(&argv, h);
  print_command(stdout, argv.v);
  strv_release(&argv);
  return 0;
}

/* True when `path` exists and is not a regular file, such as /dev/null:
 * dagcc writes to it but never removes it. */
static bool exists_special(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Writes `path` to `out` as it is, under a #line naming it. */
static void copy_source(const char *path, FILE *out) {
  size_t len;
  char *text = read_file(path, &len);
  if (!text)
    fatal("cannot read '%s': %s", path, strerror(errno));
  fputs("#line 1 \"", out);
  for (const char *c = path; *c; c++)
    fprintf(out, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
  fputs("\"\n", out);
  fwrite(text, 1, len, out);
  free(text);
}

/* The compiler's -M over the original file, for a build system to know
 * when the rewritten file `out` is stale. */
static int rewrite_deps(const struct invocation *inv, const struct home *h,
                        const struct strv *cc, const char *out) {
  const char *in = inv->in[0].path;
  char *depfile =
      inv->dep_mf ? xstrdup(inv->dep_mf) : with_extension(out, ".d");
  struct strv argv = {0};
  push_compile_start(&argv, cc, h, inv);
  strv_append(&argv, &inv->clang);
  strv_push(&argv, inv->dep_system ? "-M" : "-MM");
  strv_push(&argv, "-MF");
  strv_push(&argv, depfile);
  strv_push(&argv, "-MQ");
  strv_push(&argv, out);
  strv_push(&argv, in);
  int status = run(argv.v, inv->verbose);
  strv_release(&argv);
  free(depfile);
  return status;
}

/* --rewrite-only: the rewritten source, not preprocessed, into -o or
 * standard output; an unchanged file is copied. With -MD, the compiler also
 * writes the dependencies of the output. */
static int rewrite_only(struct invocation *inv, const struct home *h,
                        const struct strv *cc) {
  if (inv->nin != 1 || !inv->in[0].is_c)
    fatal("--rewrite-only takes exactly one C file");
  const char *path = inv->in[0].path, *out = inv->output;
  if (out && !exists_special(out))
    temp_track(out); /* removed unless it is complete */
  FILE *f = out ? fopen(out, "w") : stdout;
  if (!f)
    fatal("cannot write '%s': %s", out, strerror(errno));
  /* The compiler that reads the output sees the _DAG of the parse. */
  if (!inv->dag_macro_set)
    fputs("#define " DAG_MACRO " " DAG_MACRO_VALUE "\n", f);
  struct strv args = {0};
  clang_args(inv, h, cc, &args);
  struct translate_options opt = translate_options(inv, &args);
  enum translate_result r = translate_file(path, &opt, f);
  bool ok = r != TRANSLATE_FAILED &&
            (r != TRANSLATE_REWRITTEN || warn_fopenmp(inv, &args, path));
  strv_release(&args);
  if (r == TRANSLATE_UNCHANGED)
    copy_source(path, f);
  if (f == stdout ? fflush(f) != 0 : fclose(f) != 0)
    fatal("cannot write '%s': %s", out ? out : "standard output",
          strerror(errno));
  if (!ok)
    return 1;
  if (!out)
    return 0;
  temp_forget(out);
  return inv->dep_file ? rewrite_deps(inv, h, cc, out) : 0;
}

/* The usual way: rewrite, then compile; rewriter errors stop it before the
 * compiler runs. */
static int compile(struct invocation *inv, const struct home *h,
                   const struct strv *cc) {
  if (!rewrite_inputs(inv, h, cc))
    return 1;
  struct plan p = {0};
  plan_make(&p, inv, h, cc);
  int status = plan_run(&p, inv->verbose);
  plan_release(&p);
  return status;
}

/* --version: dagcc's, then the compiler's. */
static int print_version(const struct strv *cc) {
  printf("dagcc (dag) %s\n", DAG_VERSION);
  struct strv argv = {0};
  strv_append(&argv, cc);
  strv_push(&argv, "--version");
  int status = run(argv.v, false);
  strv_release(&argv);
  return status;
}

static void usage(void) {
  printf(
      "usage: dagcc [options] file...\n"
      "Rewrites the '#pragma dag' directives of C files into calls of the dag\n"
      "runtime, then compiles and links them with the underlying compiler\n"
      "(DAG_CC, default mpicc). Every option of the compiler is accepted.\n"
      "\n"
      "dagcc's own options:\n"
      "  -###, --showme      print the commands, run nothing\n"
      "  --showme:compile    print the flags to compile against dag\n"
      "  --showme:link       print the flags to link with dag\n"
      "  --keep              keep the rewritten files (names on stderr)\n"
      "  --rewrite-only      write the rewritten, unpreprocessed source of\n"
      "                      one file to -o or standard output\n"
      "  -v                  print each command before running it (also\n"
      "                      passed to the compiler)\n"
      "  --help, --version\n"
      "\n"
      "environment: DAG_CC, DAG_KEEP_TEMPS, DAG_HOME, TMPDIR.\n"
      "See docs/dagcc.md.\n");
}

int main(int argc, char **argv) {
  (void)argc;
  struct invocation inv = {0};
  parse_args(&inv, argv);
  if (inv.help) {
    usage();
    return 0;
  }
  struct home home = {0};
  home_find(&home);
  struct strv cc = {0};
  compiler_find(&cc, inv.verbose);
  inv.dag_macro_set =
      translate_args_set_dag_macro((const char *const *)inv.args.v,
                                   (int)inv.args.n) ||
      translate_args_set_dag_macro((const char *const *)cc.v, (int)cc.n);
  install_handlers();
  int status;
  if (inv.show == SHOW_COMPILE || inv.show == SHOW_LINK)
    status = show_flags(&inv, &home);
  else if (inv.version)
    status = print_version(&cc);
  else if (inv.show == SHOW_COMMANDS)
    status = show_commands(&inv, &home, &cc);
  else if (inv.rewrite_only)
    status = rewrite_only(&inv, &home, &cc);
  else
    status = compile(&inv, &home, &cc);
  strv_release(&cc);
  home_release(&home);
  invocation_release(&inv);
  return status;
}
