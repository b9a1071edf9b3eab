# bench.cmake: what the benchmarks' folders share to build their peers and
# test their runners. Each folder includes it; the messages name the folder
# that skips a peer.
include_guard(GLOBAL)

# bench_skip(NAME WHY): the message that NAME is not built, and why, naming
# the folder.
function(bench_skip name why)
  file(RELATIVE_PATH here ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  message(STATUS "${here}: ${why}, skipping ${name}")
endfunction()

# bench_pkg_program(NAME MODULE module... PACKAGE package SOURCES src...
#                   [LIBS lib...])
#
# A peer found by pkg-config: the executable NAME, linked with the first
# module that pkg-config has and LIBS; with none, a message that NAME is
# skipped for want of the package that ships the first module.
function(bench_pkg_program name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PACKAGE" "MODULE;SOURCES;LIBS")
  string(MAKE_C_IDENTIFIER "BENCH_${name}" pkg)
  pkg_search_module(${pkg} QUIET IMPORTED_TARGET ${arg_MODULE})
  if(NOT ${pkg}_FOUND)
    list(GET arg_MODULE 0 module)
    bench_skip(${name} "no ${module} (${arg_PACKAGE})")
    return()
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE PkgConfig::${pkg} ${arg_LIBS})
endfunction()

# bench_starpu_program(NAME [MODULE module] SOURCES src... [LIBS lib...])
#
# A StarPU peer (bench_pkg_program): on starpu-1.3, or MODULE (starpumpi-1.3),
# from Debian's libstarpu-dev, with bench/peer_starpu.c, StarPU's start.
function(bench_starpu_program name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "MODULE" "SOURCES;LIBS")
  if(NOT arg_MODULE)
    set(arg_MODULE starpu-1.3)
  endif()
  set(bench ${PROJECT_SOURCE_DIR}/bench)
  bench_pkg_program(${name} MODULE ${arg_MODULE} PACKAGE libstarpu-dev
    SOURCES ${arg_SOURCES} ${bench}/peer_starpu.c LIBS ${arg_LIBS})
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${bench})
  endif()
endfunction()

# bench_gomp_program(NAME SOURCES src... [LIBS lib...] [DEFINES def...])
#
# The OpenMP peer on gcc's libgomp: NAME, built with -fopenmp, when the C
# compiler is gcc with OpenMP; otherwise a message that NAME is skipped.
# (LLVM's libomp is dag_add_libomp_program's, cmake/DagLibomp.cmake.)
function(bench_gomp_program name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS;DEFINES")
  find_package(OpenMP COMPONENTS C QUIET)
  if(NOT (CMAKE_C_COMPILER_ID STREQUAL "GNU" AND OpenMP_C_FOUND))
    bench_skip(${name} "C compiler is not gcc with OpenMP")
    return()
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_compile_definitions(${name} PRIVATE ${arg_DEFINES})
  target_link_libraries(${name} PRIVATE OpenMP::OpenMP_C ${arg_LIBS})
endfunction()

# bench_command_program(NAME COMMAND word... SOURCES src... [DEPENDS file...]
#                       [LIBS arg...])
#
# A program that CMake does not compile (dagcc, or clang beside gcc): NAME,
# in this folder's build directory, made for ALL (the target NAME_program)
# by COMMAND, run with Open MPI allowed as root (dagcc may call mpicc),
# from SOURCES and the harness, linked with LIBS and -lm.
function(bench_command_program name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "COMMAND;SOURCES;DEPENDS;LIBS")
  set(exe ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(OUTPUT ${exe}
    COMMAND ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${arg_COMMAND}
            -I${bench_harness_dir} -o ${exe} ${arg_SOURCES}
            ${bench_harness_src} ${arg_LIBS} -lm
    DEPENDS ${arg_SOURCES} ${arg_DEPENDS} ${bench_harness_src}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "Building ${name}"
    VERBATIM)
  add_custom_target(${name}_program ALL DEPENDS ${exe})
endfunction()

# bench_smoke_test(NAME TIMEOUT seconds [PASS regex] [ENVIRONMENT var=value...]
#                  ARGS arg...)
#
# The test bench_NAME_smoke: the runner run-NAME (bench_runner) with ARGS,
# labelled bench; it passes when the runner exits 0, or with PASS, when what
# the runner prints matches the regular expression. Either way it fails when
# a run failed or the runner broke (ctest reads no exit status beside PASS).
function(bench_smoke_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TIMEOUT;PASS" "ARGS;ENVIRONMENT")
  set(test bench_${name}_smoke)
  add_test(NAME ${test}
           COMMAND ${CMAKE_CURRENT_BINARY_DIR}/run-${name} ${arg_ARGS})
  set_tests_properties(${test} PROPERTIES LABELS bench TIMEOUT ${arg_TIMEOUT}
                       FAIL_REGULAR_EXPRESSION "FAILED|Traceback")
  if(DEFINED arg_PASS)
    set_tests_properties(${test} PROPERTIES
                         PASS_REGULAR_EXPRESSION "${arg_PASS}")
  endif()
  if(DEFINED arg_ENVIRONMENT)
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
  endif()
  dag_own_mpi_sessions(${test})
endfunction()

# suite_omp_peer(NAME FLAGS flag... KERNELS kernel...)
#
# A bench/suite group's OpenMP peer: NAME from NAME.c on the suite's
# harness, compiled with FLAGS (those of the group's dag program), and a
# checked run of each kernel at -n 300 (suite_peer_test); without OpenMP, a
# message.
function(suite_omp_peer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "FLAGS;KERNELS")
  if(NOT OpenMP_C_FOUND)
    bench_skip(${name} "no OpenMP")
    return()
  endif()
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c)
  target_compile_options(${name} PRIVATE ${arg_FLAGS})
  target_link_libraries(${name} PRIVATE suite_harness OpenMP::OpenMP_C m)
  foreach(kernel IN LISTS arg_KERNELS)
    # One word list: same_sum.sh runs each of its commands with the args.
    suite_peer_test(${name}_${kernel} ${kernel}
                    "$<TARGET_FILE:${name}> -n 300")
  endforeach()
endfunction()
