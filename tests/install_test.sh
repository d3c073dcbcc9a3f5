#!/usr/bin/env bash
# Installs the build into a scratch prefix, checks that the shared library exports only the
# functions of the public header, then builds tests/install/consumer.c against the prefix twice
# (CMake's find_package, and pkg-config with mpicc) and runs each under mpiexec on the CPU backend.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR MPIEXEC [ARGS...]
set -euo pipefail
for tool in pkg-config nm mpicc; do
  command -v "$tool" >/dev/null || { echo "install test: $tool is missing (scripts/test.sh installs it)"; exit 1; }
done
build=$1 src=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libdisttranspose.*' | head -n1)")

so=$(find "$libdir" -name 'libdisttranspose.so' | head -n1)
if [ -n "$so" ]; then
  exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | sed 's/@.*//' | grep -v '^DISTTRANSPOSE_' | sort -u)
  public=$(grep -oE '\bdtr[A-Za-z]+\(' "$src/include/disttranspose.h" | tr -d '(' | sort -u)
  if [ "$exported" != "$public" ]; then
    echo "exported symbols differ from the public header:"
    diff <(echo "$public") <(echo "$exported") || true
    exit 1
  fi
  echo "libdisttranspose.so exports the $(echo "$exported" | wc -l) functions of disttranspose.h, nothing else"
fi

cmake -S "$src/tests/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
echo "find_package(DistTranspose): built"
"$@" "$work/cmake/consumer"

export PKG_CONFIG_PATH=$libdir/pkgconfig
mpicc -o "$work/consumer-pc" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs disttranspose)
echo "pkg-config disttranspose $(pkg-config --modversion disttranspose): built"
"$@" "$work/consumer-pc"

# The Fortran component, where the package has it: find_package(... COMPONENTS Fortran) and
# pkg-config's disttranspose-fortran with mpifort (the compiler the module was built with).
if [ -n "$(find "$prefix" -name disttranspose.mod)" ]; then
  cmake -S "$src/tests/install/fortran" -B "$work/cmake-fortran" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure-fortran.log" 2>&1 ||
    { cat "$work/configure-fortran.log"; exit 1; }
  cmake --build "$work/cmake-fortran" >"$work/build-fortran.log" 2>&1 || { cat "$work/build-fortran.log"; exit 1; }
  echo "find_package(DistTranspose COMPONENTS Fortran): built"
  "$@" "$work/cmake-fortran/consumer"
  mpifort -o "$work/consumer-f-pc" "$src/tests/install/fortran/consumer.f90" $(pkg-config --cflags --libs disttranspose-fortran)
  echo "pkg-config disttranspose-fortran $(pkg-config --modversion disttranspose-fortran): built"
  "$@" "$work/consumer-f-pc"
fi
echo "install test: every consumer built and exact"
