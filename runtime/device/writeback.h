/* writeback.h — write-backs on speculation (writeback.c): what a device
 * task wrote goes back to the host before anyone waits for it.
 */
#ifndef DAG_DEVICE_WRITEBACK_H
#define DAG_DEVICE_WRITEBACK_H

#include "device/devices.h"

struct call;

/* Regions of at least this many bytes go back on their own, at full
 * speed; smaller ones are joined with their neighbours at a wait (the
 * tiles of a block row make whole rows: one copy, not one per tile). */
#define COPY_ALONE_BYTES ((size_t)4 << 20)

/* Device task c's body is done (on the device's thread, before c's task
 * is released): the regions it wrote that no task waiting for it writes
 * become candidates for a write-back. */
void dag__writeback_candidates(struct call *c);
/* Under the devices' lock: issues d's candidates while it has staging
 * buffers to spare, and tells validity of the write-backs done. */
void dag__writeback_pump(struct device *d);
/* Under the devices' lock: the bytes of r change holders; their
 * write-backs are voided. */
void dag__writeback_void(const struct region *r);
/* Under the devices' lock, before host memory in r (NULL: all of it) is
 * written: drops the write-backs not issued, waits for those in flight and
 * tells validity of them. */
void dag__writeback_settle(const struct region *r);

#endif /* DAG_DEVICE_WRITEBACK_H */
