/* copy_paths.c — what each way of moving a tile between host memory and a
 * CUDA GPU costs, the figures that decide how dag moves tiles (docs/gpu.md,
 * "How a copy moves"):
 *
 *   - packing: tiles of a row-major n x n matrix copied into contiguous
 *     buffers with memcpy per row, by 1 to 16 threads at once (the work of
 *     staging, GB/s of tile bytes);
 *   - registering: cudaHostRegister of the whole matrix, and of it in
 *     chunks by several threads at once, and cudaHostUnregister (GB/s);
 *   - the tile's 2-D copy (cudaMemcpy2DAsync) from and to registered
 *     memory, from and to pageable memory, and the contiguous copy of a
 *     page-locked staging buffer, one stream and two (GB/s).
 *
 *   gpu_copy_paths [-n N] [-b tile]
 *
 * prints one line per measurement: `copy_paths WHAT ... gbps=X`.
 */
#define _GNU_SOURCE /* pthread_barrier */

#include "harness.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int status, const char *what) {
  if (status) {
    fprintf(stderr, "gpu_copy_paths: %s failed (status %d: %s)\n", what, status,
            cudaGetErrorString((cudaError_t)status));
    exit(1);
  }
}

static size_t n = 32768, b = 2048;
static double *matrix; /* n x n, touched */

static double *tile_at(double *m, size_t t) { /* tile t in row-major order */
  size_t per_row = n / b;
  return m + (t / per_row) * b * n + (t % per_row) * b;
}

/* ------------------------------------------------------------- packing */

struct packer {
  pthread_t thread;
  size_t first, count; /* tiles */
  double *buffer;      /* b x b */
};

static void *pack(void *arg) {
  struct packer *p = arg;
  for (size_t t = p->first; t < p->first + p->count; t++) {
    const double *src = tile_at(matrix, t);
    for (size_t r = 0; r < b; r++)
      memcpy(p->buffer + r * b, src + r * n, b * sizeof(double));
  }
  return NULL;
}

static void packing(int threads) {
  size_t tiles = (n / b) * (n / b);
  struct packer *p = calloc(threads, sizeof *p);
  for (int i = 0; i < threads; i++) {
    p[i].buffer = malloc(b * b * sizeof(double));
    memset(p[i].buffer, 0, b * b * sizeof(double));
    p[i].first = tiles * i / threads;
    p[i].count = tiles * (i + 1) / threads - p[i].first;
  }
  double t0 = bench_now();
  for (int i = 0; i < threads; i++)
    pthread_create(&p[i].thread, NULL, pack, &p[i]);
  for (int i = 0; i < threads; i++)
    pthread_join(p[i].thread, NULL);
  double t = bench_now() - t0;
  printf("copy_paths pack threads=%d bytes=%zu time=%.4f gbps=%.2f\n", threads,
         n * n * sizeof(double), t, n * n * sizeof(double) / t * 1e-9);
  for (int i = 0; i < threads; i++)
    free(p[i].buffer);
  free(p);
}

/* ---------------------------------------------------------- registering */

struct registrar {
  pthread_t thread;
  char *at;
  size_t bytes, chunk;
};

static void *register_chunks(void *arg) {
  struct registrar *r = arg;
  for (size_t off = 0; off < r->bytes; off += r->chunk)
    check(
        cudaHostRegister(r->at + off,
                         r->bytes - off < r->chunk ? r->bytes - off : r->chunk,
                         cudaHostRegisterDefault),
        "cudaHostRegister");
  return NULL;
}

static void *unregister_chunks(void *arg) {
  struct registrar *r = arg;
  for (size_t off = 0; off < r->bytes; off += r->chunk)
    check(cudaHostUnregister(r->at + off), "cudaHostUnregister");
  return NULL;
}

/* Registers the matrix in chunks of `chunk` bytes by `threads` threads
 * (each a share of the chunks), then unregisters it, timing both; leaves it
 * registered if `keep`. */
static void registering(int threads, size_t chunk, int keep) {
  size_t bytes = n * n * sizeof(double);
  size_t chunks = (bytes + chunk - 1) / chunk;
  struct registrar *r = calloc(threads, sizeof *r);
  for (int i = 0; i < threads; i++) {
    size_t first = chunks * i / threads, last = chunks * (i + 1) / threads;
    r[i].at = (char *)matrix + first * chunk;
    r[i].bytes = (last * chunk < bytes ? last * chunk : bytes) - first * chunk;
    r[i].chunk = chunk;
  }
  double t0 = bench_now();
  for (int i = 0; i < threads; i++)
    pthread_create(&r[i].thread, NULL, register_chunks, &r[i]);
  for (int i = 0; i < threads; i++)
    pthread_join(r[i].thread, NULL);
  double t1 = bench_now();
  printf("copy_paths register threads=%d chunk=%zu bytes=%zu time=%.4f "
         "gbps=%.2f\n",
         threads, chunk, bytes, t1 - t0, bytes / (t1 - t0) * 1e-9);
  if (!keep) {
    for (int i = 0; i < threads; i++)
      pthread_create(&r[i].thread, NULL, unregister_chunks, &r[i]);
    for (int i = 0; i < threads; i++)
      pthread_join(r[i].thread, NULL);
    double t2 = bench_now();
    printf("copy_paths unregister threads=%d chunk=%zu time=%.4f gbps=%.2f\n",
           threads, chunk, t2 - t1, bytes / (t2 - t1) * 1e-9);
  }
  free(r);
}

/* ---------------------------------------------------------------- copies */

/* Copies every tile of the matrix (2-D, with its pitch) to or from the
 * device on `streams` streams in turn, or (staged) a contiguous b x b
 * buffer as many times. */
static void copies(const char *what, int to_device, int streams, int staged,
                   double *host) {
  size_t tiles = (n / b) * (n / b), tile_bytes = b * b * sizeof(double);
  double *dev;
  check(cudaMalloc((void **)&dev, tiles * tile_bytes), "cudaMalloc");
  cudaStream_t s[2];
  for (int i = 0; i < streams; i++)
    check(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking),
          "cudaStreamCreate");
  double t0 = bench_now();
  for (size_t t = 0; t < tiles; t++) {
    char *d = (char *)dev + t * tile_bytes;
    cudaStream_t st = s[t % streams];
    if (staged)
      check(cudaMemcpyAsync(to_device ? (void *)d : host,
                            to_device ? (void *)host : d, tile_bytes,
                            to_device ? cudaMemcpyHostToDevice
                                      : cudaMemcpyDeviceToHost,
                            st),
            "cudaMemcpyAsync");
    else if (to_device)
      check(cudaMemcpy2DAsync(d, b * sizeof(double), tile_at(host, t),
                              n * sizeof(double), b * sizeof(double), b,
                              cudaMemcpyHostToDevice, st),
            "cudaMemcpy2DAsync");
    else
      check(cudaMemcpy2DAsync(tile_at(host, t), n * sizeof(double), d,
                              b * sizeof(double), b * sizeof(double), b,
                              cudaMemcpyDeviceToHost, st),
            "cudaMemcpy2DAsync");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  double t = bench_now() - t0;
  printf("copy_paths %s %s streams=%d bytes=%zu time=%.4f gbps=%.2f\n", what,
         to_device ? "in" : "out", streams, tiles * tile_bytes, t,
         tiles * tile_bytes / t * 1e-9);
  for (int i = 0; i < streams; i++)
    cudaStreamDestroy(s[i]);
  cudaFree(dev);
}

int main(int argc, char **argv) {
  long nl = (long)n, bl = (long)b;
  const struct bench_opt opts[] = {
      BENCH_OPT("-n", BENCH_LONG, &nl, 1, 1L << 20),
      BENCH_OPT("-b", BENCH_LONG, &bl, 1, 1L << 20), BENCH_OPT_END};
  const char *usage = "gpu_copy_paths [-n N] [-b tile dividing N]";
  int rc = bench_args(argc, argv, opts, usage);
  if (rc >= 0 || nl % bl)
    return bench_usage(rc, usage);
  n = (size_t)nl, b = (size_t)bl;
  /* The context first: without a device, end before touching 8 GiB. */
  check(cudaFree(NULL), "cudaFree (the context)");
  size_t bytes = n * n * sizeof(double);
  matrix = aligned_alloc(4096, bytes);
  if (!matrix)
    check(-1, "aligned_alloc");
  memset(matrix, 1, bytes);

  for (int threads = 1; threads <= 16; threads *= 2)
    packing(threads);
  copies("pageable", 1, 1, 0, matrix);
  copies("pageable", 0, 1, 0, matrix);
  double *staging;
  check(cudaMallocHost((void **)&staging, b * b * sizeof(double)),
        "cudaMallocHost");
  copies("staged", 1, 1, 1, staging);
  copies("staged", 0, 1, 1, staging);
  copies("staged", 1, 2, 1, staging);
  cudaFreeHost(staging);

  registering(1, (size_t)64 << 20, 0);
  registering(8, (size_t)64 << 20, 0);
  /* Whole: a 2-D copy across two registrations is refused (invalid
   * argument, seen on the H200 of 2026-12-04). */
  registering(1, bytes, 1);
  copies("registered", 1, 1, 0, matrix);
  copies("registered", 0, 1, 0, matrix);
  copies("registered", 1, 2, 0, matrix);
  struct registrar all = {0, (char *)matrix, bytes, bytes};
  unregister_chunks(&all);
  free(matrix);
  return 0;
}
