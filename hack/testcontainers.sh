#!/usr/bin/env bash
# The Testcontainers tier (./mvnw verify -Ptestcontainers: HBase and the operator started by
# Testcontainers from the project's images) on a machine without a Docker engine: podman's
# Docker-compatible API (`podman system service`) stands in for one.
#   hack/testcontainers.sh [extra Maven arguments]
# With Docker on a laptop, build the images (docs/install.md) and run ./mvnw verify -Ptestcontainers.
# Here:
# - the images are built into podman's storage by hack/images.sh (Testcontainers never pulls them);
# - the service runs with runc and explicit ulimits (containers.conf): crun fails on this kernel's
#   hybrid cgroup layout, and without CAP_SYS_RESOURCE podman cannot raise the open-files limit
#   past the host's hard limit;
# - Ryuk (Testcontainers' reaper container) is disabled, as it cannot run through podman's API
#   here; this script removes what the tests leave behind instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=hack/packages.sh
. hack/packages.sh
need_packages podman podman runc runc
RUN="${HBQ_PODMAN_DIR:-/var/tmp/hbq-podman}"
mkdir -p "$RUN"
cat > "$RUN/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=8192:8192"]
[engine]
runtime = "runc"
CONF
log() { echo "[testcontainers] $*" >&2; }

bash hack/k8s-binaries.sh core
[ -f target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B -ntp package -DskipTests
bash hack/images.sh operator hbase

sock="$RUN/podman.sock"
rm -f "$sock"
CONTAINERS_CONF="$RUN/containers.conf" podman system service --time=0 "unix://$sock" > "$RUN/service.log" 2>&1 &
service=$!
cleanup() {
  local left
  left="$(CONTAINERS_CONF="$RUN/containers.conf" podman ps -aq --filter label=org.testcontainers=true || true)"
  # shellcheck disable=SC2086
  [ -n "$left" ] && CONTAINERS_CONF="$RUN/containers.conf" podman rm -f $left >/dev/null 2>&1 || true
  kill "$service" 2>/dev/null || true
  wait "$service" 2>/dev/null || true
  rm -f "$sock"
}
trap cleanup EXIT
for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.2; done
[ -S "$sock" ] || { log "podman system service did not start:"; cat "$RUN/service.log" >&2; exit 1; }
log "podman's Docker API on $sock"
DOCKER_HOST="unix://$sock" TESTCONTAINERS_RYUK_DISABLED=true ./mvnw -B -ntp verify -Ptestcontainers "$@"
