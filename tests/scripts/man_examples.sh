#!/usr/bin/env bash
# Every topology example in man/topoplan-topology.5 (between `.\" example-begin
# NAME` and `.\" example-end`) must load and validate, so the manual cannot
# drift from the binary.
set -eu
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
  /^\.\\" example-begin / { name = $3; file = dir "/" name ".yaml"; next }
  /^\.\\" example-end/ { name = ""; next }
  name != "" && !/^\.E[XE]$/ { print > file }
' "$root/man/topoplan-topology.5"
count=0
for f in "$tmp"/*.yaml; do
  [ -e "$f" ] || { echo "no examples found"; exit 1; }
  count=$((count + 1))
  if ! "$bin" topology validate "$f"; then
    echo "man page example $(basename "$f") does not validate"
    exit 1
  fi
done
echo "$count man page examples validate"
