/* kinds.c — the device kinds of dag.h's DAG_DEVICE_KINDS by their names,
 * for DAG_DEVICES and for messages. */
#include "base.h"

#include <string.h>

static const char *const names[DAG_NDEVICE_KINDS] = {
#define KIND_NAME(id, name) [DAG_DEVICE_##id] = #name,
    DAG_DEVICE_KINDS(KIND_NAME)
#undef KIND_NAME
};

const char *dag__device_kind_name(enum dag_device kind) {
  return (unsigned)kind < DAG_NDEVICE_KINDS ? names[kind] : NULL;
}

bool dag__device_kind_named(const char *name, enum dag_device *kind) {
  for (int k = 0; k < DAG_NDEVICE_KINDS; k++)
    if (!strcmp(name, names[k])) {
      *kind = (enum dag_device)k;
      return true;
    }
  return false;
}
