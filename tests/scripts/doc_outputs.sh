#!/usr/bin/env bash
# Output shown in the man pages and the README is the binary's. In a man
# page, the .EX block after `.\" output-of: COMMAND` must be what COMMAND (a
# shell line whose `topoplan` is the binary under test, run in a directory
# that holds the source tree's samples/, tests/ and topologies/) writes on
# stdout, roff escapes undone (`.\" stderr-of: COMMAND`: on stderr); in
# README.md, the fenced block after `<!-- output-of: COMMAND -->`. In a block,
# a line `...` stands for any number of lines and `...` inside a line for any
# text, so that an excerpt can be shown.
set -u
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work"
for d in samples tests topologies; do ln -s "$root/$d" "$tmp/work/$d"; done
topoplan() { "$bin" "$@"; }

# Blocks as files: N.args (stream, roff or md, and the command) and N.block.
extract() {
  awk -v dir="$tmp" -v page="$(basename "$1")" '
    /^\.\\" (output|stderr)-of: / || /^<!-- output-of: .* -->$/ {
      n++; file = dir "/" page "." n
      stream = ($0 ~ /stderr-of:/) ? "stderr" : "stdout"
      kind = ($0 ~ /^<!--/) ? "md" : "roff"
      command = $0; sub(/^(\.\\" |<!-- )[a-z]+-of: /, "", command); sub(/ -->$/, "", command)
      print stream " " kind " " command > (file ".args"); close(file ".args")
      want = 1; next
    }
    want && (/^\.EX$/ || /^```/) { inside = 1; want = 0; printf "" > (file ".block"); next }
    inside && (/^\.EE$/ || /^```$/) { inside = 0; close(file ".block"); next }
    inside { print > (file ".block") }
  ' "$1"
}
for page in "$root"/man/*.[0-9] "$root/README.md"; do extract "$page"; done

unroff() { sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\(dq/"/g' -e 's/\\e/\\/g'; }
# A block line as a bash pattern: glob characters escaped, `...` as `*`.
pattern() {
  local p=$1
  p=${p//\\/\\\\}
  p=${p//\*/\\*}
  p=${p//\?/\\?}
  p=${p//\[/\\[}
  p=${p//.../*}
  printf '%s' "$p"
}

fail=0
count=0
for args_file in "$tmp"/*.args; do
  [[ -e $args_file ]] || break
  count=$((count + 1))
  base=${args_file%.args}
  read -r stream kind command <"$args_file"
  (cd "$tmp/work" && eval "$command") >"$base.stdout" 2>"$base.stderr"
  if [[ $kind == roff ]]; then mapfile -t want < <(unroff <"$base.block"); else mapfile -t want <"$base.block"; fi
  mapfile -t got <"$base.$stream"
  i=0 j=0 ok=1
  while ((i < ${#want[@]})); do
    if [[ ${want[i]} == "..." ]]; then
      ((i++))
      ((i < ${#want[@]})) || { j=${#got[@]}; break; }
      pat=$(pattern "${want[i]}")
      while ((j < ${#got[@]})) && [[ ${got[j]} != $pat ]]; do ((j++)); done
      continue
    fi
    pat=$(pattern "${want[i]}")
    if ((j >= ${#got[@]})) || [[ ${got[j]} != $pat ]]; then ok=0; break; fi
    ((i++, j++))
  done
  if ((ok == 0 || j != ${#got[@]})); then
    echo "FAIL: $(basename "$base") ($stream of: $command): the documentation shows"
    echo "  ${want[i]:-<end>}"
    echo "where the binary writes"
    echo "  ${got[j]:-<end>}"
    fail=1
  fi
done
[[ $count -ge 5 ]] || { echo "only $count outputs found in the documentation"; exit 1; }
((fail)) || echo "$count documented outputs match the binary"
exit $fail
