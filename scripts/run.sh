#!/usr/bin/env bash
# Builds if needed and runs the main job: `mpirun -np <GPUs> disttranspose` (4 ranks on the CPU
# backend where there is no GPU). Arguments go to disttranspose (see --help).
set -euo pipefail
source "$(dirname "$0")/common.sh"
dtr_build >/dev/null
gpus=$(dtr_gpu_count)
if [ "${gpus:-0}" -gt 0 ]; then
  np=${DTR_NP:-$gpus}
  exec mpirun -np "$np" "$DTR_BUILD/disttranspose" "$@"
else
  np=${DTR_NP:-4}
  exec mpirun -np "$np" --oversubscribe "$DTR_BUILD/disttranspose" "$@"
fi
