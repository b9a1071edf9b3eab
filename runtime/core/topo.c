/* topo.c — the process's cores, from hwloc, and pinning workers to them.
 *
 * A worker gets one core of the process's cpuset (all the core's hardware
 * threads that are in the cpuset), in the order hwloc lists cores, so that
 * neighbouring workers share caches. With more workers than cores the list
 * wraps around. The ranks of one machine split its cores between them
 * (dag__topo_share). Written once at start-up, read-only afterwards.
 */
#include "core/internal.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <hwloc/linux.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hwloc_topology_t topology;
static hwloc_cpuset_t *core_sets;
static int ncores;

int dag__topo_init(void) {
  if (hwloc_topology_init(&topology) || hwloc_topology_load(topology))
    return 1; /* no topology: one worker, unpinned */

  hwloc_cpuset_t allowed = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology, allowed, HWLOC_CPUBIND_PROCESS))
    hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topology));

  int n = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  core_sets = calloc(n > 0 ? (size_t)n : 1, sizeof *core_sets);
  for (int i = 0; core_sets && i < n; i++) {
    hwloc_obj_t core =
        hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, (unsigned)i);
    if (!hwloc_bitmap_intersects(core->cpuset, allowed))
      continue;
    hwloc_cpuset_t set = hwloc_bitmap_dup(core->cpuset);
    hwloc_bitmap_and(set, set, allowed);
    core_sets[ncores++] = set;
  }
  hwloc_bitmap_free(allowed);
  return ncores > 0 ? ncores : 1;
}

/* The runtime's other threads run on any of the cores kept (threads.c). */
static void helpers_on_cores_kept(void) {
  hwloc_cpuset_t all = hwloc_bitmap_alloc();
  cpu_set_t cpus;
  if (!all)
    return;
  for (int i = 0; i < ncores; i++)
    hwloc_bitmap_or(all, all, core_sets[i]);
  if (ncores &&
      !hwloc_cpuset_to_glibc_sched_affinity(topology, all, &cpus, sizeof cpus))
    dag__helpers_run_on(&cpus);
  hwloc_bitmap_free(all);
}

int dag__topo_share(int part, int nparts) {
  if (nparts <= 1 || ncores <= 1) {
    helpers_on_cores_kept();
    return ncores > 0 ? ncores : 1;
  }
  /* More ranks than cores: one core each, ranks sharing cores in turn. */
  int first =
      ncores < nparts ? part % ncores : (int)((long)part * ncores / nparts);
  int last =
      ncores < nparts ? first + 1 : (int)((long)(part + 1) * ncores / nparts);
  for (int i = 0; i < ncores; i++)
    if (i < first || i >= last)
      hwloc_bitmap_free(core_sets[i]);
  memmove(core_sets, core_sets + first,
          (size_t)(last - first) * sizeof *core_sets);
  ncores = last - first;
  helpers_on_cores_kept();
  return ncores;
}

int dag__topo_cores(void) { return ncores > 0 ? ncores : 1; }

void dag__topo_bind_worker(int id) {
  if (ncores == 0)
    return;
  /* Failing to pin (a container that forbids it) only costs locality. */
  (void)hwloc_set_cpubind(topology, core_sets[id % ncores],
                          HWLOC_CPUBIND_THREAD);
}

bool dag__topo_near_pci(const char *bus_id, cpu_set_t *cpus) {
  /* The kernel's list of the CPUs local to the device, as hwloc's own CUDA
   * helpers read it: no PCI scan, no plugin. Bus ids come with 4 or 8 hex
   * digits of domain, in either case. */
  unsigned domain, bus, dev, fn;
  if (sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4)
    return false;
  char path[96];
  snprintf(path, sizeof path,
           "/sys/bus/pci/devices/%04x:%02x:%02x.%x/local_cpus", domain, bus,
           dev, fn);
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  bool found = set && !hwloc_linux_read_path_as_cpumask(path, set);
  if (found && topology) /* only CPUs this process may use */
    hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(topology));
  found =
      found && !hwloc_bitmap_iszero(set) &&
      !hwloc_cpuset_to_glibc_sched_affinity(topology, set, cpus, sizeof *cpus);
  hwloc_bitmap_free(set);
  return found;
}

void dag__topo_release(void) {
  for (int i = 0; i < ncores; i++)
    hwloc_bitmap_free(core_sets[i]);
  free(core_sets);
  core_sets = NULL;
  ncores = 0;
  if (topology)
    hwloc_topology_destroy(topology);
  topology = NULL;
}
