/* check_space.c — the emulated device behind the memory-space table
 * (runtime/mem/space.h, space_emul.c), through the dag__space_* wrappers,
 * as the runtime will use a GPU: the checks every space passes
 * (tests/gpu/space_checks.h, which the GPU test runs on CUDA and HIP), and
 * the emulated device's own: its memory is its own, capped, poisoned and
 * cut into granules (2 MiB unless DAG_EMUL_GRANULE says; these tests use
 * pages, to count them in little memory); device bodies run on the
 * device's compute thread; what is queued completes later than it was
 * queued (DAG_EMUL_DELAY_US); a copy does not wait for a body queued
 * before it, and a body waits for the copies up to its ticket and no more,
 * at any jitter; urgent bodies go first; an injected failure reaches the done
 * function, and the work is not done.
 */
#include <check.h>
#include <dag.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define SPACE_CHECK(cond) ck_assert(cond)
#include "../gpu/space_checks.h"
#include "child.h"
#include "core/core.h"
#include "run_suite.h"

static struct space dev;

static void open_device(const char *mem, const char *delay_us) {
  ck_assert_int_eq(setenv("DAG_EMUL_GRANULE", "4K", 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", mem, 1), 0);
  ck_assert_int_eq(setenv("DAG_EMUL_DELAY_US", delay_us, 1), 0);
  ck_assert_int_eq(dag__space_open(&dev, &dag__space_emul, 0), 0);
}

static void teardown(void) {
  if (dev.state)
    dag__space_close(&dev);
}

/* 64K of 4K granules, one of them the libraries' reserve: 60K for data,
 * and a commit into the reserve is refused, as the device layer must never
 * make one. */
START_TEST(memory_is_capped_and_poisoned) {
  open_device("64K", "0");
  size_t g = dag__space_granule(&dev);
  ck_assert_uint_eq(g, (size_t)sysconf(_SC_PAGESIZE));
  ck_assert_uint_eq(dag__space_memory(&dev), 60 << 10);
  struct space_block a, b;
  unsigned char *p = space_block_new(&dev, &a, 40 << 10);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(p[0], 0xa5);
  ck_assert_uint_eq(p[(40 << 10) - 1], 0xa5);
  ck_assert_ptr_null(space_block_new(&dev, &b, 30 << 10));    /* 70K > 60K */
  ck_assert_ptr_nonnull(space_block_new(&dev, &b, 20 << 10)); /* full */
  uint64_t mem;
  ck_assert_int_eq(dag__space_commit(&dev, &mem), DAG_EDEVICE);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "reserve"));
  space_block_free(&dev, &a);
  ck_assert_ptr_nonnull(space_block_new(&dev, &a, 30 << 10)); /* fits again */
  space_block_free(&dev, &b);
  space_block_free(&dev, &a);
}
END_TEST

START_TEST(copies_round_trip) {
  open_device("1M", "0");
  space_check_round_trip(&dev);
}
END_TEST

START_TEST(strided_tile) {
  open_device("1M", "0");
  space_check_strided_tile(&dev);
  space_check_packed_tile(&dev);
}
END_TEST

/* The body runs at launch and queues its kernel, which runs on the device's
 * compute thread, where the device's memory is open to it. */
static pthread_t body_thread;
static void move_kernel(void *p) {
  const struct space_move *m = p;
  memcpy(m->dst, m->src, m->bytes);
  body_thread = pthread_self();
}

static void move(void *p) {
  ck_assert_int_eq(dag_emul_launch(move_kernel, p, sizeof(struct space_move)),
                   0);
}

START_TEST(queue_in_order) {
  open_device("1M", "0");
  space_check_queue_in_order(&dev, move);
  ck_assert(!pthread_equal(body_thread, pthread_self()));
}
END_TEST

START_TEST(alias) {
  open_device("1M", "0");
  space_check_alias(&dev);
  space_check_map_run(&dev);
}
END_TEST

/* With a delay, nothing has completed right after it was queued. */
START_TEST(asynchronous) {
  open_device("1M", "20000"); /* 20 ms an operation */
  struct space_block b;
  char host[256] = "bytes", *d = space_block_new(&dev, &b, sizeof host);
  norder = 0;
  dag__space_copy(&dev, true,
                  &(struct space_copy){d, host, sizeof host, 1, 0, 0}, note,
                  (void *)1);
  ck_assert_int_eq(norder, 0);
  drain(1);
  ck_assert_str_eq(d, "bytes");
  space_block_free(&dev, &b);
}
END_TEST

/* Copies back have a queue of their own, as a GPU's second copy engine:
 * one queued after two copies in ends before the second of them. */
START_TEST(copies_back_overlap_copies_in) {
  open_device("1M", "50000"); /* 50 ms an operation */
  struct space_block b;
  char host[64] = "in", back[64] = "", *d = space_block_new(&dev, &b, 4096);
  norder = 0;
  for (int i = 1; i <= 2; i++)
    dag__space_copy(&dev, true,
                    &(struct space_copy){d, host, sizeof host, 1, 0, 0}, note,
                    (void *)(intptr_t)i);
  dag__space_copy(&dev, false,
                  &(struct space_copy){back, d + 2048, sizeof back, 1, 0, 0},
                  note, (void *)3);
  drain(3);
  ck_assert_int_eq(order[2], 2);
  space_block_free(&dev, &b);
}
END_TEST

/* A body waits for the copies up to its ticket, not for those queued after
 * them: launched after five copies of 50 ms each with the first one's
 * ticket, it is done (its kernel and its end, 50 ms each, after the first
 * copy) before the last copy, with the first copy's data. */
START_TEST(body_waits_for_its_ticket_only) {
  open_device("1M", "50000");
  struct space_block b;
  char host[64] = "first", *d = space_block_new(&dev, &b, 4096);
  norder = 0;
  uint64_t first = 0;
  for (int i = 1; i <= 5; i++) {
    uint64_t ticket = dag__space_copy(
        &dev, true, &(struct space_copy){d + (i - 1) * 64, host, 64, 1, 0, 0},
        note, (void *)(intptr_t)i);
    ck_assert_uint_eq(ticket, (uint64_t)i); /* numbered from 1 */
    first = first ? first : ticket;
  }
  struct space_move m = {d + 1024, d, 64};
  dag__space_launch(&dev, move, &m, first, false, note, (void *)6);
  drain(6);
  int body_at = 0;
  for (int i = 0; i < 6; i++)
    body_at = order[i] == 6 ? i : body_at;
  ck_assert_int_eq(order[0], 1);
  ck_assert_int_eq(order[5], 5);
  ck_assert_int_lt(body_at, 5);
  char back[64] = "";
  dag__space_copy(&dev, false,
                  &(struct space_copy){back, d + 1024, 64, 1, 0, 0}, note,
                  (void *)7);
  drain(7);
  ck_assert_str_eq(back, "first");
  space_block_free(&dev, &b);
}
END_TEST

/* Of the bodies ready at once, an urgent one starts first, though launched
 * after three others: all four wait for one copy. Without jitter: with it,
 * the emulated device starts any ready lane, as a GPU may (tests/stress
 * turns it on). */
static void nothing_kernel(void *p) { (void)p; }
static void nothing_body(void *p) {
  (void)p;
  ck_assert_int_eq(dag_emul_launch(nothing_kernel, NULL, 0), 0);
}

START_TEST(urgent_bodies_go_first) {
  ck_assert_int_eq(setenv("DAG_EMUL_JITTER_US", "0", 1), 0);
  open_device("1M", "100000"); /* the launches are in before the copy ends */
  char host[64] = "", dst[64];
  norder = 0;
  uint64_t ticket =
      dag__space_copy(&dev, true, &(struct space_copy){dst, host, 64, 1, 0, 0},
                      note, (void *)1);
  for (int i = 2; i <= 5; i++)
    dag__space_launch(&dev, nothing_body, NULL, ticket, i == 5, note,
                      (void *)(intptr_t)i);
  drain(5);
  ck_assert_int_eq(order[0], 1);
  ck_assert_int_eq(order[1], 5);
  for (int i = 2; i < 5; i++) /* the others in their lane's order */
    ck_assert_int_eq(order[i], i);
}
END_TEST

/* What is still queued when the device closes completes first. */
START_TEST(close_drains) {
  open_device("1M", "5000");
  char host[16] = "drained", dst[16] = "";
  norder = 0;
  dag__space_copy(&dev, true,
                  &(struct space_copy){dst, host, sizeof host, 1, 0, 0}, note,
                  (void *)7);
  dag__space_close(&dev);
  ck_assert_int_eq(norder, 1);
  ck_assert_int_eq(order[0], 7);
  ck_assert_str_eq(dst, "drained");
  open_device("1M", "0"); /* for the fixture's close */
}
END_TEST

/* Without DAG_EMUL_GRANULE, granules are CUDA's 2 MiB, one of them the
 * reserve; memory smaller than two is refused. */
START_TEST(granules_like_cuda) {
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", "8M", 1), 0);
  ck_assert_int_eq(dag__space_open(&dev, &dag__space_emul, 0), 0);
  ck_assert_uint_eq(dag__space_granule(&dev), 2 << 20);
  ck_assert_uint_eq(dag__space_memory(&dev), 6 << 20);
  char *at = dag__space_reserve(&dev, 4 << 20);
  ck_assert_ptr_nonnull(at);
  ck_assert_uint_eq((uintptr_t)at % (2 << 20), 0); /* granule-aligned */
  dag__space_unreserve(&dev, at, 4 << 20);
}
END_TEST

START_TEST(memory_below_a_granule) {
  ck_assert_int_eq(setenv("DAG_EMUL_MEM", "1M", 1), 0);
  struct space other;
  ck_assert_int_eq(dag__space_open(&other, &dag__space_emul, 0), DAG_EINVAL);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "less than two granules"));
}
END_TEST

/* Copies and bodies have queues of their own: a copy queued after a slow
 * body finishes first, and a body queued after copies waits for them, with
 * every operation delayed at random. */
static atomic_int body_ran;
static void slow_kernel(void *p) {
  (void)p;
  usleep(50000);
  atomic_store(&body_ran, 1);
}

static void slow_body(void *p) {
  (void)p;
  ck_assert_int_eq(dag_emul_launch(slow_kernel, NULL, 0), 0);
}

/* A body that touches device memory itself, at launch, faults: the
 * program ends with a message (status 1). */
static void touching_body(void *p) { *(volatile char *)p = 1; }

static void touching_device_memory(void) {
  open_device("1M", "0");
  struct space_block b;
  char *d = space_block_new(&dev, &b, 64);
  ck_assert_ptr_nonnull(d);
  norder = 0;
  dag__space_launch(&dev, touching_body, d, 0, false, note, (void *)1);
  teardown(); /* waits for the body */
}

START_TEST(body_cannot_touch_device_memory) {
  ck_assert_child_exits(touching_device_memory, 1,
                        "a device body touched memory at 0x");
}
END_TEST

START_TEST(copies_overlap_bodies) {
  ck_assert_int_eq(setenv("DAG_EMUL_JITTER_US", "2000", 1), 0);
  open_device("1M", "0");
  char host[64] = "copied", dst[64] = "";
  norder = 0;
  dag__space_launch(&dev, slow_body, NULL, 0, false, note, (void *)1);
  dag__space_copy(&dev, true,
                  &(struct space_copy){dst, host, sizeof host, 1, 0, 0}, note,
                  (void *)2);
  drain(2);
  ck_assert_int_eq(order[0], 2); /* the copy, while the body sleeps */
  ck_assert_int_eq(order[1], 1);
  for (int round = 0; round < 20; round++)
    space_check_queue_in_order(&dev, move);
}
END_TEST

/* DAG_EMUL_FAIL=copy:2: the second copy fails, says so, and moves nothing;
 * the others are done. */
START_TEST(injected_copy_failure) {
  ck_assert_int_eq(setenv("DAG_EMUL_FAIL", "copy:2", 1), 0);
  open_device("1M", "0");
  char host[16] = "bytes", one[16] = "", two[16] = "", three[16] = "";
  norder = nfailed = 0;
  for (int i = 0; i < 3; i++)
    dag__space_copy(&dev, true,
                    &(struct space_copy){i == 0   ? one
                                         : i == 1 ? two
                                                  : three,
                                         host, sizeof host, 1, 0, 0},
                    note, (void *)(intptr_t)(i + 1));
  drain(3);
  ck_assert_int_eq(nfailed, 1);
  ck_assert_str_eq(one, "bytes");
  ck_assert_str_eq(two, "");
  ck_assert_str_eq(three, "bytes");
}
END_TEST

/* DAG_EMUL_FAIL=kernel:1: the kernel does not run, and its body's done
 * function is told; DAG_EMUL_FAIL=alloc:2: the second commit fails with
 * DAG_EDEVICE. */
START_TEST(injected_kernel_failure) {
  ck_assert_int_eq(setenv("DAG_EMUL_FAIL", "kernel:1", 1), 0);
  open_device("1M", "0");
  norder = nfailed = 0;
  atomic_store(&body_ran, 0);
  dag__space_launch(&dev, slow_body, NULL, 0, false, note, (void *)1);
  drain(1);
  ck_assert_int_eq(nfailed, 1);
  ck_assert_int_eq(atomic_load(&body_ran), 0);
}
END_TEST

START_TEST(injected_alloc_failure) {
  ck_assert_int_eq(setenv("DAG_EMUL_FAIL", "alloc:2", 1), 0);
  open_device("1M", "0");
  uint64_t a, b;
  ck_assert_int_eq(dag__space_commit(&dev, &a), 0);
  ck_assert_int_eq(dag__space_commit(&dev, &b), DAG_EDEVICE);
  ck_assert_ptr_nonnull(strstr(dag_last_error(), "allocating device memory"));
  dag__space_decommit(&dev, a);
}
END_TEST

/* The CPUs near a PCI device, as for a GPU's thread, for every PCI device
 * of this machine; the emulated device has no PCI address; an address that
 * does not exist has no CPUs. */
START_TEST(near_pci_device) {
  open_device("64K", "0");
  char bus[32];
  ck_assert(!dag__space_bus_id(&dev, bus, sizeof bus));
  cpu_set_t cpus;
  ck_assert(!dag__topo_near_pci("ffff:ff:1f.7", &cpus));
  ck_assert(!dag__topo_near_pci("not a bus id", &cpus));
  DIR *dir = opendir("/sys/bus/pci/devices");
  int found = 0;
  for (struct dirent *e; dir && (e = readdir(dir));) {
    if (e->d_name[0] == '.')
      continue;
    CPU_ZERO(&cpus);
    ck_assert_msg(dag__topo_near_pci(e->d_name, &cpus) && CPU_COUNT(&cpus) > 0,
                  "no CPUs near PCI device %s", e->d_name);
    found++;
  }
  if (dir)
    closedir(dir);
  printf("check_space: CPUs found near %d PCI device(s)\n", found);
}
END_TEST

int main(void) {
  Suite *s = suite_create("space");
  TCase *tc = tcase_create("emulated device");
  tcase_add_checked_fixture(tc, NULL, teardown);
  tcase_add_test(tc, memory_is_capped_and_poisoned);
  tcase_add_test(tc, copies_round_trip);
  tcase_add_test(tc, strided_tile);
  tcase_add_test(tc, queue_in_order);
  tcase_add_test(tc, alias);
  tcase_add_test(tc, asynchronous);
  tcase_add_test(tc, copies_back_overlap_copies_in);
  tcase_add_test(tc, body_waits_for_its_ticket_only);
  tcase_add_test(tc, urgent_bodies_go_first);
  tcase_add_test(tc, close_drains);
  tcase_add_test(tc, near_pci_device);
  tcase_add_test(tc, granules_like_cuda);
  tcase_add_test(tc, memory_below_a_granule);
  tcase_add_test(tc, copies_overlap_bodies);
  tcase_add_test(tc, injected_copy_failure);
  tcase_add_test(tc, injected_kernel_failure);
  tcase_add_test(tc, injected_alloc_failure);
  tcase_add_test(tc, body_cannot_touch_device_memory);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
