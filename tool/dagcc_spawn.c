/* dagcc_spawn.c: the processes and the temporary files of the driver.
 *
 * The compiler runs through posix_spawnp, never a shell, and its exit
 * status is dagcc's. dagcc owns its temporary files: they are removed on
 * every way out, including SIGINT, SIGTERM, SIGHUP, SIGQUIT and a crash (the
 * handler passes the signal on to a running compiler, waits for it and
 * unlinks them), unless --keep asks for the rewritten sources. The list of
 * temporaries changes only with those signals blocked, so the handler
 * always sees a whole list. */
#include "dagcc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

/* Async-signal-safe: only unlink, then rmdir for the folders, which are
 * empty once the files in them are gone. */
static void temps_unlink(void) {
  for (size_t i = 0; i < temps.n; i++)
    unlink(temps.path[i]);
  for (size_t i = 0; i < temps.n; i++)
    rmdir(temps.path[i]);
}

/* Stops the compiler and waits for it, so that nothing writes after dagcc
 * is gone. errno is the interrupted code's: kept as it was. */
static void on_signal(int sig) {
  int saved = errno;
  if (child_pid > 0 && kill(child_pid, sig) == 0)
    waitpid(child_pid, NULL, 0);
  temps_unlink();
  signal(sig, SIG_DFL);
  errno = saved;
  raise(sig);
}

void install_handlers(void) {
  atexit(temps_unlink);
  for (size_t i = 0; i < sizeof caught_signals / sizeof *caught_signals; i++) {
    struct sigaction old, sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    if (sigaction(caught_signals[i], NULL, &old) == 0 &&
        old.sa_handler == SIG_DFL)
      sigaction(caught_signals[i], &sa, NULL);
  }
}

void temp_track(const char *path) {
  sigset_t old;
  block_signals(&old);
  if (temps.n == temps.cap) {
    temps.cap = temps.cap ? 2 * temps.cap : 8;
    temps.path = xrealloc(temps.path, temps.cap * sizeof *temps.path);
  }
  temps.path[temps.n++] = xstrdup(path);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

void temp_forget(const char *path) {
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

void temp_remove(const char *path) {
  unlink(path);
  temp_forget(path);
}

static const char *temp_dir(void) {
  const char *dir = getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

char *temp_template(const char *orig, const char *ext) {
  char *base = stem(orig);
  char *name = xasprintf("%s/%s-XXXXXX%s", temp_dir(), base, ext);
  free(base);
  return name;
}

char *temp_folder(const char *name) {
  char *path = xasprintf("%s/%s-XXXXXX", temp_dir(), name);
  sigset_t old;
  block_signals(&old);
  bool made = mkdtemp(path) != NULL;
  int err = errno;
  if (made)
    temp_track(path);
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (!made) {
    free(path);
    errno = err;
    return NULL;
  }
  return path;
}

char *temp_create(const char *orig, const char *ext, int *fd) {
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

void print_command(FILE *out, char *const argv[]) {
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

int run(char *const argv[], bool verbose) {
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

bool run_capture(char *const argv[], char **text) {
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
