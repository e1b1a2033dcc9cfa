// The `kueue` policy against the rules of Kueue's TAS (tas_flavor_snapshot.go),
// each expectation worked out by hand from the rule it names.
#include "topoplan/placement/kueue_policy.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine_fixtures.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/manifests/pod_list.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/planner_state.hpp"

using namespace topoplan;

namespace {

using Runs = std::vector<std::pair<std::string, int>>;

// Takes the first `n` accelerators of a node.
void busy(Occupancy& occ, const std::string& host, std::uint32_t n) {
  const Topology& t = occ.topology();
  TopologyIndex index(t);
  std::optional<DomainId> node = index.find_domain(host);
  REQUIRE(node);
  for (std::uint32_t a = t.domain(*node).accel_begin; a < t.domain(*node).accel_begin + n; ++a) occ.take(a, 7);
}

// What to place: gpus(7).pref("rack"), nodes(2).req("block"), gpus(8).tp(4).
struct Ask {
  std::uint32_t units = 0;
  bool whole = false;
  std::optional<std::string> required;
  std::optional<std::string> preferred;
  std::uint32_t granule = 1;

  Ask& req(const std::string& level) {
    required = level;
    return *this;
  }
  Ask& pref(const std::string& level) {
    preferred = level;
    return *this;
  }
  Ask& tp(std::uint32_t g) {
    granule = g;
    return *this;
  }
};
Ask gpus(std::uint32_t n) {
  Ask a;
  a.units = n;
  return a;
}
Ask nodes(std::uint32_t n) {
  Ask a = gpus(n);
  a.whole = true;
  return a;
}

std::vector<std::uint32_t> place(const Occupancy& occ, const Ask& ask) {
  const Topology& t = occ.topology();
  KueuePolicy policy(t);
  CapacityView view(occ, ask.whole);
  PlaceRequest r;
  r.units = ask.units;
  r.granule = ask.granule;
  if (ask.required) r.required = t.find_level(*ask.required);
  if (ask.preferred) r.preferred = t.find_level(*ask.preferred);
  return policy.place(view, r);
}

// Hostnames in rank order with how many consecutive ranks each holds.
Runs runs(const Topology& t, const std::vector<std::uint32_t>& accels) {
  Runs out;
  for (std::uint32_t a : accels) {
    std::string host(t.hostname(t.device(t.accelerators()[a]).domain));
    if (out.empty() || out.back().first != host)
      out.emplace_back(host, 1);
    else
      ++out.back().second;
  }
  return out;
}

// One rack of four 4-GPU nodes.
const char* kRack = R"(name: rack
levels: [cluster, rack, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-3]", kind: gpu}]}
  rack: {level: rack, children: [{block: node, count: 4, name: "n{i}"}]}
  c: {level: cluster, children: [{block: rack, count: 1, name: "r0"}]}
)";

// Two blocks of two racks of two 4-GPU nodes.
const char* kBlocks = R"(name: blocks
levels: [cluster, block, rack, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-3]", kind: gpu}]}
  rack: {level: rack, children: [{block: node, count: 2, name: "n{i}"}]}
  block: {level: block, children: [{block: rack, count: 2, name: "r{i}"}]}
  c: {level: cluster, children: [{block: block, count: 2, name: "b{i}"}]}
)";

}  // namespace

TEST_CASE("kueue: the KEP's 3,3,2,1 rack with BestFit and LeastFreeCapacity") {
  Topology t = parse_topology_yaml(kRack, "rack.yaml");
  Occupancy occ(t);
  // Free pods per node: n0 1, n1 3, n2 2, n3 3.
  busy(occ, "r0-n0", 3);
  busy(occ, "r0-n1", 1);
  busy(occ, "r0-n2", 2);
  busy(occ, "r0-n3", 1);
  // BestFit (preferred): the rack holds 7; nodes largest first (n1 3, n3 3 by
  // name), then the remaining 1 pod goes to the tightest node that holds it,
  // n0 (1 free), not n2; ranks follow the node names.
  std::vector<std::uint32_t> bf = place(occ, gpus(7).pref("rack"));
  CHECK(runs(t, bf) == Runs{{"r0-n0", 1}, {"r0-n1", 3}, {"r0-n3", 3}});
  // The one free GPU of n0 is its last one.
  REQUIRE_FALSE(bf.empty());
  CHECK(t.device_name(t.accelerators()[bf.front()]) == "r0-n0/gpu3");
  // LeastFreeCapacity (no annotation: unconstrained at the node level): nodes
  // smallest first, 1 + 2 + 3, and the last pod from the next node, n3.
  std::vector<std::uint32_t> lfc = place(occ, gpus(7));
  CHECK(runs(t, lfc) == Runs{{"r0-n0", 1}, {"r0-n1", 3}, {"r0-n2", 2}, {"r0-n3", 1}});
  // Nothing beyond the free capacity.
  CHECK(place(occ, gpus(10)).empty());
}

TEST_CASE("kueue: required takes the tightest domain, ties by name as strings, or fails") {
  Topology t = parse_topology_yaml(R"(name: names
levels: [cluster, rack, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-3]", kind: gpu}]}
  rack: {level: rack, children: [{block: node, count: 2, name: "n{i}"}]}
  c:
    level: cluster
    children:
      - {block: rack, count: 1, name: r2}
      - {block: rack, count: 1, name: r7}
      - {block: rack, count: 1, name: r10}
)",
                                   "names.yaml");
  Occupancy occ(t);
  busy(occ, "r7-n0", 3);   // r7: 5 free
  busy(occ, "r10-n0", 3);  // r10: 5 free; r2: 8 free
  // 5 fits r2, r7 and r10; the tightest are r7 and r10, and "r10" < "r7".
  CHECK(runs(t, place(occ, gpus(5).req("rack"))) == Runs{{"r10-n0", 1}, {"r10-n1", 4}});
  // 6 fits only r2.
  CHECK(runs(t, place(occ, gpus(6).req("rack"))) == Runs{{"r2-n0", 4}, {"r2-n1", 2}});
  // 9 fits no rack although 18 are free: required fails.
  CHECK(place(occ, gpus(9).req("rack")).empty());
  // Preferred places it across racks instead.
  CHECK(place(occ, gpus(9).pref("rack")).size() == 9);
}

TEST_CASE("kueue: preferred walks up one level, then takes the tightest domain there") {
  Topology t = parse_topology_yaml(kBlocks, "blocks.yaml");
  Occupancy occ(t);
  busy(occ, "b0-r1-n0", 3);  // b0: r0 8 + r1 5 = 13 free
  busy(occ, "b1-r1-n0", 4);  // b1: r0 8 + r1 4 = 12 free
  // 12 fits no rack (8); one level up both blocks hold it and the tightest is
  // b1. Inside: r0 whole (8), then the rest (4) on r1, on its 4-free node n1.
  // (Spreading at the rack level instead would take b0/r0 and b1/r1.)
  CHECK(runs(t, place(occ, gpus(12).pref("rack"))) == Runs{{"b1-r0-n0", 4}, {"b1-r0-n1", 4}, {"b1-r1-n1", 4}});
}

TEST_CASE("kueue: at the top level preferred spreads largest first and pools children on the way down") {
  Topology t = parse_topology_yaml(kBlocks, "blocks.yaml");
  Occupancy occ(t);
  busy(occ, "b0-r1-n0", 3);  // b0 13 free, b1 16 free
  // 20 fits no block: at the top level b1 (16) is taken whole and the rest
  // (4) goes to b0. Below, the racks of both blocks are pooled and sorted
  // (8, 8, 8 by name: b0/r0, b1/r0, b1/r1; then b0/r1 with 5), so b0/r0 and
  // b1/r0 are taken whole and the last 4 go to the best fit of the rest,
  // b0/r1: b0 ends up with 12 and b1 with 8, not 4 and 16. The nodes are pooled
  // the same way: the 4-free nodes by name, b1/r0/n1 the best fit for the last 4.
  std::vector<std::uint32_t> got = place(occ, gpus(20).pref("rack"));
  CHECK(runs(t, got) ==
        Runs{{"b0-r0-n0", 4}, {"b0-r0-n1", 4}, {"b0-r1-n1", 4}, {"b1-r0-n0", 4}, {"b1-r0-n1", 4}});
}

TEST_CASE("kueue: spreading at the top level ends with the tightest domain that completes it") {
  Topology t = parse_topology_yaml(R"(name: three
levels: [cluster, block, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-3]", kind: gpu}]}
  block: {level: block, children: [{block: node, count: 2, name: "n{i}"}]}
  c: {level: cluster, children: [{block: block, count: 3, name: "b{i}"}]}
)",
                                   "three.yaml");
  Occupancy occ(t);
  busy(occ, "b1-n0", 4);
  busy(occ, "b1-n1", 1);  // b1: 3 free
  busy(occ, "b2-n0", 3);  // b2: 5 free; b0: 8 free
  // 11 fits no block: b0 (8) first; the remaining 3 fit b2 (5) and b1 (3),
  // and the best fit of the rest is b1, although b2 comes next by size.
  CHECK(runs(t, place(occ, gpus(11).pref("block"))) == Runs{{"b0-n0", 4}, {"b0-n1", 4}, {"b1-n1", 3}});
}

TEST_CASE("kueue: unconstrained fills the least free nodes, ignoring racks") {
  Topology t = parse_topology_yaml(kBlocks, "blocks.yaml");
  Occupancy occ(t);
  // b0/r0: 1 + 1 free; everything else free.
  busy(occ, "b0-r0-n0", 3);
  busy(occ, "b0-r0-n1", 3);
  // LeastFreeCapacity takes the least free node that holds the request: for
  // 3 that is a 4-free node (the first by name), not the 1-free ones.
  CHECK(runs(t, place(occ, gpus(3))) == Runs{{"b0-r1-n0", 3}});
  // 5 fits no node: the least free nodes first, the two 1-free ones, then 3
  // pods on the next node in that order, b0/r1/n0.
  CHECK(runs(t, place(occ, gpus(5))) == Runs{{"b0-r0-n0", 1}, {"b0-r0-n1", 1}, {"b0-r1-n0", 3}});
  // With preferred: rack, BestFit keeps the job in one rack: the tightest rack
  // that holds 5 is any 8-free rack (b0/r0 has 2), the first by name b0/r1;
  // inside it n0 whole and the last pod on n1.
  CHECK(runs(t, place(occ, gpus(5).pref("rack"))) == Runs{{"b0-r1-n0", 4}, {"b0-r1-n1", 1}});
}

TEST_CASE("kueue: whole-node jobs count one pod per free node") {
  Topology t = parse_topology_yaml(kBlocks, "blocks.yaml");
  Occupancy occ(t);
  // b0/r0 has no whole free node, b0/r1 one (n1), the b1 racks two each.
  busy(occ, "b0-r0-n0", 1);
  busy(occ, "b0-r0-n1", 1);
  busy(occ, "b0-r1-n0", 1);
  // Preferred rack, 1 node: the tightest rack with a free node is b0/r1.
  CHECK(runs(t, place(occ, nodes(1).pref("rack"))) == Runs{{"b0-r1-n1", 4}});
  // Preferred rack, 2 nodes: b0/r1 holds 1; the b1 racks tie, b1/r0 by name.
  CHECK(runs(t, place(occ, nodes(2).pref("rack"))) ==
        Runs{{"b1-r0-n0", 4}, {"b1-r0-n1", 4}});
  // Unconstrained, 2 nodes: every free node holds one pod; the first two by
  // name are b0/r1/n1 and b1/r0/n0, in different racks and blocks.
  CHECK(runs(t, place(occ, nodes(2))) == Runs{{"b0-r1-n1", 4}, {"b1-r0-n0", 4}});
  // Required block with 4 nodes: only b1 has 4 free nodes.
  CHECK(place(occ, nodes(4).req("block")).size() == 16);
  CHECK(place(occ, nodes(6).req("block")).empty());
}

TEST_CASE("kueue: ranks follow hostnames as strings") {
  Topology t = parse_topology_yaml(R"(name: ranks
levels: [cluster, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-1]", kind: gpu}]}
  c:
    level: cluster
    children:
      - {block: node, count: 1, name: n9}
      - {block: node, count: 1, name: n10}
)",
                                   "ranks.yaml");
  Occupancy occ(t);
  // n9 comes first in the hierarchy, but "n10" < "n9".
  CHECK(runs(t, place(occ, nodes(2))) == Runs{{"n10", 2}, {"n9", 2}});
  CHECK(runs(t, place(occ, gpus(4))) == Runs{{"n10", 2}, {"n9", 2}});
}

TEST_CASE("kueue: tensor-parallel groups are pods of several GPUs") {
  Topology t = parse_topology_yaml(R"(name: tp
levels: [cluster, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-3]", kind: gpu}]}
  c: {level: cluster, children: [{block: node, count: 3, name: "n{i}"}]}
)",
                                   "tp.yaml");
  Occupancy occ(t);
  busy(occ, "n0", 1);  // n0: 3 free, n1 and n2: 4 free
  // Pods of 4 GPUs: n0 holds none, so the two 4-GPU pods go to n1 and n2.
  CHECK(runs(t, place(occ, gpus(8).tp(4))) == Runs{{"n1", 4}, {"n2", 4}});
  // Pods of 1 GPU: least free first, 3 + 4, then 1 on n2.
  CHECK(runs(t, place(occ, gpus(8))) == Runs{{"n0", 3}, {"n1", 4}, {"n2", 1}});
}

TEST_CASE("kueue: the planner runs it by name") {
  Topology t = parse_topology_yaml(kRack, "rack.yaml");
  PlanOptions o;
  o.policy = "kueue";
  Job job;
  job.name = "a";
  job.per_replica = 5;
  Plan p = plan_jobs(t, {job}, o);
  REQUIRE(p.placements[0].placed);
  CHECK(p.placements[0].device_count() == 5);
}

TEST_CASE("kueue: counts kept across jobs follow what the planner releases and occupies") {
  // The policy keeps pods per domain between jobs and looks again only at
  // nodes whose free GPUs changed; a release or an occupied placement made
  // by the planner (the simulator, what-if) must reach it. Four 4-GPU nodes,
  // jobs of 4 one-GPU pods: each fills one node (LeastFreeCapacity on a
  // snapshot where all are equal takes n0, then the next by name).
  Topology t = parse_topology_yaml(kRack, "rack.yaml");
  PlannerState state(t, {"kueue", nullptr, true});
  auto job = [](const std::string& name) {
    Job j;
    j.name = name;
    j.per_replica = 4;
    return j;
  };
  auto hosts = [&](const JobPlacement& p) {
    std::vector<std::string> out;
    for (const JobPlacement::NodePods& n : p.pods) out.emplace_back(t.hostname(n.node));
    return out;
  };
  std::vector<PlannerState::JobId> ids;
  for (const char* name : {"a", "b", "c", "d"}) {
    PlannerState::PlaceResult r = state.place(job(name));
    REQUIRE(r.id != kNone);
    ids.push_back(r.id);
  }
  CHECK(hosts(state.placement(ids[1])) == std::vector<std::string>{"r0-n1"});
  CHECK(state.place(job("full")).id == kNone);
  state.release(ids[1]);
  PlannerState::PlaceResult e = state.place(job("e"));
  REQUIRE(e.id != kNone);
  CHECK(hosts(e.placement) == std::vector<std::string>{"r0-n1"});
  // n1 freed again, then taken by a placement made elsewhere: nothing fits.
  const JobPlacement held = e.placement;
  state.release(e.id);
  state.occupy(job("elsewhere"), held);
  CHECK(state.place(job("f")).id == kNone);
}

TEST_CASE("kueue: a job narrowed to one GPU model leaves the counts of the next job whole") {
  // The B-model job sees only r2's nodes; the kept counts must not stay
  // those of its view, or the 4-GPU jobs after it find no node (they did).
  Topology t = test::engine_topology();
  PlannerState state(t, {"kueue", nullptr, true});
  Job b;
  b.name = "b";
  b.per_replica = 2;
  b.accelerator_model = "B";
  REQUIRE(state.place(b).id != kNone);
  for (const char* name : {"any1", "any2"}) {
    Job j;
    j.name = name;
    j.per_replica = 4;
    PlannerState::PlaceResult r = state.place(j);
    INFO(name << ": " << r.placement.reason);
    CHECK(r.id != kNone);
  }
}

namespace {

// A `kubectl get nodes` list of one rack: each node as {name, cpu, memory,
// gpus, extra YAML under the node}.
struct K8sNode {
  std::string name;
  std::string cpu = "16";
  std::string memory = "64Gi";
  int gpus = 0;
  std::string extra;
};

Topology k8s_rack(const std::vector<K8sNode>& nodes) {
  std::string text = "apiVersion: v1\nkind: List\nitems:\n";
  for (const K8sNode& n : nodes) {
    std::string gpus = n.gpus ? ", nvidia.com/gpu: \"" + std::to_string(n.gpus) + "\"" : "";
    text += "- kind: Node\n  metadata:\n    name: " + n.name + "\n    labels: {example.com/rack: r1}\n" + n.extra +
            "  status:\n    capacity: {cpu: \"" + n.cpu + "\"" + gpus + "}\n    allocatable: {cpu: \"" + n.cpu +
            "\", memory: " + n.memory + ", pods: \"110\"" + gpus + "}\n";
  }
  ImportOptions o;
  o.level_labels = {"example.com/rack"};
  o.cpu_nodes = true;
  std::vector<ImportSource> sources{{"nodes.yaml", text}};
  return find_import_format("k8s-nodes")->run(sources, o).topology;
}

std::string batch_job(int pods, const std::string& requests, const std::string& annotation = "",
                      const std::string& spec_extra = "") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: " + std::to_string(pods) +
         "\n  template:\n    metadata: {annotations: {" + annotation + "}}\n    spec:\n" + spec_extra +
         "      containers: [{name: c, resources: {requests: " + requests + "}}]\n";
}

// Pods per hostname of the first job planned by the kueue policy, or its reason.
std::map<std::string, int> kueue_pods(const Topology& t, const std::string& manifests, std::string* reason = nullptr,
                                      const std::string& running = "") {
  ManifestJobs m = read_job_manifests({{manifests, "m.yaml"}}, t);
  REQUIRE(m.jobs.size() == 1);
  RunningPods pods;
  std::vector<Diagnostic> warnings;
  if (!running.empty()) pods = read_pod_list({{running, "pods.yaml"}}, t, warnings);
  PlanOptions o;
  o.policy = "kueue";
  o.running = &pods;
  Plan p = plan_jobs(t, m.jobs, o);
  if (reason) *reason = p.placements[0].reason;
  std::map<std::string, int> out;
  for (const JobPlacement::NodePods& n : p.placements[0].pods) out[std::string(t.hostname(n.node))] += static_cast<int>(n.pods);
  return out;
}

}  // namespace

TEST_CASE("kueue: 1-GPU pods on a cluster of mostly 1-GPU nodes share the big node, as Kueue places them") {
  // Issue 18: five 1-GPU nodes and one 8-GPU node. Kueue counts pods per
  // node: the rack holds 8 + 5; BestFit puts all 6 on the one node that
  // holds them (the tightest that does), never "whole nodes".
  std::vector<K8sNode> nodes{{"big", "64", "512Gi", 8, ""}};
  for (int i = 1; i <= 5; ++i) nodes.push_back({"small" + std::to_string(i), "16", "64Gi", 1, ""});
  Topology t = k8s_rack(nodes);
  const std::string rack = "kueue.x-k8s.io/podset-required-topology: example.com/rack";
  CHECK(kueue_pods(t, batch_job(6, "{nvidia.com/gpu: 1}", rack)) == std::map<std::string, int>{{"big", 6}});
  // Nine need the big node and one small one: the last pod goes to the
  // tightest node that holds it, the first small one by name.
  CHECK(kueue_pods(t, batch_job(9, "{nvidia.com/gpu: 1}", rack)) ==
        std::map<std::string, int>{{"big", 8}, {"small1", 1}});
  // Implied TAS (no annotation) is LeastFreeCapacity: the first node in
  // ascending order that holds them all, else the least free ones first.
  CHECK(kueue_pods(t, batch_job(6, "{nvidia.com/gpu: 1}")) == std::map<std::string, int>{{"big", 6}});
  CHECK(kueue_pods(t, batch_job(10, "{nvidia.com/gpu: 1}")) ==
        std::map<std::string, int>{{"big", 5}, {"small1", 1}, {"small2", 1}, {"small3", 1}, {"small4", 1},
                                   {"small5", 1}});
  // The other policies no longer take 1-GPU pods for whole nodes here.
  ManifestJobs m = read_job_manifests({{batch_job(6, "{nvidia.com/gpu: 1}", rack), "m.yaml"}}, t);
  REQUIRE(m.jobs.size() == 1);
  CHECK_FALSE(m.jobs[0].exclusive);
  CHECK(m.jobs[0].per_replica == 6);
}

TEST_CASE("kueue: several CPU pods per node, the scarcest resource deciding") {
  // n1 holds min(4 cpu, 8Gi / 2Gi) = 4 pods; n2 min(16, 4Gi / 2Gi) = 2.
  Topology t = k8s_rack({{"n1", "4", "8Gi", 0, ""}, {"n2", "16", "4Gi", 0, ""}});
  const std::string pod = "{cpu: \"1\", memory: 2Gi}";
  // Required: BestFit fills the largest node, then the tightest for the rest.
  CHECK(kueue_pods(t, batch_job(5, pod, "kueue.x-k8s.io/podset-required-topology: example.com/rack")) ==
        std::map<std::string, int>{{"n1", 4}, {"n2", 1}});
  // Unconstrained: LeastFreeCapacity, the least free node first.
  CHECK(kueue_pods(t, batch_job(5, pod, "kueue.x-k8s.io/podset-unconstrained-topology: 'true'")) ==
        std::map<std::string, int>{{"n1", 3}, {"n2", 2}});
  std::string reason;
  CHECK(kueue_pods(t, batch_job(7, pod, "kueue.x-k8s.io/podset-required-topology: example.com/rack"), &reason).empty());
  CHECK(reason == "topology \"default\" allows to fit only 6 out of 7 pod(s)");
}

TEST_CASE("kueue: pods already running take their requests, taints and selectors leave nodes out") {
  Topology t = k8s_rack({{"n1", "4", "64Gi", 0, ""}, {"n2", "2", "64Gi", 0,
                                        "  spec:\n    taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n"}});
  const std::string pod = "{cpu: \"1\"}";
  const std::string rack = "kueue.x-k8s.io/podset-required-topology: example.com/rack";
  const std::string running = R"(apiVersion: v1
kind: List
items:
- {kind: Pod, metadata: {name: a}, spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}, status: {phase: Running}}
- {kind: Pod, metadata: {name: b}, spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}, status: {phase: Failed}}
)";
  std::string reason;
  // n2's taint is not tolerated: only n1's one free cpu is left.
  CHECK(kueue_pods(t, batch_job(2, pod, rack), &reason, running).empty());
  CHECK(reason == "topology \"default\" allows to fit only 1 out of 2 pod(s). Total nodes: 2; excluded: taint "
                  "\"dedicated=ml:NoSchedule\": 1");
  const std::string tolerate = "      tolerations: [{key: dedicated, operator: Exists}]\n";
  CHECK(kueue_pods(t, batch_job(2, pod, rack, tolerate), nullptr, running) ==
        std::map<std::string, int>{{"n2", 2}});
  // A node selector no node matches.
  CHECK(kueue_pods(t, batch_job(1, pod, rack, "      nodeSelector: {pool: a}\n"), &reason).empty());
  CHECK(reason == "topology \"default\" doesn't allow to fit any of 1 pod(s). Total nodes: 2; excluded: "
                  "nodeSelector: 1, taint \"dedicated=ml:NoSchedule\": 1");
}
