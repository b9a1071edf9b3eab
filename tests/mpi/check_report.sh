#!/bin/sh
# check_report.sh: DAG_REPORT's page, opened as a user would, in headless
# Chromium: it must load without a script error and show every rank, the
# program's task labels, the critical path and the bytes between ranks.
#
#   check_report.sh OUTDIR CHROMIUM RANKS [-l LABELS] [-c TASKS]
#                   LAUNCHER... -- PROGRAM [ARG...]
#
# RANKS: how many ranks the page must show (the bytes table from 2 on).
# LABELS: the task labels the page must show, separated by commas
# (potrf,gemm). TASKS: how many of the program's tasks the critical path
# must hold, exactly (any number if not given).
# Leaves OUTDIR/report.html, OUTDIR/report.png (a screenshot) and
# OUTDIR/dom.html (the page once its script ran).
set -u
out=$1 chromium=$2 ranks=$3
shift 3
labels=potrf,gemm critical=''
while [ $# -gt 0 ]; do
  case $1 in
  -l) labels=$2 && shift 2 ;;
  -c) critical=$2 && shift 2 ;;
  *) break ;;
  esac
done
launcher=''
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  launcher="$launcher $1"
  shift
done
shift
mkdir -p "$out"
rm -f "$out/report.html" "$out/report.html.json"
DAG_REPORT="$out/report.html" $launcher "$@" >"$out/run.txt" 2>&1 || {
  echo "check_report: FAILED: the program failed"
  cat "$out/run.txt"
  exit 1
}
browse() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
    --no-first-run --user-data-dir="$out/profile" "$@" \
    "file://$out/report.html" 2>>"$out/chromium.txt"
}
browse --dump-dom >"$out/dom.html"
browse --screenshot="$out/report.png" --window-size=1300,1300 >/dev/null
fail=0
wanted="report complete|id=\"critical\"[^>]*>[0-9]+ tasks?"
for label in $(echo "$labels" | tr ',' ' '); do
  wanted="$wanted|<td>$label</td>"
done
r=0
while [ $r -lt "$ranks" ]; do
  wanted="$wanted|>rank $r<"
  r=$((r + 1))
done
[ "$ranks" -gt 1 ] && wanted="$wanted|rank 0</td><td>0</td><td>[0-9,]+ B"
IFS='|'
for want in $wanted; do
  if ! grep -Eq "$want" "$out/dom.html"; then
    echo "check_report: FAILED: the page shows no '$want'"
    fail=1
  fi
done
unset IFS
if [ -n "$critical" ]; then
  got=$(grep -Eo 'id="critical"[^>]*>[0-9]+ task' "$out/dom.html" |
    grep -Eo '[0-9]+ task$' | grep -Eo '^[0-9]+')
  if [ "$got" != "$critical" ]; then
    echo "check_report: FAILED: the critical path holds ${got:-no} tasks, not $critical"
    fail=1
  fi
fi
if [ ! -s "$out/report.png" ]; then
  echo "check_report: FAILED: no screenshot"
  fail=1
fi
grep -Eo 'id="(summary|critical)"[^<]*' "$out/dom.html"
echo "check_report: page, screenshot and DOM in $out"
exit $fail
