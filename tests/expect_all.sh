#!/bin/bash
# expect_all.sh REGEX... -- command...: passes when the command exits 0 and its output (stdout and
# stderr) matches every REGEX.
regexes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do regexes+=("$1"); shift; done
shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || { echo "expected exit status 0, got $status"; exit 1; }
for r in "${regexes[@]}"; do
  printf '%s\n' "$out" | grep -Eq -- "$r" || { echo "expected the output to match: $r"; exit 1; }
done
