/* emul_faults.c — the emulated device's hostility (space_emul.c): the
 * failures it injects, the delays it adds, and the faults it catches.
 *
 * Failures: DAG_EMUL_FAIL=alloc:N, copy:N or kernel:N makes the Nth
 * commit, copy or kernel of each emulated device fail as a GPU's can;
 * queued work that fails is not done, and its done function (a kernel's:
 * its body's) is told why.
 *
 * Delays: before each operation on its engines, and before a worker packs
 * copies for it (host_jitter).
 *
 * Faults: a body at launch that touches the device's memory, closed then,
 * is told so, in place of a bare crash.
 */
#include "mem/emul.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The Nth operation of a kind fails when DAG_EMUL_FAIL says so (count is
 * that kind's counter; under the lock). */
const char *dag__emul_injected(struct emul *e, enum emul_fail kind,
                               uint64_t *count, const char *what) {
  const struct settings *s = dag__settings();
  ++*count;
  if (s->emul_fail != kind || *count != (uint64_t)s->emul_fail_at)
    return NULL;
  snprintf(e->failure, sizeof e->failure,
           "%s failed on emulated device %d (injected: DAG_EMUL_FAIL, "
           "operation %d)",
           what, e->index, s->emul_fail_at);
  return e->failure;
}

void dag__emul_pause(struct engine *q) {
  struct emul *e = q->e;
  long us = e->delay_us;
  if (e->jitter_us)
    us += (long)(rand_r(&q->seed) % (unsigned)(e->jitter_us + 1));
  if (us)
    nanosleep(&(struct timespec){us / 1000000, us % 1000000 * 1000}, NULL);
}

/* Packing's jitter, in DAG_EMUL_JITTER_US: longer than the bookkeeping of
 * the device tasks that come after it (hundreds of microseconds). */
#define HOST_JITTER 10

void dag__emul_host_jitter(void *state) {
  const struct emul *e = state;
  static DAG_THREAD_LOCAL unsigned seed;
  static atomic_uint threads_seen;
  if (!e->jitter_us || e->model)
    return;
  if (!seed) /* per thread, from DAG_EMUL_SEED */
    seed = (unsigned)dag__settings()->emul_seed * 2654435761u +
           4u * (atomic_fetch_add(&threads_seen, 1) + 1) + 2u;
  long us = (long)(rand_r(&seed) % (unsigned)(HOST_JITTER * e->jitter_us + 1));
  nanosleep(&(struct timespec){us / 1000000, us % 1000000 * 1000}, NULL);
}

/* A fault while a body runs at launch, at an address of the device's
 * memory (closed then), is the body touching that memory: said as such.
 * Other faults, such as a null pointer in the body, go to the handler there
 * was. */
static struct sigaction fault_before;

/* Whether `at` lies in a granule mapped on e. Safe in the handler: the
 * launching worker holds the devices' lock, so nothing maps or unmaps. */
static bool in_device_memory(const struct emul *e, uintptr_t at) {
  for (size_t i = 0; i < e->nmapped; i++)
    if (at - (uintptr_t)e->mapped[i] < e->granule)
      return true;
  return false;
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  struct emul *e = dag__emul_launching();
  if (e && e->closed && in_device_memory(e, (uintptr_t)info->si_addr)) {
    /* Only what is safe in a signal handler: write, and the address in
     * hexadecimal by hand. */
    static const char say[] = "dag: error: a device body touched memory at 0x";
    static const char why[] =
        " while it ran at launch, its emulated device's memory closed: a "
        "device body only queues work on the device (dag_emul_launch; on "
        "CUDA, kernels on dag_cuda_stream())\n";
    char hex[16];
    uintptr_t at = (uintptr_t)info->si_addr;
    for (int i = 15; i >= 0; i--, at >>= 4)
      hex[i] = "0123456789abcdef"[at & 15];
    (void)!write(STDERR_FILENO, say, sizeof say - 1);
    (void)!write(STDERR_FILENO, hex, sizeof hex);
    (void)!write(STDERR_FILENO, why, sizeof why - 1);
    _exit(1);
  }
  if (fault_before.sa_flags & SA_SIGINFO && fault_before.sa_sigaction) {
    fault_before.sa_sigaction(sig, info, context);
    return;
  }
  /* The default action: fault again, without us. */
  sigaction(SIGSEGV, &fault_before, NULL);
}

static void install_fault_handler(void) {
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &fault_before);
}

void dag__emul_catch_faults(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install_fault_handler);
}
