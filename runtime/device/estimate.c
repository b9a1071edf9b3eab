/* estimate.c — what a task should take where it has not run yet: its
 * declared work (dag_task_info.work, flops) over the rate of the place,
 * so that a first run starts from what is known instead of running big
 * tiles on CPU cores to find out (choose.c says how the chooser uses it).
 *
 * The rates: on a timed space, its model's, for the task's label, on the
 * device and on one core; else, on a device, the peak its space reports
 * (a GPU's multiprocessors at its clock, space_gpu.c), and on a core a
 * peak measured when the devices open: its clock, from a chain of
 * dependent adds that runs about a millisecond, times the flops per cycle
 * of its widest FMA units. Both are upper bounds, no kernel beats them:
 * an estimate is optimistic. Once a task function has run with declared
 * work, the rate it achieved replaces them (dag__estimate_note).
 *
 * Locking: estimate_lock guards the achieved rates; the peaks are written
 * once, before any task with a choice runs.
 */
#include "device/call.h"
#include "device/choose.h"

#include <string.h>

/* The CPU's: one core's peak in flops per second, 0 when not measured. */
static double core_peak;

/* Rates achieved, per task function: work done and the time it took. */
#define ACHIEVED_SLOTS 256
static struct achieved {
  dag_task_fn fn;
  double work, ns;
} achieved[ACHIEVED_SLOTS];
static pthread_mutex_t estimate_lock = PTHREAD_MUTEX_INITIALIZER;

/* The calibration: about a millisecond. */
#define CALIBRATION_NS 1000000

/* Double-precision flops per cycle of one core at most: two FMA units of
 * the widest vectors it has. */
static double core_flops_per_cycle(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return 32;
  if (__builtin_cpu_supports("fma"))
    return 16;
  return 8;
#else
  return 16; /* aarch64: four 128-bit FMA pipes (Neoverse V2) */
#endif
}

/* Cycles per second of the calling thread's core: a chain of additions,
 * each waiting for the one before (one a cycle), timed. */
static double core_hz(void) {
  uint64_t x = 0, adds = 0, t0 = dag__now_ns(), t;
  do {
    for (int i = 0; i < 256; i++) {
      x += 1;
      __asm__ volatile("" : "+r"(x));
      x += 1;
      __asm__ volatile("" : "+r"(x));
      x += 1;
      __asm__ volatile("" : "+r"(x));
      x += 1;
      __asm__ volatile("" : "+r"(x));
    }
    adds += 1024;
  } while ((t = dag__now_ns()) - t0 < CALIBRATION_NS);
  return (double)adds / ((double)(t - t0) * 1e-9);
}

double dag__estimate_core_peak(void) {
  return core_hz() * core_flops_per_cycle();
}

void dag__estimate_start(void) {
  bool peaks = false;
  for (int i = 0; i < dag__ndevices; i++)
    peaks |= dag__space_peak_flops(&dag__devices[i].space) > 0;
  /* Timed, the model gives a core's rate; with no device's peak, a core's
   * would decide nothing. */
  if (peaks && !dag__devices_timed) {
    core_peak = dag__estimate_core_peak();
    dag__log(DAG_LOG_INFO, "a core's peak, measured: %.1f Gflop/s",
             core_peak * 1e-9);
  }
}

void dag__estimate_stop(void) {
  pthread_mutex_lock(&estimate_lock);
  memset(achieved, 0, sizeof achieved);
  pthread_mutex_unlock(&estimate_lock);
  core_peak = 0;
}

/* fn's slot, claimed if free and `claim`; NULL when it has none. Under
 * estimate_lock. */
static struct achieved *achieved_slot(dag_task_fn fn, bool claim) {
  size_t h = ((uintptr_t)fn >> 4) * 31;
  for (size_t i = 0; i < ACHIEVED_SLOTS; i++) {
    struct achieved *a = &achieved[(h + i) % ACHIEVED_SLOTS];
    if (a->fn == fn)
      return a;
    if (!a->fn) {
      if (claim)
        a->fn = fn;
      return claim ? a : NULL;
    }
  }
  return NULL;
}

void dag__estimate_note(dag_task_fn fn, double work, uint64_t ns) {
  if (work <= 0 || !ns)
    return;
  pthread_mutex_lock(&estimate_lock);
  struct achieved *a = achieved_slot(fn, true);
  if (a) {
    a->work += work;
    a->ns += (double)ns;
  }
  pthread_mutex_unlock(&estimate_lock);
}

/* The peak of place d (NULL: a core), in work per ns; 0: unknown. */
static double peak_per_ns(const struct call *c, const struct device *d) {
  const struct space *timed =
      d ? (dag__space_model(&d->space) ? &d->space : NULL) : dag__devices_timed;
  if (timed) {
    double s = dag__space_work_seconds(timed, c->label, d != NULL, c->work);
    return s > 0 ? c->work / (s * 1e9) : 0;
  }
  double per_s = d ? dag__space_peak_flops(&d->space) : core_peak;
  return per_s * 1e-9;
}

double dag__estimate_ns(const struct call *c, dag_task_fn fn,
                        const struct device *d) {
  if (c->work < 0)
    return -1;
  pthread_mutex_lock(&estimate_lock);
  const struct achieved *a = achieved_slot(fn, true);
  double rate = a && a->ns > 0 ? a->work / a->ns : 0;
  pthread_mutex_unlock(&estimate_lock);
  if (rate <= 0)
    rate = peak_per_ns(c, d);
  return rate > 0 ? c->work / rate : -1;
}
