#!/usr/bin/env bash
# Every built-in topology exports to Kueue (both styles) and Volcano, the
# node lists of tests/data/k8s import to valid topologies, the same input
# gives the same bytes, and a failed import or export leaves no file.
set -u
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
presets=$("$bin" topology list --format json | grep '"name"' | grep -v '"racks"\|"nodes"' |
  sed -E 's/.*"name": "([^"]*)".*/\1/')
[ -n "$presets" ] || { echo "no presets listed"; exit 1; }
for topo in $presets; do
  for args in "--to kueue" "--to kueue --style kubectl" "--to volcano"; do
    # shellcheck disable=SC2086
    if ! "$bin" export "$topo" $args >a 2>&1; then
      echo "export $topo $args failed:"; head -n 5 a; fail=1; continue
    fi
    # shellcheck disable=SC2086
    "$bin" export "$topo" $args >b 2>&1
    cmp -s a b || { echo "not deterministic: export $topo $args"; fail=1; }
  done
done
if "$bin" export "$root/tests/cli/inputs/k8s-hostnames.yaml" --to kueue -o out.yaml 2>/dev/null; then
  echo "export of unusable hostnames succeeded"; fail=1
fi
[ -e out.yaml ] && { echo "a failed export left out.yaml behind"; fail=1; }

# Node lists import to valid topologies, the same bytes every time.
for f in "$root"/tests/data/k8s/*-nodes.*; do
  if ! "$bin" import --from k8s-nodes "$f" -o t1.yaml 2>/dev/null; then
    echo "import of $(basename "$f") failed"; fail=1; continue
  fi
  "$bin" import --from k8s-nodes "$f" -o t2.yaml 2>/dev/null
  cmp -s t1.yaml t2.yaml || { echo "import of $(basename "$f") is not deterministic"; fail=1; }
  "$bin" topology validate t1.yaml >/dev/null || { echo "import of $(basename "$f") does not validate"; fail=1; }
done
"$bin" import --from k8s-nodes "$root/tests/cli/inputs/k8s-bad-nodes.yaml" -o bad.yaml 2>/dev/null &&
  { echo "import of a bad node list succeeded"; fail=1; }
[ -e bad.yaml ] && { echo "a failed import left bad.yaml behind"; fail=1; }
exit $fail
