#!/usr/bin/env bash
# Prints the test classes of the last Maven run by the time each took, slowest first, with the sum:
# where a CI run's time went. Reads the Surefire and Failsafe reports under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
files=(target/surefire-reports/*.txt target/failsafe-reports/*.txt)
[ ${#files[@]} -gt 0 ] || exit 0
grep -h "Time elapsed:" "${files[@]}" \
  | sed -E 's/.*Time elapsed: ([0-9.,]+) s.* in (.*)$/\1 \2/; s/,//' \
  | sort -rn \
  | awk '{ t += $1; printf "%8.1f s  %s\n", $1, $2 } END { printf "%8.1f s  in all (%d classes)\n", t, NR }' \
  | { echo "test time by class:"; head -n 25; }
