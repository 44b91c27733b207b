#!/usr/bin/env bash
# Provides the Kubernetes binaries the tests and the embedded demo run for real:
# kube-apiserver, etcd and kubectl (default), plus kube-scheduler, kube-controller-manager,
# kubelet, kube-proxy and CoreDNS (a real node, hack/node.sh), kwok, helm and prometheus + promtool (the calibration loop's Prometheus source; the chart's
# alert rules) on request. Downloads are not possible on every machine, so every binary is
# built from the Go module proxy, with version ldflags so the API server reports its version.
# Results are cached; a second run costs nothing.
#
# Usage: hack/k8s-binaries.sh [component...]   (components: core sched node helm kwok prometheus all)
# Prints the directory holding the binaries on its last line of stdout.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-3.5.21}"
HELM_VERSION="${HELM_VERSION:-3.19.0}"
KWOK_VERSION="${KWOK_VERSION:-0.7.0}"
COREDNS_VERSION="${COREDNS_VERSION:-1.14.7}"
# Prometheus 3.7.3 is Go module version 0.307.3
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-3.7.3}"
CACHE="${HBQ_CACHE:-$HOME/.cache/hbase-qos-operator}"
# Layout expected by fabric8 kube-api-test (jenvtest): <dir>/k8s/<version>-<os>-<arch>/
OUT="$CACHE/jenvtest/k8s/${K8S_VERSION}-linux-amd64"
TOOLS="$CACHE/tools"
mkdir -p "$OUT" "$TOOLS"
# one build at a time: a second caller (a test needing a binary while CI builds them all) waits for
# the first, then finds what it built
exec 9>"$CACHE/.build.lock"
flock 9

want=("$@"); [ ${#want[@]} -eq 0 ] && want=(core)
has() { local w; for w in "${want[@]}"; do [ "$w" = "$1" ] || [ "$w" = all ] && return 0; done; return 1; }
log() { echo "[k8s-binaries] $*" >&2; }

command -v go >/dev/null || { log "go is required to build the binaries"; exit 1; }
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

k8s_module() { # a throwaway module that pins k8s.io/kubernetes and its staging modules
  local dir="$CACHE/build/k8s-$K8S_VERSION"
  if [ ! -f "$dir/.ready" ]; then
    mkdir -p "$dir"; cd "$dir"
    rm -f go.mod go.sum
    go mod init hbq.local/k8sbuild >/dev/null 2>&1
    local gomod
    gomod=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    local minor="${K8S_VERSION#*.}"
    {
      echo "require k8s.io/kubernetes v$K8S_VERSION"
      grep -oE '^\s*k8s.io/[a-z0-9-]+ => \./staging' "$gomod" | awk '{print "replace "$1" => "$1" v0.'"$minor"'"}'
    } >> go.mod
    go mod tidy >/dev/null 2>&1 || true
    touch .ready
  fi
  echo "$dir"
}

k8s_build() { # $1 = command name
  local name="$1" dst="$OUT/$1"
  [ -x "$dst" ] && return 0
  local dir; dir=$(k8s_module)
  log "building $name v$K8S_VERSION (several minutes on a cold cache)"
  local minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
  local ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$dir" && go get "k8s.io/kubernetes/cmd/$name@v$K8S_VERSION" >/dev/null 2>&1 || true
   cd "$dir" && go build -trimpath -ldflags "$ld" -o "$dst.tmp" "k8s.io/kubernetes/cmd/$name") && mv "$dst.tmp" "$dst"
}

etcd_build() {
  local dst="$OUT/etcd"
  [ -x "$dst" ] && return 0
  local dir="$CACHE/build/etcd-$ETCD_VERSION"
  mkdir -p "$dir"; cd "$dir"
  if [ ! -f go.mod ]; then
    go mod init hbq.local/etcdbuild >/dev/null 2>&1
    echo "require go.etcd.io/etcd/server/v3 v$ETCD_VERSION" >> go.mod
  fi
  log "building etcd v$ETCD_VERSION"
  go mod tidy >/dev/null 2>&1 || true
  go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" >/dev/null 2>&1 || true
  go build -trimpath -ldflags "-s -w" -o "$dst.tmp" go.etcd.io/etcd/server/v3 && mv "$dst.tmp" "$dst"
}

tool_build() { # $1 name, $2 module path of the main package, $3 version
  local name="$1" pkg="$2" ver="$3" dst="$TOOLS/$1"
  [ -x "$dst" ] && return 0
  local dir="$CACHE/build/$name-$ver"
  mkdir -p "$dir"; cd "$dir"
  [ -f go.mod ] || go mod init "hbq.local/${name}build" >/dev/null 2>&1
  log "building $name v$ver"
  go get "$pkg@v$ver" >/dev/null 2>&1 || true
  go build -trimpath -ldflags "-s -w ${4:-}" -o "$dst.tmp" "$pkg" && mv "$dst.tmp" "$dst"
}

prometheus_build() { # its go.mod has exclude directives, so `go install` refuses it: a throwaway module
  local dst="$TOOLS/prometheus" ver="0.${PROMETHEUS_VERSION%%.*}$(printf '%02d' "$(echo "$PROMETHEUS_VERSION" | cut -d. -f2)").${PROMETHEUS_VERSION##*.}"
  [ -x "$dst" ] && [ -x "$TOOLS/promtool" ] && return 0
  local dir="$CACHE/build/prometheus-$PROMETHEUS_VERSION"
  mkdir -p "$dir"; cd "$dir"
  if [ ! -f go.mod ]; then
    go mod init hbq.local/prometheusbuild >/dev/null 2>&1
    local gomod
    gomod=$(go mod download -json "github.com/prometheus/prometheus@v$ver" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    echo "require github.com/prometheus/prometheus v$ver" >> go.mod
    # copy its excludes, single-line and block form
    awk '/^exclude \(/{b=1;next} b&&/^\)/{b=0;next} b&&NF&&$1!~/^\/\//{print "exclude "$1" "$2} /^exclude [^(]/{print}' "$gomod" >> go.mod
  fi
  log "building prometheus v$PROMETHEUS_VERSION (several minutes on a cold cache)"
  local cmd
  for cmd in prometheus promtool; do # promtool checks and unit-tests the chart's alerting rules
    [ -x "$TOOLS/$cmd" ] && continue
    go get "github.com/prometheus/prometheus/cmd/$cmd@v$ver" >/dev/null 2>&1 || true
    go build -trimpath -ldflags "-s -w -X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION" \
      -o "$TOOLS/$cmd.tmp" "github.com/prometheus/prometheus/cmd/$cmd" || exit 1
    mv "$TOOLS/$cmd.tmp" "$TOOLS/$cmd"
  done
}

if has core; then
  etcd_build
  k8s_build kube-apiserver
  k8s_build kubectl
  ln -sf "$OUT/kubectl" "$TOOLS/kubectl"
fi
if has sched; then
  k8s_build kube-scheduler
  k8s_build kube-controller-manager
fi
if has node; then # a real node (hack/node.sh): the kubelet, kube-proxy (iptables mode) and cluster DNS
  k8s_build kubelet
  k8s_build kube-proxy
  tool_build coredns github.com/coredns/coredns "$COREDNS_VERSION" "-X github.com/coredns/coredns/coremain.GitCommit=v$COREDNS_VERSION"
fi
has helm && tool_build helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" "-X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION"
has kwok && tool_build kwok sigs.k8s.io/kwok/cmd/kwok "$KWOK_VERSION"
has prometheus && prometheus_build
log "binaries ready in $OUT (tools in $TOOLS)"
echo "$OUT"
