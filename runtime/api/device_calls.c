/* device_calls.c — the calls a device body makes: the device address of a
 * host pointer (the device layer's), and a kernel on the emulated device
 * (its memory space's). The streams are api/backend.c's, which knows the
 * toolkits built. */
#include "api/api.h"
#include "mem/space.h"

void *dag_device_ptr(const void *host) { return dag__device_ptr(host); }

int dag_emul_launch(void (*kernel)(void *args), const void *args, size_t size) {
  return dag__space_kernel(kernel, args, size);
}
