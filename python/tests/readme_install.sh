#!/usr/bin/env bash
# The README's install as a user runs it: a fresh virtual environment that has jax and torch, then exactly
# `pip install ./python` from the repository's root (pip's isolated build: no jax, no torch), then
# readme_install_check.py under MPI (jit, grad, vmap, torch.compile, checked exactly).
#
# jax and torch come from PYTHON's environment (the build's, where scripts/common.sh installed them),
# made visible to the fresh one through a .pth file rather than installed again: gigabytes of wheels
# unpacked per run for nothing the test is about. The package itself is the fresh environment's own,
# built from scratch by pip, and the check makes sure that it is the one imported.
# Usage: readme_install.sh PYTHON SOURCE_DIR MPIEXEC [ARGS...] (the launcher of 2 ranks). Exit 77: skipped.
set -euo pipefail
python=$1 src=$2
shift 2
"$python" -c "import jax, torch" 2>/dev/null || { echo "SKIP: $python has no jax and torch to lend"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
lend=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
own=$("$work/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$lend" >"$own/lent.pth"
# The user's shell, not the test suite's: no library or package of the build tree.
unset DISTTRANSPOSE_LIBRARY PYTHONPATH
cd "$src"
PATH="$work/venv/bin:$PATH" pip install ./python >"$work/pip.log" 2>&1 || { tail -n 40 "$work/pip.log"; exit 1; }
echo "pip install ./python: $(grep -E '^Successfully installed' "$work/pip.log")"
"$@" "$work/venv/bin/python" "$src/python/tests/readme_install_check.py"
