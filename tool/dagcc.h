/* dagcc.h: what the files of the driver share (dagcc.c and dagcc_*.c): the
 * invocation read from the command line, the compiler's commands, where dag
 * lives, and the helpers to run processes and keep temporaries. The
 * rewriter is reached through translate.h only. */
#ifndef DAG_TOOL_DAGCC_H
#define DAG_TOOL_DAGCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "translate.h"

/* ---- dagcc_util.c: small helpers */

/* A NULL-terminated list of owned strings: an argument vector. */
struct strv {
  char **v;
  size_t n, cap;
};

/* Appends `str`, which the list now owns. */
void strv_take(struct strv *s, char *str);
void strv_push(struct strv *s, const char *str);
void strv_append(struct strv *s, const struct strv *t);
void strv_release(struct strv *s);
/* Splits `text` at blanks; no quoting. */
void strv_split(struct strv *s, const char *text);

/* Prints `dagcc: error: <message>` and exits 1. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

bool starts_with(const char *s, const char *prefix);
bool ends_with(const char *s, const char *suffix);
/* The last component of `path`. */
const char *base_name(const char *path);
/* The directory part of `path`: "." when it has none. */
char *dir_name(const char *path);
/* The last component of `path` without its extension: "src/foo.c" -> "foo". */
char *stem(const char *path);
/* `path` with its extension replaced: ("out/foo.o", ".d") -> "out/foo.d". */
char *with_extension(const char *path, const char *ext);
/* The bytes of the file at `path` (not NUL-terminated), their number in
 * *len; NULL when it cannot be opened. */
char *read_file(const char *path, size_t *len);

/* ---- dagcc_spawn.c: processes and temporary files */

/* Removes the temporaries at exit and on the signals that end dagcc.
 * Signals already ignored (nohup, background jobs) stay ignored; handlers
 * installed before main (sanitizers) stay in place. */
void install_handlers(void);
/* Removes `path` at exit unless temp_forget() says otherwise. */
void temp_track(const char *path);
/* Stops tracking `path`: it is kept. */
void temp_forget(const char *path);
/* Removes `path` now. */
void temp_remove(const char *path);
/* Creates a tracked temporary folder "$TMPDIR/<name>-XXXXXX" and returns
 * its name, or NULL (errno set). What is put in it must be tracked too, to
 * be removed before the folder. */
char *temp_folder(const char *name);
/* The name of a temporary for `orig`: "$TMPDIR/foo-XXXXXX<ext>". */
char *temp_template(const char *orig, const char *ext);
/* Creates a tracked temporary named after `orig`; returns its name, its
 * descriptor in *fd. */
char *temp_create(const char *orig, const char *ext, int *fd);

/* Prints `argv` so that a POSIX shell reads it back as the same words. */
void print_command(FILE *out, char *const argv[]);
/* Runs `argv` (printed first on stderr when `verbose`) and waits for it;
 * returns its exit status, or 128 + the signal that ended it, as a shell
 * would, or 127 when it cannot run. */
int run(char *const argv[], bool verbose);
/* Runs `argv` with its standard output in *text (stderr discarded); returns
 * true when it exits 0. */
bool run_capture(char *const argv[], char **text);

/* ---- dagcc_find.c: the compiler, and where dag lives */

struct home {
  char *include, *lib;
};

/* DAG_HOME, else the installation dagcc runs from, else the build tree. */
void home_find(struct home *h);
void home_release(struct home *h);
/* -L, -ldag and the rpath of dag's library. */
void push_link_flags(struct strv *argv, const struct home *h);

/* The compiler: DAG_CC split at blanks, else mpicc, else cc. */
void compiler_find(struct strv *cc, bool verbose);
/* The search paths and macros an MPI wrapper adds, which libclang must see
 * too: Open MPI's --showme:compile, else MPICH's -compile_info. */
void wrapper_flags(const struct strv *cc, struct strv *flags);
/* The compiler's own headers that libclang lacks (gcc's omp.h,
 * quadmath.h...), searched by libclang after its own and the system's:
 * links to them in a temporary folder. The compiler's versions of
 * libclang's own headers stay out, since libclang's would reach them with
 * #include_next (gcc's stdatomic.h, whose builtins clang refuses). */
void compiler_headers(const struct strv *cc, struct strv *flags);

/* ---- dagcc_args.c: the command line */

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
  bool dag_macro_set; /* the flags, the user's or DAG_CC's, define or
                         undefine _DAG (translate.h): dagcc does not */
};

/* Reads `argv` (NULL-terminated, argv[0] the driver) into `inv`, which
 * points into it; exits with a message on a missing option value. */
void parse_args(struct invocation *inv, char **argv);
void invocation_release(struct invocation *inv);
/* Appends those of the `n` compiler flags in `words` that libclang needs,
 * as parse_args() picks them from the command line. */
void push_clang_flags(struct strv *clang, char *const *words, size_t n);

/* ---- dagcc_plan.c: the compiler's commands */

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

/* The start of a compile command: the compiler, -I for dag.h and, unless
 * the flags set it, -D_DAG=<version>. */
void push_compile_start(struct strv *argv, const struct strv *cc,
                        const struct home *h, const struct invocation *inv);
/* The commands that compile `inv` with the compiler `cc`. */
void plan_make(struct plan *p, const struct invocation *inv,
               const struct home *h, const struct strv *cc);
/* Runs every command, as gcc compiles every file even after an error;
 * returns the first failure's status. */
int plan_run(const struct plan *p, bool verbose);
void plan_release(struct plan *p);

#endif
