#!/bin/sh
# direct_sends.sh COMMAND [ARG...]: runs COMMAND (mpiexec ... mpi_device)
# with GPU data allowed to leave straight from device memory
# (DAG_MPI_GPU_DIRECT=1) and DAG_STATS on. Passes when it exits 0 and some
# rank's device says it sent data to another rank from its own memory. On
# the emulated device the host's copy of what a device task wrote stays
# poisoned, so a right result also shows that the sends read the device's
# copy.
out=$(DAG_STATS=1 DAG_MPI_GPU_DIRECT=1 "$@" 2>&1)
status=$?
echo "$out"
if [ "$status" -ne 0 ]; then
  echo "direct_sends.sh: exit status $status"
  exit 1
fi
if ! echo "$out" | grep -Eq "[1-9][0-9]* sends to other ranks straight from its memory"; then
  echo "direct_sends.sh: no send went straight from device memory"
  exit 1
fi
