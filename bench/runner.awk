# runner.awk — what the runner scripts' awk programs share: they put this
# text in front of their own (runner.sh reads it into $awklib). Reading the
# benchmarks' JSON Lines records (each one flat object on one line, written
# by the benchmarks themselves) and the key=value lines the programs print,
# choosing a table's columns and each cell's best, printing a cell with its
# ratio, and saying which variant of a peer won (peers.sh).

# The string value of key in the current record, or "".
function str(key) {
  if (!match($0, "\"" key "\":\"[^\"]*\"")) return ""
  return substr($0, RSTART + length(key) + 4, RLENGTH - length(key) - 5)
}

# The numeric value of key in the current record, or "".
function num(key) {
  if (!match($0, "\"" key "\":[^,}]*")) return ""
  return substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3) + 0
}

# Where a peer runs as several variants (peers.sh), the program keeps
# tried[runtime, variant] for every run, won[cell] = the variant whose result
# a cell shows and, optionally, config[runtime] = a runtime's configuration.
# Prints, for each of the n runtimes of col[], the cells each of its
# variants won, or its configuration where it ran as one.
function say_variants(col, n,   j, key, tv, p, line, count, wins) {
  for (key in won) wins[won[key]]++
  for (j = 1; j <= n; j++) {
    line = ""; count = 0
    for (tv in tried) {
      split(tv, p, SUBSEP)
      if (p[1] != col[j]) continue
      count++
      line = line sprintf(" %s %d", p[2], wins[p[2]] + 0)
    }
    if (count > 1)
      printf "%s: the best of its variants in each cell; cells won:%s\n",
             col[j], line
    else if (col[j] in config)
      printf "%s: %s\n", col[j], config[col[j]]
  }
}

# The words key=value of the current line, from the from-th on, into f[key].
function fields(f, from,   i, kv) {
  for (i = from; i <= NF; i++) {
    split($i, kv, "=")
    f[kv[1]] = kv[2]
  }
}

# A table's columns: the runtimes of order (a runner's --runtimes, where a
# variant such as starpu_lws stands for its runtime) that have records
# (seen[runtime]), each once, into col[1..]; returns how many.
function columns(order, seen, col,   all, i, n, taken) {
  split(order, all, " ")
  for (i = 1; i in all; i++) {
    sub(/_.*/, "", all[i])
    if (all[i] in seen && !(all[i] in taken)) {
      col[++n] = all[i]; taken[all[i]] = 1
    }
  }
  return n
}

# Whether v beats arr[key], or arr has no key yet: the larger wins (rates),
# or the smaller where lower is set (times).
function beats(v, arr, key, lower) {
  return !(key in arr) || (lower ? v < arr[key] : v > arr[key])
}

# A table's cell: v printed with fmt ("%.2f" where empty) and, where
# ref > 0, its ratio to ref: "12.34 (1.05x)".
function cell_of(v, ref, fmt,   c) {
  c = sprintf(fmt == "" ? "%.2f" : fmt, v)
  return ref > 0 ? sprintf("%s (%.2fx)", c, v / ref) : c
}
