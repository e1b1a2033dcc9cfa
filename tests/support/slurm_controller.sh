# A real Slurm controller without compute nodes, for tests and benchmarks
# (sourced by tests/scripts/slurm_real.sh and bench/slurm_agreement.sh).
#
# Debian bookworm's slurmctld (22.05) runs topology/tree on State=CLOUD nodes
# with power saving: Slurm believes it can "resume" them, so jobs are
# allocated at once and stay CONFIGURING (recipe: shared/reference/
# slurm-real.md). Everything is private: a munged on a socket in the work
# directory, a free loopback port, state, pid and log files in the work
# directory.
#
# The caller defines skip MESSAGE (exit 77) and fail MESSAGE (exit 1), sets
# SLURM_WORK to a fresh directory and calls slurm_cleanup on exit.

SLURM_WORK=${SLURM_WORK:-}
CTLD_PID=
MUNGE_PID=
MUNGE_SOCKET=/run/munge/munge.socket.2

slurm_ctld_binary() {
  # The slurm-wlm-emulator package points /usr/sbin/slurmctld at a build that
  # refuses ordinary configs; the real one is slurmctld-wlm then.
  if [[ -x /usr/sbin/slurmctld-wlm ]]; then echo /usr/sbin/slurmctld-wlm; else command -v slurmctld; fi
}

# Installs slurmctld, slurm-client and munge when missing: as root (CI) with
# apt-get; otherwise skips.
slurm_require() {
  if [[ -n $(slurm_ctld_binary) ]] && command -v sbatch >/dev/null && command -v munged >/dev/null; then return; fi
  [[ $(id -u) -eq 0 ]] || skip "slurmctld, slurm-client and munge are not installed and installing them needs root"
  echo "installing slurmctld slurm-client munge" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq slurmctld slurm-client munge >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq slurmctld slurm-client munge >/dev/null 2>&1; } ||
    fail "apt-get install slurmctld slurm-client munge failed"
  [[ -n $(slurm_ctld_binary) ]] || fail "no slurmctld binary after installation"
}

# Starts a private munged (as the munge user when root, with the package's
# key; else as ourselves with a fresh key) and sets MUNGE_SOCKET.
slurm_start_munge() {
  local dir=$SLURM_WORK/munge
  mkdir -p "$dir"
  MUNGE_SOCKET=$dir/socket
  if [[ $(id -u) -eq 0 ]]; then
    id munge >/dev/null 2>&1 && [[ -r /etc/munge/munge.key ]] || fail "no munge user or /etc/munge/munge.key"
    chown munge:munge "$dir" && chmod 755 "$dir"
    runuser -u munge -- munged --socket="$MUNGE_SOCKET" --pid-file="$dir/pid" --log-file="$dir/log" \
      --seed-file="$dir/seed" || fail "munged does not start"
  else
    chmod 700 "$dir"
    mungekey --create --keyfile="$dir/key" >/dev/null 2>&1 || skip "mungekey cannot create a key"
    munged --key-file="$dir/key" --socket="$MUNGE_SOCKET" --pid-file="$dir/pid" --log-file="$dir/log" \
      --seed-file="$dir/seed" 2>/dev/null || skip "munged does not start without root"
  fi
  for _ in $(seq 50); do [[ -s $dir/pid ]] && break; sleep 0.1; done
  MUNGE_PID=$(cat "$dir/pid" 2>/dev/null)
  munge -n --socket="$MUNGE_SOCKET" >/dev/null 2>&1 || fail "munged does not answer on $MUNGE_SOCKET"
}

# Whether something listens on loopback port $1: ss when installed (iproute2
# is not in a minimal container), else a connection attempt.
slurm_port_in_use() {
  if command -v ss >/dev/null; then
    ss -Hltn "( sport = :$1 )" 2>/dev/null | grep -q .
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

# A port P with P and P+1 free on loopback (controller, slurmd).
slurm_free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    slurm_port_in_use "$p" || slurm_port_in_use $((p + 1)) || { echo "$p"; return; }
  done
  echo 0
}

# slurm_hostnames LIST: one name a line, expanded by Slurm's own hostlist code.
slurm_hostnames() {
  [[ -f $SLURM_WORK/expand.conf ]] || printf 'ClusterName=expand\nSlurmctldHost=localhost\n' >"$SLURM_WORK/expand.conf"
  SLURM_CONF=$SLURM_WORK/expand.conf scontrol show hostnames "$1"
}

# slurm_leaves TOPOLOGY_CONF: `HOST LEAF-SWITCH` per node, in file order (the
# order of topoplan's export, which is the order of its nodes).
slurm_leaves() {
  local name nodes h
  sed -n 's/^SwitchName=\([^ ]*\) .*Nodes=\([^ ]*\).*/\1 \2/p' "$1" | while read -r name nodes; do
    for h in $(slurm_hostnames "$nodes"); do echo "$h $name"; done
  done
}

# slurm_start_ctld DIR: DIR holds topology.conf and leaves.txt (slurm_leaves);
# writes DIR/slurm.conf with one State=CLOUD node per host, in that order
# (Slurm's node bitmap order), starts the controller and sets CTLD_PID and
# SLURM_CONF. SLURM_NODE_ATTRS (default CPUs=1) describes every node, e.g.
# "CPUs=144 Gres=gpu:4"; SLURM_EXTRA_CONF is added to slurm.conf (GresTypes=gpu).
slurm_start_ctld() {
  local dir=$1 port ctld
  ctld=$(slurm_ctld_binary)
  port=$(slurm_free_port)
  [[ $port != 0 ]] || fail "no free port"
  mkdir -p "$dir/state" "$dir/spool"
  # Loopback addresses: messages to the nodes fail at once instead of
  # waiting for name resolution.
  awk -v attrs="${SLURM_NODE_ATTRS:-CPUs=1}" '{print "NodeName=" $1 " " attrs " State=CLOUD NodeAddr=127.0.0.1"}' \
    "$dir/leaves.txt" >"$dir/nodes.conf"
  cat >"$dir/slurm.conf" <<EOF
ClusterName=topoplantest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmctldDebug=verbose
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=topology/tree
TreeWidth=65533
ReturnToService=2
SuspendProgram=/bin/true
ResumeProgram=/bin/true
SuspendTime=60000
ResumeTimeout=60000
SuspendTimeout=60
ResumeRate=0
SuspendRate=0
SlurmctldParameters=power_save_interval=1,power_save_min_interval=0
DebugFlags=Power
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
${SLURM_EXTRA_CONF:-}
Include $dir/nodes.conf
PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  # Slurm tells its daemons by program name (run_in_daemon() in
  # src/common/run_in_daemon.c): started as slurmctld-wlm it reads no node's Gres=
  # (gres_name_filter() runs only "in a daemon"), so start it as slurmctld.
  ln -sf "$ctld" "$dir/slurmctld"
  "$dir/slurmctld" -D -c -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
  CTLD_PID=$!
  for _ in $(seq 150); do
    scontrol ping >/dev/null 2>&1 && return 0
    kill -0 "$CTLD_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -5 "$dir/slurmctld.out" "$dir/slurmctld.log" >&2 2>/dev/null
  fail "slurmctld does not start (see above)"
}

slurm_stop_ctld() {
  [[ -n $CTLD_PID ]] || return 0
  kill "$CTLD_PID" 2>/dev/null
  wait "$CTLD_PID" 2>/dev/null
  CTLD_PID=
}

slurm_cleanup() {
  slurm_stop_ctld
  [[ -n $MUNGE_PID ]] && kill "$MUNGE_PID" 2>/dev/null
  MUNGE_PID=
}

# slurm_submit K: prints "JOBID|HOSTLIST" once `sbatch -N K --exclusive` is
# allocated, or "JOBID|" after 30 s.
slurm_submit() {
  local id state nodes
  id=$(sbatch --parsable -N "$1" --exclusive -o /dev/null --wrap "sleep 1000") || fail "sbatch -N $1"
  for _ in $(seq 600); do
    IFS='|' read -r _ state nodes < <(squeue -h -j "$id" -o "%i|%T|%N")
    case $state in
      CONFIGURING | RUNNING) echo "$id|$nodes"; return ;;
    esac
    sleep 0.05
  done
  echo "$id|"
}

# slurm_cancel ID: scancel and wait until the job has left the queue.
slurm_cancel() {
  scancel "$1"
  for _ in $(seq 200); do
    [[ -z $(squeue -h -j "$1" -o %T 2>/dev/null) ]] && return
    sleep 0.05
  done
}
