#!/usr/bin/env bash
# What dagcc says about OpenMP in a dag build. Without -fopenmp the compiler
# ignores '#pragma omp': the rewriter warns once per file, at the first one
# (-Wdag-openmp), and -Wno-unknown-pragmas keeps it quiet as it keeps the
# compiler quiet. A file with no dag pragma at all, whose OpenMP (pragmas,
# or macros that vanish without _OPENMP) therefore does nothing, gets the
# same warning, saying that it runs serially; not with -fopenmp, where its
# OpenMP works. With -fopenmp, for a file with dag pragmas, the driver warns
# that OpenMP's threads would compete with dag's workers (-Wdag-fopenmp);
# not for a file without dag pragmas.
source "$(dirname "$0")/lib.sh"
cases=$SRC/../../rewrite
cp "$cases"/err_openmp_construct.c stacked.c
cp "$cases"/openmp_guards_dag_first.c dag_first.c
printf '%s\n' 'void work(int *x);' 'void f(int *x) {' '#pragma omp task' \
  '  work(x);' '#pragma omp taskwait' '}' >omp_only.c
# OpenMP behind macros of a header, as the Parallel Research Kernels write
# it; a program that is plain C; one that is both, but uses the header's
# OpenMP macros only for simd.
cp "$cases"/warn_openmp_no_dag_macro.[ch] "$cases"/openmp_no_dag_quiet.c .
printf '%s\n' '#include <stdio.h>' \
  'int main(void) { puts("hello"); return 0; }' >plain.c

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
# A file without dag pragmas (not ported) is compiled as it is, and its
# OpenMP does nothing: one warning, at the first OpenMP pragma.
omp_only="^omp_only.c:3:1: warning: 'omp_only.c' uses OpenMP but has no dag pragma, and dagcc compiles it without OpenMP: this '#pragma omp task' and the file's other OpenMP pragmas do nothing, so it runs serially (port it to dag pragmas: see docs/porting.md; or compile it with -fopenmp) \[-Wdag-openmp\]$"
expect_status 0 "$DAGCC" -fsyntax-only omp_only.c
count 1 "$omp_only"
count 1 "warning"
# Through macros that vanish without _OPENMP: the first use of one.
expect_status 0 "$DAGCC" -c -o macro.o warn_openmp_no_dag_macro.c
count 1 "^warn_openmp_no_dag_macro.c:16:3: warning: 'warn_openmp_no_dag_macro.c' uses OpenMP but has no dag pragma, .* this 'OMP_PARALLEL' (a macro for an OpenMP pragma) and the file's other OpenMP pragmas do nothing, so it runs serially .*\[-Wdag-openmp\]$"
count 1 "warning"
[ -s macro.o ] || fail "no macro.o"
# Not for plain C, nor for OpenMP that asks for no threads.
expect_status 0 "$DAGCC" -Wall -Wextra -o plain plain.c
count 0 .
expect_status 0 "$DAGCC" -fsyntax-only openmp_no_dag_quiet.c
count 0 .
# As the compiler would: -Werror makes it an error (nothing compiled),
# -Wno-error=dag-openmp a warning again; quiet with -Wno-dag-openmp,
# -Wno-unknown-pragmas or -w; none with -fopenmp, where OpenMP works.
rm -f macro.o
expect_status 1 "$DAGCC" -Werror -c -o macro.o warn_openmp_no_dag_macro.c
count 1 "^warn_openmp_no_dag_macro.c:16:3: error: 'warn_openmp_no_dag_macro.c' uses OpenMP.*\[-Werror,-Wdag-openmp\]$"
[ ! -e macro.o ] || fail "macro.o made under -Werror"
expect_status 0 "$DAGCC" -Werror -Wno-error=dag-openmp -fsyntax-only \
  omp_only.c
count 1 "^omp_only.c:3:1: warning: "
for quiet in -Wno-dag-openmp -Wno-unknown-pragmas -w -fopenmp; do
  expect_status 0 "$DAGCC" $quiet -fsyntax-only omp_only.c
  count 0 .
  expect_status 0 "$DAGCC" $quiet -fsyntax-only warn_openmp_no_dag_macro.c
  count 0 .
done
DAG_CC="cc -fopenmp" expect_status 0 "$DAGCC" -fsyntax-only omp_only.c
count 0 .
# --rewrite-only says it too, and copies the file.
expect_status 0 "$DAGCC" --rewrite-only -o out.c omp_only.c
count 1 "$omp_only"
grep -q "^#pragma omp task$" out.c || fail "out.c lacks the file: $(cat out.c)"
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
