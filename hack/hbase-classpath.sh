#!/usr/bin/env bash
# Prints the classpath of the standalone HBase server (hbase-runtime/pom.xml), resolving it from
# Maven Central on first use and caching it in target/.
#   hack/hbase-classpath.sh [VERSION]   another HBase release than the pom's (e.g. 2.6.2)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="${1:-}"
out="$root/target/hbase-runtime${version:+-$version}.classpath"
if [ ! -s "$out" ] || [ "$root/hbase-runtime/pom.xml" -nt "$out" ]; then
  mkdir -p "$root/target"
  "$root/mvnw" -q -B -f "$root/hbase-runtime/pom.xml" dependency:build-classpath \
    ${version:+-Dhbase.version=$version} -Dmdep.outputFile="$out.tmp" -Dmdep.includeScope=runtime >&2
  mv "$out.tmp" "$out"
fi
cat "$out"
