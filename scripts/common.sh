# Sourced by run.sh and test.sh: install what is missing, find the CUDA toolkit, configure and build.
# Nothing is installed where the tools are already present (GPU machines have no package access).

DTR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DTR_BUILD=${DTR_BUILD:-$DTR_ROOT/build}
# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

dtr_have_cmake() {
  command -v cmake >/dev/null 2>&1 || return 1
  local v
  v=$(cmake --version | head -n1 | sed 's/[^0-9.]*\([0-9.]*\).*/\1/')
  [ "$(printf '%s\n3.25\n' "$v" | sort -V | head -n1)" = "3.25" ]
}

# FFTW (the CPU reference of the FFT example) is installed where packages can be had; where they
# cannot (a GPU machine without a network), the example builds for GPUs only.
dtr_install_fftw() {
  [ -f /usr/include/fftw3.h ] && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "disttranspose: installing libfftw3-dev"
  { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfftw3-dev; } >/dev/null 2>&1 ||
    echo "disttranspose: libfftw3-dev could not be installed; the FFT example builds for GPUs only"
}

# The install test (mpi_install_consumer) builds a program against the installed package through
# pkg-config and reads the shared library's symbols with nm; the build itself needs neither.
dtr_install_test_tools() {
  command -v pkg-config >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "disttranspose: installing pkg-config and binutils (for the install test)"
  { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config binutils; } >/dev/null 2>&1 ||
    echo "disttranspose: pkg-config could not be installed; the install test will fail"
}

# The Fortran module is built where gfortran and Open MPI's mpi_f08 module are found; gfortran is
# installed where packages can be had (Debian's Open MPI ships mpi_f08 for it).
dtr_install_fortran() {
  command -v gfortran >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "disttranspose: installing gfortran (for the Fortran module)"
  { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gfortran; } >/dev/null 2>&1 ||
    echo "disttranspose: gfortran could not be installed; the Fortran module is not built"
}

dtr_install_missing() {
  dtr_install_fftw
  dtr_install_test_tools
  dtr_install_fortran
  local pkgs=()
  command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || pkgs+=(libopenmpi-dev openmpi-bin)
  dtr_have_cmake || pkgs+=(cmake)
  command -v make >/dev/null 2>&1 || pkgs+=(make)
  [ ${#pkgs[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "disttranspose: missing ${pkgs[*]} and no apt-get to install them" >&2
    return 1
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "disttranspose: installing ${pkgs[*]}"
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
  dtr_have_cmake || { echo "disttranspose: CMake 3.25 or newer is required" >&2; return 1; }
}

dtr_find_cuda() {
  command -v nvcc >/dev/null 2>&1 && return 0
  local d
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    if [ -x "$d/nvcc" ]; then
      export PATH="$d:$PATH"
      return 0
    fi
  done
  echo "disttranspose: the CUDA toolkit (nvcc) is required to build; put it on PATH" >&2
  return 1
}

dtr_build() {
  dtr_install_missing && dtr_find_cuda || return 1
  if [ ! -f "$DTR_BUILD/CMakeCache.txt" ] || [ -n "${DTR_CMAKE_ARGS:-}" ]; then
    cmake -S "$DTR_ROOT" -B "$DTR_BUILD" -DCMAKE_BUILD_TYPE=Release ${DTR_CMAKE_ARGS:-} || return 1
  fi
  cmake --build "$DTR_BUILD" -j "$(nproc)"
}

# The Python binding the way users install it: a virtual environment in the build folder with numpy,
# mpi4py and what the tests need (jax and torch among them), then the README's `pip install ./python`
# from the repository's root, in pip's isolated build (which has no jax and no torch: the package gets
# JAX's custom calls all the same, and runs PyTorch's ops with their Python kernels; the build tree's C++
# kernels are tested apart, tests/CMakeLists.txt). The build is then configured to run the binding's
# tests with that Python. Where pip reaches no package index (the GPU machines), it says so and the
# Python tests are left to device-check.sh.
dtr_python_env() {
  local venv=$DTR_BUILD/venv py=${DTR_PYTHON3:-python3}
  command -v "$py" >/dev/null 2>&1 || { echo "disttranspose: no $py: the Python tests are skipped"; return 0; }
  if [ ! -x "$venv/bin/python" ] && ! "$py" -m venv "$venv" >/dev/null 2>&1; then
    echo "disttranspose: $py cannot make a virtual environment: the Python tests are skipped"
    return 0
  fi
  if ! "$venv/bin/python" -m pip install -q numpy mpi4py pytest ml_dtypes >"$DTR_BUILD/pip.log" 2>&1; then
    echo "disttranspose: pip cannot install numpy, mpi4py and pytest (no package index?): the Python tests are skipped"
    return 0
  fi
  # JAX and PyTorch, whose custom calls and ops the tests run on the host: optional (their tests skip
  # without them). Before the package, as the README's reader has them. pip's torch for Linux is the CUDA
  # build, with pip's NCCL (as users get it: the import-order test wants it); it runs on the host too.
  local fw
  for fw in jax torch; do
    "$venv/bin/python" -m pip install -q "$fw" >>"$DTR_BUILD/pip.log" 2>&1 ||
      echo "disttranspose: $fw could not be installed: its tests are skipped"
  done
  echo "disttranspose: pip install ./python (into $venv)"
  (cd "$DTR_ROOT" && PATH="$venv/bin:$PATH" pip install ./python) >>"$DTR_BUILD/pip.log" 2>&1 ||
    { tail -n 30 "$DTR_BUILD/pip.log"; return 1; }
  DTR_CMAKE_ARGS="${DTR_CMAKE_ARGS:-} -DDTR_PYTHON=$venv/bin/python -DDTR_PYTHON_INSTALLED=ON"
}

# GPUs visible to this machine (0 without a driver).
dtr_gpu_count() {
  if [ -x "$DTR_BUILD/tests/dtr_gpu_count" ]; then
    "$DTR_BUILD/tests/dtr_gpu_count"
  elif command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true
  else
    echo 0
  fi
}
