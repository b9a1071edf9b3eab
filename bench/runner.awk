# runner.awk — what the runner scripts' awk programs share: they put this
# text in front of their own. Reading the benchmarks' JSON Lines records
# (each one flat object on one line, written by the benchmarks themselves),
# and saying which variant of a peer won (peers.sh).

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
