#!/usr/bin/env bash
# dag and OpenMP pragmas in one file, built with dagcc with and without
# -fopenmp, run, and compared with gcc's build. Under -fopenmp a dag pragma
# inside or on an OpenMP construct is an error with a note saying what to
# do; with each kind under its own guard, dag's first, the file builds and
# runs. Preprocessor lines between a pragma and its statement (#if
# defined(_OPENMP) / #elif defined(_DAG) guards, #ifdef USE_TASKS) build and
# run.
source "$(dirname "$0")/lib.sh"
cases=$SRC/../../rewrite
cp "$cases"/err_openmp_construct.c "$cases"/openmp_guards_dag_first.c \
  "$cases"/openmp_guards.c "$cases"/preprocessor_between.c .

# runs PROGRAM with 1 and 3 workers; each must print WANT.
runs() { # want program
  local t got
  for t in 1 3; do
    got=$(DAG_NUM_THREADS=$t "./$2" 2>/dev/null)
    [ "$got" = "$1" ] || fail "$2 with $t workers printed '$got', not '$1'"
  done
}

# Stacked pragmas: fine without -fopenmp (dagcc ignores OpenMP's), an
# error with it.
gcc -Wno-unknown-pragmas -o stacked-serial err_openmp_construct.c
"$DAGCC" -Wno-unknown-pragmas -o stacked err_openmp_construct.c
runs "$(./stacked-serial)" stacked
expect_status 1 "$DAGCC" -fopenmp -o stacked err_openmp_construct.c
grep -q "error: '#pragma dag task' is inside an OpenMP construct" \
  "$ROOT/err" || fail "no error: $(cat "$ROOT/err")"
grep -q "note: under -fopenmp this OpenMP construct" "$ROOT/err" ||
  fail "no note: $(cat "$ROOT/err")"

# Each kind under its own guard: dagcc -fopenmp runs dag tasks.
"$PLAIN_GCC" -fopenmp -Wno-unknown-pragmas -o dag-first-omp \
  openmp_guards_dag_first.c
"$DAGCC" -fopenmp -Wall -Wno-unknown-pragmas -o dag-first \
  openmp_guards_dag_first.c
runs "$(./dag-first-omp 2>/dev/null)" dag-first
"$PLAIN_GCC" -fopenmp -Wno-unknown-pragmas -o guards-omp openmp_guards.c
"$DAGCC" -Wall -Wno-unknown-pragmas -o guards openmp_guards.c
runs "$(./guards-omp)" guards

# A pragma under #ifdef with its #endif before the statement, and a
# statement under #ifdef after a pragma.
"$DAGCC" -Wall -DUSE_TASKS -o between preprocessor_between.c
runs 4 between
"$DAGCC" -Wall -DTWO -o between-two preprocessor_between.c
runs 3 between-two
tmp_empty
