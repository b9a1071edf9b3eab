#!/bin/sh
# device_failures.sh MPIEXEC PROGRAM: runs PROGRAM (mpi_device: device-only
# tasks on the emulated device) on 1 and 2 ranks with each failure the
# emulated device can inject (DAG_EMUL_FAIL), and with DAG_DEVICES=cuda.
# Each injected failure must end the run with a non-zero status and one
# message naming the operation and the task, and no result printed as if
# valid. DAG_DEVICES=cuda must either fail at start saying why no CUDA
# device can be used, or (on a machine with a GPU) run device tasks on it.
mpiexec=$1
program=$2
failed=0

fail() {
  echo "device_failures.sh: $*"
  failed=1
}

for ranks in 1 2; do
  for injected in alloc:2 copy:3 kernel:2; do
    # A copy may be one for the host task that reads a device's result.
    case $injected in
    alloc:*) what="task 'add on device': allocating device memory failed" ;;
    copy:*) what="task '[a-z ]+': a copy (to|from) the device failed" ;;
    kernel:*) what="task 'add on device': a kernel failed" ;;
    esac
    out=$(DAG_DEVICES=emul DAG_EMUL_MEM=6M DAG_EMUL_FAIL=$injected \
      "$mpiexec" --oversubscribe -n $ranks "$program" 8 65536 2>&1)
    status=$?
    said=$(echo "$out" | grep -Ec "error: $what")
    echo "$ranks rank(s), DAG_EMUL_FAIL=$injected: status $status, $said message(s)"
    [ "$status" -ne 0 ] || fail "$injected on $ranks rank(s): exit status 0"
    # One message per rank at most (each rank's device fails alike), and at
    # least one; nothing else said as an error by dag.
    [ "$said" -ge 1 ] && [ "$said" -le "$ranks" ] ||
      fail "$injected on $ranks rank(s): $said messages; output: $out"
    others=$(echo "$out" | grep "dag.*error:" | grep -Evc "$what")
    [ "$others" -eq 0 ] ||
      fail "$injected on $ranks rank(s): other errors: $out"
    if echo "$out" | grep -q "blocks of"; then
      fail "$injected on $ranks rank(s): a result was printed: $out"
    fi
  done
done

out=$(DAG_DEVICES=cuda DAG_STATS=1 "$mpiexec" -n 1 "$program" 8 65536 2>&1)
status=$?
if [ "$status" -ne 0 ]; then
  echo "$out" | grep -q "DAG_DEVICES asks for cuda, which cannot be used: ." ||
    fail "DAG_DEVICES=cuda failed without saying why: $out"
  echo "DAG_DEVICES=cuda: refused: $(echo "$out" | grep -m1 'asks for cuda')"
else
  echo "$out" | grep -Eq "device cuda [0-9]+: [1-9][0-9]* tasks" ||
    fail "DAG_DEVICES=cuda ran, but no task on a CUDA device: $out"
fi
exit $failed
