#!/usr/bin/env bash
# `topoplan export-plan --to kubernetes` read by an independent YAML parser
# (PyYAML): for a plan of at least 10 jobs on a fragmented cluster, every
# placed job has one v1 PodTemplate whose required node affinity, evaluated
# the way kube-scheduler does (terms ORed, expressions ANDed, on the labels of
# the Node objects that `topoplan export --to kueue` writes, plus the
# kubernetes.io/hostname label the kubelet sets to the node's name), selects
# exactly the job's planned nodes; each replica's template selects exactly
# that replica's nodes; unplaced jobs have none. The plan is read from its
# JSON, not through topoplan.
#
#   plan_export_kubernetes.sh TOPOPLAN SOURCE_DIR
#
# Needs python3 with PyYAML (Debian's python3-yaml, in scripts/deps);
# installs it when root, skips (77) otherwise.
set -uo pipefail
bin=$(realpath "$1")

skip() { echo "plan_export_kubernetes: skipped: $*" >&2; exit 77; }
fail() { echo "plan_export_kubernetes: FAIL: $*" >&2; exit 1; }

python=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import yaml' 2>/dev/null; then python=$p; break; fi
done
if [[ -z $python ]]; then
  [[ $(id -u) -eq 0 ]] || skip "python3 with PyYAML is not installed and installing it needs root"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq python3-yaml >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq python3-yaml >/dev/null 2>&1; } ||
    fail "apt-get install python3-yaml failed"
  python=/usr/bin/python3
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
topo=gb200-nvl72:racks=4
cat >"$tmp/occupied.yaml" <<'EOF'
jobs:
  - {name: occ-a, hosts: "r0000-n[03-05]"}
  - {name: occ-b, devices: "r0001-n07/gpu0"}
  - {name: occ-c, hosts: "r0002-n[00,04,08,12,16]"}
  - {name: occ-d, devices: "r0003-n[10-11]/gpu[0-1]"}
EOF
cat >"$tmp/jobs.yaml" <<'EOF'
jobs:
  - {name: pretrain, nodes: 14, required: rack, priority: 10}
  - {name: finetune, nodes: 8, required: rack}
  - {name: train-32, gpus: 32, parallelism: {tp: 4, dp: 8}, required: rack}
  - {name: moe, nodes: 12}
  - {name: serve, kind: inference, replicas: 3, gpus_per_replica: 4, spread: rack}
  - {name: slices, kind: inference, replicas: 2, gpus_per_replica: 8, required: rack}
  - {name: batch, nodes: 2}
  - {name: eval, gpus: 2}
  - {name: probe, gpus: 1}
  - {name: six, gpus: 6}
  - {name: Tiny_Job, gpus: 2}
  - {name: too-big, nodes: 80}
EOF
"$bin" plan "$topo" "$tmp/jobs.yaml" --occupied "$tmp/occupied.yaml" -o "$tmp/plan.json" >/dev/null ||
  fail "topoplan plan"
"$bin" export "$topo" --to kueue -o "$tmp/nodes.yaml" || fail "topoplan export --to kueue"
"$bin" export-plan "$topo" "$tmp/plan.json" --to kubernetes -o "$tmp/patches.yaml" 2>"$tmp/warnings.txt" ||
  fail "topoplan export-plan --to kubernetes"

"$python" - "$tmp/plan.json" "$tmp/nodes.yaml" "$tmp/patches.yaml" <<'EOF' || fail "see above"
import json, re, sys
import yaml

plan = json.load(open(sys.argv[1]))
nodes = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d and d.get("kind") == "Node"]
docs = [d for d in yaml.safe_load_all(open(sys.argv[3])) if d is not None]
problems = []

# Node labels as the cluster has them: topoplan's labels and the hostname.
labels = {}
for n in nodes:
    name = n["metadata"]["name"]
    labels[name] = dict(n["metadata"].get("labels") or {})
    labels[name].setdefault("kubernetes.io/hostname", name)

def matches(expression, node_labels):
    key, op, values = expression["key"], expression["operator"], expression.get("values") or []
    if op == "In": return key in node_labels and node_labels[key] in values
    if op == "NotIn": return key not in node_labels or node_labels[key] not in values
    if op == "Exists": return key in node_labels
    if op == "DoesNotExist": return key not in node_labels
    if op in ("Gt", "Lt"):
        if key not in node_labels: return False
        a, b = int(node_labels[key]), int(values[0])
        return a > b if op == "Gt" else a < b
    raise ValueError("unknown operator " + op)

def selected(doc):
    required = doc["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    terms = required["nodeSelectorTerms"]
    return {n for n, l in labels.items()
            if any(all(matches(e, l) for e in t.get("matchExpressions", [])) for t in terms)}

dns1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
by_job = {}
for d in docs:
    if d.get("apiVersion") != "v1" or d.get("kind") != "PodTemplate":
        problems.append("not a v1 PodTemplate: %r" % d.get("kind"))
        continue
    meta = d["metadata"]
    if not dns1123.match(meta["name"]) or len(meta["name"]) > 63:
        problems.append("invalid object name " + meta["name"])
    key = (meta["annotations"]["topoplan.io/job"], meta["annotations"].get("topoplan.io/replica"))
    if key in by_job: problems.append("two templates for %r" % (key,))
    by_job[key] = d

placed = 0
for job in plan["jobs"]:
    name = job["name"]
    if not job["placed"]:
        if any(k[0] == name for k in by_job): problems.append("unplaced job %s has a template" % name)
        continue
    placed += 1
    if (name, None) not in by_job:
        problems.append("no template for job " + name)
        continue
    want = set(job["nodes"])
    got = selected(by_job[(name, None)])
    if got != want: problems.append("job %s selects %s, planned %s" % (name, sorted(got), sorted(want)))
    replicas = job.get("replica_devices") or []
    for r, devices in enumerate(replicas if len(replicas) > 1 else []):
        want = {dev.split("/")[0] for dev in devices}
        doc = by_job.get((name, str(r)))
        if doc is None:
            problems.append("no template for replica %d of %s" % (r, name))
        elif selected(doc) != want:
            problems.append("replica %d of %s selects %s, planned %s" % (r, name, sorted(selected(doc)), sorted(want)))
expected_docs = sum(1 + (len(j.get("replica_devices") or []) if len(j.get("replica_devices") or []) > 1 else 0)
                    for j in plan["jobs"] if j["placed"])
if len(by_job) != expected_docs: problems.append("%d templates, expected %d" % (len(by_job), expected_docs))
if placed < 10: problems.append("only %d jobs placed; the test needs 10" % placed)
for p in problems: print("plan_export_kubernetes:", p, file=sys.stderr)
if problems: sys.exit(1)
print("plan_export_kubernetes: %d PodTemplates select exactly the planned nodes of %d placed jobs and their replicas"
      % (len(by_job), placed))
EOF
grep -q "job 'too-big': not placed" "$tmp/warnings.txt" || fail "no warning for the unplaced job"
