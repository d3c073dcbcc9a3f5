#!/bin/sh
# run_gpu.sh GPU_COUNT_TOOL NEEDED command...: runs the command when the GPUs it needs are visible,
# else reports ctest's skip code (77) with the reason. NEEDED is a count of GPUs (NCCL allows one
# rank per GPU), or "shared": ranks may share GPUs (the p2p backend), so one GPU is enough.
count_tool=$1
need=$2
shift 2
have=$("$count_tool" 2>/dev/null || echo 0)
if [ "$need" = shared ]; then
  if [ "${have:-0}" -lt 1 ]; then
    echo "SKIP: needs a GPU, found none"
    exit 77
  fi
elif [ "${have:-0}" -lt "$need" ]; then
  echo "SKIP: needs $need GPU(s), one a rank (NCCL allows one rank per GPU), found ${have:-0}"
  exit 77
fi
exec "$@"
