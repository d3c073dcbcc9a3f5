#!/usr/bin/env bash
# Scaling study of this machine through the CLI's --json, kept as data in OUTDIR (default
# docs/results/<GPUs>x<GPU>-scaling):
#   weak-<np>-<backend>.json     fixed bytes per rank: a sweep DTR_SCALING_MIN..MAX (x DTR_SCALING_STEP)
#   strong-<np>-<backend>.json   fixed global matrices (DTR_SCALING_STRONG sides), on every rank count
#   kernels.json                 the local kernels against a copy, per element size (transpose-bench)
#   meta.json                    machine, GPU, driver, CUDA, NCCL and MPI versions, date, commands
# Rank counts DTR_SCALING_NP (default 1, 2, 4, ... up to every GPU, and every GPU), backends
# DTR_SCALING_BACKENDS (default "nccl p2p"; p2p only where the ranks share a host), element type
# DTR_SCALING_TYPE (default fp32). Progress goes to stderr. Plots: scripts/plot_scaling.py OUTDIR.
set -euo pipefail
source "$(dirname "$0")/common.sh"
dtr_build >&2
gpus=$(dtr_gpu_count)
[ "$gpus" -ge 1 ] || { echo "scaling.sh: no GPU visible" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
out=${1:-$DTR_ROOT/docs/results/${gpus}x$(echo "$gpu" | awk '{print $NF}')-scaling}
mkdir -p "$out"
if [ -n "${DTR_SCALING_NP:-}" ]; then nps=$DTR_SCALING_NP; else
  nps=""; for ((n = 1; n < gpus; n *= 2)); do nps="$nps $n"; done; nps="$nps $gpus"
fi
backends=${DTR_SCALING_BACKENDS:-nccl p2p}
type=${DTR_SCALING_TYPE:-fp32}
lo=${DTR_SCALING_MIN:-1M} hi=${DTR_SCALING_MAX:-1G} step=${DTR_SCALING_STEP:-4}
strong=${DTR_SCALING_STRONG:-16384 32768}
iters=${DTR_SCALING_ITERS:-20}
cli=$DTR_BUILD/disttranspose
commands=()
runs=()
for np in $nps; do for be in $backends; do
  runs+=("weak $np $be") ; for side in $strong; do runs+=("strong $np $be $side"); done
done; done
i=0
for run in "${runs[@]}"; do
  i=$((i + 1))
  set -- $run
  kind=$1 np=$2 be=$3
  if [ "$kind" = weak ]; then
    file=$out/weak-$np-$be.json
    args=(-B "$be" -b "$lo" -e "$hi" -f "$step" -d "$type" -n "$iters" -w 3 -J "$file")
  else
    file=$out/strong-$4-$np-$be.json
    args=(-B "$be" -r "$4" -c "$4" -d "$type" -n "$iters" -w 3 -J "$file")
  fi
  echo "[$i/${#runs[@]}] $kind scaling, $np rank(s), $be: ${args[*]}" >&2
  rel=("${args[@]//$out\//}")
  commands+=("mpirun -np $np disttranspose ${rel[*]}")
  mpirun -np "$np" "$cli" "${args[@]}" | grep -E "^ +[0-9]|Wrong" >&2
done
echo "[kernels] transpose-bench -q -s 256 -J kernels.json" >&2
"$DTR_BUILD/transpose-bench" -q -s 256 -J "$out/kernels.json" | tail -n 1 >&2
commands+=("transpose-bench -q -s 256 -J kernels.json")
nccl=$(mpirun -np 1 "$cli" -B nccl -r 64 -c 64 -n 1 -w 0 | sed -n 's/^# NCCL \([0-9.]*\),.*/\1/p')
python3 - "$out/meta.json" "$gpus" "$gpu" "$nccl" "${commands[@]}" <<'PY'
import json, subprocess, sys, datetime, socket
path, gpus, gpu, nccl, commands = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
def run(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
driver = run("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader").splitlines()[0]
cuda = run("nvcc", "--version").splitlines()[-1] if run("nvcc", "--version") else ""
mpi = run("mpirun", "--version").splitlines()[0] if run("mpirun", "--version") else ""
meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "host": socket.gethostname(),
        "gpus": gpus, "gpu": gpu, "driver": driver, "cuda": cuda, "nccl": nccl, "mpi": mpi,
        "topology": run("nvidia-smi", "topo", "-m"), "commands": commands}
json.dump(meta, open(path, "w"), indent=1)
PY
echo "scaling.sh: results in $out (plots: scripts/plot_scaling.py $out)" >&2
