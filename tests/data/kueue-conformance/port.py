#!/usr/bin/env python3
"""How the cases of this directory were ported (see SOURCES).

Reads the entries of TestFindTopologyAssignments listed in issue 18 from
kubernetes-sigs/kueue pkg/cache/scheduler/tas_cache_test.go at ff69552e79ad
and writes one file per entry: the inputs a Kueue user has (a `kubectl get
nodes` list, a `kubectl get pods` list of the pods already running, Kueue's
Topology and ResourceFlavor, the workload) and Kueue's expected answer.

    port.py TAS_CACHE_TEST_GO OUTPUT_DIR

Only the listed entries are ported; the others of the table are kept aside
to check the work. The Go file is read as data (nodes, pods, pod sets and
expected assignments of the table), not translated.
"""
import json
import re
import sys
from pathlib import Path

import yaml


class Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True

LINES = [705, 808, 832, 899, 923, 948, 973, 998, 1145, 1180, 1226, 1336, 1416, 1480, 1520, 1564, 1626, 1769,
         1889, 2044, 2076, 2108, 2322, 2767, 2833, 2976, 3053, 3133, 3231, 3330, 3412, 3499, 3678, 3767, 3854,
         3934, 4078, 4159, 4240, 4558, 4573, 4589, 4978, 5193, 5262, 5337, 5415, 5493, 5623, 5853, 5983, 6868,
         7079, 7145, 7201, 7430, 7485, 7525, 7622, 7750, 7817, 7887, 8071, 8148, 8240, 8286]

HOST = "kubernetes.io/hostname"
CONST = {
    "tasDataCenterLabel": "cloud.com/datacenter",
    "tasAIZoneLabel": "cloud.com/aizone",
    "tasBlockLabel": "cloud.com/topology-block",
    "tasRackLabel": "cloud.com/topology-rack",
    "tasSubBlockLabel": "cloud.com/topology-subblock",
    "corev1.LabelHostname": HOST,
}
RESOURCE = {"corev1.ResourceCPU": "cpu", "corev1.ResourceMemory": "memory", "corev1.ResourcePods": "pods"}
LEVELS = {
    "defaultOneLevel": [HOST],
    "defaultTwoLevels": ["cloud.com/topology-block", "cloud.com/topology-rack"],
    "defaultThreeLevels": ["cloud.com/topology-block", "cloud.com/topology-rack", HOST],
}


def value(tok):
    """A Go string expression of the table: a literal or one of its constants."""
    tok = tok.strip().rstrip(",")
    m = re.fullmatch(r'new\((.*)\)', tok)
    if m:
        tok = m.group(1)
    m = re.fullmatch(r'string\((.*)\)', tok)
    if m:
        tok = m.group(1)
    m = re.fullmatch(r'int32\((.*)\)', tok)
    if m:
        return int(m.group(1))
    if tok.startswith('"'):
        return json.loads(tok)
    if tok in CONST:
        return CONST[tok]
    if tok in RESOURCE:
        return RESOURCE[tok]
    if tok in ("true", "false"):
        return tok == "true"
    if re.fullmatch(r"[0-9 *]+", tok):
        return eval(tok)  # products such as 64 * 1024 * 1024 * 1024
    raise ValueError(f"unknown value {tok!r}")


def block(text, start):
    """The text between the brace at or after `start` and its match."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    raise ValueError("unbalanced braces")


def resource_map(body):
    out = {}
    for k, v in re.findall(r'([A-Za-z0-9_."/]+)\s*:\s*(resource\.MustParse\("[^"]*"\)|[0-9 *]+|"[^"]*")', body):
        m = re.fullmatch(r'resource\.MustParse\("([^"]*)"\)', v)
        out[value(k)] = m.group(1) if m else value(v)
    return out


def nodes_of(text):
    nodes = []
    for m in re.finditer(r'testingnode\.MakeNode\("([^"]+)"\)(.*?)Obj\(\)', text, re.S):
        name, chain = m.group(1), m.group(2)
        node = {"name": name, "labels": {}, "allocatable": {}, "ready": True, "unschedulable": False, "taints": []}
        for k, v in re.findall(r'Label\(([^,]+),\s*([^)]+)\)', chain):
            node["labels"][value(k)] = value(v)
        a = chain.find("StatusAllocatable(")
        if a >= 0:
            body, _ = block(chain, a)
            node["allocatable"] = resource_map(body)
        if "NotReady()" in chain:
            node["ready"] = False
        if "Unschedulable()" in chain:
            node["unschedulable"] = True
        if "Taints(" in chain or "Taint(" in chain:
            raise ValueError(f"taints on {name}: not in the listed entries")
        nodes.append(node)
    return nodes


def pods_of(text):
    pods = []
    for m in re.finditer(r'testingpod\.MakePod\("([^"]+)", "([^"]+)"\)(.*?)Obj\(\)', text, re.S):
        chain = m.group(3)
        pod = {"name": m.group(1), "namespace": m.group(2), "requests": {}}
        n = re.search(r'NodeName\("([^"]+)"\)', chain)
        if n:
            pod["nodeName"] = n.group(1)
        p = re.search(r'StatusPhase\(corev1\.Pod([A-Za-z]+)\)', chain)
        if p:
            pod["phase"] = p.group(1)
        for k, v in re.findall(r'Request\(([^,]+),\s*"([^"]+)"\)', chain):
            pod["requests"][value(k)] = v
        pods.append(pod)
    return pods


def assignment(text):
    """{"Levels": [...], "Domains": [(values, count)]} of a wantAssignment."""
    m = re.search(r'MakeTopologyAssignment\(\[\]string\{([^}]*)\}\)', text)
    if m:
        levels = [value(x) for x in m.group(1).split(",") if x.strip()]
        domains = []
        for d in re.finditer(r'Domain\(tas\.TopologyDomainAssignment\{Count:\s*(\d+),\s*Values:\s*\[\]string\{([^}]*)\}\}\)', text):
            domains.append(([value(x) for x in d.group(2).split(",") if x.strip()], int(d.group(1))))
        return levels, domains
    m = re.search(r'Levels:\s*([A-Za-z]+|\[\]string\{[^}]*\})', text)
    tok = m.group(1)
    levels = LEVELS[tok] if tok in LEVELS else [value(x) for x in block(tok, 0)[0].split(",") if x.strip()]
    domains = []
    for d in re.finditer(r'Count:\s*(\d+),\s*Values:\s*\[\]string\{([^}]*)\}', text, re.S):
        domains.append(([value(x) for x in d.group(2).replace("\n", " ").split(",") if x.strip()], int(d.group(1))))
    return levels, domains


def podsets_of(text):
    i = text.index("podSets: []PodSetTestCase{")
    body, _ = block(text, i + len("podSets: []PodSetTestCase"))
    sets = []
    pos = 0
    while True:
        try:
            start = body.index("{", pos)
        except ValueError:
            break
        ps, pos = block(body, start)
        s = {"name": None, "topology": {}, "requests": {}, "count": None, "group": None, "selector": {},
             "preferred_affinity": [], "want": None, "reason": None}
        m = re.search(r'podSetName:\s*"([^"]+)"', ps)
        if m:
            s["name"] = m.group(1)
        t = ps.find("topologyRequest:")
        if t >= 0:
            tb, _ = block(ps, t)
            for key in ("Required", "Preferred", "Unconstrained", "PodSetSliceRequiredTopology", "PodSetSliceSize"):
                m = re.search(key + r':\s*([^\n]+)', tb)
                if m:
                    s["topology"][key] = value(m.group(1))
            c = tb.find("PodsetSliceRequiredTopologyConstraints:")
            if c >= 0:
                cb, _ = block(tb, c)
                s["topology"]["Constraints"] = [
                    {"topology": value(k), "size": int(n)}
                    for k, n in re.findall(r'Topology:\s*([^,]+),\s*Size:\s*(\d+)', cb)]
        r = re.search(r'requests:\s*(map\[corev1\.ResourceName\]int64|resources\.MapRequests)', ps)
        if r:
            rb, _ = block(ps, r.end())
            s["requests"] = resource_map(rb)
        s["count"] = int(re.search(r'count:\s*(\d+)', ps).group(1))
        m = re.search(r'podSetGroupName:\s*new\("([^"]+)"\)', ps)
        if m:
            s["group"] = m.group(1)
        m = ps.find("nodeSelector:")
        if m >= 0:
            sb, _ = block(ps, m)
            s["selector"] = {json.loads(k): json.loads(v) for k, v in re.findall(r'("[^"]*"):\s*("[^"]*")', sb)}
        for w, k, op, vals in re.findall(r'Term\((\d+),\s*("[^"]*"|[A-Za-z.]+),\s*corev1\.NodeSelectorOp([A-Za-z]+),\s*([^)]*)\)', ps):
            s["preferred_affinity"].append({"weight": int(w), "key": value(k), "operator": op,
                                            "values": [value(x) for x in vals.split(",") if x.strip()]})
        m = re.search(r'wantReason:\s*(`[^`]*`|"[^"]*")', ps)
        if m:
            s["reason"] = m.group(1)[1:-1]
        if "wantAssignment:" in ps:
            s["want"] = assignment(ps[ps.index("wantAssignment:"):])
        sets.append(s)
    return sets


def case_of(name, text):
    c = {"name": name}
    m = re.search(r'featureGates:\s*map\[featuregate\.Feature\]bool\{([^}]*)\}', text)
    c["gates"] = {g: v == "true" for g, v in re.findall(r'features\.([A-Za-z]+):\s*(true|false)', m.group(1))} if m else {}
    m = re.search(r'\blevels:\s*([^\n]+)', text)
    tok = m.group(1).strip().rstrip(",")
    if tok in LEVELS:
        c["levels"] = LEVELS[tok]
    elif tok.startswith("append("):
        inner = re.match(r'append\(\[\]string\{([^}]*)\},\s*([A-Za-z]+)\.\.\.\)', tok)
        c["levels"] = [value(x) for x in inner.group(1).split(",")] + LEVELS[inner.group(2)]
    else:
        c["levels"] = [value(x) for x in block(tok, 0)[0].split(",") if x.strip()]
    m = re.search(r'\bnodes:\s*([A-Za-z]+),', text)
    c["nodes"] = NAMED_NODES[m.group(1)] if m else nodes_of(text[text.index("nodes:"):text.index("podSets:")])
    c["pods"] = pods_of(text) if "pods:" in text and "testingpod.MakePod" in text else []
    m = re.search(r'nodeLabels:\s*map\[string\]string\{([^}]*)\}', text)
    c["node_labels"] = {json.loads(k): json.loads(v) for k, v in re.findall(r'("[^"]*"):\s*("[^"]*")', m.group(1))} if m else {}
    c["pod_sets"] = podsets_of(text)
    return c


NAMED_NODES = {}


# --- output -------------------------------------------------------------------

def q(v):
    return json.dumps(v)


def quantity(resource, v):
    if isinstance(v, str):
        return v
    if resource == "cpu":
        return f"{v // 1000}" if v % 1000 == 0 else f"{v}m"
    if resource == "memory" and v % (1 << 30) == 0:
        return f"{v >> 30}Gi"
    return str(v)


def node_list(nodes):
    items = []
    for n in nodes:
        conditions = [{"type": "Ready", "status": "True" if n["ready"] else "False"}]
        item = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n["name"], "labels": n["labels"]},
                "status": {"allocatable": dict(n["allocatable"]), "capacity": dict(n["allocatable"]),
                           "conditions": conditions}}
        if n["unschedulable"]:
            item["spec"] = {"unschedulable": True}
        items.append(item)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def pod_list(pods):
    items = []
    for p in pods:
        spec = {"containers": [{"name": "c", "resources": {"requests": p["requests"]}}]}
        if "nodeName" in p:
            spec["nodeName"] = p["nodeName"]
        item = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": p["name"], "namespace": p["namespace"]},
                "spec": spec}
        if "phase" in p:
            item["status"] = {"phase": p["phase"]}
        items.append(item)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def annotations(s, drop_slices):
    a = {}
    t = s["topology"]
    if "Required" in t:
        a["kueue.x-k8s.io/podset-required-topology"] = t["Required"]
    if "Preferred" in t:
        a["kueue.x-k8s.io/podset-preferred-topology"] = t["Preferred"]
    if t.get("Unconstrained"):
        a["kueue.x-k8s.io/podset-unconstrained-topology"] = "true"
    if not drop_slices:
        if "PodSetSliceRequiredTopology" in t:
            a["kueue.x-k8s.io/podset-slice-required-topology"] = t["PodSetSliceRequiredTopology"]
            if "PodSetSliceSize" in t:
                a["kueue.x-k8s.io/podset-slice-size"] = str(t["PodSetSliceSize"])
        if "Constraints" in t:
            a["kueue.x-k8s.io/podset-slice-required-topology-constraints"] = json.dumps(t["Constraints"])
    if s["group"]:
        a["kueue.x-k8s.io/podset-group-name"] = s["group"]
    return a


def pod_template(s, drop_slices=False):
    spec = {"containers": [{"name": "main", "image": "busybox",
                            "resources": {"requests": {k: quantity(k, v) for k, v in s["requests"].items()}}}]}
    if s["selector"]:
        spec["nodeSelector"] = s["selector"]
    if s["preferred_affinity"]:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": t["weight"], "preference": {"matchExpressions": [
                {"key": t["key"], "operator": t["operator"], "values": t["values"]}]}}
            for t in s["preferred_affinity"]]}}
    tmpl = {"spec": spec}
    a = annotations(s, drop_slices)
    if a:
        tmpl["metadata"] = {"annotations": a}
    return tmpl


def write_case(line, c, out_dir):
    slug = re.sub(r"[^a-z0-9]+", "-", c["name"].lower()).strip("-")[:70].strip("-")
    path = out_dir / f"L{line:04d}-{slug}.yaml"
    gates = c["gates"]
    variant = []
    for gate, on in sorted(gates.items()):
        default = {"TASProfileMixed": True, "TASBalancedPlacement": False, "TASRespectNodeAffinityPreferred": False,
                   "TASMultiLayerTopology": True}.get(gate)
        if default is None:
            raise ValueError(f"gate {gate}")
        if on != default:
            variant.append(f"{gate}={'true' if on else 'false'}")
    policy = "kueue" + (":" + ",".join(variant) if variant else "")
    sets = c["pod_sets"]
    grouped = len(sets) == 2
    # Kueue's webhook refuses a PodSet group with slice annotations
    # (jobframework/tas_validation.go): the scheduler gets such pod sets only
    # when built by hand, as the Go test builds them. Slice annotations that
    # change nothing (size 1 at the lowest level, the default) are left out.
    needs_pod_sets = False
    drop = False
    if grouped:
        for s in sets:
            t = s["topology"]
            if "PodSetSliceRequiredTopology" in t or "Constraints" in t:
                no_op = (t.get("PodSetSliceRequiredTopology") == c["levels"][-1] and t.get("PodSetSliceSize", 1) == 1)
                leader_only = s["count"] == 1 and "PodSetSliceSize" not in t
                if no_op or leader_only:
                    drop = True
                else:
                    needs_pod_sets = True
    docs = []
    header = [
        f"# Ported from kubernetes-sigs/kueue pkg/cache/scheduler/tas_cache_test.go @ff69552e79ad,",
        f"# TestFindTopologyAssignments, line {line}: {json.dumps(c['name'])}.",
        "# Apache License 2.0, The Kubernetes Authors; see SOURCES in this directory.",
    ]
    gate_text = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in sorted(gates.items())) or "none (defaults)"
    header.append(f"# Feature gates set by the case: {gate_text}; profile: "
                  + ("balanced placement for preferred requests" if gates.get("TASBalancedPlacement")
                     else "TASProfileMixed (BestFit; LeastFreeCapacity when unconstrained)"
                     if gates.get("TASProfileMixed", True) else "BestFit for every request"))
    if drop:
        header.append("# Slice annotations that change nothing in a PodSet group are left out: Kueue's webhook")
        header.append("# refuses them there (podset-group-name with slice annotations).")
    if needs_pod_sets:
        header.append("# Kueue's webhook refuses slice annotations in a PodSet group, so no manifest can carry this")
        header.append("# case: the pod sets are given as Kueue's scheduler gets them (expected.pod_sets).")
    expected = {"case": c["name"], "line": line, "policy": policy, "levels": c["levels"]}
    answers = {}
    reason = None
    names = {}
    for i, s in enumerate(sets):
        ours = "main" if not grouped else ("leader" if i == 0 else "worker")
        names[s["name"] or "main"] = ours
        if s["reason"]:
            reason = s["reason"]
        if s["want"]:
            levels, domains = s["want"]
            answers[ours] = {"/".join(v): n for v, n in domains}
            expected.setdefault("assignment_levels", levels)
    if answers:
        expected["assignment"] = answers
    if reason:
        expected["reason"] = reason
    # A slice topology without a slice size never reaches the scheduler:
    # Kueue's webhook refuses it first, with its own message.
    for s in sets:
        t = s["topology"]
        if "PodSetSliceRequiredTopology" in t and "PodSetSliceSize" not in t and not drop:
            expected["rejected"] = ("kueue.x-k8s.io/podset-slice-size must be set when "
                                    "kueue.x-k8s.io/podset-slice-required-topology is specified")
    if needs_pod_sets:
        pod_sets = []
        for i, s in enumerate(sets):
            t = s["topology"]
            p = {"name": "leader" if i == 0 else "worker", "count": s["count"],
                 "requests": {k: quantity(k, v) for k, v in s["requests"].items()}}
            for key, ours in (("Required", "required"), ("Preferred", "preferred")):
                if key in t:
                    p[ours] = t[key]
            if "PodSetSliceRequiredTopology" in t:
                p["slices"] = [{"topology": t["PodSetSliceRequiredTopology"], "size": t.get("PodSetSliceSize", 0)}]
            if s["group"]:
                p["group"] = s["group"]
            pod_sets.append(p)
        expected["pod_sets"] = pod_sets
    docs.append({"kind": "Expected", "expected": expected})
    docs.append(node_list(c["nodes"]))
    if c["pods"]:
        docs.append(pod_list(c["pods"]))
    docs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "default"},
                 "spec": {"levels": [{"nodeLabel": l} for l in c["levels"]]}})
    flavor = {"topologyName": "default"}
    if c["node_labels"]:
        flavor["nodeLabels"] = c["node_labels"]
    docs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "tas-flavor"},
                 "spec": flavor})
    if not needs_pod_sets:
        if grouped:
            leader, worker = sets
            docs.append({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                         "metadata": {"name": "case"},
                         "spec": {"replicas": 1, "leaderWorkerTemplate": {
                             "size": 1 + worker["count"],
                             "leaderTemplate": pod_template(leader, drop),
                             "workerTemplate": pod_template(worker, drop)}}})
        else:
            s = sets[0]
            docs.append({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "case"},
                         "spec": {"parallelism": s["count"], "completions": s["count"],
                                  "template": pod_template(s)}})
    text = "\n".join(header) + "\n" + "---\n".join(
        yaml.dump(d, Dumper=Dumper, sort_keys=False, default_flow_style=False, width=120) for d in docs)
    path.write_text(text)
    return path


def main():
    src, out = sys.argv[1], Path(sys.argv[2])
    text = Path(src).read_text()
    lines = text.split("\n")
    for var in ("defaultNodes", "scatteredNodes", "multipodNodeset", "binaryTreesNodes"):
        start = text.index(f"\t{var} := []corev1.Node{{")
        body, _ = block(text, start)
        NAMED_NODES[var] = nodes_of(body)
    starts = [i + 1 for i, l in enumerate(lines) if re.fullmatch(r'\t\t"[^"]*": \{', l)]
    for line in LINES:
        assert line in starts, line
        end = next((s for s in starts if s > line), None)
        chunk = "\n".join(lines[line - 1:(end - 1 if end else len(lines))])
        if end is None:
            chunk = chunk[:chunk.index("\n\t}\n")]
        name = re.match(r'\t\t"([^"]*)"', chunk).group(1)
        print(write_case(line, case_of(name, chunk), out))


if __name__ == "__main__":
    main()
