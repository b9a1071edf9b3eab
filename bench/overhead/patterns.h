/* patterns.h — the four patterns of common.h, written once for the
 * runtimes whose tasks are submitted by a call (dag.c, starpu.c; OpenMP's
 * are constructs, so omp.c writes its own). The including file defines
 * submit() and wait_all() (static, so that the compiler inlines them into
 * the loops below) and points its struct ovh_runtime at the patterns.
 */
#ifndef OVH_PATTERNS_H
#define OVH_PATTERNS_H

/* What a task accesses of its variable. */
enum ovh_access { OVH_NONE, OVH_IN, OVH_INOUT };

/* Submits one empty task that accesses vars[var] (nothing for OVH_NONE),
 * and waits for every task submitted. */
static void submit(enum ovh_access access, int var);
static void wait_all(void);

static void independent(long ntasks) {
  for (long i = 0; i < ntasks; i++)
    submit(OVH_NONE, 0);
  wait_all();
}

static void chain(long ntasks) {
  for (long i = 0; i < ntasks; i++)
    submit(OVH_INOUT, 0);
  wait_all();
}

static void chains(long nchains, long length) {
  for (long step = 0; step < length; step++)
    for (long c = 0; c < nchains; c++)
      submit(OVH_INOUT, (int)c);
  wait_all();
}

static void fanout(long ngroups, long nreaders) {
  for (long g = 0; g < ngroups; g++) {
    submit(OVH_INOUT, 0);
    for (long r = 0; r < nreaders; r++)
      submit(OVH_IN, 0);
  }
  submit(OVH_INOUT, 0);
  wait_all();
}

#endif /* OVH_PATTERNS_H */
