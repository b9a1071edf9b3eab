/* staging.h — the page-locked host buffers that copies go through
 * (staging.c), and the threads that unpack them and pack chunks
 * (unpack.c).
 */
#ifndef DAG_DEVICE_STAGING_H
#define DAG_DEVICE_STAGING_H

#include "device/device.h"

/* A page-locked host buffer of a device's pool, of size class cls. */
struct stage {
  struct stage *next;
  void *at;
  int cls;
};
#define STAGE_CLASSES 8

struct device;
/* A buffer of at least `bytes` (at most dag__stage_max()) for copies with
 * d, waiting for one to come back if d has all it may; NULL when no
 * page-locked memory is left (the caller copies directly). */
struct stage *dag__stage_get(struct device *d, size_t bytes);
/* The same without waiting: NULL if d has none to spare. */
struct stage *dag__stage_try_get(struct device *d, size_t bytes);
/* Gives it back (any thread). */
void dag__stage_put(struct device *d, struct stage *s);
/* Bytes of s. */
size_t dag__stage_bytes(const struct stage *s);
size_t dag__stage_max(void);
/* Bytes of buffers d may have. */
size_t dag__stage_cap(const struct device *d);
/* Frees d's buffers (none may be out). */
void dag__stage_release(struct device *d);

/* Unpacking threads: four cores unpack at about 32 GB/s
 * (bench/gpu/copy_paths measures it on an H200 host), more than the
 * driver's own copy into pageable memory (16 GB/s) and most of the link,
 * with few threads beside the workers. */
#define UNPACKERS 4

/* Work handed to the unpacking threads: run(job) on one of them. */
struct unpack_job {
  struct unpack_job *next;
  void (*run)(struct unpack_job *job);
};
/* Starts the unpacking threads (with the first device), and stops them
 * once nothing is queued on any device. */
void dag__unpack_start(void);
void dag__unpack_stop(void);
/* Runs job on an unpacking thread, in the order given but not one after
 * the other (here, if there are none). */
void dag__unpack_later(struct unpack_job *job);
/* Runs the first job queued, here; false if there was none. */
bool dag__unpack_help(void);
/* Queues job if a thread is idle to take it at once; else false, and the
 * caller runs it. */
bool dag__unpack_if_idle(struct unpack_job *job);

#endif /* DAG_DEVICE_STAGING_H */
