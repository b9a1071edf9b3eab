# DagPackage.cmake: installs the CMake package, so that find_package(dag)
# finds libdag, the dagcc driver and dag_rewrite_sources() in an
# installation. The targets join the `dagTargets` export set where they are
# made (runtime/ and tool/); the pkg-config file is made in runtime/.
include(CMakePackageConfigHelpers)

set(DAG_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dag)
install(EXPORT dagTargets NAMESPACE dag:: DESTINATION ${DAG_INSTALL_CMAKEDIR})
if(DAG_HAVE_MPI)
  set(DAG_HAVE_MPI_BOOL TRUE)
else()
  set(DAG_HAVE_MPI_BOOL FALSE)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/dagConfig.cmake.in
  ${PROJECT_BINARY_DIR}/dagConfig.cmake
  INSTALL_DESTINATION ${DAG_INSTALL_CMAKEDIR})
# 0.x: a new minor version may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dagConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/dagConfig.cmake
  ${PROJECT_BINARY_DIR}/dagConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/DagRewrite.cmake
  DESTINATION ${DAG_INSTALL_CMAKEDIR})
