# GEMM, SYRK, GEMV and Cholesky (blas_tiles.h): the tiled pragma program
# blas (dag; blas_serial with plain cc; blas_omptask, its OpenMP pragmas,
# with cc -fopenmp) and blas_lapacke (one threaded OpenBLAS/LAPACKE call).
# The Cholesky's tile kernels and priorities are samples/cholesky/tiles.c,
# compiled in by path. Needs OpenBLAS and LAPACKE (libopenblas-dev
# liblapacke-dev).
if(NOT (SUITE_OPENBLAS_FOUND AND SUITE_LAPACKE_FOUND))
  message(STATUS "bench/suite/linalg: no openblas or lapacke "
                 "(libopenblas-dev liblapacke-dev), skipping blas")
  return()
endif()

set(blas_chol ${PROJECT_SOURCE_DIR}/samples/cholesky)
set(blas_sources ${linalg_program} ${blas_chol}/tiles.c)

suite_dag_program(blas
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/blas.c ${blas_sources}
  DEPENDS ${linalg_headers} ${blas_chol}/tiles.h
  ARGS -I${blas_chol} ${SUITE_OPENBLAS_CFLAGS} ${SUITE_LAPACKE_CFLAGS}
       ${SUITE_LAPACKE_LDFLAGS} ${SUITE_OPENBLAS_LDFLAGS})
target_include_directories(blas_serial PRIVATE ${blas_chol})
target_link_libraries(blas_serial PRIVATE PkgConfig::SUITE_LAPACKE
                      PkgConfig::SUITE_OPENBLAS)

add_executable(blas_lapacke ${CMAKE_CURRENT_LIST_DIR}/blas_lapacke.c
               ${linalg_program})
target_link_libraries(blas_lapacke PRIVATE suite_harness
  PkgConfig::SUITE_LAPACKE PkgConfig::SUITE_OPENBLAS m)

if(OpenMP_C_FOUND)
  add_executable(blas_omptask ${CMAKE_CURRENT_LIST_DIR}/blas.c ${blas_sources})
  target_include_directories(blas_omptask PRIVATE ${blas_chol}
                             ${PROJECT_SOURCE_DIR}/bench/cholesky)
  target_compile_options(blas_omptask PRIVATE -Wno-unknown-pragmas)
  target_link_libraries(blas_omptask PRIVATE suite_harness OpenMP::OpenMP_C
    PkgConfig::SUITE_LAPACKE PkgConfig::SUITE_OPENBLAS m)
else()
  message(STATUS "bench/suite/linalg: no OpenMP, skipping blas_omptask")
endif()

# Each kernel at n = 300 in blocks of 64 (the last one 44): the same bits
# serially and on 1, 2 and 4 ranks, and each peer checked.
foreach(kernel gemm syrk gemv cholesky)
  suite_same_test(linalg_${kernel} ${kernel} blas -n 300 -b 64)
  suite_peer_test(linalg_lapacke_${kernel} ${kernel}
                  "$<TARGET_FILE:blas_lapacke> -n 300")
  if(TARGET blas_omptask)
    suite_peer_test(linalg_omptask_${kernel} ${kernel}
                    "$<TARGET_FILE:blas_omptask> -n 300 -b 64")
  endif()
endforeach()

# suite_runner_tiles: with the linalg group in a sweep, the ceilings add the
# tile kernel's reference at its sizes, and the table reads dag's GEMM of
# the same n and tile against it (% tiles).
if(TARGET ceilings)
  suite_runner_test(runner_tiles "^gemm +300 +1x2 .*% dgemm +[0-9]+% +2$"
    --groups linalg --kernels gemm --runtimes dag --sizes 300)
endif()
