#!/usr/bin/env bash
# check_guide.sh — docs/porting.md cannot drift from the programs that the
# tests build and run.
#
#   check_guide.sh GUIDE.md ROOT
#
# Every ```c block of GUIDE whose first line is a comment naming a file,
#
#   ```c
#   /* tests/porting/fib.c */
#   ...
#
# must appear in that file (relative to ROOT), line for line and in one
# piece, without its first line. Every .c and .h file of ROOT/tests/porting
# must be named in the guide. Fails with the guide's line and the first
# line of the block that the file lacks.
set -u
if [ $# -ne 2 ]; then
  echo "usage: check_guide.sh GUIDE.md ROOT" >&2
  exit 2
fi
guide=$1 root=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/dag-guide.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# Split the marked blocks out: $work/N.txt holds block N without its first
# line; $work/index lists "N LINE FILE" for each.
awk -v work="$work" '
  function flush() { if (out != "") close(out) }
  /^```c[[:space:]]*$/ && !inblock { inblock = 1; first = 1; start = NR; next }
  /^```[[:space:]]*$/ && inblock { inblock = 0; flush(); out = ""; next }
  inblock && first {
    first = 0
    if (match($0, /^\/\* tests\/porting\/[A-Za-z0-9_.-]+\.[ch] \*\/$/)) {
      file = substr($0, 4, length($0) - 6)
      n++
      out = work "/" n ".txt"
      printf "" > out
      print n, start, file > (work "/index")
    } else {
      print start > (work "/unmarked")
      out = ""
    }
    next
  }
  inblock && out != "" { print > out }
  END { if (inblock) { print "unterminated block at line " start > "/dev/stderr"; exit 1 } }
' "$guide" || exit 1

status=0
blocks=0
if [ -f "$work/index" ]; then
  while read -r n line file; do
    blocks=$((blocks + 1))
    path="$root/$file"
    if [ ! -f "$path" ]; then
      echo "check_guide: FAIL: $guide:$line: the block names $file, which does not exist"
      status=1
      continue
    fi
    if [ ! -s "$work/$n.txt" ]; then
      echo "check_guide: FAIL: $guide:$line: the block for $file is empty"
      status=1
      continue
    fi
    # The block, as one string, must be a substring of the file.
    if ! awk -v blockfile="$work/$n.txt" '
        BEGIN {
          while ((getline l < blockfile) > 0) block = block l "\n"
          close(blockfile)
        }
        { text = text $0 "\n" }
        END { exit index(text, block) ? 0 : 1 }
      ' "$path"; then
      missing=$(while IFS= read -r l; do
        if ! grep -qxF -- "$l" "$path"; then
          printf '%s\n' "$l"
          break
        fi
      done <"$work/$n.txt")
      echo "check_guide: FAIL: $guide:$line: the block is not an excerpt of $file"
      if [ -n "$missing" ]; then
        echo "  first line the file lacks: $missing"
      else
        echo "  (every line is in the file, but not in this order or not together)"
      fi
      status=1
    fi
  done <"$work/index"
fi
if [ $blocks -eq 0 ]; then
  echo "check_guide: FAIL: $guide has no marked C block"
  status=1
fi

# Every example is in the guide.
for f in "$root"/tests/porting/*.[ch]; do
  name="tests/porting/$(basename "$f")"
  if ! grep -qF -- "$name" "$guide"; then
    echo "check_guide: FAIL: $name is not named in $guide"
    status=1
  fi
done

unmarked=0
[ -f "$work/unmarked" ] && unmarked=$(wc -l <"$work/unmarked")
if [ $status -eq 0 ]; then
  echo "check_guide: ok: $blocks C blocks are excerpts of their files" \
    "($unmarked unmarked)"
fi
exit $status
