#!/usr/bin/env bash
# Runs every `$ topoplan ...` example shown in README.md and the man pages
# and requires it to succeed (or to exit with the status written after it as
# `# exit N`), so the docs stay true to the binary.
set -u
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$root/samples" "$tmp/samples"
ln -s "$root/topologies" "$tmp/topologies"
ln -s "$root/tests" "$tmp/tests"  # example inputs of other tools (topoplan-formats(5))
fail=0
count=0
extract() {
  # README: "$ topoplan ..." lines; man pages: the same inside .EX blocks.
  grep -h -E '^\s*\$ topoplan ' "$@" | sed -E 's/^\s*\$ //'
}
while IFS= read -r line; do
  count=$((count + 1))
  expected=0
  if [[ $line =~ \#\ exit\ ([0-9]+) ]]; then expected=${BASH_REMATCH[1]}; fi
  command=${line%%#*}
  status=0
  (cd "$tmp" && eval "\"$bin\" ${command#topoplan }") >"$tmp/out" 2>&1 || status=$?
  if [ "$status" != "$expected" ]; then
    echo "FAIL (exit $status, expected $expected): $line"
    head -n 20 "$tmp/out"
    fail=1
  fi
done < <(extract "$root/README.md" "$root"/man/*.[0-9])
echo "$count documented examples checked"
exit $fail
