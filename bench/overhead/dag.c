/* dag.c — the overhead patterns as dag tasks, through include/dag.h.
 *
 * The main thread submits every task with dag_submit() and waits with
 * dag_taskwait(), running tasks meanwhile as worker 0; the accesses are
 * DAG_INOUT or DAG_IN on one int each (dag_region_1d). The thread count
 * goes to the runtime through DAG_NUM_THREADS, set before dag_init().
 *
 * Built with OVH_DISTRIBUTED (overhead_dag_dist), the variables come from
 * dag_alloc, one int per block dealt round-robin to the ranks, so that the
 * patterns run under mpiexec without moving data: every task runs at the
 * home of its variable (the independent tasks round-robin), and every rank
 * plans every task. Rank 0 reports.
 */
#define _POSIX_C_SOURCE 200809L

#include "common.h"
#include "patterns.h"

#include <dag.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef OVH_DISTRIBUTED
static int *vars;
#else
static int vars[OVH_MAX_CHAINS];
#endif

static void noop(void *args) {}

static const struct dag_task_info noop_info = {
    .fn = noop,
    .label = "noop",
    .file = __FILE__,
    .line = __LINE__,
};

static void check(int rc, const char *what) {
  if (rc) {
    fprintf(stderr, "dag: %s failed: %s\n", what, dag_strerror(rc));
    exit(1);
  }
}

static int d_init(int nthreads) {
  char n[16];
  snprintf(n, sizeof n, "%d", nthreads);
  if (setenv("DAG_NUM_THREADS", n, 1)) {
    perror("setenv");
    return 1;
  }
  int rc = dag_init();
  if (rc) {
    fprintf(stderr, "dag: dag_init failed: %s\n", dag_strerror(rc));
    return 1;
  }
#ifdef OVH_DISTRIBUTED
  vars = dag_alloc(OVH_MAX_CHAINS * sizeof *vars,
                   dag_dist_block_cyclic(sizeof *vars, 1));
  if (!vars) {
    fprintf(stderr, "dag: dag_alloc failed: %s\n", dag_last_error());
    return 1;
  }
#endif
  return 0;
}

static int d_quiet(void) { return dag_rank() != 0; }

#ifdef OVH_DISTRIBUTED
static const char *d_config(void) {
  static char ranks[32];
  snprintf(ranks, sizeof ranks, "%d rank%s", dag_nranks(),
           dag_nranks() > 1 ? "s" : "");
  return ranks;
}
#endif

static int d_threads(void) { return dag_num_workers(); }

static void d_finalize(void) { dag_finalize(); }

static void submit(enum ovh_access access, int var) {
  if (access == OVH_NONE) {
    check(dag_submit(&noop_info, NULL, 0, NULL, 0), "dag_submit");
    return;
  }
  struct dag_access acc =
      dag_access_of(access == OVH_IN ? DAG_IN : DAG_INOUT,
                    dag_region_1d(&vars[var], sizeof vars[var]));
  check(dag_submit(&noop_info, NULL, 0, &acc, 1), "dag_submit");
}

static void wait_all(void) { check(dag_taskwait(), "dag_taskwait"); }

int main(int argc, char **argv) {
  static const struct ovh_runtime rt = {
#ifdef OVH_DISTRIBUTED
      .name = "dag-dist",
      .config = d_config,
#else
      .name = "dag",
#endif
      .init = d_init,
      .num_threads = d_threads,
      .quiet = d_quiet,
      .finalize = d_finalize,
      .independent = independent,
      .chain = chain,
      .chains = chains,
      .fanout = fanout,
  };
  return ovh_main(argc, argv, &rt);
}
