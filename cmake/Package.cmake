# The installed package: a CMake config (find_package(DistTranspose CONFIG), the imported target
# DistTranspose::disttranspose with MPI and CUDA behind it (NCCL is loaded at run time); with the
# component Fortran, DistTranspose::disttranspose_fortran) and pkg-config files (disttranspose,
# disttranspose-fortran).
include(CMakePackageConfigHelpers)
set(DTR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/DistTranspose)

install(EXPORT DistTransposeTargets NAMESPACE DistTranspose:: DESTINATION ${DTR_CMAKE_DIR})
if(TARGET disttranspose_fortran)
  # The component Fortran: DistTranspose::disttranspose_fortran and the module.
  install(EXPORT DistTransposeFortranTargets NAMESPACE DistTranspose:: DESTINATION ${DTR_CMAKE_DIR})
endif()
configure_package_config_file(cmake/DistTransposeConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/DistTransposeConfig.cmake
                              INSTALL_DESTINATION ${DTR_CMAKE_DIR})
# 0.x releases: only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/DistTransposeConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/DistTransposeConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/DistTransposeConfigVersion.cmake
        DESTINATION ${DTR_CMAKE_DIR})

# pkg-config: compile with mpicc (it brings MPI's flags); the CUDA headers' directory is listed here.
list(JOIN CUDAToolkit_INCLUDE_DIRS " -I" DTR_PC_CUDA_INCLUDES)
set(DTR_PC_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt")
# Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix anywhere).
file(RELATIVE_PATH DTR_PC_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
configure_file(cmake/disttranspose.pc.in ${CMAKE_CURRENT_BINARY_DIR}/disttranspose.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/disttranspose.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET disttranspose_fortran)
  # Fortran: compile and link with mpifort (the same compiler as the module's).
  configure_file(cmake/disttranspose-fortran.pc.in ${CMAKE_CURRENT_BINARY_DIR}/disttranspose-fortran.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/disttranspose-fortran.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
