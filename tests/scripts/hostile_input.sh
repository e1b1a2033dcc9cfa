#!/usr/bin/env bash
# Inputs that are no ordinary file: devices, endless pipes and stdin, files
# beyond the size limit, directories, a broken Graphviz. Each must end in one
# `topoplan: error: ...` line and exit status 2, promptly, leaving no output
# file; a pipe of ordinary size must work.
set -u
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect STATUS STDERR_REGEX -- COMMAND...: stderr is one line matching the
# regex, or empty when the regex is '-'.
expect() {
  local want=$1 pattern=$2
  shift 3
  local status=0 ok=1
  timeout 60 "$@" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
  if [ "$pattern" = - ]; then
    [ -s "$tmp/stderr" ] && ok=0
  elif ! grep -qE "$pattern" "$tmp/stderr" || [ "$(wc -l <"$tmp/stderr")" -gt 1 ]; then
    ok=0
  fi
  if [ "$status" != "$want" ] || [ "$ok" = 0 ]; then
    echo "FAIL: $* (exit $status, expected $want; stderr must match /$pattern/ in one line):"
    head -n 5 "$tmp/stderr"
    fail=1
  fi
}

expect 2 '^topoplan: error: /dev/zero: is a character device, not a regular file or a pipe$' -- \
  "$bin" topology validate /dev/zero
expect 2 '^topoplan: error: /dev/zero: is a character device' -- \
  "$bin" import --from slurm /dev/zero
expect 2 '^topoplan: error: <stdin>: more than 256 MiB; topoplan reads inputs of at most 256 MiB$' -- \
  bash -c "'$bin' check gb200-nvl72 - </dev/zero"
expect 2 '^topoplan: error: /dev/fd/[0-9]+: more than 256 MiB' -- \
  bash -c "'$bin' import --from nvidia-smi <(yes)"
truncate -s 300M "$tmp/huge.yaml"
expect 2 "^topoplan: error: $tmp/huge.yaml: is 300 MiB; topoplan reads inputs of at most 256 MiB\$" -- \
  "$bin" topology show "$tmp/huge.yaml"
expect 2 "^topoplan: error: $tmp: is a directory, not a file\$" -- "$bin" topology show "$tmp"
# A pipe is read like a file.
expect 0 - -- bash -c "'$bin' topology validate <(cat '$root/topologies/dgx-h100.yaml') >/dev/null"
# Output to a directory is refused before any work, whatever its name says.
expect 2 "^topoplan: error: $tmp/: is a directory, not a file\$" -- \
  "$bin" render gb200-nvl72 --level rack -o "$tmp/"
mkdir -p "$tmp/out.svg"
expect 2 "^topoplan: error: $tmp/out.svg: is a directory, not a file\$" -- \
  "$bin" render gb200-nvl72 --level rack -o "$tmp/out.svg"
# Graphviz without its plugins (a broken installation) fails like bad input.
expect 2 '^topoplan: error: graphviz: layout failed: Layout type: "dot" not recognized\. \(Graphviz finds no plugins' -- \
  env GVBINDIR="$tmp/no-plugins" "$bin" render gb200-nvl72 --level rack -o "$tmp/racks.svg"
[ -e "$tmp/racks.svg" ] && { echo "FAIL: a failed render left $tmp/racks.svg"; fail=1; }
exit $fail
