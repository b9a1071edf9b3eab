/* planted_backend_call.c — the core calling the emulated space's own
 * function, not through the space table: the layer check must find it
 * (tests/layers). Compiled, never linked. */
#include "mem/emul_model.h"

int planted_backend_call(struct emul_model *m) {
  return dag__emul_model_load("planted", m);
}
