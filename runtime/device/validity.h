/* validity.h — which spaces hold a valid copy of each byte of host memory
 * (validity.c), the regions it keeps whole (region_table.c), and ranges of
 * bytes with their holders, collected before acting on them. Under the
 * devices' lock (devices.h).
 */
#ifndef DAG_DEVICE_VALIDITY_H
#define DAG_DEVICE_VALIDITY_H

#include "device/device.h"

/* The spaces that hold a valid copy of a byte: bit 0 the host, bit 1 + i
 * open device i. Never empty. */
typedef uint8_t holders_t;
#define HOST ((holders_t)1)
#define MAX_DEVICES 7

/* Calls fn on the maximal ranges of [lo, hi) whose bytes have the same
 * holders, in order. fn must not change validity. */
void dag__validity_each(uintptr_t lo, uintptr_t hi,
                        void (*fn)(uintptr_t lo, uintptr_t hi,
                                   holders_t holders, void *arg),
                        void *arg);
/* Every byte of [lo, hi) gets holders (holders & keep) | add. */
void dag__validity_update(uintptr_t lo, uintptr_t hi, holders_t keep,
                          holders_t add);
/* The same for every byte of r: one lookup when r is kept whole. */
void dag__validity_update_region(const struct region *r, holders_t keep,
                                 holders_t add);
/* Whether r is kept whole, every byte with the same holders (*holders), or
 * nothing is recorded for it (the host alone holds it): a lookup, which
 * may say no for a region whose bytes happen to agree. */
bool dag__validity_whole(const struct region *r, holders_t *holders);
/* After every device's data went back to the host: the host alone holds
 * every byte (regions kept whole stay so). */
void dag__validity_forget_devices(void);
/* Whether some byte is held by a device. */
bool dag__validity_any(void);
/* Calls whole on every region kept whole, and piece on every other range,
 * held otherwise than by the host alone (in no particular order); neither
 * may change validity. */
void dag__validity_each_held(void (*whole)(const struct region *r,
                                           holders_t holders, void *arg),
                             void (*piece)(uintptr_t lo, uintptr_t hi,
                                           holders_t holders, void *arg),
                             void *arg);
void dag__validity_release(void);

/* What a device task reads on device i waits for: the copies that brought
 * it there, planned by the device task of turn `arrival - 1` there (0:
 * none is in flight; ARRIVAL_UNKNOWN: every copy before). Kept per region
 * kept whole, and reset when it is written: its readers wait for the
 * writer's task. */
#define ARRIVAL_UNKNOWN UINT64_MAX
uint64_t dag__validity_arrival(const struct region *r, int device);
/* Device task `turn` on device i planned a copy of r's bytes there. */
void dag__validity_arrives(const struct region *r, int device, uint64_t turn);

/* Regions validity keeps whole: every byte of r has `holders`
 * (region_table.c). */
struct region_entry {
  struct region r;
  holders_t holders;
  uint64_t arrival[MAX_DEVICES]; /* see dag__validity_arrival */
  int cls;                       /* the size class of its extent */
  size_t in_class;               /* its place in that class's list */
  struct region_entry *chain;    /* the next of its hash bucket */
};
/* The entry of exactly r's shape, or NULL. */
struct region_entry *dag__regions_find(const struct region *r);
struct region_entry *dag__regions_add(const struct region *r,
                                      holders_t holders);
void dag__regions_remove(struct region_entry *e);
/* The entries that share a byte with r, into *out (valid until the next
 * call); returns how many. */
size_t dag__regions_meeting(const struct region *r, struct region_entry ***out);
/* Calls fn on every entry (fn may change its holders, not remove it). */
void dag__regions_each(void (*fn)(struct region_entry *e, void *arg),
                       void *arg);
void dag__regions_release(void);

/* Ranges of host memory with their holders, collected before acting on
 * them (validity may not change while it is walked): those whose holders h
 * have (h & mask) == want. */
struct ranges {
  struct range {
    uintptr_t lo, hi;
    holders_t holders;
  } * at;
  size_t n, cap;
  holders_t mask, want;
};

/* A callback of dag__validity_each (and _each_held) that adds to the
 * struct ranges `arg`. */
void dag__ranges_add(uintptr_t lo, uintptr_t hi, holders_t h, void *ranges);
/* Adds each span of r, all of whose bytes have `holders`, if out wants
 * them. */
void dag__ranges_add_region(const struct region *r, holders_t holders,
                            struct ranges *out);
/* Adds the ranges of r that out wants, each with its holders. */
void dag__validity_collect(const struct region *r, struct ranges *out);
/* The host now holds the ranges of r it lacked (dag__copy_back brought
 * them); `within`, if not NULL, is a region that holds them all. */
void dag__validity_host_copied(const struct ranges *r,
                               const struct region *within);

/* Collects the ranges whose holders lack `bit` (for dag__validity_collect). */
static inline struct ranges dag__ranges_lacking(holders_t bit) {
  return (struct ranges){.mask = bit, .want = 0};
}

#endif /* DAG_DEVICE_VALIDITY_H */
