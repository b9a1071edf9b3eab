# LU (partial pivoting), QR (tiled Householder) and the solve on the LU:
#   factor          the pragma program (factor.c), built with dagcc, and
#   factor_serial   the same with plain cc
#   factor_omptask  OpenMP tasks with depend on the same tile kernels
#   factor_lapacke  one threaded OpenBLAS/LAPACKE call on the whole matrix
# All share factor_tiles.c (the problems, their checks and the tile
# kernels) and, with blas, linalg_program.c (their data and main).
if(NOT (SUITE_OPENBLAS_FOUND AND SUITE_LAPACKE_FOUND))
  message(STATUS "bench/suite/linalg: no openblas or lapacke "
                 "(libopenblas-dev liblapacke-dev), skipping factor")
  return()
endif()

set(factor_dir ${CMAKE_CURRENT_LIST_DIR})

# dagcc gets OpenBLAS and LAPACKE as flags; factor_serial as CMake targets.
suite_dag_program(factor SOURCES ${factor_dir}/factor.c ${linalg_program}
  DEPENDS ${linalg_headers}
  ARGS ${SUITE_OPENBLAS_CFLAGS} ${SUITE_LAPACKE_CFLAGS}
       ${SUITE_LAPACKE_LDFLAGS} ${SUITE_OPENBLAS_LDFLAGS})
target_link_libraries(factor_serial PRIVATE PkgConfig::SUITE_LAPACKE
                      PkgConfig::SUITE_OPENBLAS)

add_executable(factor_lapacke ${factor_dir}/factor_lapacke.c ${linalg_program})
target_link_libraries(factor_lapacke PRIVATE suite_harness
  PkgConfig::SUITE_LAPACKE PkgConfig::SUITE_OPENBLAS m)

if(OpenMP_C_FOUND)
  add_executable(factor_omptask ${factor_dir}/factor_omptask.c
                 ${linalg_program})
  target_link_libraries(factor_omptask PRIVATE suite_harness
    PkgConfig::SUITE_LAPACKE PkgConfig::SUITE_OPENBLAS OpenMP::OpenMP_C m)
else()
  message(STATUS "bench/suite/linalg: no OpenMP, skipping factor_omptask")
endif()

# Each kernel: the same bits serially and on 1, 2 and 4 ranks, n = 300 in
# blocks of 64 (the last one 44); the peers checked, any sum.
foreach(kernel lu qr solve)
  suite_same_test(linalg_${kernel} ${kernel} factor -n 300 -b 64)
  suite_peer_test(linalg_lapacke_${kernel} ${kernel}
                  "$<TARGET_FILE:factor_lapacke> -n 300")
  if(TARGET factor_omptask)
    suite_peer_test(linalg_omptask_${kernel} ${kernel}
                    "$<TARGET_FILE:factor_omptask> -n 300 -b 64")
  endif()
endforeach()
