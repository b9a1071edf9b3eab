/* dagcc_find.c: what the driver finds around it: the compiler (DAG_CC,
 * else mpicc, else cc) and the flags its wrapper and its own headers add,
 * and where dag lives (its header and library). */
#include "dagcc.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void home_find(struct home *h) {
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

void home_release(struct home *h) {
  free(h->include);
  free(h->lib);
}

void push_link_flags(struct strv *argv, const struct home *h) {
  strv_take(argv, xasprintf("-L%s", h->lib));
  strv_push(argv, "-ldag");
  strv_take(argv, xasprintf("-Wl,-rpath,%s", h->lib));
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

void compiler_find(struct strv *cc, bool verbose) {
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

void wrapper_flags(const struct strv *cc, struct strv *flags) {
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

/* A temporary folder of links to the entries of `dir` that `builtin`
 * lacks, or NULL when there are none; `dir` itself when no folder can be
 * made. */
static char *headers_not_in(const char *dir, const char *builtin) {
  DIR *d = opendir(dir);
  if (!d)
    return NULL;
  char *links = NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
        file_exists(builtin, e->d_name))
      continue;
    if (!links && !(links = temp_folder("dagcc-include")))
      break;
    char *target = xasprintf("%s/%s", dir, e->d_name);
    char *link = xasprintf("%s/%s", links, e->d_name);
    temp_track(link);
    if (symlink(target, link) != 0)
      temp_forget(link);
    free(target);
    free(link);
  }
  closedir(d);
  return e && !links ? xstrdup(dir) : links;
}

void compiler_headers(const struct strv *cc, struct strv *flags) {
  struct strv words = {0};
  if (compiler_says(cc, "-print-file-name=include", &words) && words.n == 1 &&
      words.v[0][0] == '/' && access(words.v[0], X_OK) == 0) {
    char *builtin = translate_builtin_headers();
    char *dir =
        builtin ? headers_not_in(words.v[0], builtin) : xstrdup(words.v[0]);
    if (dir) {
      strv_push(flags, "-idirafter");
      strv_take(flags, dir);
    }
    free(builtin);
  }
  strv_release(&words);
}
