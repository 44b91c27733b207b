#!/usr/bin/env bash
# Builds the project's container images on a machine with no registry and no Docker engine, from
# the project's own Dockerfiles, and loads them where they run:
#   operator  src/main/docker/Dockerfile.jvm    (the Quarkus app; needs ./mvnw package first)
#   hbase     src/main/docker/Dockerfile.hbase  (HBase 2.6.4 from hbase-runtime/pom.xml's Maven jars)
#   pause     the pod sandbox image: Debian's static catatonit in pause mode
#
# The Dockerfiles start FROM debian:bookworm-slim. Where no registry serves it, a Debian bookworm
# root filesystem made by debootstrap (minbase, docs and package lists removed; cached as a
# tarball) is imported under that name, and buildah builds each Dockerfile unchanged: the image a
# user with a registry gets from `docker build -f <the same file> .`. Images live in the
# containers-storage that buildah and podman share (/var/lib/containers), which is their cache;
# a rebuild reuses every unchanged layer.
#
# Usage: hack/images.sh [--containerd SOCKET] [image...]   (default: operator hbase pause)
#   --containerd SOCKET  also imports them into that containerd (namespace k8s.io), skipping images
#                        it already holds with the same ID.
# Prints one line per image: <name> <reference>.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${HBQ_CACHE:-$HOME/.cache/hbase-qos-operator}"
APP_VERSION="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$root/helm/hbase-qos-operator/Chart.yaml")"
HBASE_VERSION="$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' "$root/hbase-runtime/pom.xml")"
OPERATOR_IMAGE="${OPERATOR_IMAGE:-ghcr.io/hbase-qos-operator/hbase-qos-operator:$APP_VERSION}"
HBASE_IMAGE="${HBASE_IMAGE:-ghcr.io/hbase-qos-operator/hbase:$HBASE_VERSION}"
PAUSE_IMAGE="${PAUSE_IMAGE:-localhost/hbase-qos-operator/pause:catatonit}"
BASE_IMAGE=docker.io/library/debian:bookworm-slim
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

log() { echo "[images] $*" >&2; }

containerd_sock=""
want=()
while [ $# -gt 0 ]; do
  case "$1" in
    --containerd) containerd_sock="$2"; shift 2 ;;
    operator|hbase|pause) want+=("$1"); shift ;;
    *) log "unknown argument: $1"; exit 2 ;;
  esac
done
[ ${#want[@]} -eq 0 ] && want=(operator hbase pause)

# shellcheck source=hack/packages.sh
. "$root/hack/packages.sh"
need_packages buildah buildah podman podman debootstrap debootstrap catatonit catatonit

has_image() { podman image exists "$1"; }

base_image() {
  has_image "$BASE_IMAGE" && return 0
  local tarball="$CACHE/images/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    local fs="$CACHE/images/rootfs.tmp"
    rm -rf "$fs"; mkdir -p "$fs"
    log "debootstrap bookworm (minbase) from $DEBIAN_MIRROR"
    debootstrap --variant=minbase bookworm "$fs" "$DEBIAN_MIRROR" >&2
    rm -rf "$fs"/var/cache/apt/archives/*.deb "$fs"/var/lib/apt/lists/* "$fs"/usr/share/doc/* \
      "$fs"/usr/share/man/* "$fs"/usr/share/info/*
    # the mirror the image's own apt-get uses (the Dockerfiles' RUN apt-get update)
    echo "deb $DEBIAN_MIRROR bookworm main" > "$fs/etc/apt/sources.list"
    tar --numeric-owner -C "$fs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$fs"
  fi
  log "importing $BASE_IMAGE from $tarball"
  podman import --change 'CMD ["bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$tarball" "$BASE_IMAGE" >/dev/null
}

bud() { # $1 image reference, $2 Dockerfile
  log "building $1 from $2"
  (cd "$root" && buildah bud --pull=never --isolation chroot --network host --layers \
    -f "$2" -t "$1" . >&2)
}

build_operator() {
  [ -f "$root/target/quarkus-app/quarkus-run.jar" ] || { log "target/quarkus-app is missing: run ./mvnw package -DskipTests first"; exit 1; }
  bud "$OPERATOR_IMAGE" src/main/docker/Dockerfile.jvm
}

build_hbase() {
  local lib="$root/target/hbase-image/lib"
  if [ ! -f "$lib/.complete" ] || [ "$root/hbase-runtime/pom.xml" -nt "$lib/.complete" ]; then
    rm -rf "$lib"; mkdir -p "$lib"
    log "copying HBase $HBASE_VERSION's jars (hbase-runtime/pom.xml) to target/hbase-image/lib"
    "$root/mvnw" -q -B -f "$root/hbase-runtime/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$lib" >&2
    # Maven's classpath order, which the launcher keeps: the jars hold two servlet APIs, and the
    # HTTP servers need the newer one first (as in the tests' standalone HBase)
    "$root/mvnw" -q -B -f "$root/hbase-runtime/pom.xml" dependency:build-classpath \
      -Dmdep.includeScope=runtime -Dmdep.prefix=/opt/hbase/lib -Dmdep.outputFile="$lib/classpath" >&2
    touch "$lib/.complete"
  fi
  bud "$HBASE_IMAGE" src/main/docker/Dockerfile.hbase
}

build_pause() {
  has_image "$PAUSE_IMAGE" && return 0
  log "building $PAUSE_IMAGE"
  local c; c=$(buildah from scratch)
  buildah copy "$c" "$(command -v catatonit)" /pause >/dev/null
  buildah config --entrypoint '["/pause", "-P"]' --user 65535:65535 \
    --label io.kubernetes.hbase-qos-operator.pause=catatonit "$c"
  buildah commit -q "$c" "$PAUSE_IMAGE" >/dev/null
  buildah rm "$c" >/dev/null
}

load_containerd() { # $1 image reference
  local ref="$1" id marker
  id=$(podman image inspect --format '{{.Id}}' "$ref")
  marker="$CACHE/node/loaded/$(echo "$ref" | tr '/:' '__').id"
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$id" ] \
     && ctr --address "$containerd_sock" -n k8s.io images ls -q "name==$ref" | grep -q .; then
    return 0
  fi
  log "importing $ref into containerd ($containerd_sock)"
  local tar; tar=$(mktemp -p "${TMPDIR:-/tmp}" hbq-image.XXXXXX.tar); rm -f "$tar"
  podman save --format docker-archive -o "$tar" "$ref" >/dev/null
  ctr --address "$containerd_sock" -n k8s.io images import --all-platforms "$tar" >&2
  rm -f "$tar"
  mkdir -p "$(dirname "$marker")"; echo "$id" > "$marker"
}

base_image
for w in "${want[@]}"; do
  case "$w" in
    operator) build_operator; ref="$OPERATOR_IMAGE" ;;
    hbase) build_hbase; ref="$HBASE_IMAGE" ;;
    pause) build_pause; ref="$PAUSE_IMAGE" ;;
  esac
  [ -n "$containerd_sock" ] && load_containerd "$ref"
  echo "$w $ref"
done
