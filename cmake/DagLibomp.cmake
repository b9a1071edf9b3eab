# dag_add_libomp_program(NAME SOURCES src... [DEPENDS file...] [ARGS arg...])
#
# Builds the program NAME from SOURCES with `clang -fopenmp` (LLVM's libomp),
# next to the project's own compiler (gcc, whose OpenMP is libgomp), so that
# the benchmarks can run the same OpenMP source on both runtimes. A custom
# command, since CMake uses one C compiler per project; ARGS go to clang as
# they are (flags, -I, libraries). Skipped, with a message, where clang
# cannot build an OpenMP program (no libomp-dev).
function(dag_add_libomp_program name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;DEPENDS;ARGS")
  find_program(DAG_CLANG NAMES clang)
  if(NOT DEFINED CACHE{DAG_CLANG_OPENMP})
    set(ok FALSE)
    if(DAG_CLANG)
      set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/dag_libomp_probe.c)
      file(WRITE ${probe} "#include <omp.h>\nint main(void) { "
                          "return omp_get_max_threads() < 1; }\n")
      execute_process(COMMAND ${DAG_CLANG} -fopenmp ${probe} -o ${probe}.out
                      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      file(REMOVE ${probe} ${probe}.out)
      if(rc EQUAL 0)
        set(ok TRUE)
      endif()
    endif()
    set(DAG_CLANG_OPENMP ${ok} CACHE INTERNAL "clang -fopenmp works")
  endif()
  if(NOT DAG_CLANG_OPENMP)
    message(STATUS "no clang with -fopenmp (libomp-dev): skipping ${name}")
    return()
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${DAG_CLANG} -std=c17 -O2 -g -fopenmp -Wall -Wextra -Wshadow
            -Wstrict-prototypes -Wno-unused-parameter ${arg_SOURCES} -o ${out}
            ${arg_ARGS}
    DEPENDS ${arg_SOURCES} ${arg_DEPENDS}
    COMMENT "Building ${name} with clang -fopenmp"
    VERBATIM)
  add_custom_target(${name}_clang ALL DEPENDS ${out})
endfunction()
