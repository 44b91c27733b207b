# Sourced by hack/images.sh and hack/node.sh.
# need_packages CMD PKG [CMD PKG ...]: installs each Debian package PKG whose command (or file) CMD
# is missing, from the machine's package registry.
need_packages() {
  local missing=() cmd pkg
  while [ $# -gt 0 ]; do cmd="$1" pkg="$2"; shift 2; command -v "$cmd" >/dev/null || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "[packages] installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 || {
    apt-get update -qq >&2  # a fresh machine may have no package lists yet
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
  }
}
