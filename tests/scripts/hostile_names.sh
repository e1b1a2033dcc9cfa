#!/usr/bin/env bash
# Hostile names through every writer: tests/data/hostile holds a topology
# whose names and texts carry '<', '&', '>', quotes, backslashes, line
# breaks, tabs and non-ASCII, and jobs with such names. Each output is parsed
# back by a parser that is not topoplan's (Graphviz's dot for DOT, Python's
# xml, json and yaml modules, a Slurm topology.conf reader written here) and
# compared with what went in. Writers that cannot express a name (Kubernetes
# and Slurm names have their own rules) must refuse it cleanly.
set -u
bin=$(realpath "$1")
root=$2
data=$root/tests/data/hostile
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null || { echo "needs python3-yaml"; exit 77; }
command -v dot >/dev/null || { echo "needs Graphviz's dot"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BIN=$bin DATA=$data TMP=$tmp
exec python3 - <<'EOF'
import json, os, re, subprocess, sys, xml.etree.ElementTree as ET
import yaml

BIN, DATA, TMP = os.environ["BIN"], os.environ["DATA"], os.environ["TMP"]
failures = []

def run(*args, status=0, stdin=None):
    p = subprocess.run([BIN, *args], capture_output=True, stdin=stdin)
    if p.returncode != status:
        failures.append(f"topoplan {' '.join(args)}: exit {p.returncode}, expected {status}: {p.stderr.decode(errors='replace')}")
    return p

def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")

# What went in, read by Python's YAML parser from the input files.
topo = yaml.safe_load(open(f"{DATA}/topology.yaml", encoding="utf-8"))
jobs = yaml.safe_load(open(f"{DATA}/jobs.yaml", encoding="utf-8"))["jobs"]
topo_file = f"{DATA}/topology.yaml"
name, description = topo["name"], topo["description"]
gpu_model = topo["blocks"]["box"]["devices"][0]["model"]
note = topo["blocks"]["box"]["devices"][0]["labels"]["note"]
switch = topo["blocks"]["box"]["devices"][1]["name"]
nic_model = topo["blocks"]["box"]["devices"][2]["model"]
hosts = [f"h<&>é-{g}" for g in range(4)]
racks = [f"r<&>#é{i}" for i in range(2)]

# Native YAML (export --to native): the same texts, read by Python, and by
# topoplan again to the same JSON summary.
native = run("export", topo_file, "--to", "native").stdout.decode()
back = yaml.safe_load(native)
check("native: name", back["name"], name)
check("native: description", back["description"], description)
node_block = back["blocks"]["node"]
check("native: GPU model", node_block["devices"][0]["model"], gpu_model)
check("native: GPU label", node_block["devices"][0]["labels"]["note"], note)
check("native: switch name", node_block["devices"][2]["name"], switch)
check("native: NIC model", node_block["devices"][3]["model"], nic_model)
open(f"{TMP}/native.yaml", "w", encoding="utf-8").write(native)
summary = json.loads(run("topology", "show", topo_file, "--format", "json").stdout)
again = json.loads(run("topology", "show", f"{TMP}/native.yaml", "--format", "json").stdout)
check("native: summary after a round trip", again, summary)
check("summary JSON: name", summary["name"], name)
check("summary JSON: description", summary["description"], description)

# DOT, read by Graphviz itself; SVG by Python's XML parser; the graph as JSON.
dot = run("render", topo_file, "--level", "device", "--format", "dot").stdout
p = subprocess.run(["dot", "-Tdot_json"], input=dot, capture_output=True)
if p.returncode != 0:
    failures.append(f"dot cannot read the DOT: {p.stderr.decode(errors='replace')}")
else:
    graph = json.loads(p.stdout)
    check("DOT: graph name", graph["name"], name)
    labels = [o.get("label", "") for o in graph.get("objects", [])]
    # Graphviz label escapes: \n ends a line, \\ is a backslash.
    texts = "\n".join(re.sub(r"\\(.)", lambda m: "\n" if m.group(1) in "nlr" else m.group(1), l) for l in labels)
    for want in [switch, gpu_model.split("\n")[0], "leaf<&>é", "spine&"] + hosts:
        if want not in texts:
            failures.append(f"DOT: no label holds {want!r}")
svg = run("render", topo_file, "--level", "device", "--format", "svg").stdout
try:
    svg_root = ET.fromstring(svg)
    svg_text = "\n".join(t.text or "" for t in svg_root.iter("{http://www.w3.org/2000/svg}text"))
    for want in [switch, "leaf<&>é", "spine&", name] + hosts:
        if want not in svg_text:
            failures.append(f"SVG: no text holds {want!r}")
except ET.ParseError as e:
    failures.append(f"SVG is not XML: {e}")
graph_json = json.loads(run("render", topo_file, "--level", "device", "--format", "json").stdout)
check("render JSON: title", graph_json["title"], name)
node_labels = "\n".join(n["label"] for n in graph_json["nodes"])
for want in [switch, gpu_model, "leaf<&>é"]:
    if want not in node_labels:
        failures.append(f"render JSON: no node label holds {want!r}")
box_labels = [c["label"] for c in graph_json["clusters"]]
for want in hosts + racks:
    if want not in box_labels:
        failures.append(f"render JSON: no box is labelled {want!r}")

# Plans: text, JSON and YAML; the YAML read back by Python and by evaluate.
plan_json = json.loads(run("plan", topo_file, f"{DATA}/jobs.yaml", "--format", "json").stdout)
check("plan JSON: job names", [j["name"] for j in plan_json["jobs"]], [j["name"] for j in jobs])
run("plan", topo_file, f"{DATA}/jobs.yaml", "-o", f"{TMP}/plan.yaml")
plan_yaml = yaml.safe_load(open(f"{TMP}/plan.yaml", encoding="utf-8"))
check("plan YAML: job names", [j["name"] for j in plan_yaml["jobs"]], [j["name"] for j in jobs])
check("plan YAML: tenant", plan_yaml["jobs"][0]["tenant"], jobs[0]["tenant"])
check("plan YAML: queue", plan_yaml["jobs"][1]["queue"], jobs[1]["queue"])
check("plan YAML: topology", plan_yaml["topology"], topo_file)
evaluated = json.loads(run("evaluate", topo_file, f"{TMP}/plan.yaml", "--format", "json").stdout)
check("evaluate: job names", [j["name"] for j in evaluated["jobs"]], [j["name"] for j in jobs])
check_json = json.loads(run("check", topo_file, f"{DATA}/jobs.yaml", "--format", "json").stdout)
check("check JSON: ok", check_json["ok"], True)
# Every diagnostic stays on one line, whatever the names it quotes.
bad = run("cost", topo_file, "-c", "allreduce", "-s", "1G", "--plan", f"{TMP}/plan.yaml", "--job", "x\ny", status=2)
check("a diagnostic quoting a line break: lines", len(bad.stderr.decode().splitlines()), 1)

# Kubernetes and Slurm names cannot hold these hostnames: a clean refusal.
for fmt in ["kueue", "volcano", "slurm-tree", "slurm-block", "slurm-yaml"]:
    p = run("export", topo_file, "--to", fmt, status=2)
    lines = p.stderr.decode().splitlines()
    if not lines or not all(l.startswith("topoplan: error: ") for l in lines) or p.stdout:
        failures.append(f"export --to {fmt}: not a clean refusal: {p.stderr.decode()!r}")

# With hostnames they can hold, the rest of the hostile texts still goes
# through them: the Kueue and Volcano YAML reads back with the nodes and
# valid Kubernetes names, the Slurm file with the hosts.
k8s = open(topo_file, encoding="utf-8").read().replace('"h<&>é-{g}"', '"node-{g:02}.example.com"')
k8s = k8s.replace('\nname: "t<&>é"', '\nname: "k8s-t"')
open(f"{TMP}/k8s.yaml", "w", encoding="utf-8").write(k8s)
k8s_hosts = [f"node-{g:02}.example.com" for g in range(4)]
label_value = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
dns_label = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
docs = list(yaml.safe_load_all(run("export", f"{TMP}/k8s.yaml", "--to", "kueue").stdout))
nodes = [d for d in docs if d["kind"] == "Node"]
check("kueue: nodes", sorted(d["metadata"]["name"] for d in nodes), k8s_hosts)
for d in nodes:
    for k, v in d["metadata"]["labels"].items():
        if not label_value.match(v) or len(v) > 63:
            failures.append(f"kueue: label {k}={v!r} is not a Kubernetes label value")
docs = list(yaml.safe_load_all(run("export", f"{TMP}/k8s.yaml", "--to", "volcano").stdout))
members = sorted(m["selector"]["exactMatch"]["name"] for d in docs for m in d["spec"]["members"] if m["type"] == "Node")
check("volcano: node members", members, k8s_hosts)
for d in docs:
    if not dns_label.match(d["metadata"]["name"]) or len(d["metadata"]["name"]) > 63:
        failures.append(f"volcano: HyperNode name {d['metadata']['name']!r} is not a DNS label")

def slurm_hostlist(text):
    # Slurm's hostlist syntax: prefix[a-b,c]suffix, items separated by commas outside brackets.
    out, depth, item = [], 0, ""
    for c in text + ",":
        if c == "," and depth == 0:
            m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", item)
            if not m:
                out.append(item)
            else:
                for part in m.group(2).split(","):
                    lo, _, hi = part.partition("-")
                    for n in range(int(lo), int(hi or lo) + 1):
                        out.extend(slurm_hostlist(f"{m.group(1)}{n:0{len(lo)}d}{m.group(3)}"))
            item = ""
            continue
        depth += c == "["
        depth -= c == "]"
        item += c
    return out

plain = k8s.replace('"r<&>#é{i}"', '"r{i}"').replace('"n<&>é{i}"', '"n{i}"').replace("leaf<&>é", "leaf")
plain = plain.replace("spine&", "spine").replace('"sw<&>#%;|$`!"', "sw")
open(f"{TMP}/slurm.yaml", "w", encoding="utf-8").write(plain)
conf = run("export", f"{TMP}/slurm.yaml", "--to", "slurm-block").stdout.decode()
listed = []
for line in conf.splitlines():
    if line.startswith("#") or not line.strip():
        continue
    fields = dict(f.split("=", 1) for f in line.split())
    if "BlockName" in fields:
        listed += slurm_hostlist(fields["Nodes"])
check("slurm-block: hosts", sorted(listed), k8s_hosts)

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
EOF
