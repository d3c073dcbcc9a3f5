#!/bin/sh
# json_numbers_agree.sh A.json B.json KEY TOL: passes when both files (the examples' --json: one flat
# object) hold the number KEY and |a - b| <= TOL * max(|a|, |b|).
a=$(sed -n "s/.*\"$3\": *\([^,}]*\).*/\1/p" "$1" | head -n 1)
b=$(sed -n "s/.*\"$3\": *\([^,}]*\).*/\1/p" "$2" | head -n 1)
echo "$1: $3 = $a"
echo "$2: $3 = $b"
awk -v a="$a" -v b="$b" -v tol="$4" 'BEGIN {
  if (a !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ || b !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) { print "not numbers"; exit 1 }
  d = a - b; if (d < 0) d = -d
  m = a < 0 ? -a : a; n = b < 0 ? -b : b; if (n > m) m = n
  r = m > 0 ? d / m : d
  printf "relative difference %.2e (tolerance %s): %s\n", r, tol, r <= tol + 0 ? "OK" : "FAILED"
  exit r <= tol + 0 ? 0 : 1
}'
