#!/usr/bin/env bash
# A real slurmctld with topology/tree and 4 GPUs per node, on two NVL72
# racks: after `sbatch --gpus=56 --switches=1` lands in one rack, a job of
# `--gpus=32 --switches=1` stays pending with the other rack wholly free
# (asked for GPUs, Slurm best-fits the rack with the fewest free nodes and
# spills over, which --switches=1 refuses until the switch wait expires),
# while `-N 8 --switches=1` runs. topoplan's slurm-22.05 policy must agree
# and say why.
#
#   slurm_switches.sh TOPOPLAN SOURCE_DIR
set -uo pipefail
bin=$(realpath "$1")
root=$2

skip() { echo "slurm_switches: skipped: $*" >&2; exit 77; }
fail() { echo "slurm_switches: FAIL: $*" >&2; exit 1; }

# shellcheck source=../support/slurm_controller.sh
source "$root/tests/support/slurm_controller.sh"
slurm_require

SLURM_WORK=$(mktemp -d /tmp/slurm_switches.XXXXXX) || fail "mktemp"
chmod 755 "$SLURM_WORK"
trap 'slurm_cleanup; [[ ${KEEP:-0} == 1 ]] && echo "kept $SLURM_WORK" >&2 || rm -rf "$SLURM_WORK"' EXIT
slurm_start_munge

topo=gb200-nvl72:racks=2
dir=$SLURM_WORK/ctld
mkdir -p "$dir"
"$bin" export "$topo" --to slurm-tree -o "$dir/topology.conf" || fail "topoplan export $topo --to slurm-tree"
slurm_leaves "$dir/topology.conf" >"$dir/leaves.txt"
SLURM_NODE_ATTRS="CPUs=144 Gres=gpu:4" SLURM_EXTRA_CONF="GresTypes=gpu" slurm_start_ctld "$dir"

# state JOB: the job's state and reason once the scheduler has looked at it.
state() {
  local st reason
  for _ in $(seq 100); do
    IFS='|' read -r st reason < <(squeue -h -j "$1" -o "%T|%r")
    [[ $st == PENDING && $reason == None ]] || { echo "$st|$reason"; return; }
    sleep 0.05
  done
  echo "$st|$reason"
}
# Cloud nodes are CONFIGURING while they "power up": that is running too.
running() { [[ $1 == RUNNING\|* || $1 == CONFIGURING\|* ]]; }
submit() { sbatch --parsable -o /dev/null "$@" --wrap "sleep 1000" || fail "sbatch $*"; }

a=$(submit --gpus=56 --switches=1)
a_state=$(state "$a")
running "$a_state" || fail "--gpus=56 --switches=1 is '$a_state' on an empty cluster"
hosts=$(squeue -h -j "$a" -o "%N")
b=$(submit --gpus=32 --switches=1)
sleep 1  # a backfill pass as well as the submit-time attempt
b_state=$(state "$b")
[[ $b_state == "PENDING|Resources" ]] || fail "--gpus=32 --switches=1 is '$b_state', expected PENDING|Resources"
scancel "$b"
c=$(submit -N 8 --switches=1)
c_state=$(state "$c")
running "$c_state" || fail "-N 8 --switches=1 is '$c_state' beside the 56-GPU job"

# topoplan from the same state: the GPU job is refused with Slurm's reason,
# the whole-node job placed in the free rack.
printf 'jobs:\n  - {name: a, hosts: "%s"}\n' "$hosts" >"$dir/occupied.yaml"
printf 'jobs:\n  - {name: b, gpus: 32, required: rack}\n  - {name: c, nodes: 8, required: rack}\n' >"$dir/jobs.yaml"
out=$("$bin" plan "$topo" "$dir/jobs.yaml" --policy slurm-22.05 --occupied "$dir/occupied.yaml") ||
  fail "topoplan plan"
grep -q "^b .* no " <<<"$out" || fail "topoplan places the 32-GPU job that Slurm leaves pending: $out"
grep -q "Slurm leaves it pending on --switches=1" <<<"$out" || fail "the reason does not say what Slurm does: $out"
grep -q "^c .* yes " <<<"$out" || fail "topoplan does not place the 8-node job Slurm runs: $out"
echo "slurm_switches: $(slurm_ctld_binary) leaves --gpus=32 --switches=1 pending and runs -N 8, as topoplan says"
