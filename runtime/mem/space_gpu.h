/* space_gpu.h — the names space_gpu.c uses for a GPU's runtime API, so
 * that one source serves CUDA and HIP, whose runtime calls differ only in
 * their prefix: GPU(Malloc) is cudaMalloc or hipMalloc. Compiled with
 * exactly one of DAG_SPACE_CUDA or DAG_SPACE_HIP, and DAG_GPU_LIBRARY, the
 * runtime library's file name (loaded when the space is first asked for its
 * devices, not linked). Only space_gpu.c includes this header: it is the
 * one place a vendor header enters the runtime.
 */
#ifndef DAG_SPACE_GPU_H
#define DAG_SPACE_GPU_H

#if defined(DAG_SPACE_CUDA) == defined(DAG_SPACE_HIP)
#error                                                                         \
    "space_gpu.c is compiled with exactly one of DAG_SPACE_CUDA or DAG_SPACE_HIP"
#endif

#ifdef DAG_SPACE_CUDA
#include <cuda_runtime_api.h>
#define GPU(name) cuda##name
#define GPU_SYMBOL(name) "cuda" #name
#define GPU_LIBRARY_NAME "libcudart.so"
#define GPU_NAME "cuda"
#define GPU_SPACE dag__space_cuda
#define GPU_STREAM_FN dag_cuda_stream
#define GPU_ATTR_MAX_PITCH cudaDevAttrMaxPitch
#define GPU_MEMCPY_KIND enum cudaMemcpyKind
#else
#include <hip/hip_runtime_api.h>
#define GPU(name) hip##name
#define GPU_SYMBOL(name) "hip" #name
#define GPU_LIBRARY_NAME "libamdhip64.so"
#define GPU_NAME "hip"
#define GPU_SPACE dag__space_hip
#define GPU_STREAM_FN dag_hip_stream
#define GPU_ATTR_MAX_PITCH hipDeviceAttributeMaxPitch
#define GPU_MEMCPY_KIND hipMemcpyKind
#endif

/* The calls of the runtime library that space_gpu.c makes, each X(name). */
#define GPU_CALLS(X)                                                           \
  X(GetLastError)                                                              \
  X(GetErrorString)                                                            \
  X(GetDeviceCount)                                                            \
  X(SetDevice)                                                                 \
  X(DeviceGetAttribute)                                                        \
  X(StreamCreateWithFlags)                                                     \
  X(StreamSynchronize)                                                         \
  X(StreamDestroy)                                                             \
  X(Malloc)                                                                    \
  X(Free)                                                                      \
  X(EventCreateWithFlags)                                                      \
  X(EventRecord)                                                               \
  X(EventQuery)                                                                \
  X(EventDestroy)                                                              \
  X(MemcpyAsync)                                                               \
  X(Memcpy2DAsync)

#endif /* DAG_SPACE_GPU_H */
