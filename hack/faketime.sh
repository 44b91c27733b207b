#!/usr/bin/env bash
# Prints the path of libfaketime's preload library (Debian's libfaketime), installing the package
# from the machine's package registry when it is missing. ClockStepE2E runs the packaged operator
# under it to step the operator's wall clock (never its monotonic clock) while it works.
set -euo pipefail
find_lib() {
  local f
  for f in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
    [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
if ! find_lib; then
  echo "[faketime] installing libfaketime" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libfaketime >&2 || {
    apt-get update -qq >&2  # a fresh machine may have no package lists yet
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libfaketime >&2
  }
  find_lib
fi
