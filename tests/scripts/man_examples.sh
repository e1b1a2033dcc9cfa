#!/usr/bin/env bash
# Every example in the man pages (between `.\" example-begin NAME` and
# `.\" example-end`) must work: topologies in topoplan-topology(5) load and
# validate, job manifests in topoplan-jobs(5) plan on a built-in topology. So
# the manuals cannot drift from the binary.
set -eu
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
extract() {
  mkdir -p "$tmp/$2"
  awk -v dir="$tmp/$2" '
    /^\.\\" example-begin / { name = $3; file = dir "/" name ".yaml"; next }
    /^\.\\" example-end/ { name = ""; next }
    name != "" && !/^\.E[XE]$/ { print > file }
  ' "$root/man/$1"
}
extract topoplan-topology.5 topologies
extract topoplan-jobs.5 jobs
count=0
for f in "$tmp"/topologies/*.yaml; do
  count=$((count + 1))
  if ! "$bin" topology validate "$f"; then
    echo "man page example $(basename "$f") does not validate"
    exit 1
  fi
done
for f in "$tmp"/jobs/*.yaml; do
  count=$((count + 1))
  topo=gb200-nvl72:racks=4
  case $(basename "$f") in groq-*) topo=groq:racks=2 ;; esac
  if ! "$bin" check "$topo" "$f"; then
    echo "man page job example $(basename "$f") does not place on $topo"
    exit 1
  fi
done
[ "$count" -ge 4 ] || { echo "only $count examples found"; exit 1; }
echo "$count man page examples validate"
