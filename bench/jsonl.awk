# jsonl.awk — reading the benchmarks' JSON Lines records in awk: the runner
# scripts put this text in front of their own programs. Each record is one
# flat object on one line, written by the benchmarks themselves.

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
