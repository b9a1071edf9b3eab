#!/usr/bin/env bash
# What dagcc says about OpenMP in a dag build. Without -fopenmp the compiler
# ignores '#pragma omp': the rewriter warns once per file, at the first one
# (-Wdag-openmp), and -Wno-unknown-pragmas keeps it quiet as it keeps the
# compiler quiet. With -fopenmp, for a file with dag pragmas, the driver
# warns that OpenMP's threads would compete with dag's workers
# (-Wdag-fopenmp); not for a file without dag pragmas.
source "$(dirname "$0")/lib.sh"
cases=$SRC/../../rewrite
cp "$cases"/err_openmp_construct.c stacked.c
cp "$cases"/openmp_guards_dag_first.c dag_first.c
printf '%s\n' 'void work(int *x);' 'void f(int *x) {' '#pragma omp task' \
  '  work(x);' '#pragma omp taskwait' '}' >omp_only.c

# Fails unless $ROOT/err holds `want` lines that match `pattern`.
count() { # want pattern
  local got
  got=$(grep -c -e "$2" "$ROOT/err" || true)
  [ "$got" = "$1" ] || fail "$got lines match '$2', not $1: $(cat "$ROOT/err")"
}

# Several OpenMP pragmas, one warning, at the first.
expect_status 0 "$DAGCC" -fsyntax-only stacked.c
count 1 "warning: dagcc ignores OpenMP pragmas"
count 1 "^stacked.c:11:1: warning: dagcc ignores OpenMP pragmas: this '#pragma omp parallel' and the file's other '#pragma omp' lines have no effect (write them as dag pragmas: see docs/porting.md) \[-Wdag-openmp\]$"
# A file without dag pragmas (not ported) is compiled as it is, unread.
expect_status 0 "$DAGCC" -fsyntax-only omp_only.c
count 0 .
expect_status 1 "$DAGCC" -Werror -fsyntax-only stacked.c
count 1 "^stacked.c:11:1: error: dagcc ignores OpenMP pragmas.*\[-Werror,-Wdag-openmp\]$"
# Quiet: -Wno-unknown-pragmas, from the command line or DAG_CC; its own
# option; -w. -Wunknown-pragmas after it brings it back.
expect_status 0 "$DAGCC" -Wall -Wno-unknown-pragmas -fsyntax-only stacked.c
count 0 .
DAG_CC="cc -Wno-unknown-pragmas" expect_status 0 "$DAGCC" -fsyntax-only \
  stacked.c
count 0 .
expect_status 0 "$DAGCC" -Wno-dag-openmp -fsyntax-only stacked.c
count 0 .
expect_status 0 "$DAGCC" -w -fsyntax-only stacked.c
count 0 .
expect_status 0 "$DAGCC" -Wno-unknown-pragmas -Wunknown-pragmas \
  -fsyntax-only stacked.c
count 1 "warning: dagcc ignores OpenMP pragmas"

# -fopenmp with dag pragmas: one line from the driver, as -Wdag-fopenmp.
fopenmp="dagcc: warning: -fopenmp with the dag tasks of 'dag_first.c': it brings in OpenMP's runtime, whose threads compete with dag's workers for the cores when an OpenMP construct runs (build without -fopenmp, unless the program uses OpenMP itself: see docs/porting.md) \[-Wdag-fopenmp\]"
expect_status 0 "$DAGCC" -fopenmp -Wno-unknown-pragmas -fsyntax-only \
  dag_first.c
count 1 "^$fopenmp$"
count 1 .
DAG_CC="cc -fopenmp" expect_status 0 "$DAGCC" -fsyntax-only dag_first.c
count 1 "^$fopenmp$"
expect_status 0 "$DAGCC" --rewrite-only -fopenmp -o out.c dag_first.c
count 1 "^$fopenmp$"
expect_status 1 "$DAGCC" -fopenmp -Werror -fsyntax-only dag_first.c
count 1 "^dagcc: error: -fopenmp with the dag tasks of 'dag_first.c'.*\[-Werror,-Wdag-fopenmp\]$"
expect_status 0 "$DAGCC" -fopenmp -Wno-dag-fopenmp -fsyntax-only dag_first.c
count 0 .
expect_status 0 "$DAGCC" -fopenmp -fno-openmp -fsyntax-only dag_first.c
count 0 .
# Not for a file without dag pragmas, whose OpenMP pragmas then work.
expect_status 0 "$DAGCC" -fopenmp -fsyntax-only omp_only.c
count 0 .
tmp_empty
