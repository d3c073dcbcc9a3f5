#!/usr/bin/env bash
# Builds if needed and runs the main job: `mpirun -np <GPUs> disttranspose` (4 ranks on the CPU
# backend where there is no GPU). Arguments go to disttranspose (see --help).
set -euo pipefail
source "$(dirname "$0")/common.sh"
log=$(mktemp)
dtr_build >"$log" 2>&1 || { tail -n 40 "$log" >&2; rm -f "$log"; exit 1; }
rm -f "$log"
gpus=$(dtr_gpu_count)
if [ "${gpus:-0}" -gt 0 ]; then
  np=${DTR_NP:-$gpus}
  exec mpirun -np "$np" "$DTR_BUILD/disttranspose" "$@"
else
  np=${DTR_NP:-4}
  exec mpirun -np "$np" --oversubscribe "$DTR_BUILD/disttranspose" "$@"
fi
