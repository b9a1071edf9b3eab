/* dagcc.c: the compiler driver, used like mpicc.
 *
 * dagcc reads a C compiler's command line, rewrites each C file that holds a
 * `#pragma dag` into a temporary file (translate.h), and runs the underlying
 * compiler (DAG_CC, default mpicc) on the rewritten files in place of the
 * originals, adding dag's include directory and, when it links, libdag. Files
 * the rewriter leaves alone reach the compiler untouched. The compiler runs
 * through posix_spawnp, never a shell, and its exit status is dagcc's.
 *
 * dagcc owns its temporary files: they are removed on every way out,
 * including SIGINT, SIGTERM, SIGHUP, SIGQUIT and a crash (the handler passes
 * the signal on to a running compiler, waits for it and unlinks them),
 * unless --keep asks for the rewritten sources. The list of temporaries
 * changes only with those signals blocked, so the handler always sees a
 * whole list. */
#include "diag.h"
#include "translate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* A NULL-terminated list of owned strings: an argument vector. */
struct strv {
  char **v;
  size_t n, cap;
};

/* Appends `str`, which the list now owns. */
static void strv_take(struct strv *s, char *str) {
  if (s->n + 2 > s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->v = xrealloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = str;
  s->v[s->n] = NULL;
}

static void strv_push(struct strv *s, const char *str) {
  strv_take(s, xstrdup(str));
}

static void strv_append(struct strv *s, const struct strv *t) {
  for (size_t i = 0; i < t->n; i++)
    strv_push(s, t->v[i]);
}

static void strv_release(struct strv *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->v[i]);
  free(s->v);
  *s = (struct strv){0};
}

/* Splits `text` at blanks; no quoting. */
static void strv_split(struct strv *s, const char *text) {
  const char *blanks = " \t\n";
  while (*text) {
    text += strspn(text, blanks);
    size_t len = strcspn(text, blanks);
    if (len) {
      char *word = xstrndup(text, len);
      strv_push(s, word);
      free(word);
    }
    text += len;
  }
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));
static void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dagcc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The directory part of `path`: "." when it has none. */
static char *dir_name(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return xstrdup(".");
  return slash == path ? xstrdup("/") : xstrndup(path, slash - path);
}

/* The last component of `path` without its extension: "src/foo.c" -> "foo". */
static char *stem(const char *path) {
  const char *base = base_name(path);
  const char *dot = strrchr(base, '.');
  return dot && dot != base ? xstrndup(base, dot - base) : xstrdup(base);
}

/* `path` with its extension replaced: ("out/foo.o", ".d") -> "out/foo.d". */
static char *with_extension(const char *path, const char *ext) {
  const char *base = base_name(path);
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  return xasprintf("%.*s%s", (int)keep, path, ext);
}

/* ---- temporary files ---- */

static struct {
  char **path;
  size_t n, cap;
} temps;
static volatile sig_atomic_t child_pid;
static const int caught_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                     SIGSEGV, SIGBUS,  SIGABRT};

static void block_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof caught_signals / sizeof *caught_signals; i++)
    sigaddset(&set, caught_signals[i]);
  sigprocmask(SIG_BLOCK, &set, old);
}

/* Async-signal-safe: only unlink. */
static void temps_unlink(void) {
  for (size_t i = 0; i < temps.n; i++)
    unlink(temps.path[i]);
}

/* Stops the compiler and waits for it, so that nothing writes after dagcc
 * is gone. */
static void on_signal(int sig) {
  if (child_pid > 0 && kill(child_pid, sig) == 0)
    waitpid(child_pid, NULL, 0);
  temps_unlink();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Signals already ignored (nohup, background jobs) stay ignored; handlers
 * installed before main (sanitizers) stay in place. */
static void install_handlers(void) {
  atexit(temps_unlink);
  for (size_t i = 0; i < sizeof caught_signals / sizeof *caught_signals; i++) {
    struct sigaction old, sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    if (sigaction(caught_signals[i], NULL, &old) == 0 &&
        old.sa_handler == SIG_DFL)
      sigaction(caught_signals[i], &sa, NULL);
  }
}

static void temp_track(const char *path) {
  sigset_t old;
  block_signals(&old);
  if (temps.n == temps.cap) {
    temps.cap = temps.cap ? 2 * temps.cap : 8;
    temps.path = xrealloc(temps.path, temps.cap * sizeof *temps.path);
  }
  temps.path[temps.n++] = xstrdup(path);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Stops tracking `path`: it is kept. */
static void temp_forget(const char *path) {
  sigset_t old;
  block_signals(&old);
  for (size_t i = 0; i < temps.n; i++)
    if (strcmp(temps.path[i], path) == 0) {
      free(temps.path[i]);
      temps.path[i] = temps.path[--temps.n];
      break;
    }
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static void temp_remove(const char *path) {
  unlink(path);
  temp_forget(path);
}

static const char *temp_dir(void) {
  const char *dir = getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

/* The name of a temporary for `orig`: "$TMPDIR/foo-XXXXXX<ext>". */
static char *temp_template(const char *orig, const char *ext) {
  char *base = stem(orig);
  char *name = xasprintf("%s/%s-XXXXXX%s", temp_dir(), base, ext);
  free(base);
  return name;
}

/* Creates a tracked temporary named after `orig`; returns its name, its
 * descriptor in *fd. */
static char *temp_create(const char *orig, const char *ext, int *fd) {
  char *name = temp_template(orig, ext);
  sigset_t old;
  block_signals(&old);
  *fd = mkstemps(name, (int)strlen(ext));
  int err = errno;
  if (*fd >= 0)
    temp_track(name);
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (*fd < 0)
    fatal("cannot create a temporary file in '%s': %s", temp_dir(),
          strerror(err));
  return name;
}

/* ---- where dag lives ---- */

struct home {
  char *include, *lib;
};

static char *under(const char *prefix, const char *dir) {
  return dir[0] == '/' ? xstrdup(dir) : xasprintf("%s/%s", prefix, dir);
}

/* The installation prefix this executable sits in, from /proc/self/exe and
 * the install-relative bin directory. */
static char *self_prefix(void) {
  if (DAG_INSTALL_BINDIR[0] == '/')
    return xstrdup(DAG_INSTALL_PREFIX);
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0)
    return NULL;
  exe[len] = '\0';
  char *prefix = dir_name(exe);
  for (const char *c = DAG_INSTALL_BINDIR; *c;) {
    c += strspn(c, "/");
    if (!*c)
      break;
    c += strcspn(c, "/");
    char *up = dir_name(prefix);
    free(prefix);
    prefix = up;
  }
  return prefix;
}

static bool file_exists(const char *dir, const char *name) {
  char *path = xasprintf("%s/%s", dir, name);
  bool yes = access(path, F_OK) == 0;
  free(path);
  return yes;
}

static bool home_at(struct home *h, const char *prefix) {
  h->include = under(prefix, DAG_INSTALL_INCLUDEDIR);
  h->lib = under(prefix, DAG_INSTALL_LIBDIR);
  return file_exists(h->include, "dag.h") &&
         (file_exists(h->lib, "libdag.so") || file_exists(h->lib, "libdag.a"));
}

/* DAG_HOME, else the installation dagcc runs from, else the build tree. */
static void home_find(struct home *h) {
  const char *env = getenv("DAG_HOME");
  if (env && *env) {
    home_at(h, env);
    return;
  }
  char *prefix = self_prefix();
  bool installed = prefix && home_at(h, prefix);
  free(prefix);
  if (installed)
    return;
  free(h->include);
  free(h->lib);
  h->include = xstrdup(DAG_BUILD_INCLUDEDIR);
  h->lib = xstrdup(DAG_BUILD_LIBDIR);
}

static void home_release(struct home *h) {
  free(h->include);
  free(h->lib);
}

static void push_link_flags(struct strv *argv, const struct home *h) {
  strv_take(argv, xasprintf("-L%s", h->lib));
  strv_push(argv, "-ldag");
  strv_take(argv, xasprintf("-Wl,-rpath,%s", h->lib));
}

/* ---- the command line ---- */

/* How far the compiler goes, in the order gcc resolves conflicts: the
 * largest given wins. */
enum mode {
  MODE_LINK,
  MODE_COMPILE,
  MODE_ASSEMBLE,
  MODE_SYNTAX,
  MODE_PREPROCESS
};

enum show { SHOW_NONE, SHOW_COMMANDS, SHOW_COMPILE, SHOW_LINK };

struct input {
  const char *path; /* as the user wrote it */
  size_t at;        /* its index in invocation.args */
  bool is_c;        /* C source: the rewriter reads it */
  char *tmp;        /* the rewritten file, or NULL to compile `path` */
};

struct invocation {
  struct strv args;  /* the compiler's arguments, inputs included, -o not */
  struct strv clang; /* the arguments libclang needs */
  struct input *in;
  size_t nin;
  const char *output; /* -o */
  enum mode mode;
  enum show show;
  bool verbose, keep, werror, rewrite_only, help, version;
  bool dep_stdout; /* -M or -MM: dependencies instead of preprocessed text */
  bool dep_file;   /* -MD or -MMD: dependencies on the side */
  bool dep_system; /* -M or -MD rather than -MM or -MMD */
  bool dep_target; /* -MT or -MQ given */
  const char *dep_mf;
};

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
    {"-Xpreprocessor", false, false},
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
  if (starts_with(arg, "-Wl,") || starts_with(arg, "-Wa,") ||
      starts_with(arg, "-Wp,"))
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

static void parse_args(struct invocation *inv, char **argv) {
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
        strv_push(&inv->clang, arg);
      i++;
    }
  }
  const char *keep = getenv("DAG_KEEP_TEMPS");
  if (keep && *keep && strcmp(keep, "0") != 0)
    inv->keep = true;
}

static void invocation_release(struct invocation *inv) {
  for (size_t i = 0; i < inv->nin; i++)
    free(inv->in[i].tmp);
  free(inv->in);
  strv_release(&inv->args);
  strv_release(&inv->clang);
}

/* ---- running commands ---- */

/* Prints `argv` so that a POSIX shell reads it back as the same words. */
static void print_command(FILE *out, char *const argv[]) {
  const char *safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_-+=./:,@%^";
  for (size_t i = 0; argv[i]; i++) {
    const char *a = argv[i];
    fputs(i ? " " : "", out);
    if (*a && a[strspn(a, safe)] == '\0') {
      fputs(a, out);
      continue;
    }
    fputc('\'', out);
    for (; *a; a++) {
      if (*a == '\'')
        fputs("'\\''", out);
      else
        fputc(*a, out);
    }
    fputc('\'', out);
  }
  fputc('\n', out);
}

/* Waits for the child; returns its exit status, or 128 + the signal that
 * ended it, as a shell would. */
static int wait_child(pid_t pid) {
  child_pid = pid;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      fatal("waitpid: %s", strerror(errno));
  child_pid = 0;
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

static int run(char *const argv[], bool verbose) {
  if (verbose)
    print_command(stderr, argv);
  fflush(NULL);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (err) {
    fprintf(stderr, "dagcc: error: cannot run '%s': %s\n", argv[0],
            strerror(err));
    return 127;
  }
  return wait_child(pid);
}

/* Runs `argv` with its standard output in *text (stderr discarded); returns
 * true when it exits 0. */
static bool run_capture(char *const argv[], char **text) {
  *text = NULL;
  int fds[2];
  if (pipe(fds) != 0)
    return false;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY,
                                   0);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  if (!err)
    child_pid = pid; /* a signal while reading stops it too */
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  size_t len = 0, cap = 256;
  *text = xmalloc(cap);
  ssize_t got;
  while (!err && (got = read(fds[0], *text + len, cap - len - 1)) != 0) {
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      break;
    len += got;
    if (cap - len < 2)
      *text = xrealloc(*text, cap *= 2);
  }
  (*text)[len] = '\0';
  close(fds[0]);
  return !err && wait_child(pid) == 0;
}

static bool on_path(const char *name) {
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/bin:/bin";
  for (const char *p = path;; p += strcspn(p, ":") + 1) {
    size_t len = strcspn(p, ":");
    char *file =
        xasprintf("%.*s/%s", (int)(len ? len : 1), len ? p : ".", name);
    bool found = access(file, X_OK) == 0;
    free(file);
    if (found)
      return true;
    if (!p[len])
      return false;
  }
}

/* The compiler: DAG_CC split at blanks, else mpicc, else cc. */
static void compiler_find(struct strv *cc, bool verbose) {
  const char *env = getenv("DAG_CC");
  if (env)
    strv_split(cc, env);
  if (cc->n)
    return;
  if (on_path("mpicc")) {
    strv_push(cc, "mpicc");
    return;
  }
  if (verbose)
    fprintf(stderr, "dagcc: note: 'mpicc' is not on PATH, using 'cc'\n");
  strv_push(cc, "cc");
}

/* The words the compiler prints for `query`; false when it fails. */
static bool compiler_says(const struct strv *cc, const char *query,
                          struct strv *words) {
  struct strv argv = {0};
  strv_append(&argv, cc);
  strv_push(&argv, query);
  char *text;
  bool ok = run_capture(argv.v, &text);
  if (ok)
    strv_split(words, text);
  free(text);
  strv_release(&argv);
  return ok;
}

/* The search paths and macros an MPI wrapper adds, which libclang must see
 * too: Open MPI's --showme:compile, else MPICH's -compile_info. */
static void wrapper_flags(const struct strv *cc, struct strv *flags) {
  if (!starts_with(base_name(cc->v[0]), "mpi"))
    return;
  struct strv words = {0};
  if (compiler_says(cc, "--showme:compile", &words) ||
      compiler_says(cc, "-compile_info", &words))
    for (size_t i = 0; i < words.n; i++)
      if (starts_with(words.v[i], "-I") || starts_with(words.v[i], "-D") ||
          strcmp(words.v[i], "-pthread") == 0)
        strv_push(flags, words.v[i]);
  strv_release(&words);
}

/* The compiler's own headers (gcc's omp.h, quadmath.h...), searched by
 * libclang after its own and the system's. */
static void compiler_headers(const struct strv *cc, struct strv *flags) {
  struct strv words = {0};
  if (compiler_says(cc, "-print-file-name=include", &words) && words.n == 1 &&
      words.v[0][0] == '/' && access(words.v[0], X_OK) == 0) {
    strv_push(flags, "-idirafter");
    strv_push(flags, words.v[0]);
  }
  strv_release(&words);
}

/* ---- rewriting ---- */

/* The arguments libclang gets: dag's headers, the wrapper's, the user's,
 * the compiler's, and silence about pragmas and warning options it does not
 * know. */
static void clang_args(const struct invocation *inv, const struct home *h,
                       const struct strv *cc, struct strv *args) {
  strv_take(args, xasprintf("-I%s", h->include));
  wrapper_flags(cc, args);
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
  for (size_t i = 0; i < inv->nin; i++)
    if (inv->in[i].is_c && access(inv->in[i].path, R_OK) == 0)
      ok = rewrite_input(&inv->in[i], &opt, inv->keep) && ok;
  strv_release(&args);
  return ok;
}

/* ---- dependency files ---- */

/* `path` as make reads it in a dependency file, escaped the way gcc
 * escapes it. */
static char *make_quote(const char *path) {
  char *q = xmalloc(2 * strlen(path) + 1), *o = q;
  for (const char *p = path; *p; p++) {
    if (*p == ' ' || *p == '\t' || *p == '#')
      *o++ = '\\';
    else if (*p == '$')
      *o++ = '$';
    *o++ = *p;
  }
  *o = '\0';
  return q;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096;
  char *text = xmalloc(cap);
  *len = 0;
  size_t got;
  while ((got = fread(text + *len, 1, cap - *len, f)) > 0)
    if ((*len += got) == cap)
      text = xrealloc(text, cap *= 2);
  fclose(f);
  return text;
}

/* Writes `text` with every `from` replaced by `to`. */
static void write_replacing(FILE *out, const char *text, size_t len,
                            const char *from, const char *to) {
  size_t flen = strlen(from);
  for (size_t i = 0; i < len;) {
    if (len - i >= flen && memcmp(text + i, from, flen) == 0) {
      fputs(to, out);
      i += flen;
    } else {
      fputc(text[i++], out);
    }
  }
}

/* Names the user's file instead of the temporary in `depfile`, in place or
 * into `copy_to` ("-": standard output). */
static void depfile_fix(const char *depfile, const char *tmp, const char *orig,
                        const char *copy_to) {
  size_t len;
  char *text = read_file(depfile, &len);
  if (!text)
    return;
  const char *dest = copy_to ? copy_to : depfile;
  FILE *out = strcmp(dest, "-") == 0 ? stdout : fopen(dest, "w");
  if (!out)
    fatal("cannot write '%s': %s", dest, strerror(errno));
  char *from = make_quote(tmp), *to = make_quote(orig);
  write_replacing(out, text, len, from, to);
  if (out == stdout ? fflush(out) != 0 : fclose(out) != 0)
    fatal("cannot write '%s': %s", dest, strerror(errno));
  free(from);
  free(to);
  free(text);
}

/* ---- the compiler's commands ---- */

struct command {
  struct strv argv;
  const struct input *in; /* the rewritten input it compiles, or NULL */
  char *depfile;          /* dependencies to fix afterwards, or NULL */
  const char *copy_to;    /* where the fixed dependencies go, or NULL */
};

struct plan {
  struct command *cmd;
  size_t n;
  bool show; /* print, do not create or run anything */
};

static struct command *plan_add(struct plan *p) {
  p->cmd = xrealloc(p->cmd, (p->n + 1) * sizeof *p->cmd);
  p->cmd[p->n] = (struct command){0};
  return &p->cmd[p->n++];
}

static void plan_release(struct plan *p) {
  for (size_t i = 0; i < p->n; i++) {
    strv_release(&p->cmd[i].argv);
    free(p->cmd[i].depfile);
  }
  free(p->cmd);
}

/* The compiler, dag's headers, and the directory of each rewritten input
 * for its `#include "..."`: the temporary lives elsewhere. */
static void command_start(struct strv *argv, const struct strv *cc,
                          const struct home *h, const struct invocation *inv,
                          const struct input *only) {
  strv_append(argv, cc);
  strv_take(argv, xasprintf("-I%s", h->include));
  for (size_t i = 0; i < inv->nin; i++) {
    const struct input *in = &inv->in[i];
    if (in->tmp && (!only || only == in)) {
      char *dir = dir_name(in->path);
      strv_push(argv, "-iquote");
      strv_push(argv, dir);
      free(dir);
    }
  }
}

/* The user's arguments in their order, with rewritten inputs replaced and,
 * when `only` is set, the other inputs left out. */
static void push_user_args(struct strv *argv, const struct invocation *inv,
                           const struct input *only) {
  size_t k = 0;
  for (size_t i = 0; i < inv->args.n; i++) {
    const struct input *in =
        k < inv->nin && inv->in[k].at == i ? &inv->in[k++] : NULL;
    if (!in)
      strv_push(argv, inv->args.v[i]);
    else if (!only || in == only)
      strv_push(argv, in->tmp ? in->tmp : in->path);
  }
}

/* One command over every input: linking, or nothing to split. */
static void plan_single(struct plan *p, const struct invocation *inv,
                        const struct home *h, const struct strv *cc) {
  struct command *c = plan_add(p);
  command_start(&c->argv, cc, h, inv, NULL);
  push_user_args(&c->argv, inv, NULL);
  if (inv->output) {
    strv_push(&c->argv, "-o");
    strv_push(&c->argv, inv->output);
  }
  if (inv->mode == MODE_LINK && (inv->nin || p->show))
    push_link_flags(&c->argv, h);
}

/* The file a rewritten input compiles to, named after the user's file;
 * NULL when the compiler writes to standard output or nothing. */
static char *output_for(const struct invocation *inv, const struct input *in) {
  if (inv->output)
    return xstrdup(inv->output);
  if (!in->tmp)
    return NULL;
  char *base = stem(in->path), *out = NULL;
  if (inv->mode == MODE_COMPILE)
    out = xasprintf("%s.o", base);
  else if (inv->mode == MODE_ASSEMBLE)
    out = xasprintf("%s.s", base);
  free(base);
  return out;
}

/* Makes the dependencies of a rewritten input name the user's file: the
 * target is named after it, and the file is fixed after the command. */
static void plan_deps(struct plan *p, struct command *c,
                      const struct invocation *inv, const char *out) {
  if (!inv->dep_stdout && !inv->dep_file)
    return;
  if (!inv->dep_target) {
    char *base = stem(c->in->path);
    char *target = out && inv->mode != MODE_PREPROCESS
                       ? xstrdup(out)
                       : xasprintf("%s.o", base);
    strv_push(&c->argv, "-MQ");
    strv_push(&c->argv, target);
    free(target);
    free(base);
  }
  if (inv->dep_mf) {
    c->depfile = xstrdup(inv->dep_mf);
    return;
  }
  if (inv->dep_file) {
    c->depfile = with_extension(out ? out : base_name(c->in->path), ".d");
  } else if (p->show) {
    c->depfile = temp_template(c->in->path, ".d");
  } else {
    int fd;
    c->depfile = temp_create(c->in->path, ".d", &fd);
    close(fd);
    c->copy_to = inv->output ? inv->output : "-";
  }
  strv_push(&c->argv, "-MF");
  strv_push(&c->argv, c->depfile);
}

/* One command per input when nothing is linked, so that each rewritten
 * input gets an output named after the user's file. */
static void plan_each(struct plan *p, const struct invocation *inv,
                      const struct home *h, const struct strv *cc) {
  if (inv->output && inv->nin > 1)
    fatal("cannot specify '-o' with '-c', '-S' or '-E' with multiple files");
  for (size_t i = 0; i < inv->nin; i++) {
    const struct input *in = &inv->in[i];
    struct command *c = plan_add(p);
    c->in = in->tmp ? in : NULL;
    command_start(&c->argv, cc, h, inv, in);
    push_user_args(&c->argv, inv, in);
    char *out = output_for(inv, in);
    if (out) {
      strv_push(&c->argv, "-o");
      strv_push(&c->argv, out);
    }
    if (c->in)
      plan_deps(p, c, inv, out);
    free(out);
  }
}

static void plan_make(struct plan *p, const struct invocation *inv,
                      const struct home *h, const struct strv *cc) {
  if (inv->nin == 0 || inv->mode == MODE_LINK)
    plan_single(p, inv, h, cc);
  else
    plan_each(p, inv, h, cc);
}

/* Runs every command, as gcc compiles every file even after an error;
 * returns the first failure's status. */
static int plan_run(const struct plan *p, bool verbose) {
  int status = 0;
  for (size_t i = 0; i < p->n; i++) {
    const struct command *c = &p->cmd[i];
    int st = run(c->argv.v, verbose);
    if (st == 0 && c->depfile)
      depfile_fix(c->depfile, c->in->tmp, c->in->path, c->copy_to);
    if (!status)
      status = st;
  }
  return status;
}

/* ---- modes of dagcc ---- */

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
  strv_append(&argv, cc);
  strv_take(&argv, xasprintf("-I%s", h->include));
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
  struct strv args = {0};
  clang_args(inv, h, cc, &args);
  struct translate_options opt = translate_options(inv, &args);
  enum translate_result r = translate_file(path, &opt, f);
  strv_release(&args);
  if (r == TRANSLATE_UNCHANGED)
    copy_source(path, f);
  if (f == stdout ? fflush(f) != 0 : fclose(f) != 0)
    fatal("cannot write '%s': %s", out ? out : "standard output",
          strerror(errno));
  if (r == TRANSLATE_FAILED)
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
