# bench/gpu/model_file.awk — a device model (docs/gpu.md, "Timed mode")
# from what bench/gpu/run measured on a GPU machine, read from its log:
#   awk -v memory=BYTES -f model_file.awk gpu.txt >measured.model
# The copy rates each way are those of a page-locked buffer (copy_paths
# staged, one stream), packing one core's (copy_paths pack threads=1), the
# device's rates its tile kernels' (gpu_vendor tiles), a core's dgemm rate
# model_check's calibration; a core's syrk, trsm and potrf keep the h200
# model's ratios to its gemm, and the launch latency the h200 model's: no
# step measures them.
/^copy_paths staged in streams=1 / { copy_in = gbps($0) }
/^copy_paths staged out streams=1 / { copy_out = gbps($0) }
/^copy_paths pack threads=1 / { pack = gbps($0) }
/^tiles label=/ {
  split($2, l, "=")
  rate[l[2]] = field($0, "tflops")
}
/^model_check calibrate / { cpu = field($0, "rate") }

function field(line, name,    m) {
  if (!match(line, " " name "=[0-9.e+-]+"))
    return ""
  return substr(line, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
}
function gbps(line) { return field(line, "gbps") }

END {
  if (!copy_in || !copy_out || !memory) {
    print "model_file.awk: no copy rates or memory size in the log" > "/dev/stderr"
    exit 1
  }
  print "name measured"
  printf "memory %.0f            # nvidia-smi\n", memory
  printf "copy in %sG 10us     # copy_paths: a page-locked buffer; latency assumed\n", copy_in
  printf "copy out %sG 10us    # copy_paths\n", copy_out
  if (pack)
    printf "pack %sG             # copy_paths: one core\n", pack
  print "launch 5us           # assumed, as h200"
  n = split("gemm syrk trsm potrf", labels, " ")
  for (i = 1; i <= n; i++)
    if (rate[labels[i]])
      printf "rate device %s %sT # gpu_vendor tiles\n", labels[i], rate[labels[i]]
  if (cpu) {
    printf "rate cpu gemm %.4g   # model_check calibrate\n", cpu
    printf "rate cpu syrk %.4g   # h200's ratio to gemm\n", cpu * 35 / 40
    printf "rate cpu trsm %.4g   # h200's ratio to gemm\n", cpu * 30 / 40
    printf "rate cpu potrf %.4g  # h200's ratio to gemm\n", cpu * 20 / 40
  }
}
