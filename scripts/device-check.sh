#!/usr/bin/env bash
# On a GPU machine, in one go: build, run the GPU tests on 1..all GPUs, benchmark the local kernels
# and the distributed transpose, and print a short table last. Stages: tests, kernels, dist (all by
# default; also: sanitize, shared, python, pencils, fft, parts, targets, odd, spectral, halo). Full logs go to DTR_LOG_DIR (default
# build/device-check). On a machine of one GPU the tests of the p2p backend run with 2-4 ranks sharing
# it (the GPU time-slices them: exact, not fast); shared runs the CLI so on any machine (all on GPU 0).
# pencils: every pencil transpose of DTR_PENCIL_CASES (default 1024:c64 512:c64 512:c128) on the grids
# DTR_GRIDS (default 2x2 1x4 with 4 GPUs), and the 2-D transposes of the same bytes per rank on each
# grid's group size (DTR_MATRIX_CASES, "ranks:rows:cols:type"). fft: the library FFT through
# examples/fft3d (DTR_FFT_CASES and sweeps of its chunks; the JSON beside each log makes the tables of
# docs/performance.md).
# Knobs: DTR_NP_LIST (rank counts of the sweeps; default 1, 2 and all GPUs), DTR_MINBYTES,
# DTR_MAXBYTES, DTR_STEP (the sweep), DTR_DIST_TYPES (types besides fp32), DTR_DIST_BACKENDS (default
# auto; e.g. "nccl p2p"), DTR_BENCH_ARGS
# (transpose-bench), DTR_TEST_REGEX (which GPU tests; default all), DTR_TEST_TIMEOUT.
# targets: the rows the performance goals are judged on, on DTR_TARGET_NP ranks (default all GPUs),
# as JSON: sweeps of fp32 and c64 from DTR_TARGET_MINBYTES to DTR_TARGET_MAXBYTES (default 1M..4G,
# x4) on each of DTR_TARGET_BACKENDS (default "p2p nccl"), and the pairs of odd and even shapes of
# the same bytes in DTR_TARGET_PAIRS ("dtype:rows:cols,dtype:rows:cols ..."; by default c64 23170^2
# against c64 32768 x 16384 and c64 46340^2 against fp32 65536^2: 1 and 4 GiB per rank on 4 ranks).
# odd: the README's table of odd sides beside even ones, one run a matrix on DTR_TARGET_NP ranks and
# each backend of DTR_ODD_BACKENDS (default auto), matrices DTR_ODD_CASES ("dtype:rows[:cols] ...";
# by default fp32 and c64 powers of two, multiples of 1000 and primes, 64 MiB-4 GiB a rank on 4).
set -uo pipefail
source "$(dirname "$0")/common.sh"
stages=${*:-tests kernels dist}
logs=${DTR_LOG_DIR:-$DTR_BUILD/device-check}
mkdir -p "$logs"
summary="$logs/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
# "grid ranks n dtype" for every grid of DTR_GRIDS that fits on this machine and case of DTR_PENCIL_CASES.
gridCases() {
  for grid in ${DTR_GRIDS:-2x2 1x4}; do
    np=$(( ${grid%x*} * ${grid#*x} ))
    [ "$np" -le "$gpus" ] || continue
    for case in ${DTR_PENCIL_CASES:-1024:c64 512:c64 512:c128}; do echo "$grid $np ${case%%:*} ${case#*:}"; done
  done
}

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
      # compute-sanitizer on small cases: memory errors, shared-memory races, barrier misuse; the local
      # kernels, then the distributed path (DTR_SANITIZE_PARTS, default "kernels dist").
      parts=${DTR_SANITIZE_PARTS:-kernels dist}
      for tool in memcheck racecheck synccheck; do
        [[ " $parts " == *" kernels "* ]] || break
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$DTR_BUILD/tests/test_gpu_kernels" --small \
          >"$logs/sanitize-$tool.log" 2>&1 && r=clean || { r="FAILED"; status=1; }
        note "  compute-sanitizer $tool: $r ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-$tool.log" | tail -n1))"
      done
      # The distributed path: every rank under the sanitizer, small random configurations of every
      # backend (NCCL's own probes for kernels of other architectures are API errors, not ours). p2p
      # runs on any GPU machine, its 2 ranks sharing the GPU where there is one; NCCL needs 2 GPUs.
      backends=p2p
      [ "$gpus" -ge 2 ] && backends="nccl p2p"
      if [ "$gpus" -ge 1 ] && [[ " $parts " == *" dist "* ]]; then
        for be in $backends; do
          for tool in memcheck racecheck synccheck initcheck; do
            timeout ${DTR_RUN_TIMEOUT:-600} mpirun -np 2 compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 \
              "$DTR_BUILD/tests/test_random" "$be" --count 12 --seed 5 >"$logs/sanitize-$be-$tool.log" 2>&1 && r=clean || { r="FAILED"; status=1; }
            note "  mpirun -np 2 compute-sanitizer --tool $tool test_random $be: $r ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-$be-$tool.log" | tail -n1))"
          done
        done
      fi
      ;;
    shared)
      # Ranks that share a GPU (all of them on GPU 0): exact results and the header's notice on the
      # p2p path, fp32 and c64 on odd shapes and pencils on 2 x 2; NCCL refused on every rank.
      for run in "fp32-4099x3001:-r 4099 -c 3001 -d fp32" "c64-2053x1031:-r 2053 -c 1031 -d c64" \
                 "sweep-fp32-1M-64M:-b 1M -e 64M -f 4 -d fp32" "pencils-129x66x35-2x2-c64:--shape 129x66x35 --grid 2x2 -d c64"; do
        tag="shared-4-${run%%:*}"
        args=${run#*:}
        timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np 4 -x CUDA_VISIBLE_DEVICES=0 "$DTR_BUILD/disttranspose" $args -C 2 -n 20 -w 5 \
          -J "$logs/$tag.json" >"$logs/$tag.txt" 2>&1 </dev/null || status=1
        note "## mpirun -np 4 (one GPU) disttranspose $args"
        grep -E "share|not representative|^  |Wrong|rror" "$logs/$tag.txt" | tee -a "$summary" >/dev/null
      done
      if timeout 120 mpirun -np 2 -x CUDA_VISIBLE_DEVICES=0 "$DTR_BUILD/disttranspose" -B nccl -r 1000 >"$logs/shared-nccl.txt" 2>&1 </dev/null; then
        status=1
        note "## -B nccl on a shared GPU: NOT refused"
      else
        note "## -B nccl on a shared GPU: refused"
        grep -m1 "^disttranspose:" "$logs/shared-nccl.txt" | tee -a "$summary" >/dev/null
      fi
      ;;
    python)
      # The binding with this machine's Python (numpy, mpi4py, pytest; CuPy, PyTorch, JAX where present):
      # its tests through ctest (the build tree's library; JAX's custom calls built beside it where that
      # Python has jax), the overhead per execute and per compiled call against the C call,
      # and disttranspose.fft.fftn against examples/fft3d on the same ranks (DTR_FFT_SHAPE, default 512,
      # c64; DTR_PY_NP ranks, default 1).
      py=${DTR_PYTHON:-python3}
      cmake -S "$DTR_ROOT" -B "$DTR_BUILD" -DDTR_PYTHON="$(command -v "$py")" >>"$logs/build.log" 2>&1 &&
        cmake --build "$DTR_BUILD" -j "$(nproc)" >>"$logs/build.log" 2>&1 || { note "python: configure failed"; status=1; }
      (cd "$DTR_BUILD" && ctest --output-on-failure -L python --timeout ${DTR_TEST_TIMEOUT:-300}) >"$logs/python-tests.log" 2>&1 || status=1
      grep -E "tests passed|Passed|Failed|Skipped|passed|failed" "$logs/python-tests.log" | sed 's/^/  /' | tee -a "$summary"
      export DISTTRANSPOSE_LIBRARY="$DTR_BUILD/libdisttranspose.so" PYTHONPATH="$DTR_ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
      np=${DTR_PY_NP:-1}
      timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$py" "$DTR_ROOT/python/benchmarks/bench.py" overhead \
        --c-loop "$DTR_BUILD/libdtr_c_loop.so" --libs numpy,cupy,torch --json "$logs/python-overhead.json" 2>&1 |
        grep -vE "DTR WARN" | tee -a "$summary" || status=1
      # A call of jax.jit(plan.execute) and torch.compile(plan.execute) on the GPU against the C call.
      timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$py" "$DTR_ROOT/python/benchmarks/bench.py" compiled \
        --c-loop "$DTR_BUILD/libdtr_c_loop.so" --device gpu --json "$logs/python-compiled.json" 2>&1 |
        grep -E "^ +(jax|torch) " | tee -a "$summary" || status=1
      n=${DTR_FFT_SHAPE:-512}
      for lib in cupy torch; do
        timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$py" "$DTR_ROOT/python/benchmarks/bench.py" fft --lib "$lib" \
          --shape "$n" --dtype complex64 --grid "1x$np" --iters 10 --json "$logs/python-fft-$lib.json" 2>&1 |
          grep -vE "DTR WARN|^#" | tee -a "$summary" || status=1
      done
      timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$DTR_BUILD/examples/fft3d" --shape "$n" --grid "1x$np" --dtype c64 \
        --iters 10 --json "$logs/fft3d-$n.json" >"$logs/fft3d-$n.txt" 2>&1 || status=1
      note "  examples/fft3d ${n}^3 c64 on 1 x $np: $(grep -oE '"forward_us": [0-9.]+' "$logs/fft3d-$n.json" | tail -n1), $(grep -oE '"inverse_us": [0-9.]+' "$logs/fft3d-$n.json" | tail -n1)"
      ;;
    kernels)
      "$DTR_BUILD/transpose-bench" ${DTR_BENCH_ARGS:-} >"$logs/transpose-bench.txt" 2>&1 || status=1
      cat "$logs/transpose-bench.txt" >>"$summary"
      ;;
    dist)
      for np in ${DTR_NP_LIST:-$(printf '%s\n' 1 2 "$gpus" | sort -un)}; do
        [ "$np" -le "$gpus" ] || continue
        for be in ${DTR_DIST_BACKENDS:-auto}; do
          for dt in fp32 ${DTR_DIST_TYPES:-}; do
            mpirun -np "$np" "$DTR_BUILD/disttranspose" -B "$be" -b ${DTR_MINBYTES:-1M} -e ${DTR_MAXBYTES:-1G} -f ${DTR_STEP:-4} \
              -d "$dt" -J "$logs/sweep-$np-$be-$dt.json" >"$logs/sweep-$np-$be-$dt.txt" 2>&1 || status=1
            note "## mpirun -np $np disttranspose -B $be -b ${DTR_MINBYTES:-1M} -e ${DTR_MAXBYTES:-1G} -f ${DTR_STEP:-4} -d $dt"
            grep -vE "^#  Rank" "$logs/sweep-$np-$be-$dt.txt" | grep -E "^ |^# *bytes|Wrong|rror" | tee -a "$summary" >/dev/null
          done
        done
      done
      mpirun -np "$gpus" "$DTR_BUILD/disttranspose" >"$logs/default.txt" 2>&1 || status=1
      note "## mpirun -np $gpus disttranspose (defaults)"
      cat "$logs/default.txt" >>"$summary"
      ;;
    targets)
      np=${DTR_TARGET_NP:-$gpus}
      for be in ${DTR_TARGET_BACKENDS:-p2p nccl}; do
        for dt in fp32 c64; do
          tag="target-sweep-$np-$be-$dt"
          timeout ${DTR_RUN_TIMEOUT:-600} mpirun -np "$np" "$DTR_BUILD/disttranspose" -B "$be" -b ${DTR_TARGET_MINBYTES:-1M} \
            -e ${DTR_TARGET_MAXBYTES:-4G} -f 4 -d "$dt" -J "$logs/$tag.json" >"$logs/$tag.txt" 2>&1 </dev/null || status=1
          note "## mpirun -np $np disttranspose -B $be -b ${DTR_TARGET_MINBYTES:-1M} -e ${DTR_TARGET_MAXBYTES:-4G} -f 4 -d $dt"
          grep -vE "^#  Rank" "$logs/$tag.txt" | grep -E "^ |Wrong|rror" | tee -a "$summary" >/dev/null
        done
        for pair in ${DTR_TARGET_PAIRS:-c64:23170:23170,c64:32768:16384 c64:46340:46340,fp32:65536:65536}; do
          for shape in ${pair/,/ }; do
            IFS=: read -r dt rows cols <<<"$shape"
            tag="target-pair-$np-$be-$dt-${rows}x$cols"
            timeout ${DTR_RUN_TIMEOUT:-600} mpirun -np "$np" "$DTR_BUILD/disttranspose" -B "$be" -r "$rows" -c "$cols" -d "$dt" \
              -J "$logs/$tag.json" >"$logs/$tag.txt" 2>&1 </dev/null || status=1
            note "## mpirun -np $np disttranspose -B $be -r $rows -c $cols -d $dt"
            grep -E "^  " "$logs/$tag.txt" | tee -a "$summary" >/dev/null
          done
        done
      done
      ;;
    odd)
      np=${DTR_TARGET_NP:-$gpus}
      evenFp32="fp32:8192 fp32:16384 fp32:32768 fp32:65536"
      evenC64="c64:4096:8192 c64:8192:16384 c64:16384:32768 c64:32768:65536"
      oddFp32="fp32:8000 fp32:16000 fp32:32000 fp32:64000 fp32:8191 fp32:16381 fp32:32749 fp32:65521"
      oddC64="c64:6000 c64:12000 c64:23000 c64:46000 c64:5791 c64:11587 c64:23159 c64:46337"
      for be in ${DTR_ODD_BACKENDS:-auto}; do
        for case in ${DTR_ODD_CASES:-$evenFp32 $oddFp32 $evenC64 $oddC64}; do
          IFS=: read -r dt rows cols <<<"$case"
          cols=${cols:-$rows}
          tag="odd-$np-$be-$dt-${rows}x$cols"
          timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$DTR_BUILD/disttranspose" -B "$be" -r "$rows" -c "$cols" -d "$dt" \
            -n 10 -w 3 -J "$logs/$tag.json" >"$logs/$tag.txt" 2>&1 </dev/null || status=1
          note "## mpirun -np $np disttranspose -B $be -r $rows -c $cols -d $dt"
          grep -E "^  |rror|Wrong" "$logs/$tag.txt" | tee -a "$summary" >/dev/null
        done
      done
      ;;
    pencils)
      while read -r grid np n dt; do
        tag="pencils-$grid-$n-$dt"
        timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$DTR_BUILD/disttranspose" --shape "$n" --grid "$grid" -d "$dt" -J "$logs/$tag.json" \
          >"$logs/$tag.txt" 2>&1 </dev/null || status=1
        note "## mpirun -np $np disttranspose --shape $n --grid $grid -d $dt"
        grep -vE "^#  Rank" "$logs/$tag.txt" | grep -E "^ |transpose|Wrong|rror" | tee -a "$summary" >/dev/null
      done < <(gridCases)
      # 2-D transposes of the same bytes per rank on 2 and 4 ranks (the groups of 2x2 and 1x4), shapes
      # whose segments are 16-byte multiples.
      for case in ${DTR_MATRIX_CASES:-2:16384:32768:c64 4:32768:32768:c64 2:8192:8192:c64 4:8192:16384:c64 2:8192:8192:c128 4:8192:16384:c128}; do
        IFS=: read -r np rows cols dt <<<"$case"
        [ "$np" -le "$gpus" ] || continue
        tag="matrix-$np-$rows-$cols-$dt"
        timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$DTR_BUILD/disttranspose" -r "$rows" -c "$cols" -d "$dt" -J "$logs/$tag.json" >"$logs/$tag.txt" 2>&1 || status=1
        note "## mpirun -np $np disttranspose -r $rows -c $cols -d $dt"
        grep -E "^  " "$logs/$tag.txt" | tee -a "$summary" >/dev/null
      done
      ;;
    fft)
      # The library FFT through examples/fft3d, beside its parts (passes alone, exchanges alone, one
      # chunk): each case of DTR_FFT_CASES ("grid:n:dtype[:r2c[:backend]]"; by default the rows the FFT
      # is judged on: 2 and 4 GPUs), with the chunks of each of DTR_FFT_CHUNK_LIST (0: the library's
      # rule), the p2p blocks per peer of each of DTR_FFT_CTAS_LIST (0: the rule's) and each variant of
      # DTR_FFT_VARIANTS ("tag:VAR=value,VAR=value"; default: the environment as it is); checked against
      # one GPU's FFT where DTR_FFT_REFERENCE is 1 (default) and it fits. DTR_FFT_BASELINE names the
      # build folder of another version of the project, whose fft3d runs each case too, first, in the
      # same job (tag "baseline").
      default4="1x4:512:c64 1x4:1024:c64 1x4:512:c128 1x4:1024:c64:r2c 2x2:512:c64 2x2:1024:c64 2x2:512:c128 4x1:512:c64 1x4:1024:c64::nccl"
      default2="1x2:512:c64 1x2:1024:c64 1x2:512:c128 2x1:512:c64 2x1:1024:c64 1x2:1024:c64:r2c"
      cases=${DTR_FFT_CASES:-$([ "$gpus" -ge 4 ] && echo "$default4 $default2" || echo "$default2")}
      for case in $cases; do
        IFS=: read -r grid n dt kind be <<<"$case"
        np=$(( ${grid%x*} * ${grid#*x} ))
        [ "$np" -le "$gpus" ] || continue
        for chunks in ${DTR_FFT_CHUNK_LIST:-0}; do
          for ctas in ${DTR_FFT_CTAS_LIST:-0}; do
            for variant in ${DTR_FFT_BASELINE:+baseline:} ${DTR_FFT_VARIANTS:-default:}; do
              vtag=${variant%%:*}
              envs=()
              IFS=, read -ra assigns <<<"${variant#*:}"
              for a in "${assigns[@]}"; do [ -n "$a" ] && envs+=(-x "$a"); done
              bin="$DTR_BUILD/examples/fft3d"
              [ "$vtag" = baseline ] && bin="$DTR_FFT_BASELINE/examples/fft3d"
              tag="fft3d-$grid-$n-$dt${kind:+-$kind}${be:+-$be}-c$chunks-k$ctas-$vtag"
              timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" -x DTR_FFT_CTAS="$ctas" "${envs[@]}" "$bin" --shape "$n" \
                --grid "$grid" --dtype "$dt" ${kind:+--r2c} ${be:+--backend $be} --chunks "$chunks" --iters ${DTR_FFT_ITERS:-10} \
                --reference ${DTR_FFT_REFERENCE:-1} --json "$logs/$tag.json" >"$logs/$tag.txt" 2>&1 </dev/null || status=1
              note "## mpirun -np $np ${envs[*]} fft3d --shape $n --grid $grid --dtype $dt ${kind:+--r2c }${be:+--backend $be }--chunks $chunks (DTR_FFT_CTAS=$ctas) [$vtag]"
              grep -E "^  |^# forward|FAILED|PASSED|rror" "$logs/$tag.txt" | tee -a "$summary" >/dev/null
            done
          done
        done
      done
      ;;
    spectral)
      # The spectral features on every grid of DTR_SPECTRAL_GRIDS that fits (default 1x4 2x2 4x1 1x2 2x1
      # with 4 GPUs, 1x2 2x1 with 2): 3 fields in one plan against 3 single-field executes (fft3d
      # --howmany 3, c64 and R2C), the walls, the normalization and the padding against the periodic FFT
      # (fft-kinds: the periodic plan with norm none beside the normalized one), and the
      # solvers' time per step (taylor_green, poisson; their Python versions on CuPy and JAX where
      # DTR_PYTHON, default python3, has them). Sizes: DTR_SPECTRAL_N (default 512), DTR_SOLVER_N
      # (taylor_green's modes, default 256), DTR_POISSON_N (default 512), DTR_PY_SOLVER_N (taylor_green.py's
      # modes, default 128), DTR_PY_POISSON_N (poisson.py's points, default 256).
      n=${DTR_SPECTRAL_N:-512} py=${DTR_PYTHON:-python3}
      grids=${DTR_SPECTRAL_GRIDS:-$([ "$gpus" -ge 4 ] && echo "1x4 2x2 4x1 1x2 2x1" || echo "1x2 2x1")}
      spectralRun() { # tag, then the command after mpirun -np
        local tag=$1
        shift
        timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$@" >"$logs/$tag.txt" 2>&1 </dev/null || status=1
        note "## $tag on $np ranks"
        grep -E "^  |^# 3 fields|^# time per| a step| a solve|FAILED|PASSED|every check" "$logs/$tag.txt" | tee -a "$summary" >/dev/null
      }
      for grid in $grids; do
        np=$(( ${grid%x*} * ${grid#*x} ))
        [ "$np" -le "$gpus" ] || continue
        spectralRun "fields-$grid-$n-c64" "$DTR_BUILD/examples/fft3d" --shape "$n" --grid "$grid" --dtype c64 --howmany 3 \
          --reference 0 --iters ${DTR_FFT_ITERS:-10} --json "$logs/fields-$grid-$n-c64.json"
        spectralRun "fields-$grid-$n-r2c" "$DTR_BUILD/examples/fft3d" --shape "$n" --grid "$grid" --dtype c128 --r2c --howmany 3 \
          --reference 0 --iters ${DTR_FFT_ITERS:-10} --json "$logs/fields-$grid-$n-r2c.json"
        # Slabs: the fields also by the exchanges' own chunks (both routes' passes take the fields on the
        # one-trip kernel where the lengths allow; the slab route's along z transposes as it goes).
        [ "${grid%x*}" = 1 ] && spectralRun "fields-$grid-$n-c64-nocopies" -x DTR_FFT_COPIES=0 "$DTR_BUILD/examples/fft3d" \
          --shape "$n" --grid "$grid" --dtype c64 --howmany 3 --reference 0 --iters ${DTR_FFT_ITERS:-10} \
          --json "$logs/fields-$grid-$n-c64-nocopies.json"
        for dt in c64 fp64; do
          spectralRun "kinds-$grid-$n-$dt" "$DTR_BUILD/fft-kinds" --shape "$n" --grid "$grid" --dtype $dt --iters 20 \
            --unnormalized 1 --json "$logs/kinds-$grid-$n-$dt.json"
        done
        spectralRun "padding-$grid-$n-c64" "$DTR_BUILD/fft-kinds" --shape "$n" --grid "$grid" --dtype c64 --padding 1.5 \
          --iters 10 --json "$logs/padding-$grid-$n-c64.json"
        spectralRun "taylor-green-$grid" "$DTR_BUILD/examples/taylor_green" --n ${DTR_SOLVER_N:-256} --grid "$grid" --steps 10 \
          --dt 0.001 --json "$logs/taylor-green-$grid.json"
        spectralRun "poisson-$grid" "$DTR_BUILD/examples/poisson" --n ${DTR_POISSON_N:-512} --grid "$grid" --iters 8 \
          --json "$logs/poisson-$grid.json"
        for lib in cupy jax; do
          "$py" -c "import $lib" 2>/dev/null || continue
          # A short run first: CuPy compiles its kernels at their first use, inside the timed steps.
          [ $lib = cupy ] && spectralRun "taylor-green-py-$lib-$grid-warmup" env PYTHONPATH="$DTR_ROOT/python" DISTTRANSPOSE_LIBRARY="$DTR_BUILD/libdisttranspose.so" \
            "$py" "$DTR_ROOT/python/examples/taylor_green.py" --n 16 --grid "$grid" --lib $lib --steps 1 --dt 0.001
          spectralRun "taylor-green-py-$lib-$grid" env PYTHONPATH="$DTR_ROOT/python" DISTTRANSPOSE_LIBRARY="$DTR_BUILD/libdisttranspose.so" \
            "$py" "$DTR_ROOT/python/examples/taylor_green.py" --n ${DTR_PY_SOLVER_N:-128} --grid "$grid" --lib $lib \
            --steps 10 --dt 0.001 --json "$logs/taylor-green-py-$lib-$grid.json"
          spectralRun "poisson-py-$lib-$grid" env PYTHONPATH="$DTR_ROOT/python" DISTTRANSPOSE_LIBRARY="$DTR_BUILD/libdisttranspose.so" \
            "$py" "$DTR_ROOT/python/examples/poisson.py" --n ${DTR_PY_POISSON_N:-256} --grid "$grid" --lib $lib --iters 8 \
            --json "$logs/poisson-py-$lib-$grid.json"
        done
      done
      ;;
    halo)
      # halo-bench: the halo exchange and its adjoint against the bare exchange of the same bytes, each
      # case of DTR_HALO_CASES ("grid:n:pencil:backend"; by default the rows the halos are judged on: X-,
      # Y- and Z-pencils of 512^3 on 1 x 4 and 2 x 2 with p2p and nccl, and 1024^3 on 1 x 2 and 2 x 1),
      # c64, width DTR_HALO_WIDTH (default 2), periodic. The JSON beside each log makes the table of
      # docs/performance.md (scripts/halo_table.py).
      default4=""
      for grid in 1x4 2x2; do for pencil in X Y Z; do for be in p2p nccl; do default4+=" $grid:512:$pencil:$be"; done; done; done
      default2=""
      for grid in 1x2 2x1; do for pencil in X Y Z; do for be in p2p nccl; do default2+=" $grid:1024:$pencil:$be"; done; done; done
      cases=${DTR_HALO_CASES:-$([ "$gpus" -ge 4 ] && echo "$default4 $default2" || echo "$default2")}
      for case in $cases; do
        IFS=: read -r grid n pencil be <<<"$case"
        np=$(( ${grid%x*} * ${grid#*x} ))
        [ "$np" -le "$gpus" ] || continue
        tag="halo-$grid-$n-$pencil-$be"
        timeout ${DTR_RUN_TIMEOUT:-300} mpirun -np "$np" "$DTR_BUILD/halo-bench" --shape "$n" --grid "$grid" --pencil "$pencil" \
          --dtype c64 --halo ${DTR_HALO_WIDTH:-2} --backend "$be" --iters ${DTR_HALO_ITERS:-20} --json "$logs/$tag.json" \
          >"$logs/$tag.txt" 2>&1 </dev/null || status=1
        note "## mpirun -np $np halo-bench --shape $n --grid $grid --pencil $pencil --backend $be"
        grep -vE "^#" "$logs/$tag.txt" | tee -a "$summary" >/dev/null
      done
      ;;
    parts)
      # fft-parts for each n of DTR_PARTS_SIZES (default 512 1024): one rank's chunks and pieces of the
      # slab route's passes on one GPU (as one of DTR_PARTS_RANKS ranks, default 4; its JSON beside the
      # log, for scripts/chunk_costs_table.py), the 2-D pass that delivers as it goes, the copy engines
      # and passes on two GPUs, and the slab route's all-to-all and delivery on every GPU (the parts of
      # DTR_PARTS_LIST, default all: chunks,pieces,scatter,links).
      for n in ${DTR_PARTS_SIZES:-512 1024}; do
        timeout ${DTR_RUN_TIMEOUT:-300} "$DTR_BUILD/fft-parts" "$n" "${DTR_PARTS_RANKS:-4}" "$logs/fft-parts-$n.json" \
          ${DTR_PARTS_LIST:-chunks,pieces,scatter,links} >"$logs/fft-parts-$n.txt" 2>&1 || status=1
        note "## fft-parts $n"
        cat "$logs/fft-parts-$n.txt" >>"$summary"
      done
      ;;
  esac
done
echo "==================== summary ===================="
cat "$summary"
exit $status
