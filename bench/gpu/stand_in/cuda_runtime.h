/* stand_in/cuda_runtime.h — the CUDA runtime calls gpu_vendor makes, done
 * on the CPU at once, in the order they are made: one valid schedule of
 * what the streams and events allow, so that the peers' indexing and
 * checks run where there is no GPU (bench_gpu_vendor_stand_in). Fresh
 * memory is filled with 0x7f bytes, so that a read of what no copy brought
 * shows in the result. */
#ifndef STAND_IN_CUDA_RUNTIME_H
#define STAND_IN_CUDA_RUNTIME_H

#include <stdlib.h>
#include <string.h>

typedef void *cudaStream_t, *cudaEvent_t;
enum { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum { cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2 };

static inline int cudaMalloc(void **p, size_t bytes) {
  *p = malloc(bytes);
  memset(*p, 0x7f, bytes);
  return !*p;
}
#define cudaMallocHost cudaMalloc
static inline int cudaFree(void *p) {
  free(p);
  return 0;
}
static inline int cudaMemcpy(void *to, const void *from, size_t bytes, int k) {
  (void)k;
  memcpy(to, from, bytes);
  return 0;
}
static inline int cudaMemcpyAsync(void *to, const void *from, size_t bytes,
                                  int k, cudaStream_t s) {
  (void)s;
  return cudaMemcpy(to, from, bytes, k);
}
static inline int cudaMemcpy2DAsync(void *to, size_t to_pitch, const void *from,
                                    size_t from_pitch, size_t width,
                                    size_t rows, int k, cudaStream_t s) {
  for (size_t r = 0; r < rows; r++)
    cudaMemcpyAsync((char *)to + r * to_pitch,
                    (const char *)from + r * from_pitch, width, k, s);
  return 0;
}
static inline int cudaMemsetAsync(void *p, int v, size_t bytes,
                                  cudaStream_t s) {
  (void)s;
  memset(p, v, bytes);
  return 0;
}
static inline int cudaDeviceSynchronize(void) { return 0; }
static inline int cudaStreamCreateWithFlags(cudaStream_t *s, int flags) {
  *s = (void *)1;
  return flags != cudaStreamNonBlocking;
}
static inline int cudaEventCreateWithFlags(cudaEvent_t *e, int flags) {
  *e = (void *)1;
  return flags != cudaEventDisableTiming;
}
static inline int cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  return !e || !s;
}
static inline int cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, int f) {
  return !e || !s || f;
}
static inline int cudaEventDestroy(cudaEvent_t e) { return !e; }

#endif
