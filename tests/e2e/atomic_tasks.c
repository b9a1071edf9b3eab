/* C11 atomics from <stdatomic.h> in task bodies, as OpenMP ports replace
 * `#pragma omp atomic`: a histogram and counters that the tasks share
 * (shared()), updated with atomic_fetch_add and a compare-and-swap loop.
 * dagcc's parse must take clang's <stdatomic.h>, not the compiler's. */
#include <stdatomic.h>
#include <stdio.h>

#define N 100000
#define CHUNK 2500
#define BINS 8

static int v[N];

int main(void) {
  for (int i = 0; i < N; i++)
    v[i] = (int)((i * 2654435761u) % 1000);
  atomic_long bins[BINS];
  for (int b = 0; b < BINS; b++)
    atomic_init(&bins[b], 0);
  atomic_int chunks = 0;
  _Atomic long largest = -1;
  for (int lo = 0; lo < N; lo += CHUNK) {
#pragma dag task in(v[lo : CHUNK]) shared(bins, chunks, largest)
    {
      for (int i = lo; i < lo + CHUNK; i++) {
        atomic_fetch_add_explicit(&bins[v[i] * BINS / 1000], 1,
                                  memory_order_relaxed);
        long seen = atomic_load(&largest);
        while (v[i] > seen &&
               !atomic_compare_exchange_weak(&largest, &seen, v[i]))
          ;
      }
      atomic_fetch_add(&chunks, 1);
    }
  }
#pragma dag taskwait
  for (int b = 0; b < BINS; b++)
    printf("bin %d: %ld\n", b, atomic_load(&bins[b]));
  printf("chunks = %d, largest = %ld\n", atomic_load(&chunks),
         atomic_load(&largest));
  return 0;
}
