/* child.h — a test of a path that ends the program: the path runs in a
 * child process, whose stderr comes back through a pipe, and the test
 * checks how the child ended and what it said. Check's exit tests
 * (tcase_add_exit_test) look at the status only, and a failed ck_assert
 * exits with 1 too, so an exit test expecting 1 passes when its own
 * assertions fail; these name the message the path must print.
 */
#ifndef DAG_TEST_CHILD_H
#define DAG_TEST_CHILD_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
  int status;     /* as waitpid gives it */
  char err[8192]; /* the start of what the child wrote on stderr */
};

/* Runs fn in a child process with its stderr captured, and exit(0) if fn
 * returns (at-exit handlers run, as when a test returns). */
static inline void child_run(void (*fn)(void), struct child *c) {
  int err[2];
  ck_assert_int_eq(pipe(err), 0);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(err[0]);
    dup2(err[1], STDERR_FILENO);
    close(err[1]);
    fn();
    exit(0);
  }
  close(err[1]);
  size_t got = 0;
  char sink[512]; /* past the buffer: read and dropped, so the child ends */
  for (ssize_t k = 1; k > 0;) {
    size_t room = sizeof c->err - 1 - got;
    k = room ? read(err[0], c->err + got, room)
             : read(err[0], sink, sizeof sink);
    if (k > 0 && room)
      got += (size_t)k;
  }
  c->err[got] = 0;
  close(err[0]);
  ck_assert_int_eq(waitpid(pid, &c->status, 0), pid);
}

/* fn, run in a child, exits with status code and says text on stderr. */
#define ck_assert_child_exits(fn, code, text)                                  \
  do {                                                                         \
    struct child child_;                                                       \
    child_run(fn, &child_);                                                    \
    ck_assert_msg(WIFEXITED(child_.status) &&                                  \
                      WEXITSTATUS(child_.status) == (code),                    \
                  "%s: wait status 0x%x, not exit %d; stderr:\n%s", #fn,       \
                  (unsigned)child_.status, (code), child_.err);                \
    ck_assert_msg(strstr(child_.err, (text)) != NULL,                          \
                  "%s: stderr lacks \"%s\":\n%s", #fn, (text), child_.err);    \
  } while (0)

#endif
