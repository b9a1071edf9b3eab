/* peer_starpu.c — StarPU's start and the checks of its calls, for the
 * StarPU peers of the benchmarks (peer_starpu.h). */
#define _POSIX_C_SOURCE 200809L /* starpu.h needs pthread rwlocks */

#include "peer_starpu.h"

#include <stdio.h>
#include <stdlib.h>

int peer_starpu_start(const char *sched, int ncpus) {
  struct starpu_conf conf;
  int rc = starpu_conf_init(&conf);
  if (rc)
    return rc;
  conf.sched_policy_name = sched; /* STARPU_SCHED in the environment wins */
  if (ncpus >= 0)
    conf.ncpus = ncpus;
  conf.ncuda = 0;
  conf.nopencl = 0;
  return starpu_init(&conf);
}

void peer_starpu_check(int rc, const char *what) {
  if (rc) {
    fprintf(stderr, "starpu: %s failed: %d\n", what, rc);
    exit(1);
  }
}
