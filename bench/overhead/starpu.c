/* starpu.c — the overhead patterns as StarPU 1.3 tasks.
 *
 * Every task is inserted with starpu_task_insert() from the main thread and
 * runs an empty CPU function; the accesses are STARPU_RW or STARPU_R on
 * variable handles registered once at start (one per chain of pattern c),
 * so registration is not timed. starpu_task_wait_for_all() ends a pattern.
 * Unlike dag and OpenMP, StarPU's submitting thread runs no tasks: the
 * requested thread count is the number of CPU workers (STARPU_NCPU), beside
 * the main thread. The scheduler is lws unless STARPU_SCHED says otherwise;
 * the records name it.
 */
#define _POSIX_C_SOURCE 200809L

#include "common.h"
#include "patterns.h"
#include "peer_starpu.h"

#include <stdio.h>

static int vars[OVH_MAX_CHAINS];
static starpu_data_handle_t handles[OVH_MAX_CHAINS];
static char config[64];

static void noop(void *buffers[], void *arg) {}

static struct starpu_codelet noop_cl = PEER_STARPU_CODELET(noop, "noop");

static int sp_init(int nthreads) {
  int rc = peer_starpu_start("lws", nthreads);
  if (rc) {
    fprintf(stderr, "starpu: starpu_init failed: %d\n", rc);
    return 1;
  }
  for (int i = 0; i < OVH_MAX_CHAINS; i++)
    starpu_variable_data_register(&handles[i], STARPU_MAIN_RAM,
                                  (uintptr_t)&vars[i], sizeof vars[i]);
  struct starpu_sched_policy *policy = starpu_sched_ctx_get_sched_policy(0);
  snprintf(config, sizeof config, "sched %s",
           policy && policy->policy_name ? policy->policy_name : "?");
  return 0;
}

static int sp_threads(void) { return (int)starpu_cpu_worker_get_count(); }

static const char *sp_config(void) { return config; }

static void sp_finalize(void) {
  for (int i = 0; i < OVH_MAX_CHAINS; i++)
    starpu_data_unregister(handles[i]);
  starpu_shutdown();
}

static void submit(enum ovh_access access, int var) {
  int rc = access == OVH_NONE
               ? starpu_task_insert(&noop_cl, 0)
               : starpu_task_insert(&noop_cl,
                                    access == OVH_IN ? STARPU_R : STARPU_RW,
                                    handles[var], 0);
  peer_starpu_check(rc, "starpu_task_insert");
}

static void wait_all(void) {
  peer_starpu_check(starpu_task_wait_for_all(), "starpu_task_wait_for_all");
}

int main(int argc, char **argv) {
  static const struct ovh_runtime rt = {
      .name = "starpu",
      .init = sp_init,
      .num_threads = sp_threads,
      .config = sp_config,
      .finalize = sp_finalize,
      .independent = independent,
      .chain = chain,
      .chains = chains,
      .fanout = fanout,
  };
  return ovh_main(argc, argv, &rt);
}
