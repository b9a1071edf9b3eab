/* registered.h — host memory registered with the devices (registered.c):
 * page-locked, so that a device copies it by DMA at the link's rate with
 * no staging buffer and no core spent packing it.
 */
#ifndef DAG_DEVICE_REGISTERED_H
#define DAG_DEVICE_REGISTERED_H

#include "base.h"

/* Registers [p, p + bytes) with every device of this rank: now if devices
 * are open, else when they open (nothing is asked of a driver until a
 * device is used). `alloc` names the dag_alloc allocation it is ("dag_alloc
 * memory of ... allocated at f.c:12"), NULL for the program's own memory
 * (dag_register). Returns 0, or DAG_EINVAL where it overlaps a
 * registration, or the device's error, each with a message. */
int dag__registered_add(void *p, size_t bytes, const char *alloc);

/* Unregisters the registration that starts at p, once no copy of it is in
 * flight. Returns 0, or DAG_EINVAL (with a message) when none starts at p. */
int dag__registered_remove(void *p);

/* Of [lo, hi): the bytes from lo that are all registered (*registered
 * true) or all not (false), at least one. Under the devices' lock, or
 * while no registration can go (a copy being planned). */
size_t dag__registered_run(uintptr_t lo, uintptr_t hi, bool *registered);

/* When the devices open (device.c): registers what was added before. */
void dag__registered_open(void);
/* When they close: unregisters everything, and forgets it. */
void dag__registered_close(void);

#endif /* DAG_DEVICE_REGISTERED_H */
