#!/bin/bash
# stall_rank.sh SECONDS TIMEOUT command...: runs an MPI job, freezes its last rank with SIGSTOP after
# SECONDS (a rank that stalls: alive, holding its connections, never arriving), and passes when the
# job then ends within TIMEOUT plus a margin, non-zero, with a rank saying that it timed out.
# Open MPI's ranks carry OMPI_COMM_WORLD_RANK and _SIZE in their environment: that finds the last.
after=$1 timeout=$2
shift 2
out=$(mktemp)
"$@" >"$out" 2>&1 &
job=$!
sleep "$after"
victim=
for pid in $(pgrep -P "$job"); do
  env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || continue
  size=$(printf '%s\n' "$env" | sed -n 's/^OMPI_COMM_WORLD_SIZE=//p')
  [ -n "$size" ] && printf '%s\n' "$env" | grep -qx "OMPI_COMM_WORLD_RANK=$((size - 1))" && victim=$pid && break
done
if [ -z "$victim" ]; then
  cat "$out"
  echo "stall_rank.sh: no last rank found to stop (did the job end before $after s?)"
  kill "$job" 2>/dev/null
  exit 1
fi
kill -STOP "$victim"
stopped=$(date +%s.%N)
limit=$(awk -v t="$timeout" 'BEGIN { print t + 30 }')
status=124
for _ in $(seq 1 $((${limit%.*} * 10))); do
  if ! kill -0 "$job" 2>/dev/null; then
    wait "$job"
    status=$?
    break
  fi
  sleep 0.1
done
took=$(awk -v a="$stopped" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
kill -CONT "$victim" 2>/dev/null
[ $status -eq 124 ] && kill -9 "$victim" "$job" 2>/dev/null
cat "$out"
rm -f "$out"
echo "stall_rank.sh: rank stopped, job ended after $took s with status $status (timeout $timeout s)"
if [ $status -eq 0 ] || [ $status -eq 124 ]; then echo "stall_rank.sh: expected the job to fail"; exit 1; fi
exit 0
