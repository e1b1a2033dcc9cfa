#!/usr/bin/env bash
# A real slurmctld reads `topoplan export --to slurm-tree`: `scontrol show
# topology` must report the same switches, children and nodes as the file,
# leaf switches at level 0, and the first jobs must land where topoplan's
# `slurm-22.05` policy (the rules of this controller's version) puts them.
#
#   slurm_real.sh TOPOPLAN SOURCE_DIR
#
# Installs slurmctld, slurm-client and munge when root (CI); skips (77) when
# they are missing and it is not root. Controller and munged are private
# (tests/support/slurm_controller.sh): free loopback port, state in a
# temporary directory, both killed on exit, so it can run beside other tests.
set -uo pipefail
bin=$(realpath "$1")
root=$2

skip() { echo "slurm_real: skipped: $*" >&2; exit 77; }
fail() { echo "slurm_real: FAIL: $*" >&2; exit 1; }

# shellcheck source=../support/slurm_controller.sh
source "$root/tests/support/slurm_controller.sh"
slurm_require

SLURM_WORK=$(mktemp -d /tmp/slurm_real.XXXXXX) || fail "mktemp"
chmod 755 "$SLURM_WORK"
# KEEP=1 keeps the work directory for a look at the files.
trap 'slurm_cleanup; [[ ${KEEP:-0} == 1 ]] && echo "kept $SLURM_WORK" >&2 || rm -rf "$SLURM_WORK"' EXIT
slurm_start_munge

# 10 NVL72 racks: a root, two SUs of 8 and 2 racks, 18-node rack leaves.
topo=gb200-nvl72:racks=10
dir=$SLURM_WORK/ctld
mkdir -p "$dir"
"$bin" export "$topo" --to slurm-tree -o "$dir/topology.conf" || fail "topoplan export $topo --to slurm-tree"
slurm_leaves "$dir/topology.conf" >"$dir/leaves.txt"
[[ $(wc -l <"$dir/leaves.txt") -eq 180 ]] || fail "expected 180 nodes in the export, got $(wc -l <"$dir/leaves.txt")"
# Every hostlist topoplan writes must expand in Slurm's own parser to the same
# names: the SU-level export has multi-bracket lists (r[0000-0007]-n[00-17]).
"$bin" export "$topo" --to slurm-tree --level su -o "$dir/su.conf" || fail "topoplan export --level su"
slurm_leaves "$dir/su.conf" >"$dir/su-leaves.txt" || fail "Slurm cannot expand the hostlists of the SU export"
cmp -s <(cut -d' ' -f1 "$dir/leaves.txt") <(cut -d' ' -f1 "$dir/su-leaves.txt") ||
  fail "the SU export's hostlists expand to other nodes than the rack export's"
slurm_start_ctld "$dir"

# The tree as a list of `SWITCH nodes|switches NAME...` lines, names expanded
# and sorted, from topology.conf and from `scontrol show topology`.
normalise() {
  local line name kind list
  while read -r line; do
    name=$(sed -n 's/^SwitchName=\([^ ]*\).*/\1/p' <<<"$line")
    [[ -n $name ]] || continue
    if [[ $line == *Switches=* ]]; then
      kind=switches
      list=$(sed -n 's/.*Switches=\([^ ]*\).*/\1/p' <<<"$line")
    else
      kind=nodes
      list=$(sed -n 's/.*Nodes=\([^ ]*\).*/\1/p' <<<"$line")
    fi
    echo "$name $kind $(slurm_hostnames "$list" | sort | tr '\n' ' ')"
  done | sort
}
grep '^SwitchName=' "$dir/topology.conf" | normalise >"$dir/expected.txt"
scontrol show topology >"$dir/scontrol.txt" || fail "scontrol show topology"
normalise <"$dir/scontrol.txt" >"$dir/actual.txt"
[[ $(wc -l <"$dir/expected.txt") -eq 13 ]] || fail "expected 13 switches (root, 2 SUs, 10 racks) in the export"
if ! diff -u "$dir/expected.txt" "$dir/actual.txt" >"$dir/diff.txt"; then
  head -40 "$dir/diff.txt" >&2
  fail "scontrol show topology differs from the exported topology.conf"
fi
# Leaf switches (those with Nodes=) are Slurm's level 0, the root its highest.
leaf_levels=$(grep -c 'Level=0 .*Nodes=' "$dir/scontrol.txt")
leaf_lines=$(grep -c 'Nodes=' "$dir/topology.conf")
[[ $leaf_levels -eq $leaf_lines ]] || fail "$leaf_levels switches at level 0, expected the $leaf_lines leaves"
grep -q "^SwitchName=gb200-nvl72 Level=2 " "$dir/scontrol.txt" || fail "the root switch is not at level 2"

# Two jobs, placed by Slurm and by topoplan's slurm-22.05 policy from the same
# state: 20 nodes (a whole rack and 2 more), then 30 beside it.
occupied=$dir/occupied.yaml
running=()
for k in 20 30; do
  { echo "jobs: ["; for r in "${running[@]}"; do echo "  $r,"; done; echo "]"; } >"$occupied"
  out=$(slurm_submit "$k")
  hosts=${out#*|}
  [[ -n $hosts ]] || fail "slurmctld did not allocate sbatch -N $k"
  slurm_nodes=$(slurm_hostnames "$hosts" | sort | tr '\n' ' ')
  echo "jobs: [{name: j$k, nodes: $k}]" >"$dir/job.yaml"
  ours=$("$bin" plan "$topo" "$dir/job.yaml" --policy slurm-22.05 --occupied "$occupied" --format json |
    tr -d ' \n' | sed -n 's/.*"nodes":\[\([^]]*\)\].*/\1/p' | tr -d '"' | tr ',' '\n' | sort | tr '\n' ' ')
  if [[ $ours != "$slurm_nodes" ]]; then
    echo "slurm:    $slurm_nodes" >&2
    echo "topoplan: $ours" >&2
    fail "sbatch -N $k: topoplan's slurm-22.05 policy disagrees with slurmctld"
  fi
  running+=("{name: s$k, hosts: \"$hosts\"}")
done
echo "slurm_real: $(slurm_ctld_binary) read the exported tree; 2 jobs placed as topoplan predicts"
