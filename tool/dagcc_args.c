/* dagcc_args.c: the command line, read the way a C compiler reads it:
 * inputs, options with values (joined or separate), the options that tell
 * how far the compiler goes, dagcc's own, and which of them libclang
 * needs too. */
#include "dagcc.h"

#include <stdlib.h>
#include <string.h>

/* Options whose value may be the next word. `joined`: the value may also
 * follow the name in the same word. `clang`: libclang needs the option. */
struct value_option {
  const char *name;
  bool joined, clang;
};

static const struct value_option value_options[] = {
    {"-I", true, true},
    {"-D", true, true},
    {"-U", true, true},
    {"-include", true, true},
    {"-imacros", true, true},
    {"-isystem", true, true},
    {"-iquote", true, true},
    {"-idirafter", true, true},
    {"-iprefix", true, true},
    {"-iwithprefixbefore", true, true},
    {"-iwithprefix", true, true},
    {"-isysroot", true, true},
    {"--sysroot", false, true},
    {"-target", false, true},
    {"-o", true, false},
    {"-L", true, false},
    {"-l", true, false},
    {"-x", true, false},
    {"-MF", true, false},
    {"-MT", true, false},
    {"-MQ", true, false},
    {"-Xlinker", false, false},
    {"-Xassembler", false, false},
    {"-Xpreprocessor", false, true},
    {"-imultilib", false, false},
    {"-aux-info", false, false},
    {"--param", false, false},
    {"-dumpbase", false, false},
    {"-dumpdir", false, false},
    {"-B", false, false},
    {"-T", false, false},
    {"-e", false, false},
    {"-u", false, false},
    {"-z", false, false},
};

static const struct value_option *find_value_option(const char *arg) {
  for (size_t i = 0; i < sizeof value_options / sizeof *value_options; i++) {
    const struct value_option *o = &value_options[i];
    if (strcmp(arg, o->name) == 0 || (o->joined && starts_with(arg, o->name)))
      return o;
  }
  return NULL;
}

/* The -f options that change how C parses: macros, types, extensions.
 * Others (optimisation, code generation) stay away from libclang, which
 * rejects the many that only gcc knows. `-fno-x` is `-fx`. */
static bool is_parse_f_flag(const char *arg) {
  static const char *const prefixes[] = {"signed-char",
                                         "unsigned-char",
                                         "openmp",
                                         "ms-extensions",
                                         "gnu89-inline",
                                         "builtin",
                                         "freestanding",
                                         "hosted",
                                         "short-enums",
                                         "short-wchar",
                                         "pack-struct",
                                         "common",
                                         "fast-math",
                                         "finite-math-only",
                                         "math-errno",
                                         "pic",
                                         "PIC",
                                         "pie",
                                         "PIE",
                                         "wrapv",
                                         "trapv",
                                         "stack-protector",
                                         "sanitize=",
                                         "exec-charset=",
                                         "input-charset=",
                                         "dollars-in-identifiers",
                                         "asm",
                                         "gnu-keywords",
                                         "blocks",
                                         "cf-protection",
                                         "diagnostics-color"};
  const char *name = arg + (starts_with(arg, "-fno-") ? 5 : 2);
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (starts_with(name, prefixes[i]))
      return true;
  return false;
}

/* Single-word options libclang needs: they change macros, types or
 * warnings. */
static bool is_clang_flag(const char *arg) {
  static const char *const prefixes[] = {
      "-std=", "--std=",    "-O",         "-g",       "-m",
      "-W",    "-pedantic", "--sysroot=", "--target="};
  static const char *const words[] = {"-ansi",     "-w",         "-pthread",
                                      "-nostdinc", "-trigraphs", "-undef"};
  if (starts_with(arg, "-f"))
    return is_parse_f_flag(arg);
  if (starts_with(arg, "-Wl,") || starts_with(arg, "-Wa,"))
    return false;
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (starts_with(arg, prefixes[i]))
      return true;
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (strcmp(arg, words[i]) == 0)
      return true;
  return false;
}

/* -Wdag-..., -Wno-dag-..., -Werror=dag-..., -Wno-error=dag-...: options of
 * the rewriter's warnings, which the compiler does not know. */
static bool is_dag_warning_flag(const char *arg) {
  static const char *const prefixes[] = {"-Wdag-", "-Wno-dag-", "-Werror=dag-",
                                         "-Wno-error=dag-"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (starts_with(arg, prefixes[i]))
      return true;
  return false;
}

/* dagcc's own options; they never reach the compiler. */
static bool driver_option(struct invocation *inv, const char *arg) {
  if (strcmp(arg, "-###") == 0 || strcmp(arg, "--showme") == 0)
    inv->show = SHOW_COMMANDS;
  else if (strcmp(arg, "--showme:compile") == 0)
    inv->show = SHOW_COMPILE;
  else if (strcmp(arg, "--showme:link") == 0)
    inv->show = SHOW_LINK;
  else if (strcmp(arg, "--keep") == 0)
    inv->keep = true;
  else if (strcmp(arg, "--rewrite-only") == 0)
    inv->rewrite_only = true;
  else if (strcmp(arg, "--help") == 0)
    inv->help = true;
  else if (strcmp(arg, "--version") == 0)
    inv->version = true;
  else
    return false;
  return true;
}

static void set_mode(struct invocation *inv, enum mode mode) {
  if (mode > inv->mode)
    inv->mode = mode;
}

/* Notes what a single-word option means for the driver; it still goes to the
 * compiler. */
static void note_flag(struct invocation *inv, const char *arg) {
  if (strcmp(arg, "-c") == 0)
    set_mode(inv, MODE_COMPILE);
  else if (strcmp(arg, "-S") == 0)
    set_mode(inv, MODE_ASSEMBLE);
  else if (strcmp(arg, "-fsyntax-only") == 0)
    set_mode(inv, MODE_SYNTAX);
  else if (strcmp(arg, "-E") == 0)
    set_mode(inv, MODE_PREPROCESS);
  else if (strcmp(arg, "-M") == 0 || strcmp(arg, "-MM") == 0) {
    set_mode(inv, MODE_PREPROCESS);
    inv->dep_stdout = true;
    inv->dep_system = inv->dep_system || strcmp(arg, "-M") == 0;
  } else if (strcmp(arg, "-MD") == 0 || strcmp(arg, "-MMD") == 0) {
    inv->dep_file = true;
    inv->dep_system = inv->dep_system || strcmp(arg, "-MD") == 0;
  } else if (strcmp(arg, "-v") == 0)
    inv->verbose = true;
  else if (strcmp(arg, "-Werror") == 0)
    inv->werror = true;
  else if (strcmp(arg, "-Wno-error") == 0)
    inv->werror = false;
}

static void add_input(struct invocation *inv, const char *path,
                      const char *lang) {
  bool stdin_input = strcmp(path, "-") == 0;
  inv->in = xrealloc(inv->in, (inv->nin + 1) * sizeof *inv->in);
  inv->in[inv->nin++] = (struct input){
      .path = path,
      .at = inv->args.n,
      .is_c = !stdin_input &&
              (lang ? strcmp(lang, "c") == 0 : ends_with(path, ".c")),
  };
  strv_push(&inv->args, path);
}

/* Handles an option with a value; returns how many words it took. */
static int value_option(struct invocation *inv, const struct value_option *o,
                        char **argv, int i, const char **lang) {
  const char *arg = argv[i];
  bool separate = strcmp(arg, o->name) == 0;
  if (separate && !argv[i + 1])
    fatal("missing argument to '%s'", arg);
  const char *value = separate ? argv[i + 1] : arg + strlen(o->name);
  if (strcmp(o->name, "-o") == 0) {
    inv->output = value;
    return separate ? 2 : 1;
  }
  if (strcmp(o->name, "-x") == 0)
    *lang = strcmp(value, "none") == 0 ? NULL : value;
  else if (strcmp(o->name, "-MF") == 0)
    inv->dep_mf = value;
  else if (strcmp(o->name, "-MT") == 0 || strcmp(o->name, "-MQ") == 0)
    inv->dep_target = true;
  for (int k = 0; k <= (int)separate; k++) {
    strv_push(&inv->args, argv[i + k]);
    if (o->clang)
      strv_push(&inv->clang, argv[i + k]);
  }
  return separate ? 2 : 1;
}

/* Adds a flag libclang needs. -Wno-unknown-pragmas, which keeps the
 * compiler quiet about the pragmas it ignores, keeps the rewriter quiet
 * about OpenMP's (-Wdag-openmp) too; -Wunknown-pragmas turns it on again. */
static void push_clang_flag(struct strv *clang, const char *arg) {
  strv_push(clang, arg);
  if (strcmp(arg, "-Wno-unknown-pragmas") == 0)
    strv_push(clang, "-Wno-dag-openmp");
  else if (strcmp(arg, "-Wunknown-pragmas") == 0)
    strv_push(clang, "-Wdag-openmp");
}

void push_clang_flags(struct strv *clang, char *const *words, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const struct value_option *o = find_value_option(words[i]);
    bool separate = o && strcmp(words[i], o->name) == 0 && i + 1 < n;
    if (o ? o->clang : words[i][0] == '-' && is_clang_flag(words[i])) {
      push_clang_flag(clang, words[i]);
      if (separate)
        strv_push(clang, words[i + 1]);
    }
    i += separate;
  }
}

void parse_args(struct invocation *inv, char **argv) {
  const char *lang = NULL; /* -x */
  for (int i = 1; argv[i];) {
    const char *arg = argv[i];
    const struct value_option *o;
    if (driver_option(inv, arg)) {
      i++;
    } else if (arg[0] != '-' || !arg[1]) {
      add_input(inv, arg, lang);
      i++;
    } else if ((o = find_value_option(arg))) {
      i += value_option(inv, o, argv, i, &lang);
    } else if (is_dag_warning_flag(arg)) {
      strv_push(&inv->clang, arg); /* the rewriter's; compilers reject it */
      i++;
    } else {
      note_flag(inv, arg);
      strv_push(&inv->args, arg);
      if (is_clang_flag(arg))
        push_clang_flag(&inv->clang, arg);
      i++;
    }
  }
  const char *keep = getenv("DAG_KEEP_TEMPS");
  if (keep && *keep && strcmp(keep, "0") != 0)
    inv->keep = true;
}

void invocation_release(struct invocation *inv) {
  for (size_t i = 0; i < inv->nin; i++)
    free(inv->in[i].tmp);
  free(inv->in);
  strv_release(&inv->args);
  strv_release(&inv->clang);
}
