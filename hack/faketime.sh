#!/usr/bin/env bash
# Prints the path of libfaketime's preload library, installing Debian's faketime (which brings
# libfaketime) from the machine's package registry when it is missing. ClockStepE2E runs the packaged
# operator under it to step the operator's wall clock (never its monotonic clock) while it works.
set -euo pipefail
. "$(dirname "$0")/packages.sh"
need_packages faketime faketime
for f in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
  [ -f "$f" ] && { echo "$f"; exit 0; }
done
echo "[faketime] libfaketime.so.1 not found after installing faketime" >&2
exit 1
