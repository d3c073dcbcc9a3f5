# FindNCCL: the NCCL headers and library, looked up in the CUDA toolkit's directories (where the
# toolkit bundles NCCL) and in the system's (where distribution packages put it).
#
# Hints: NCCL_ROOT (CMake or environment variable), NCCL_HOME, NCCL_INCLUDE_DIR, NCCL_LIBRARY.
# Result: NCCL_FOUND, NCCL_VERSION, NCCL_INCLUDE_DIRS, NCCL_LIBRARIES, the target NCCL::NCCL, and
# NCCL::headers (the headers alone, for code that loads the library at run time).

set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints ${CUDAToolkit_LIBRARY_ROOT})
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(_dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(_up "${_dir}/.." ABSOLUTE)
    list(APPEND _nccl_hints ${_up})
  endforeach()
endif()

find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${_nccl_hints}
  PATH_SUFFIXES include targets/x86_64-linux/include targets/sbsa-linux/include
  PATHS /usr/local/cuda /usr/local /usr)
find_library(NCCL_LIBRARY NAMES nccl
  HINTS ${_nccl_hints}
  PATH_SUFFIXES lib lib64 targets/x86_64-linux/lib targets/sbsa-linux/lib lib/x86_64-linux-gnu lib/aarch64-linux-gnu
  PATHS /usr/local/cuda /usr/local /usr)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${_part} +([0-9]+).*" "\\1" _nccl_${_part} "${_nccl_version_lines}")
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND)
  set(NCCL_INCLUDE_DIRS ${NCCL_INCLUDE_DIR})
  set(NCCL_LIBRARIES ${NCCL_LIBRARY})
  if(NOT TARGET NCCL::NCCL)
    add_library(NCCL::NCCL UNKNOWN IMPORTED)
    set_target_properties(NCCL::NCCL PROPERTIES
      IMPORTED_LOCATION "${NCCL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  endif()
  if(NOT TARGET NCCL::headers)
    add_library(NCCL::headers INTERFACE IMPORTED)
    set_target_properties(NCCL::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  endif()
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
