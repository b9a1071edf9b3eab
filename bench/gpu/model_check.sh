#!/bin/sh
# bench/gpu/model_check.sh [N] [TILE] [WORKERS] [ROUNDS] [FACTOR] — the
# timed device model against this machine (issue 26 §1): one core's dgemm
# rate is measured, a model with it is written, and a tiled GEMM of CPU
# tasks runs for real and on the model, alternately, ROUNDS times each;
# prints each wall time, the medians and their ratio (model over real).
# Exits 1 when a run fails or prints no time, and, given FACTOR, when the
# ratio is not within FACTOR of 1 (from 1/FACTOR to FACTOR).
set -eu
dir=$(dirname "$0")
bin=${MODEL_CHECK:-$dir/model_check}
n=${1:-4096} b=${2:-512} workers=${3:-2} rounds=${4:-3} factor=${5:-}
err=$(mktemp)
model=$(mktemp)
trap 'rm -f "$model" "$err"' EXIT

# The value of FIELD= at the end of the line COMMAND prints; its stderr
# is shown only when it fails or prints no such value.
value_of() { # FIELD COMMAND...
  field=$1
  shift
  out=$("$@" 2>"$err") || {
    status=$?
    cat "$err" >&2
    echo "model_check.sh: FAILED: exit status $status: $*" >&2
    return 1
  }
  v=$(printf '%s\n' "$out" | sed -n "s/.* $field=\([0-9.e+]*\)\$/\1/p")
  if [ -z "$v" ]; then
    printf '%s\n' "$out" >&2
    cat "$err" >&2
    echo "model_check.sh: FAILED: no $field= from: $*" >&2
    return 1
  fi
  echo "$v"
}

rate=$(value_of rate "$bin" calibrate -b "$b")
cat >"$model" <<MODEL
name this-cpu
memory 1G
copy in 10G 1us
copy out 10G 1us
rate cpu gemm $rate
MODEL
echo "one core's dgemm on tiles of $b: $rate flop/s"
real="" model_t=""
for r in $(seq "$rounds"); do
  t=$(value_of wall env DAG_NUM_THREADS="$workers" "$bin" run -n "$n" -b "$b")
  real="$real $t"
  t=$(value_of wall env DAG_NUM_THREADS="$workers" DAG_DEVICES=emul \
      DAG_EMUL_MODEL="$model" "$bin" run -n "$n" -b "$b")
  model_t="$model_t $t"
done
median() { echo "$@" | tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
mr=$(median $real) mm=$(median $model_t)
ratio=$(echo "$mm $mr" | awk '{printf "%.3f", $1/$2}')
echo "real:$real"
echo "model:$model_t"
echo "model_check n=$n b=$b workers=$workers real=$mr model=$mm model/real=$ratio"
if [ -n "$factor" ]; then
  if awk -v r="$ratio" -v f="$factor" 'BEGIN { exit !(r >= 1 / f && r <= f) }'; then
    echo "model_check: model/real=$ratio within a factor of $factor: ok"
  else
    echo "model_check: FAILED: model/real=$ratio, not within a factor of $factor" >&2
    exit 1
  fi
fi
