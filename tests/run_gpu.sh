#!/bin/sh
# run_gpu.sh GPU_COUNT_TOOL NEEDED command...: runs the command when at least NEEDED GPUs are
# visible, else reports ctest's skip code (77).
count_tool=$1
need=$2
shift 2
have=$("$count_tool" 2>/dev/null || echo 0)
if [ "${have:-0}" -lt "$need" ]; then
  echo "SKIP: needs $need GPU(s), found ${have:-0}"
  exit 77
fi
exec "$@"
