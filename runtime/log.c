/* log.c — the runtime's one voice on stderr (see base.h). Every message is
 * one line, written with one call so that the lines of several threads do
 * not mix, and prefixed so that the output of a multi-rank run says who
 * spoke: "dag: " on one rank, "dag[r1 w3]: " (rank 1, worker 3) on several.
 */
#include "base.h"

#include "settings.h"

#include <stdio.h>
#include <string.h>

static int log_rank, log_nranks = 1;
static _Thread_local char thread_name[16];

void dag__log_rank(int rank, int nranks) {
  log_rank = rank;
  log_nranks = nranks;
}

void dag__log_thread(const char *name) {
  snprintf(thread_name, sizeof thread_name, "%s", name);
}

bool dag__log_wanted(enum log_level level) {
  return level <= dag__settings()->log;
}

static int prefix(char *buf, size_t size) {
  if (log_nranks < 2)
    return snprintf(buf, size, "dag: ");
  return snprintf(buf, size, "dag[r%d%s%s]: ", log_rank,
                  thread_name[0] ? " " : "", thread_name);
}

void dag__log(enum log_level level, const char *fmt, ...) {
  if (!dag__log_wanted(level))
    return;
  static const char *const words[] = {"", "error: ", "warning: ", "", ""};
  char line[2048];
  size_t n = (size_t)prefix(line, sizeof line);
  n += (size_t)snprintf(line + n, sizeof line - n, "%s", words[level]);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - n, fmt, ap);
  va_end(ap);
  n = strlen(line);
  if (n == sizeof line - 1)
    n--; /* cut: keep room for the newline */
  line[n++] = '\n';
  fwrite(line, 1, n, stderr);
  fflush(stderr);
}
