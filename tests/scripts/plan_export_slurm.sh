#!/usr/bin/env bash
# A real slurmctld carries out a plan exported with `topoplan export-plan
# --to slurm`: on the exported topology, with GPUs (Gres=gpu:4 per node) and
# some nodes already taken by running jobs (whole nodes and single GPUs), the
# exported sbatch lines of a plan of at least 10 jobs must give every job
# exactly the nodes, and on each node exactly the GPUs, the plan chose. Then
# again with --reservations: each reservation must exist on the job's nodes
# and the job must run inside it.
#
#   plan_export_slurm.sh TOPOPLAN SOURCE_DIR
#
# Installs slurmctld, slurm-client and munge when root (CI); skips (77) when
# they are missing and it is not root. Controller and munged are private
# (tests/support/slurm_controller.sh). KEEP=1 keeps the work directory.
set -uo pipefail
bin=$(realpath "$1")
root=$2

skip() { echo "plan_export_slurm: skipped: $*" >&2; exit 77; }
fail() { echo "plan_export_slurm: FAIL: $*" >&2; exit 1; }

# shellcheck source=../support/slurm_controller.sh
source "$root/tests/support/slurm_controller.sh"
slurm_require

SLURM_WORK=$(mktemp -d /tmp/plan_export_slurm.XXXXXX) || fail "mktemp"
chmod 755 "$SLURM_WORK"
trap 'slurm_cleanup; [[ ${KEEP:-0} == 1 ]] && echo "kept $SLURM_WORK" >&2 || rm -rf "$SLURM_WORK"' EXIT
slurm_start_munge

# 4 NVL72 racks of 18 compute trays with 4 GPUs each (72 nodes, 288 GPUs).
topo=gb200-nvl72:racks=4
dir=$SLURM_WORK/ctld
mkdir -p "$dir"
"$bin" export "$topo" --to slurm-tree -o "$dir/topology.conf" || fail "topoplan export $topo --to slurm-tree"
slurm_leaves "$dir/topology.conf" >"$dir/leaves.txt"
# CPUs: a tray's two Grace CPUs of 72 cores; the GPUs as Slurm's gpu GRES.
SLURM_NODE_ATTRS="CPUs=144 Gres=gpu:4" SLURM_EXTRA_CONF="GresTypes=gpu" slurm_start_ctld "$dir"

# squeue for one job: STATE|NODES|RESERVATION|REASON.
job_state() { squeue -h -j "$1" -o "%T|%N|%v|%r" 2>/dev/null; }

# Waits until every job id in "$@" is allocated (CONFIGURING or RUNNING).
wait_allocated() {
  local id state
  for id in "$@"; do
    for _ in $(seq 300); do
      state=$(job_state "$id")
      [[ $state == CONFIGURING\|* || $state == RUNNING\|* ]] && continue 2
      sleep 0.1
    done
    fail "job $id is not allocated: $(job_state "$id")"
  done
}

# GPUs per node of an allocated job, as `HOST COUNT` lines, from Slurm's own
# per-node record (scontrol show job -d: `Nodes=LIST ... GRES=gpu(CNT:N)` or
# `GRES=gpu:N(IDX:...)`).
slurm_gpus() {
  scontrol show job -d "$1" | sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=gpu[:(]\(CNT:\)\{0,1\}\([0-9]*\).*/\1 \3/p' |
    while read -r list count; do
      for h in $(slurm_hostnames "$list"); do echo "$h $count"; done
    done | sort
}

# Occupy the cluster: whole nodes and single GPUs, pinned where they fragment
# every rack. The same, as a plan topoplan reads with --occupied.
occupants=(
  "occ-a|r0000-n[03-05]|--exclusive --gpus-per-node=4|hosts: \"r0000-n[03-05]\""
  "occ-b|r0001-n07|--gpus-per-node=1|devices: \"r0001-n07/gpu0\""
  "occ-c|r0002-n[00,04,08,12,16]|--exclusive --gpus-per-node=4|hosts: \"r0002-n[00,04,08,12,16]\""
  "occ-d|r0003-n[10-11]|--gpus-per-node=2|devices: \"r0003-n[10-11]/gpu[0-1]\""
  "occ-e|r0001-n[15-17]|--exclusive --gpus-per-node=4|hosts: \"r0001-n[15-17]\""
)
occ_ids=()
echo "jobs:" >"$dir/occupied.yaml"
for o in "${occupants[@]}"; do
  IFS='|' read -r name list opts entry <<<"$o"
  n=$(slurm_hostnames "$list" | wc -l)
  # shellcheck disable=SC2086
  id=$(sbatch --parsable -J "$name" -N "$n" -w "$list" $opts -o /dev/null --wrap "sleep 1000") || fail "sbatch $name"
  occ_ids+=("$id")
  echo "  - {name: $name, $entry}" >>"$dir/occupied.yaml"
done
wait_allocated "${occ_ids[@]}"

# Twelve jobs: whole racks, whole nodes, GPU counts that fill nodes or share
# them (among each other and with the occupants), an uneven count, and an
# inference service spread over racks.
cat >"$dir/jobs.yaml" <<'EOF'
jobs:
  - {name: pretrain, nodes: 14, required: rack, priority: 10}
  - {name: finetune, nodes: 8, required: rack}
  - {name: train-32, gpus: 32, parallelism: {tp: 4, dp: 8}, required: rack}
  - {name: moe, nodes: 12}
  - {name: serve, kind: inference, replicas: 3, gpus_per_replica: 4, spread: rack}
  - {name: batch, nodes: 2}
  - {name: eval, gpus: 2}
  - {name: probe, gpus: 1}
  - {name: debug, gpus: 3}
  - {name: six, gpus: 6}
  - {name: tiny, gpus: 2}
  - {name: sweep, nodes: 4}
EOF
"$bin" plan "$topo" "$dir/jobs.yaml" --occupied "$dir/occupied.yaml" -o "$dir/plan.json" >"$dir/plan.txt" ||
  fail "topoplan plan"

# Per placed job of the plan: `NAME HOST COUNT` lines (its GPUs per node),
# read from the plan's JSON without topoplan: each job's "name", then its
# "devices" list of HOST/gpuK names ("replica_devices" lists the same again).
awk '
  /^ *"name": "/ { if (match($0, /"name": "[^"]*"/)) { job = substr($0, RSTART + 9, RLENGTH - 10) } }
  /"devices": \[/ { in_devices = 1 }
  in_devices { line = $0; while (match(line, /"[^"\/]*\/[^"]*"/)) { d = substr(line, RSTART + 1, RLENGTH - 2);
               split(d, part, "/"); count[job " " part[1]]++; line = substr(line, RSTART + RLENGTH) } }
  in_devices && /\]/ { in_devices = 0 }
  END { for (k in count) print k, count[k] }
' "$dir/plan.json" | sort >"$dir/planned.txt"
jobs=$(cut -d' ' -f1 "$dir/planned.txt" | sort -u)
placed=$(wc -w <<<"$jobs")
[[ $placed -ge 10 ]] || { cat "$dir/plan.txt" >&2; fail "only $placed jobs placed in the plan; the test needs 10"; }

printf '#!/bin/sh\n#SBATCH --output=/dev/null\nsleep 1000\n' >"$dir/job.sbatch"

# Runs the exported script and checks every job's nodes and GPUs; with a
# second argument, also its reservation.
enact() {
  local script=$1 reservations=${2:-} job id got want state
  (cd "$dir" && sh "$script") >"$dir/submitted.txt" 2>&1 || { cat "$dir/submitted.txt" >&2; fail "sh $script"; }
  local ids=()
  for job in $jobs; do
    id=$(squeue -h -n "$job" -o %i | head -1)
    [[ -n $id ]] || fail "no Slurm job named $job after sh $script"
    ids+=("$id")
  done
  wait_allocated "${ids[@]}"
  for job in $jobs; do
    id=$(squeue -h -n "$job" -o %i | head -1)
    want=$(awk -v j="$job" '$1 == j { print $2, $3 }' "$dir/planned.txt")
    got=$(slurm_gpus "$id")
    if [[ $got != "$want" ]]; then
      echo "plan:  $(echo $want)" >&2
      echo "slurm: $(echo $got)" >&2
      fail "job $job ($script): Slurm's nodes and GPUs differ from the plan's"
    fi
    if [[ -n $reservations ]]; then
      state=$(job_state "$id")
      [[ $(cut -d'|' -f3 <<<"$state") == "$job" ]] || fail "job $job runs outside its reservation: $state"
      got=$(slurm_hostnames "$(scontrol show reservation "$job" | sed -n 's/^ *Nodes=\([^ ]*\) .*/\1/p')")
      [[ $(sort <<<"$got") == $(awk -v j="$job" '$1 == j { print $2 }' "$dir/planned.txt") ]] ||
        fail "reservation $job holds other nodes than the plan's: $(echo $got)"
    fi
  done
  for id in "${ids[@]}"; do slurm_cancel "$id"; done
}

"$bin" export-plan "$topo" "$dir/plan.json" --to slurm --batch-script "$dir/job.sbatch" -o "$dir/submit.sh" \
  2>"$dir/warnings.txt" || fail "topoplan export-plan --to slurm"
[[ $(grep -c '^sbatch ' "$dir/submit.sh") -eq $placed ]] || fail "expected $placed sbatch lines in submit.sh"
enact submit.sh

"$bin" export-plan "$topo" "$dir/plan.json" --to slurm --reservations --batch-script "$dir/job.sbatch" \
  -o "$dir/reserve.sh" 2>/dev/null || fail "topoplan export-plan --to slurm --reservations"
enact reserve.sh reservations
[[ $(scontrol show reservation | grep -c '^ReservationName=') -eq $placed ]] || fail "expected $placed reservations"

echo "plan_export_slurm: $(slurm_ctld_binary) gave all $placed jobs of the plan exactly their planned nodes and" \
  "GPUs, with $(wc -l <"$dir/warnings.txt") warnings; again inside $placed reservations"
