#!/usr/bin/env bash
# Same inputs, same bytes: every command that prints or writes a result is
# run twice and the outputs compared. Also: a failing command leaves no
# output file behind.
set -u
bin=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
twice() {
  "$bin" "$@" >a 2>&1
  "$bin" "$@" >b 2>&1
  if ! cmp -s a b; then
    echo "not deterministic: topoplan $*"
    fail=1
  fi
}
twice topology list --format json
for topo in $("$bin" topology list --format json | grep '"name"' | grep -v '"racks"\|"nodes"' | sed -E 's/.*"name": "([^"]*)".*/\1/'); do
  twice topology show "$topo" --format json
  twice topology show "$topo"
  twice render "$topo"
done
twice topology show "$root/samples/topograph-nvl72.yaml"
"$bin" render gb200-nvl72:racks=2 --level rack -o x1.svg && "$bin" render gb200-nvl72:racks=2 --level rack -o x2.svg
cmp -s x1.svg x2.svg || { echo "svg output differs between runs"; fail=1; }
"$bin" plan gb200-nvl72:racks=8 "$root/samples/jobs-nvl72.yaml" -o plan.yaml >/dev/null
for to in slurm kubernetes; do twice export-plan gb200-nvl72:racks=8 plan.yaml --to "$to"; done
twice export-plan gb200-nvl72:racks=8 plan.yaml --to slurm --reservations
twice whatif gb200-nvl72:racks=8 plan.yaml --fail r0003 --format json
twice whatif gb200-nvl72:racks=3 "$root/tests/cli/inputs/whatif-plan-two-displaced.yaml" --fail r0002 --format json

twice simulate dgx-h100:nodes=16 "$root/tests/data/traces/gavel-philly-vc2869ce.trace" --format json
twice simulate dgx-h100:nodes=4 "$root/tests/data/traces/gavel-philly-vc2869ce.trace" --policies topo,naive \
  --mtbf "$root/samples/failure-rates-llama3.yaml" --seed 3 --format json
"$bin" simulate dgx-h100:nodes=2 "$root/tests/data/traces/tiny-16gpu.csv" -o s1.svg >/dev/null &&
  "$bin" simulate dgx-h100:nodes=2 "$root/tests/data/traces/tiny-16gpu.csv" -o s2.svg >/dev/null
cmp -s s1.svg s2.svg || { echo "simulate svg output differs between runs"; fail=1; }

# A plan file of 512 jobs or more is rendered in parts on two cores: the same
# bytes as the one-core YAML on stdout, run after run.
{
  echo "jobs:"
  for i in $(seq 1 600); do echo "  - {name: j$i, gpus: $((i % 3 * 4 + 4))}"; done
} >many.yaml
"$bin" plan gb200-nvl72:racks=80 many.yaml --format yaml -o many1.yaml >serial.yaml &&
  "$bin" plan gb200-nvl72:racks=80 many.yaml -o many2.yaml >/dev/null
cmp -s many1.yaml serial.yaml || { echo "a large plan file differs from the plan on stdout"; fail=1; }
cmp -s many1.yaml many2.yaml || { echo "a large plan file differs between runs"; fail=1; }

# A bad input must not leave an output file behind, not even an empty one.
printf 'name: bad\nlevels: [cluster, node]\nblocks: {n: {level: node, devices: [{name: g, kind: gpz}]}}\n' >bad.yaml
if "$bin" render bad.yaml -o out.svg 2>/dev/null; then echo "render of a bad file succeeded"; fail=1; fi
[ -e out.svg ] && { echo "render left out.svg behind after an error"; fail=1; }
if "$bin" simulate dgx-h100:nodes=2 "$root/tests/data/traces/bad-trace.csv" -o sim.svg 2>/dev/null; then
  echo "simulate of a bad trace succeeded"; fail=1
fi
[ -e sim.svg ] && { echo "simulate left sim.svg behind after an error"; fail=1; }
ls -A | grep -q '^\.topoplan-' && { echo "a temporary file was left behind"; fail=1; }
exit $fail
