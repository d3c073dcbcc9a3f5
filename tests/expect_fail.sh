#!/bin/sh
# expect_fail.sh REGEX command...: passes when the command exits non-zero and its output (stdout
# and stderr) matches REGEX: a bad input must fail, and say why.
regex=$1
shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ $status -eq 0 ]; then
  echo "expected a non-zero exit status, got 0"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expected the output to match: $regex"
  exit 1
fi
exit 0
