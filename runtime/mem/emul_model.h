/* emul_model.h — device models: what the emulated device's operations cost
 * in timed mode (DAG_EMUL_MODEL), in place of doing them.
 *
 * A model gives the copy link's bandwidth and latency each way (and from
 * memory that is not page-locked), the rate at which one core packs a
 * copy's rows for it (staging) and all cores together, the device's
 * memory, the latency of a device body's work, and rates per task
 * label: work per second on the device and on one CPU core, the work being
 * what the task declares (dag_task_info.work: flops, or bytes for a
 * memory-bound body). A model is built in (`h200`) or read from a file; the
 * format is in docs/gpu.md.
 */
#ifndef DAG_EMUL_MODEL_H
#define DAG_EMUL_MODEL_H

#include "base.h"

#define EMUL_MODEL_RATES 64

struct emul_rate {
  char label[48];
  bool on_device; /* else per CPU core */
  double per_second;
};

struct emul_model {
  char name[48];
  size_t memory;                     /* bytes */
  double in_bytes_per_s, in_latency; /* host to device; seconds */
  double out_bytes_per_s, out_latency;
  double launch; /* seconds before a device body's work starts */
  /* One core's rate of packing a copy's rows into a staging buffer (and
   * out of one); 0: the model's copies are not staged. And the rate of all
   * cores packing at once (the host's memory bus); 0: no cap. */
  double pack_bytes_per_s, pack_all_bytes_per_s;
  /* The link's rate for a copy whose host side is not page-locked, which
   * a GPU's driver stages itself; 0: the link's. */
  double pageable_bytes_per_s;
  struct emul_rate rates[EMUL_MODEL_RATES];
  int nrates;
};

/* Loads the model `which`: the name of a built-in one or a file's path.
 * Returns 0, or DAG_EINVAL with a message naming the file and line. */
int dag__emul_model_load(const char *which, struct emul_model *m);

/* Seconds that `work` of a task labelled `label` takes on the device or on
 * one CPU core; negative when the model has no rate for it. */
double dag__emul_model_seconds(const struct emul_model *m, const char *label,
                               bool on_device, double work);

/* Seconds one core takes to pack `bytes` into a staging buffer or out of
 * one. */
double dag__emul_model_pack_seconds(const struct emul_model *m, size_t bytes);

/* Seconds a copy of `bytes` takes, to the device or back, from host memory
 * that is page-locked (pinned) or not. */
double dag__emul_model_copy_seconds(const struct emul_model *m, bool to_device,
                                    size_t bytes, bool pinned);

#endif /* DAG_EMUL_MODEL_H */
