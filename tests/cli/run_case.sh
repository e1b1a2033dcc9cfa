#!/usr/bin/env bash
# Runs one golden case: CASE.cmd holds the arguments to topoplan (one shell
# line, run from tests/cli); CASE.out, CASE.err and CASE.status hold what it
# must print and return. Files the case writes go to a fresh $OUT directory.
# With UPDATE_GOLDEN=1 the expectations are rewritten instead of compared.
set -u
bin=$1
case_file=$2
dir=$(cd "$(dirname "$case_file")" && pwd)
name=$(basename "$case_file" .cmd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OUT="$tmp/out"
mkdir -p "$OUT"
args=$(grep -v '^#' "$case_file")
status=0
(eval "\"$bin\" $args") >"$tmp/stdout" 2>"$tmp/stderr" || status=$?  # a case may cd
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
  cp "$tmp/stdout" "$dir/$name.out"
  cp "$tmp/stderr" "$dir/$name.err"
  echo "$status" >"$dir/$name.status"
  exit 0
fi
fail=0
expected_status=$(cat "$dir/$name.status" 2>/dev/null || echo missing)
if [ "$status" != "$expected_status" ]; then
  echo "exit status $status, expected $expected_status"
  fail=1
fi
for stream in out err; do
  src=$tmp/std$stream
  if ! diff -u "$dir/$name.$stream" "$src" >"$tmp/diff"; then
    echo "std$stream differs from $name.$stream:"
    head -n 60 "$tmp/diff"
    fail=1
  fi
done
exit $fail
