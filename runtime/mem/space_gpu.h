/* space_gpu.h — the names space_gpu.c uses for a GPU's runtime API, so
 * that one source serves CUDA and HIP, whose runtime calls differ only in
 * their prefix: GPU(Malloc) is cudaMalloc or hipMalloc. Compiled with
 * exactly one of DAG_SPACE_CUDA or DAG_SPACE_HIP, DAG_GPU_LIBRARY, the
 * runtime library's path on the build machine, and DAG_GPU_SONAME, its
 * versioned name (what a GPU node's runtime install has, without the
 * toolkit): loaded when the space is first asked for its devices, not
 * linked. Device memory comes from the virtual memory calls,
 * which CUDA has in its driver library (cuMem*) and HIP in its runtime
 * (hipMem*): VMM(Create) names them. Only space_gpu.c includes this header: it
 * is the one place a vendor header enters the runtime.
 */
#ifndef DAG_SPACE_GPU_H
#define DAG_SPACE_GPU_H

#if defined(DAG_SPACE_CUDA) == defined(DAG_SPACE_HIP)
#error                                                                         \
    "space_gpu.c is compiled with exactly one of DAG_SPACE_CUDA or DAG_SPACE_HIP"
#endif

#ifdef DAG_SPACE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>
#define GPU(name) cuda##name
#define GPU_SYMBOL(name) "cuda" #name
#define GPU_LIBRARY_NAME "libcudart.so"
/* A symbol that is there when the runtime is in the process already. */
#define GPU_PROBE_SYMBOL "cudaGetDeviceCount"
#define GPU_NAME "cuda"
#define GPU_SPACE dag__space_cuda
#define GPU_STREAM_FN dag__cuda_stream
#define GPU_ATTR_MAX_PITCH cudaDevAttrMaxPitch
#define GPU_ATTR_UNITS cudaDevAttrMultiProcessorCount
#define GPU_ATTR_CLOCK_KHZ cudaDevAttrClockRate
#define GPU_ATTR_MAJOR cudaDevAttrComputeCapabilityMajor
#define GPU_ATTR_MINOR cudaDevAttrComputeCapabilityMinor
/* The device's name: the driver's cuDeviceGetName, in the library of the
 * virtual memory calls. */
#define GPU_NAME_SYMBOL "cuDeviceGetName"
#define GPU_MEMCPY_KIND enum cudaMemcpyKind
/* Page-locked host memory, usable by every device. */
#define GPU_HOST_ALLOC HostAlloc
#define GPU_HOST_FREE FreeHost
#define GPU_HOST_PORTABLE cudaHostAllocPortable
#define GPU_REGISTER_PORTABLE cudaHostRegisterPortable
/* The virtual memory calls are the driver's (libcuda, cuMem*). */
#define VMM(name) cuMem##name
#define VMM_SYMBOL(name) "cuMem" #name
#define VMM_LIBRARY_NAME "libcuda.so.1"
#define VMM_SUCCESS CUDA_SUCCESS
#define VMM_OUT_OF_MEMORY CUDA_ERROR_OUT_OF_MEMORY
typedef CUresult vmm_result;
typedef CUdeviceptr vmm_address;
typedef CUmemGenericAllocationHandle vmm_handle;
typedef CUmemAllocationProp vmm_prop;
typedef CUmemAccessDesc vmm_access;
#define VMM_PROP(device)                                                       \
  {                                                                            \
    .type = CU_MEM_ALLOCATION_TYPE_PINNED, .location = {                       \
      .type = CU_MEM_LOCATION_TYPE_DEVICE,                                     \
      .id = (device)                                                           \
    }                                                                          \
  }
#define VMM_ACCESS(device)                                                     \
  {                                                                            \
    .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = (device)},         \
    .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE                                \
  }
#define VMM_GRANULARITY CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
#define VMM_NEEDS "a device and driver with virtual memory management"
#else
#include <hip/hip_runtime_api.h>
#define GPU(name) hip##name
#define GPU_SYMBOL(name) "hip" #name
#define GPU_LIBRARY_NAME "libamdhip64.so"
#define GPU_PROBE_SYMBOL "hipGetDeviceCount"
#define GPU_NAME "hip"
#define GPU_SPACE dag__space_hip
#define GPU_STREAM_FN dag__hip_stream
#define GPU_ATTR_MAX_PITCH hipDeviceAttributeMaxPitch
#define GPU_ATTR_UNITS hipDeviceAttributeMultiprocessorCount
#define GPU_ATTR_CLOCK_KHZ hipDeviceAttributeClockRate
#define GPU_ATTR_MAJOR hipDeviceAttributeComputeCapabilityMajor
#define GPU_ATTR_MINOR hipDeviceAttributeComputeCapabilityMinor
#define GPU_NAME_SYMBOL "hipDeviceGetName"
#define GPU_MEMCPY_KIND hipMemcpyKind
#define GPU_HOST_ALLOC HostMalloc
#define GPU_HOST_FREE HostFree
#define GPU_HOST_PORTABLE hipHostMallocPortable
#define GPU_REGISTER_PORTABLE hipHostRegisterPortable
/* HIP's virtual memory calls are in its runtime library (hipMem*). */
#define VMM(name) hipMem##name
#define VMM_SYMBOL(name) "hipMem" #name
#define VMM_LIBRARY_NAME GPU_LIBRARY_NAME
#define VMM_SUCCESS hipSuccess
#define VMM_OUT_OF_MEMORY hipErrorOutOfMemory
typedef hipError_t vmm_result;
typedef void *vmm_address;
typedef hipMemGenericAllocationHandle_t vmm_handle;
typedef hipMemAllocationProp vmm_prop;
typedef hipMemAccessDesc vmm_access;
#define VMM_PROP(device)                                                       \
  {                                                                            \
    .type = hipMemAllocationTypePinned, .location = {                          \
      .type = hipMemLocationTypeDevice,                                        \
      .id = (device)                                                           \
    }                                                                          \
  }
#define VMM_ACCESS(device)                                                     \
  {                                                                            \
    .location = {.type = hipMemLocationTypeDevice, .id = (device)},            \
    .flags = hipMemAccessFlagsProtReadWrite                                    \
  }
#define VMM_GRANULARITY hipMemAllocationGranularityRecommended
#define VMM_NEEDS                                                              \
  "a GPU and a ROCm that support it (ROCm 6 or later for the HIP calls)"
/* Older HIP has the calls but no attribute that says they work. */
#if HIP_VERSION_MAJOR >= 6
#define GPU_ATTR_VMM hipDeviceAttributeVirtualMemoryManagementSupported
#endif
#endif

/* The calls of the runtime library that space_gpu.c makes, each X(name). */
#define GPU_CALLS(X)                                                           \
  X(GetLastError)                                                              \
  X(GetErrorString)                                                            \
  X(GetDeviceCount)                                                            \
  X(MemGetInfo)                                                                \
  X(SetDevice)                                                                 \
  X(DeviceGetAttribute)                                                        \
  X(DeviceGetPCIBusId)                                                         \
  X(StreamCreateWithFlags)                                                     \
  X(StreamCreateWithPriority)                                                  \
  X(DeviceGetStreamPriorityRange)                                              \
  X(StreamDestroy)                                                             \
  X(StreamWaitEvent)                                                           \
  X(EventCreateWithFlags)                                                      \
  X(EventRecord)                                                               \
  X(EventSynchronize)                                                          \
  X(EventDestroy)                                                              \
  X(MemcpyAsync)                                                               \
  X(Memcpy2DAsync)                                                             \
  X(GPU_HOST_ALLOC)                                                            \
  X(GPU_HOST_FREE)                                                             \
  X(HostRegister)                                                              \
  X(HostUnregister)

/* The virtual memory calls, each X(name): VMM(Create) is cuMemCreate
 * (hipMemCreate). */
#define VMM_CALLS(X)                                                           \
  X(GetAllocationGranularity)                                                  \
  X(AddressReserve)                                                            \
  X(AddressFree)                                                               \
  X(Create)                                                                    \
  X(Release)                                                                   \
  X(Map)                                                                       \
  X(SetAccess)                                                                 \
  X(Unmap)

#endif /* DAG_SPACE_GPU_H */
