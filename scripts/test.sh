#!/usr/bin/env bash
# Installs what is missing (Open MPI, CMake, and in a virtual environment numpy, mpi4py and pytest),
# installs the Python package (pip install ./python), configures, builds and runs the test suite: C,
# MPI, Python and Fortran (gfortran installed where missing). Tests that need GPUs report "skipped"
# where there are none; then the unit and MPI tests once more with the host code under ASan and UBSan.
# Extra arguments go to ctest (e.g. -L mpi).
set -euo pipefail
source "$(dirname "$0")/common.sh"
user_cmake_args=${DTR_CMAKE_ARGS:-}
dtr_install_missing && dtr_find_cuda
mkdir -p "$DTR_BUILD"
dtr_python_env
dtr_build
cd "$DTR_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"

# The host code again under AddressSanitizer and UndefinedBehaviorSanitizer: the unit and MPI tests
# (not the install test, whose outside program is built without them). DTR_SANITIZE_PASS=0 skips it.
# Leak reports are off: Open MPI keeps its allocations until exit by design.
if [ "${DTR_SANITIZE_PASS:-1}" != 0 ]; then
  DTR_BUILD="$DTR_BUILD-sanitize" DTR_CMAKE_ARGS="$user_cmake_args -DDTR_SANITIZE=address,undefined -DDTR_BUILD_EXAMPLES=OFF" dtr_build
  cd "$DTR_BUILD-sanitize"
  ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$(nproc)" -L "unit|mpi" -E "install|python" "$@"
fi
