# bench/gpu/ratios.awk — from bench/gpu/run's log, dag's rate at each size
# (the best rep of its cold run and of its warm one) over each vendor
# peer's, and for GEMM over the lower of the device-resident cuBLAS rate and
# the link's bound (A, B and C copied in at copy_paths' page-locked rate).
/^== dag / { run = $NF }
/runtime=dag-gpu / && run { # of a size's run, not of the small checks
  dag[$1 " " field("n"), run] = field("gflops") / 1000
  sizes[$1 " " field("n")] = 1
  run = ""
}
/ runtime=cu[a-z-]+ .* tflops=/ {
  k = $1 " " field("n")
  peers[k] = peers[k] " " field("runtime")
  rate[k, field("runtime")] = field("tflops") + 0
}
/^copy_paths staged in streams=1 / { link = field("gbps") + 0 }

function field(name) {
  if (!match($0, " " name "=[^ ]+"))
    return ""
  return substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
}

END {
  for (k in sizes) {
    line = sprintf("%s: dag cold %.2f, warm %.2f TFLOP/s", k, dag[k, "cold"],
                   dag[k, "warm"])
    best = dag[k, "warm"] > dag[k, "cold"] ? dag[k, "warm"] : dag[k, "cold"]
    np = split(peers[k], names, " ")
    for (i = 1; i <= np; i++)
      if (rate[k, names[i]] > 0)
        line = line sprintf("; %s %.2f (dag %.2fx)", names[i],
                            rate[k, names[i]], best / rate[k, names[i]])
    split(k, kn, " ")
    ceiling = rate[k, "cublas-resident"]
    if (kn[1] == "gemm" && ceiling > 0) {
      bound = link ? kn[2] * link / 12000 : 0 # 2 n^3 / (24 n^2 / link)
      if (bound && bound < ceiling)
        ceiling = bound
      line = line sprintf("; dag %.2fx min(cuBLAS on resident data, the " \
                          "link's bound %.1f)", best / ceiling, bound)
    }
    print line
  }
}
