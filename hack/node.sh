#!/usr/bin/env bash
# A real single-node Kubernetes on this machine, for the real-node tests (RealNode*E2E) and for
# trying the chart by hand: etcd, kube-apiserver (RBAC, service-account tokens), kube-controller-
# manager, kube-scheduler, containerd with runc and the CNI bridge plugin, the kubelet (cgroupfs),
# kube-proxy (iptables mode) and CoreDNS (cluster.local, on the node's IP). Pods are real containers. Binaries from hack/k8s-binaries.sh
# (core sched node), images from hack/images.sh; Debian packages installed when missing.
#
#   hack/node.sh up      start everything (idempotent); prints the kubeconfig's path last
#   hack/node.sh down    stop everything and leave the machine as it was: daemons and containers
#                        stopped, mounts and cgroups removed, iptables rules and the sysctls the
#                        kubelet and kube-proxy change restored from what `up` recorded
#   hack/node.sh status  which daemons run
#
# State lives in $HBQ_NODE_DIR (default /var/tmp/hbq-node), removed by `down`; containerd's image
# store is kept in the cache ($HBQ_CACHE/node/containerd) so images are imported once. What the
# machine was before the first `up` (sysctls, iptables rules) is kept beside it, in
# $HBQ_NODE_DIR.host, until `down` has put it back. `down` goes through every step even when one
# fails, and `up` over the state of a node that is not running (a `down` that could not finish, a
# crash) first takes that state down: every `up` that starts etcd starts a new, empty cluster.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${HBQ_CACHE:-$HOME/.cache/hbase-qos-operator}"
RUN="${HBQ_NODE_DIR:-/var/tmp/hbq-node}"
HOST="$RUN.host"
PKI="$RUN/pki"
LOGS="$RUN/logs"
SOCK="$RUN/containerd/containerd.sock"
APISERVER_PORT="${HBQ_NODE_APISERVER_PORT:-16443}"
ETCD_PORT="${HBQ_NODE_ETCD_PORT:-12379}"
POD_CIDR="${HBQ_NODE_POD_CIDR:-10.244.0.0/24}"
SERVICE_CIDR="${HBQ_NODE_SERVICE_CIDR:-10.96.0.0/24}"
BRIDGE=hbq0
PAUSE_IMAGE="${PAUSE_IMAGE:-localhost/hbase-qos-operator/pause:catatonit}"
# what the kubelet (container manager) and kube-proxy may change; `down` puts them back
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
kernel.keys.root_maxbytes net.ipv4.ip_forward net.ipv4.conf.all.route_localnet
net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables net.netfilter.nf_conntrack_max"

log() { echo "[node] $*" >&2; }
die() { log "$*"; exit 1; }

node_ip() {
  ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1
}

# shellcheck source=hack/packages.sh
. "$root/hack/packages.sh"

running() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

daemon() { # $1 name, rest: command
  local name="$1"; shift
  running "$name" && return 0
  setsid "$@" >"$LOGS/$name.log" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.pid"
}

wait_for() { # $1 what, $2 seconds, rest: command that succeeds when ready
  local what="$1" secs="$2"; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && die "$what not ready within ${secs}s; log: $(tail -20 "$LOGS/$what.log" 2>/dev/null)"
    sleep 0.5
  done
}

pki() {
  [ -f "$PKI/admin.crt" ] && return 0
  mkdir -p "$PKI"; cd "$PKI"
  local ip; ip=$(node_ip)
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=hbq-node-ca" 2>/dev/null
  cert() { # $1 name, $2 subject, $3 extensions
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 30 \
      -extfile "$1.ext" 2>/dev/null
  }
  local svc_ip; svc_ip=$(python3 -c "import ipaddress,sys; print(ipaddress.ip_network('$SERVICE_CIDR')[1])")
  cert apiserver "/CN=kube-apiserver" "subjectAltName=IP:$ip,IP:127.0.0.1,IP:$svc_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth"
  cert admin "/O=system:masters/CN=admin" "extendedKeyUsage=clientAuth"
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cat > "$RUN/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: hbq-node
  cluster:
    server: https://$ip:$APISERVER_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: admin
  user:
    client-certificate: $PKI/admin.crt
    client-key: $PKI/admin.key
contexts:
- name: hbq-node
  context: {cluster: hbq-node, user: admin}
current-context: hbq-node
EOF
  cd - >/dev/null
}

record_host() { # what `down` restores: sysctls and iptables rules as they were before the first `up`
  [ -f "$HOST/done" ] && return 0
  mkdir -p "$HOST"
  local k
  for k in $SYSCTLS; do
    [ -e "/proc/sys/${k//.//}" ] && echo "$k=$(cat "/proc/sys/${k//.//}")"
  done > "$HOST/sysctls.before"
  iptables-save > "$HOST/iptables.before"
  ip6tables-save > "$HOST/ip6tables.before" 2>/dev/null || true
  touch "$HOST/done"
}

containerd_up() {
  mkdir -p "$RUN/containerd" "$RUN/cni/net.d" "$CACHE/node/containerd"
  cat > "$RUN/containerd/config.toml" <<EOF
version = 2
root = "$CACHE/node/containerd"
state = "$RUN/containerd/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # runc here may not set a negative oom_score_adj
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      base_runtime_spec = "$RUN/containerd/base-spec.json"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$RUN/cni/net.d"
EOF
  # containers' rlimits, set explicitly: this machine's hard limits are below runtimes' defaults
  local nofile nproc
  nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=1048576
  nproc=$(ulimit -Hu); [ "$nproc" = unlimited ] && nproc=65536
  [ "$nofile" -gt 16384 ] && nofile=16384
  [ "$nproc" -gt 32768 ] && nproc=32768
  ctr oci spec > "$RUN/containerd/base-spec.json.tmp"
  python3 - "$RUN/containerd/base-spec.json.tmp" "$nofile" "$nproc" > "$RUN/containerd/base-spec.json" <<'EOF'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["process"]["rlimits"] = [
    {"type": "RLIMIT_NOFILE", "hard": int(sys.argv[2]), "soft": int(sys.argv[2])},
    {"type": "RLIMIT_NPROC", "hard": int(sys.argv[3]), "soft": int(sys.argv[3])}]
print(json.dumps(spec, indent=1))
EOF
  cat > "$RUN/cni/net.d/10-hbq.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "hbq", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": "$RUN/cni/ipam"}},
  {"type": "portmap", "capabilities": {"portMappings": true}},
  {"type": "loopback"}]}
EOF
  daemon containerd containerd --config "$RUN/containerd/config.toml"
  wait_for containerd 30 ctr --address "$SOCK" version
}

control_plane_up() {
  local bin="$1" ip; ip=$(node_ip)
  daemon etcd "$bin/etcd" --data-dir "$RUN/etcd" --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "default=http://127.0.0.1:$((ETCD_PORT + 1))" --unsafe-no-fsync
  daemon kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --secure-port "$APISERVER_PORT" --advertise-address "$ip" --bind-address 0.0.0.0 \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" --authorization-mode Node,RBAC --allow-privileged=true \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --kubelet-client-certificate "$PKI/admin.crt" --kubelet-client-key "$PKI/admin.key"
  wait_for kube-apiserver 120 "$bin/kubectl" --kubeconfig "$RUN/kubeconfig" get --raw /readyz
  local kc="$RUN/kubeconfig"
  daemon kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$kc" \
    --authentication-kubeconfig "$kc" --authorization-kubeconfig "$kc" --leader-elect=false --secure-port 0 \
    --root-ca-file "$PKI/ca.crt" --service-account-private-key-file "$PKI/sa.key" \
    --use-service-account-credentials=false --service-cluster-ip-range "$SERVICE_CIDR" \
    --controllers '*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller'
  daemon kube-scheduler "$bin/kube-scheduler" --kubeconfig "$kc" --authentication-kubeconfig "$kc" \
    --authorization-kubeconfig "$kc" --leader-elect=false --secure-port 0
}

dns_answers() { # $1 name, $2 server: does the server resolve the name (an A record)?
  python3 - "$1" "$2" <<'PY'
import socket, sys
name, server = sys.argv[1], sys.argv[2]
q = bytes.fromhex("abcd01000001000000000000")
q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + bytes.fromhex("0000010001")
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
s.sendto(q, (server, 53))
r = s.recv(512)
sys.exit(0 if r[3] & 15 == 0 and r[7] > 0 else 1)
PY
}

dns_up() { # $1 node IP. CoreDNS answers cluster.local (Services, pods, StatefulSet pods' hostnames)
  local ip="$1"  # and forwards other names to the host's resolvers
  cat > "$RUN/Corefile" <<EOF
.:53 {
    bind $ip
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $RUN/kubeconfig hbq-node
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    cache 5
}
EOF
  daemon coredns "$CACHE/tools/coredns" -conf "$RUN/Corefile"
  wait_for coredns 30 dns_answers kubernetes.default.svc.cluster.local "$ip"
}

kubelet_up() {
  local bin="$1" ip; ip=$(node_ip)
  dns_up "$ip"
  mkdir -p "$RUN/kubelet"
  cat > "$RUN/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$SOCK
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: AlwaysAllow}
readOnlyPort: 0
failSwapOn: false
# runc here may not lower oom_score_adj; the kubelet keeps its own
oomScoreAdj: 0
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
serializeImagePulls: false
evictionHard: {memory.available: "200Mi", nodefs.available: "2%", imagefs.available: "2%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
podCIDR: $POD_CIDR
clusterDNS: [$ip]
EOF
  daemon kubelet "$bin/kubelet" --config "$RUN/kubelet/config.yaml" --kubeconfig "$RUN/kubeconfig" \
    --root-dir "$RUN/kubelet/root" --cert-dir "$RUN/kubelet/pki" --node-ip "$ip" --v 1
  daemon kube-proxy "$bin/kube-proxy" --kubeconfig "$RUN/kubeconfig" --proxy-mode iptables \
    --hostname-override "$(hostname)" --cluster-cidr "$POD_CIDR" --conntrack-max-per-core 0 \
    --metrics-bind-address 127.0.0.1:10249 --healthz-bind-address 127.0.0.1:10256
  wait_for kubelet 120 sh -c "'$bin/kubectl' --kubeconfig '$RUN/kubeconfig' get node '$(hostname)' \
    -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
}

up() {
  [ "$(id -u)" = 0 ] || die "a real node needs root (containerd, the kubelet, iptables)"
  need_packages containerd containerd runc runc iptables iptables conntrack conntrack openssl openssl \
    /usr/lib/cni/bridge containernetworking-plugins
  local bin; bin=$(bash "$root/hack/k8s-binaries.sh" core sched node | tail -1)
  if [ -d "$RUN" ] && ! running etcd; then
    # a node that is not running left its state (a `down` that could not finish, a crash): its
    # etcd would bring back its objects, its IP allocations and its pods into the new node
    log "the state in $RUN is of a node that is not running: taking it down first"
    ( down ) || [ ! -d "$RUN" ] || die "could not clear the state of the earlier node in $RUN"
  fi
  mkdir -p "$RUN" "$LOGS"
  record_host
  sysctl -qw net.ipv4.ip_forward=1
  modprobe br_netfilter 2>/dev/null || true
  [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ] && sysctl -qw net.bridge.bridge-nf-call-iptables=1
  pki
  containerd_up
  bash "$root/hack/images.sh" --containerd "$SOCK" pause >/dev/null
  control_plane_up "$bin"
  kubelet_up "$bin"
  log "node $(hostname) Ready; kubeconfig: $RUN/kubeconfig (images: hack/images.sh --containerd $SOCK)"
  echo "$RUN/kubeconfig"
}

stop_daemon() { # $1 name
  [ -f "$RUN/$1.pid" ] || return 0
  local pid; pid=$(cat "$RUN/$1.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$RUN/$1.pid"
}

restore_rules() { # $1 iptables|ip6tables, $2 nft family: the rules as `up` found them; fails if it could not
  local cmd="$1" family="$2" before="$HOST/$1.before" t rc=0
  [ -f "$before" ] || return 0
  for t in filter nat mangle raw; do
    "$cmd" -t "$t" -S >/dev/null 2>&1 || continue
    "$cmd" -t "$t" -F || rc=1
    "$cmd" -t "$t" -X || rc=1
    # a table the machine did not have before goes away (iptables-nft makes them on first use)
    if ! grep -qx "\*$t" "$before" && command -v nft >/dev/null; then
      nft delete table "$family" "$t" 2>/dev/null || true
    fi
  done
  if [ -s "$before" ]; then "$cmd-restore" < "$before" || rc=1; fi
  return $rc
}

node_mounts() { # mount points under the node's directories, deepest first
  awk -v r="$RUN/" -v c="$CACHE/node/" 'index($2 "/", r) == 1 || index($2 "/", c) == 1 {print $2}' /proc/mounts \
    | sort -r
}

unmount_node() { # the mounts under the node's directories (volumes, rootfs, shm), detached
  local m
  for m in $(node_mounts); do umount -l "$m" 2>/dev/null; done
  return 0
}

down() {
  # every step runs even when one before it failed; what failed is said, and makes the exit code 1
  set +e
  local failed=0 name
  if [ ! -d "$RUN" ]; then
    [ -d "$HOST" ] || { log "no node in $RUN"; return 0; }
    log "no node in $RUN; restoring the machine as $HOST recorded it"
  fi
  for name in kube-proxy kubelet coredns; do stop_daemon "$name"; done
  # the containers: their shims belong to this containerd (its socket is on their command line)
  if running containerd; then
    local c
    for c in $(ctr --address "$SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$SOCK" -n k8s.io tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true
    done
  fi
  pkill -9 -f -- "-address $SOCK" 2>/dev/null || true
  for name in containerd kube-scheduler kube-controller-manager kube-apiserver etcd; do stop_daemon "$name"; done
  # mounts under the node's directories and the pods' network namespaces
  unmount_node
  local m
  for m in $(awk '$2 ~ "^/(var/)?run/netns/cni-" {print $2}' /proc/mounts); do
    umount "$m" 2>/dev/null || true; rm -f "$m"
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  # the pods' cgroups (the kubelet's cgroupfs driver makes kubepods under every controller)
  local d
  for d in /sys/fs/cgroup/*/kubepods; do
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  local restored=0
  restore_rules iptables ip || { log "could not restore the iptables rules of $HOST/iptables.before"; restored=1; }
  restore_rules ip6tables ip6 || { log "could not restore the ip6tables rules of $HOST/ip6tables.before"; restored=1; }
  if [ -f "$HOST/sysctls.before" ]; then
    while IFS= read -r kv; do
      sysctl -qw "$kv" 2>/dev/null || { log "could not restore $kv"; restored=1; }
    done < "$HOST/sysctls.before"
  fi
  # the record goes only once the machine is as it was: a later `down` can try again
  if [ $restored = 0 ]; then rm -rf "$HOST"; else failed=1; fi
  if ! rm -rf "$RUN" 2>/dev/null; then
    unmount_node
    sleep 1
    rm -rf "$RUN" || { log "could not remove $RUN; mounted under it: $(node_mounts | tr '\n' ' ')"; failed=1; }
  fi
  if [ $failed = 0 ]; then log "node stopped, machine restored"; else log "node stopped, with the failures above"; fi
  return $failed
}

status() {
  local name
  for name in etcd kube-apiserver kube-controller-manager kube-scheduler containerd coredns kubelet kube-proxy; do
    if running "$name"; then echo "$name running"; else echo "$name stopped"; fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: hack/node.sh up|down|status" >&2; exit 2 ;;
esac
