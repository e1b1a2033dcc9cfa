#!/usr/bin/env bash
# Runs every `$ topoplan ...` example shown in README.md and the man pages
# and requires it to succeed (or to exit with the status written after it as
# `# exit N`) and to do what it shows: an example that succeeds writes its
# result (the -o file, else stdout) and no error; one that fails with 2
# explains itself in `topoplan: error:` lines; one that gives a negative
# verdict (1) prints it. So the docs stay true to the binary.
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
  output=
  plain=${command//\\-/-}  # man pages write - as \-
  if [[ $plain =~ (^|\ )(-o|--output)\ ([^ ]+) ]]; then output=$tmp/${BASH_REMATCH[3]}; rm -f "$output"; fi
  (cd "$tmp" && eval "\"$bin\" ${command#topoplan }") >"$tmp/out" 2>"$tmp/err" || status=$?
  problem=
  if [ "$status" != "$expected" ]; then
    problem="exit $status, expected $expected"
  elif [ "$expected" = 0 ] && grep -q '^topoplan: error:' "$tmp/err"; then
    problem="succeeded but printed an error"
  elif [ "$expected" = 0 ] && [ -n "$output" ] && [ "$output" != "$tmp/-" ] && [ ! -s "$output" ]; then
    problem="wrote no $output"
  elif [ "$expected" = 0 ] && [ -z "$output" ] && [ ! -s "$tmp/out" ]; then
    problem="printed nothing"
  elif [ "$expected" = 2 ] && ! grep -q '^topoplan: error: ' "$tmp/err"; then
    problem="failed without a 'topoplan: error:' line"
  elif [ "$expected" = 1 ] && [ ! -s "$tmp/out" ]; then
    problem="gave a negative verdict without printing it"
  fi
  if [ -n "$problem" ]; then
    echo "FAIL ($problem): $line"
    head -n 20 "$tmp/out" "$tmp/err"
    fail=1
  fi
done < <(extract "$root/README.md" "$root"/man/*.[0-9])
echo "$count documented examples checked"
exit $fail
