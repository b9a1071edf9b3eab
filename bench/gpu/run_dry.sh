#!/bin/sh
# shellcheck disable=SC2016 # the stand-ins' scripts expand when they run
# bench/gpu/run_dry.sh BUILD — bench/gpu/run's logic, here, without a GPU:
# a bundle of stand-ins that print what the real programs print (made-up
# figures), run twice.
#   1. A GPU machine as the run expects one (a stand-in nvidia-smi and
#      compute-sanitizer on the PATH): every step runs, the model file and
#      the ratios are written, and bench/gpu/predict reads them here
#      (its verdict on made-up figures is not checked).
#   2. A machine with the driver alone and no tools: no nvidia-smi, no
#      compute-sanitizer, the CUDA runtime missing: the steps that need it
#      are skipped, saying so, the others still run, and the run ends with
#      status 1 without crashing.
# Exits 1, saying what, when either run does not go so.
set -eu
build=$(cd "$1" && pwd)
gpu=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bundle/bin" "$tmp/bundle/lib" "$tmp/tools" "$tmp/one" "$tmp/two"
stand_in() { # NAME BODY: bin/NAME, a script that reads -n and -b first
  printf '#!/bin/sh\nn=0 b=0 r=1 peer=\nfor a; do case $p in\n-n) n=$a;; -b) b=$a;; -r) r=$a;; --peer) peer=$a;; esac; p=$a; done\n%s\n' \
    "$2" >"$tmp/bundle/bin/$1"
  chmod +x "$tmp/bundle/bin/$1"
}
stats='echo "dag: stats: device cuda 0: 8 tasks; 8 copies in"'
reps='for i in $(seq $r); do echo "$0: rep $i of $r: 1.0$i s" >&2; done'
stand_in gpu_space 'echo "gpu_space: 1 device: ok"'
stand_in gemm_gpu "$reps; $stats"'
echo "gemm runtime=dag-gpu n=$n b=$b workers=2 time=1.0000 gflops=$((n / 100)) residual=1e-16"'
stand_in cholesky_gpu "$reps; $stats"'
echo "cholesky runtime=dag-gpu n=$n b=$b workers=2 time=1.0000 gflops=$((n / 200)) residual=1e-16"'
stand_in gpu_vendor 'case $1 in
tiles) for l in gemm syrk trsm potrf; do echo "tiles label=$l b=$b time=0.1 tflops=50.00"; done ;;
*) echo "$1 runtime=$peer n=$n b=$b rep=1 time=1.0"
   echo "$([ $1 = gemm ] && echo gemm || echo cholesky) runtime=$peer n=$n b=$b reps=$r time=1.0 tflops=$((n / 1000)).00 error=1e-16" ;;
esac'
stand_in model_check 'echo "model_check calibrate b=$b rate=2e+10"'
stand_in gpu_copy_paths 'for w in "pack threads=1" "staged in streams=1" "staged out streams=1"; do
echo "copy_paths $w bytes=1 time=1 gbps=50.00"; done'
touch "$tmp/bundle/lib/libcudart.so.99" "$tmp/bundle/lib/libcuda.so.1"
echo libcudart.so.99 >"$tmp/bundle/cuda-runtime"
echo "Cuda compilation tools, release 99.0" >"$tmp/bundle/cuda-version"
printf '#!/bin/sh\ncase $1 in -q) printf "    Persistence Mode : Enabled\\n        PCIe Generation\\n            Max : 5\\n            Current : 5\\n" ;;\n--query-gpu=*) echo 81559 ;;\nesac\n' \
  >"$tmp/tools/nvidia-smi"
printf '#!/bin/sh\nshift 2\nexec "$@"\n' >"$tmp/tools/compute-sanitizer"
chmod +x "$tmp/tools/nvidia-smi" "$tmp/tools/compute-sanitizer"
fail() {
  echo "run_dry: FAILED: $*" >&2
  exit 1
}

# 1. Everything there: status 0, the model file and the ratios written.
PATH="$tmp/tools:$PATH" OUT="$tmp/one" sh "$gpu/run" "$tmp/bundle" \
  "2048 4096" >"$tmp/one.txt" 2>&1 ||
  { cat "$tmp/one.txt"; fail "the run with every tool failed"; }
for want in "Persistence Mode" "== dag gemm n=4096 cold" "rate cpu gemm 2e+10" \
  "runtime=cublasxt n=2048" "copy in 50.00G" "rate device potrf 50.00T" \
  "gemm 4096: dag cold 0.04, warm 0.04 TFLOP/s; cublas-resident 4.00" \
  "(dag 0.01x); dag 0.01x min(cuBLAS on resident data, the link's bound 17.1)" "status 0"; do
  grep -q -- "$want" "$tmp/one.txt" || fail "no '$want' in run 1"
done
sh "$gpu/predict" "$tmp/one" "$build" >"$tmp/predict.txt" 2>&1 || true
grep -q "^predict potrf n=2048 b=256 cold: measured 1.0100 s, model" \
  "$tmp/predict.txt" || { cat "$tmp/predict.txt"; fail "no prediction"; }

# 2. A driver alone: no tools, no CUDA runtime; status 1, each skip said.
rm "$tmp/bundle/lib/libcudart.so.99"
OUT="$tmp/two" PATH=/usr/bin:/bin sh "$gpu/run" "$tmp/bundle" 2048 \
  >"$tmp/two.txt" 2>&1 && fail "the run without a CUDA runtime passed"
for want in "SKIPPED nvidia-smi" "SKIPPED the gpu test: missing libcudart.so.99" \
  "SKIPPED gemm 2048 on dag: missing libcudart.so.99" \
  "SKIPPED compute-sanitizer" "runtime=cusolver-pinned n=2048" \
  "copy_paths staged in" "no model written" "status 1"; do
  grep -q -- "$want" "$tmp/two.txt" || { cat "$tmp/two.txt"; fail "no '$want' in run 2"; }
done
cat "$tmp/one.txt" "$tmp/predict.txt"
echo "run_dry: both runs went as expected"
