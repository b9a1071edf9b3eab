/* env.c — reading the DAG_* environment variables that hold numbers: one
 * parser, one warning for a value that is not one, for every layer.
 */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

long dag__env_long(const char *name, long fallback, long lo, long hi) {
  const char *v = getenv(name);
  if (!v || !*v)
    return fallback;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || *end || n < lo || n > hi) {
    fprintf(stderr,
            "dag: warning: %s='%s' is not a number from %ld to %ld; using "
            "%ld\n",
            name, v, lo, hi, fallback);
    return fallback;
  }
  return n;
}
