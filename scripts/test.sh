#!/usr/bin/env bash
# Installs what is missing (Open MPI, CMake), configures, builds and runs the test suite. Tests
# that need GPUs report "skipped" where there are none. Extra arguments go to ctest (e.g. -L mpi).
set -euo pipefail
source "$(dirname "$0")/common.sh"
dtr_build
cd "$DTR_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
