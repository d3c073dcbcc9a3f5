#!/usr/bin/env bash
# On a GPU machine, in one go: build, run the GPU tests on 1..all GPUs, benchmark the local kernels
# and the distributed transpose, and print a short table last. Stages: tests, kernels, dist (all by
# default; also: sanitize). Full logs go to DTR_LOG_DIR (default build/device-check).
# Knobs: DTR_NP_LIST (rank counts of the sweeps; default 1, 2 and all GPUs), DTR_MINBYTES,
# DTR_MAXBYTES, DTR_STEP (the sweep), DTR_DIST_TYPES (types besides fp32), DTR_BENCH_ARGS
# (transpose-bench), DTR_TEST_REGEX (which GPU tests; default all), DTR_TEST_TIMEOUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
stages=${*:-tests kernels dist}
logs=${DTR_LOG_DIR:-$DTR_BUILD/device-check}
mkdir -p "$logs"
summary="$logs/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

dtr_build >"$logs/build.log" 2>&1 || { tail -n 40 "$logs/build.log"; exit 1; }
gpus=$(dtr_gpu_count)
note "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n1), $gpus GPU(s); $(nvcc --version | tail -n1)"
status=0

for stage in $stages; do
  case $stage in
    tests)
      (cd "$DTR_BUILD" && ctest --output-on-failure -L gpu -R "${DTR_TEST_REGEX:-.}" --timeout ${DTR_TEST_TIMEOUT:-300}) >"$logs/gpu-tests.log" 2>&1 || status=1
      grep -E "tests passed|Passed|Failed|Skipped|SKIP|wrong entries|refused|huge case" "$logs/gpu-tests.log" | sed 's/^/  /' | tee -a "$summary"
      ;;
    sanitize)
      # compute-sanitizer on small cases: memory errors, shared-memory races, barrier misuse.
      for tool in memcheck racecheck synccheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$DTR_BUILD/tests/test_gpu_kernels" --small \
          >"$logs/sanitize-$tool.log" 2>&1 && r=clean || { r="FAILED"; status=1; }
        note "  compute-sanitizer $tool: $r ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-$tool.log" | tail -n1))"
      done
      ;;
    kernels)
      "$DTR_BUILD/transpose-bench" ${DTR_BENCH_ARGS:-} >"$logs/transpose-bench.txt" 2>&1 || status=1
      cat "$logs/transpose-bench.txt" >>"$summary"
      ;;
    dist)
      for np in ${DTR_NP_LIST:-$(printf '%s\n' 1 2 "$gpus" | sort -un)}; do
        [ "$np" -le "$gpus" ] || continue
        for dt in fp32 ${DTR_DIST_TYPES:-}; do
          mpirun -np "$np" "$DTR_BUILD/disttranspose" -b ${DTR_MINBYTES:-1M} -e ${DTR_MAXBYTES:-1G} -f ${DTR_STEP:-4} -d "$dt" \
            -J "$logs/sweep-$np-$dt.json" >"$logs/sweep-$np-$dt.txt" 2>&1 || status=1
          note "## mpirun -np $np disttranspose -b ${DTR_MINBYTES:-1M} -e ${DTR_MAXBYTES:-1G} -f ${DTR_STEP:-4} -d $dt"
          grep -vE "^#  Rank" "$logs/sweep-$np-$dt.txt" | grep -E "^ |^# *bytes|Wrong|rror" | tee -a "$summary" >/dev/null
        done
      done
      mpirun -np "$gpus" "$DTR_BUILD/disttranspose" >"$logs/default.txt" 2>&1 || status=1
      note "## mpirun -np $gpus disttranspose (defaults)"
      cat "$logs/default.txt" >>"$summary"
      ;;
  esac
done
echo "==================== summary ===================="
cat "$summary"
exit $status
