/* gpu_space.c — the CUDA and HIP devices behind the memory-space table
 * (runtime/mem/space_gpu.c), through the dag__space_* wrappers, with the
 * checks the emulated device passes (space_checks.h): a round trip, a
 * strided tile, a queue in order around a device body that queues a copy on
 * dag_cuda_stream() (dag_hip_stream(); gpu_body.c), one granule seen at
 * two addresses, a PCI address near which hwloc finds CPUs.
 * Every device of every GPU space built is checked; exits 77 (skipped) when
 * there is none. A plain program, not a Check suite: Check's fork is unsafe
 * after GPU setup.
 */
#include "gpu_body.h"
#include "space_checks.h"

#include "api/api.h" /* the spaces built (api/backend.c) */

void *gpu_body_stream;
int gpu_body_error;

/* Per space built: its device body and the stream function of its API. */
static const struct kind {
  const char *name;
  dag_task_fn move;
  void *(*stream)(void);
} kinds[] = {
#ifdef DAG_TEST_CUDA
    {"cuda", cuda_move, dag_cuda_stream},
#endif
#ifdef DAG_TEST_HIP
    {"hip", hip_move, dag_hip_stream},
#endif
    {NULL, NULL, NULL},
};

static const struct kind *kind_of(const char *name) {
  for (const struct kind *k = kinds; k->name; k++)
    if (!strcmp(k->name, name))
      return k;
  return NULL;
}

static void check_device(const struct space_ops *ops, const struct kind *k,
                         int index) {
  struct space s;
  SPACE_CHECK(dag__space_open(&s, ops, index) == 0);
  space_check_round_trip(&s);
  space_check_strided_tile(&s);
  space_check_packed_tile(&s);
  gpu_body_stream = NULL;
  gpu_body_error = -1;
  space_check_queue_in_order(&s, k->move);
  SPACE_CHECK(gpu_body_stream != NULL); /* inside the device body */
  SPACE_CHECK(gpu_body_error == 0);
  SPACE_CHECK(k->stream() == NULL); /* outside device bodies */
  space_check_alias(&s);
  space_check_map_run(&s);
  /* Its PCI address, and hwloc's CPUs near it, where its thread runs. */
  char bus[32];
  cpu_set_t near;
  SPACE_CHECK(dag__space_bus_id(&s, bus, sizeof bus));
  SPACE_CHECK(dag__topo_near_pci(bus, &near) && CPU_COUNT(&near) > 0);
  printf("%s device %d: PCI %s, %d CPUs near it\n", ops->name, index, bus,
         CPU_COUNT(&near));
  dag__space_close(&s);
  printf("%s device %d: passed\n", ops->name, index);
}

int main(void) {
  int devices = 0;
  const struct space_ops *const *spaces = dag__space_backends_by_kind();
  for (int i = 0; i < DAG_NDEVICE_KINDS; i++) {
    if (!spaces[i])
      continue; /* the CPU, or a toolkit not built */
    const struct kind *k = kind_of(spaces[i]->name);
    char why[1024] = "";
    int count = spaces[i]->count(why, sizeof why);
    printf("%s: %d device(s)%s%s\n", spaces[i]->name, count, count ? "" : ": ",
           why);
    SPACE_CHECK(k != NULL); /* a space built, and no body for it here */
    for (int d = 0; d < count; d++)
      check_device(spaces[i], k, d);
    devices += count;
  }
  if (!devices) {
    printf("no GPU device in the spaces built: skipped\n");
    return 77;
  }
  return 0;
}
