// import --from k8s-nodes on node lists in the label schemes of GKE, EKS,
// Topograph and Kueue's kind sample (tests/data/k8s, see SOURCE.txt there),
// and its errors.
#include <catch2/catch.hpp>

#include "import_test_support.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "source_dir.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/io/topology_writer.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology_validation.hpp"

using namespace topoplan;
using topoplan::test::hostnames;
using topoplan::test::level_names;

namespace {

std::string slurp(const std::string& name) { return topoplan::test::source_file("tests/data/k8s/" + name); }

ImportResult import(const std::string& path, const std::string& text, ImportOptions options = {}) {
  const ImportFormat* f = find_import_format("k8s-nodes");
  REQUIRE(f);
  std::vector<ImportSource> sources{{path, text}};
  return f->run(sources, options);
}

ImportResult import_file(const std::string& name, ImportOptions options = {}) {
  return import(name, slurp(name), std::move(options));
}


// Hostnames under each domain of `level`, by domain path.
std::map<std::string, std::vector<std::string>> members(const Topology& t, LevelIndex level) {
  std::map<std::string, std::vector<std::string>> out;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId d = first; d < last; ++d) out[t.domain_path(t.ancestor(d, level))].emplace_back(t.hostname(d));
  return out;
}

std::vector<DeviceState> gpu_states(const Topology& t, std::string_view host) {
  std::vector<DeviceState> out;
  for (DeviceId a : t.accelerators())
    if (t.hostname(t.device(a).domain) == host) out.push_back(t.device(a).state);
  return out;
}

std::string messages(const InputError& e) {
  std::string out;
  for (const Diagnostic& d : e.diagnostics()) out += d.str() + "\n";
  return out;
}

std::string import_error(const std::string& text, ImportOptions options = {}) {
  try {
    import("nodes.yaml", text, std::move(options));
  } catch (const InputError& e) {
    return messages(e);
  }
  FAIL("no error");
  return "";
}

// kubectl-style YAML of one Node; `extra` is appended under the Node.
std::string node_yaml(const std::string& name, const std::map<std::string, std::string>& labels, int gpus,
                      const std::string& extra = "") {
  std::string out = "- kind: Node\n  apiVersion: v1\n  metadata:\n    name: " + name + "\n    labels:\n";
  for (const auto& [k, v] : labels) out += "      " + k + ": \"" + v + "\"\n";
  if (gpus >= 0) out += "  status:\n    capacity:\n      nvidia.com/gpu: \"" + std::to_string(gpus) + "\"\n";
  return out + extra;
}

std::string list_of(const std::string& items) { return "apiVersion: v1\nkind: List\nitems:\n" + items; }

const std::string kGkePool = "gke-tas-a4x-a4x-pool-6d2f81c4-";

}  // namespace

TEST_CASE("k8s-nodes: GKE A4X node list: GKE levels by default, NVLink cliques, node states") {
  ImportResult r = import_file("gke-a4x-nodes.json");
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(level_names(t) == std::vector<std::string>{"cluster", "block", "subblock", "node"});
  CHECK(t.name() == "gke-a4x-nodes");

  // The system node has no GPUs and is left out; the default levels are said.
  REQUIRE(r.warnings.size() == 3);
  CHECK(r.warnings[0].message ==
        "no --levels given: using the GKE labels cloud.google.com/gce-topology-block,"
        "cloud.google.com/gce-topology-subblock");
  CHECK_THAT(r.warnings[1].message, Catch::Contains("1 node without nvidia.com/gpu or amd.com/gpu capacity left out"));
  CHECK_THAT(r.warnings[1].message, Catch::Contains("gke-tas-a4x-default-pool-91b3e0aa-x7lf"));
  CHECK_THAT(r.warnings[2].message, Catch::Contains("gke-tas-a4x-a4x-pool-6d2f81c4-p4sz"));

  CHECK(members(t, 2) == std::map<std::string, std::vector<std::string>>{
                             {"3c1f9a2e5d7b4c60/0b5d8e3f6a2c9174", {kGkePool + "b2mw", kGkePool + "h9rc", kGkePool + "p4sz"}},
                             {"3c1f9a2e5d7b4c60/7f2e0c9b1a4d6e38", {kGkePool + "0q7x", kGkePool + "3kbn", kGkePool + "8vtd"}},
                         });
  // Domains keep the label they came from, so an export can use it again.
  auto [sb, sb_end] = t.domains_at(2);
  CHECK(t.labels(t.domain(sb).labels) == Labels{{"cloud.google.com/gce-topology-subblock", "0b5d8e3f6a2c9174"}});

  REQUIRE(t.accelerators().size() == 24);
  const Device& gpu = t.device(t.accelerators()[0]);
  CHECK(t.str(gpu.model) == "NVIDIA-GB200");
  CHECK(gpu.memory_gib == Approx(189471.0 / 1024));

  using S = DeviceState;
  CHECK(gpu_states(t, kGkePool + "0q7x") == std::vector<S>{S::up, S::up, S::up, S::up});
  CHECK(gpu_states(t, kGkePool + "8vtd") == std::vector<S>{S::drain, S::drain, S::drain, S::drain});  // cordoned
  CHECK(gpu_states(t, kGkePool + "h9rc") == std::vector<S>{S::down, S::down, S::down, S::down});      // NotReady
  CHECK(gpu_states(t, kGkePool + "p4sz") == std::vector<S>{S::up, S::up, S::up, S::down});            // 3 allocatable

  // One NVLink island per clique (= per sub-block here): 3 nodes x 4 GPUs.
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size == std::vector<std::uint32_t>{12, 12});
  CHECK(islands.level == 2);
  CHECK(islands.level_is_island);
}

TEST_CASE("k8s-nodes: EKS node list: layers by default, unlabelled node left out with its position") {
  ImportResult r = import_file("eks-p5-nodes.yaml");
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(level_names(t) == std::vector<std::string>{"cluster", "layer_1", "layer_2", "layer_3", "node"});
  REQUIRE(r.warnings.size() == 2);
  CHECK_THAT(r.warnings[0].message, Catch::Contains("the EKS labels topology.k8s.aws/network-node-layer-1,"));
  CHECK(r.warnings[1].where.file == "eks-p5-nodes.yaml");
  CHECK(r.warnings[1].where.line == 498);
  CHECK_THAT(r.warnings[1].message,
             Catch::StartsWith("node 'ip-10-1-7-61.us-west-2.compute.internal' is left out: it has no (or an empty) "
                               "topology.k8s.aws/network-node-layer-1, topology.k8s.aws/network-node-layer-2, "
                               "topology.k8s.aws/network-node-layer-3 label"));
  CHECK(hostnames(t).size() == 5);
  CHECK(t.domain_count_at(1) == 1);
  CHECK(t.domain_count_at(2) == 2);
  CHECK(t.domain_count_at(3) == 3);
  CHECK(t.accelerators().size() == 40);
  CHECK(t.str(t.device(t.accelerators()[0]).model) == "NVIDIA-H100-80GB-HBM3");
  // H100 nodes carry no clique: no NVLink is assumed for a generic node.
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size.empty());
}

TEST_CASE("k8s-nodes: --levels picks labels, the hostname level may be given last, as in a Kueue Topology") {
  ImportOptions o;
  o.level_labels = {"topology.kubernetes.io/zone", "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname"};
  ImportResult r = import_file("eks-p5-nodes.yaml", o);
  CHECK(level_names(r.topology) == std::vector<std::string>{"cluster", "zone", "layer_3", "node"});
  // The node without layer labels has a zone but no layer-3 label.
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0].message, Catch::Contains("no (or an empty) topology.k8s.aws/network-node-layer-3 label"));
  CHECK(members(r.topology, 1).at("us-west-2a").size() == 5);
  // Sorted by level values, then hostname: Kueue's order.
  CHECK(hostnames(r.topology) == std::vector<std::string>{
                                     "ip-10-1-6-140.us-west-2.compute.internal",
                                     "ip-10-1-5-203.us-west-2.compute.internal",
                                     "ip-10-1-5-9.us-west-2.compute.internal",
                                     "ip-10-1-4-17.us-west-2.compute.internal",
                                     "ip-10-1-4-88.us-west-2.compute.internal",
                                 });
}

TEST_CASE("k8s-nodes: Topograph labels: fabric tiers coarsest first, separate Node documents, --node-type") {
  ImportResult r = import_file("topograph-gb200-nodes.yaml");
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(level_names(t) == std::vector<std::string>{"cluster", "tier_1", "tier_0", "node"});
  CHECK(r.warnings.at(0).message ==
        "no --levels given: using the Topograph labels fabric.topograph.run/tier-1,fabric.topograph.run/tier-0");
  CHECK(members(t, 2).at("spine-1/leaf-r07") == std::vector<std::string>{"gb200-r07-t01", "gb200-r07-t02"});
  CHECK(find_scale_up_islands(t).size == std::vector<std::uint32_t>{8, 8});

  // Filled with the GB200 compute tray of the preset instead of a generic node.
  Topology preset = load_topology("gb200-nvl72", [](const std::string&) { return std::optional<std::string>(); });
  ImportOptions o;
  o.node_type = &preset;
  ImportResult typed = import_file("topograph-gb200-nodes.yaml", o);
  CHECK(validate_topology(typed.topology).empty());
  CHECK(typed.topology.accelerators().size() == 16);
  CHECK(find_scale_up_islands(typed.topology).size == std::vector<std::uint32_t>{8, 8});
  std::set<std::string> names;
  for (DeviceId d = 0; d < typed.topology.device_count(); ++d)
    if (typed.topology.device(d).domain == typed.topology.domains_at(typed.topology.host_level()).first)
      names.emplace(typed.topology.str(typed.topology.device(d).name));
  CHECK(names == std::set<std::string>{"cpu0", "cpu1", "gpu0", "gpu1", "gpu2", "gpu3", "nic0", "nic1", "nic2", "nic3"});
}

TEST_CASE("k8s-nodes: Kueue's kind sample: equal rack names under two blocks are two racks") {
  // The kind Cluster config lists workers with labels; kind names them
  // kind-worker, kind-worker2, ...
  YAML::Node cluster = YAML::Load(slurp("kueue-tas-kind-cluster.yaml"));
  std::string items;
  int worker = 0;
  for (const YAML::Node& n : cluster["nodes"]) {
    if (n["role"].as<std::string>() != "worker") continue;
    ++worker;
    std::map<std::string, std::string> labels;
    for (const auto& kv : n["labels"]) labels[kv.first.as<std::string>()] = kv.second.as<std::string>();
    items += node_yaml(worker == 1 ? "kind-worker" : "kind-worker" + std::to_string(worker), labels, -1);
  }
  REQUIRE(worker == 8);
  ImportOptions o;
  o.level_labels = {"cloud.provider.com/topology-block", "cloud.provider.com/topology-rack", "kubernetes.io/hostname"};
  o.gpus_per_node = 8;  // kind nodes have no GPUs
  ImportResult r = import("kind-nodes.yaml", list_of(items), o);
  CHECK(r.warnings.empty());
  CHECK(level_names(r.topology) == std::vector<std::string>{"cluster", "block", "rack", "node"});
  CHECK(members(r.topology, 2) == std::map<std::string, std::vector<std::string>>{
                                      {"b1/r1", {"kind-worker", "kind-worker2"}},
                                      {"b1/r2", {"kind-worker3", "kind-worker4"}},
                                      {"b2/r1", {"kind-worker5", "kind-worker6"}},
                                      {"b2/r2", {"kind-worker7", "kind-worker8"}},
                                  });
  CHECK(r.topology.accelerators().size() == 64);
  CHECK(validate_topology(r.topology).empty());
}

TEST_CASE("k8s-nodes: the order of the input does not change the topology") {
  std::map<std::string, std::string> a{{"example.com/rack", "r2"}}, b{{"example.com/rack", "r10"}};
  ImportOptions o;
  o.level_labels = {"example.com/rack"};
  std::string one = list_of(node_yaml("n1", a, 4) + node_yaml("n2", b, 4) + node_yaml("n3", a, 4));
  std::string two = list_of(node_yaml("n3", a, 4) + node_yaml("n2", b, 4) + node_yaml("n1", a, 4));
  Topology x = import("x.yaml", one, o).topology;
  Topology y = import("x.yaml", two, o).topology;
  CHECK(hostnames(x) == std::vector<std::string>{"n2", "n1", "n3"});  // "r10" < "r2", as Kueue compares
  CHECK(hostnames(y) == hostnames(x));
}

TEST_CASE("k8s-nodes: default levels of Topograph 0.x and of topology.kubernetes.io") {
  std::map<std::string, std::string> old_topograph{{"network.topology.nvidia.com/spine", "s1"},
                                                   {"network.topology.nvidia.com/leaf", "l1"},
                                                   {"network.topology.nvidia.com/accelerator", "nvl1"},
                                                   {"topology.kubernetes.io/zone", "z"}};
  ImportResult r = import("x.yaml", list_of(node_yaml("n1", old_topograph, 8)));
  CHECK(level_names(r.topology) == std::vector<std::string>{"cluster", "spine", "leaf", "node"});
  r = import("x.yaml", list_of(node_yaml("n1", {{"topology.kubernetes.io/zone", "z"}}, 8)));
  CHECK(level_names(r.topology) == std::vector<std::string>{"cluster", "zone", "node"});
  r = import("x.yaml", list_of(node_yaml("n1", {}, 8)));
  CHECK(level_names(r.topology) == std::vector<std::string>{"cluster", "node"});
  CHECK(r.warnings.at(0).message ==
        "no --levels and no known topology labels on the nodes: the nodes form one flat level");
}

TEST_CASE("k8s-nodes: a single Node, JSON, and labels of other levels named after their keys") {
  std::string node = R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-1", "labels": {"example.com/topology-rack": "a", "kubernetes.io/hostname": "host-1"}},
    "spec": {"unschedulable": true},
    "status": {"capacity": {"amd.com/gpu": "8"}, "conditions": [{"type": "Ready", "status": "True"}]}})";
  ImportOptions o;
  o.level_labels = {"example.com/topology-rack"};
  o.name = "mi";
  ImportResult r = import("node.json", node, o);
  CHECK(r.topology.name() == "mi");
  CHECK(level_names(r.topology) == std::vector<std::string>{"cluster", "rack", "node"});
  CHECK(hostnames(r.topology) == std::vector<std::string>{"host-1"});
  CHECK(r.topology.str(r.topology.domain(r.topology.domains_at(2).first).name) == "node-1");
  CHECK(gpu_states(r.topology, "host-1") == std::vector<DeviceState>(8, DeviceState::drain));
}

TEST_CASE("k8s-nodes errors name the file, line and column") {
  CHECK(import_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n") ==
        "nodes.yaml:2:7: expected a Node or a List of Nodes, not a Pod\n");
  CHECK(import_error(list_of("- kind: Node\n  metadata: {name: n1}\n  status: {capacity: {nvidia.com/gpu: eight}}\n")) ==
        "nodes.yaml:6:39: capacity nvidia.com/gpu is 'eight'; it must be a whole number from 0 to 1024\n");
  CHECK(import_error(list_of("- kind: Node\n  metadata: {name: n1}\n  status: {capacity: {nvidia.com/gpu: 100000}}\n")) ==
        "nodes.yaml:6:39: capacity nvidia.com/gpu is '100000'; it must be a whole number from 0 to 1024\n");
  CHECK(import_error(list_of("- kind: Node\n  metadata: {name: Node_1}\n")) ==
        "nodes.yaml:5:20: node name 'Node_1' is not a Kubernetes node name (a lower-case DNS subdomain)\n");
  CHECK(import_error(list_of(node_yaml("n1", {}, 8) + node_yaml("n1", {}, 8))) ==
        "nodes.yaml:15:11: node 'n1' is listed twice (first at nodes.yaml:7:11)\n");
  CHECK(import_error(list_of("- kind: Node\n  metadata: {name: n1}\n  spec: {unschedulable: maybe}\n")) ==
        "nodes.yaml:6:25: 'spec.unschedulable' is 'maybe'; it must be true or false\n");
  CHECK(import_error(list_of(node_yaml("n1", {{"nvidia.com/gpu.clique", "a/b[0]"}}, 8))) ==
        "nodes.yaml:9:30: label nvidia.com/gpu.clique is 'a/b[0]', not a label value\n");
  CHECK_THAT(import_error("items: [\n"), Catch::StartsWith("nodes.yaml:1:9: invalid YAML"));
  CHECK(import_error("") == "the input holds no Node\n");

  ImportOptions o;
  o.level_labels = {"example.com/rack", "kubernetes.io/hostname", "example.com/row"};
  CHECK(import_error(list_of(node_yaml("n1", {}, 8)), o) ==
        "--levels: kubernetes.io/hostname can only be the last level, as in a Kueue Topology\n");
  o.level_labels = {"Example.com/rack"};
  CHECK(import_error(list_of(node_yaml("n1", {}, 8)), o) ==
        "--levels: 'Example.com/rack' is not a label key: the prefix 'Example.com' must be a lower-case DNS "
        "subdomain (e.g. example.com)\n");
  // A misspelt level label leaves no node: say which label no node has.
  o.level_labels = {"example.com/rak"};
  CHECK(import_error(list_of(node_yaml("n1", {{"example.com/rack", "r1"}}, 8)), o) ==
        "--levels: no node has the label 'example.com/rak'; did you mean 'example.com/rack'?\n"
        "nodes.yaml: no node has every level label, so no node is left to import\n");
  o.level_labels = {"example.com/rack"};
  CHECK(import_error(list_of(node_yaml("n1", {{"example.com/rack", "r1"}}, 8,
                                       "    allocatable:\n      cpu: \"2x\"\n"))) ==
        "nodes.yaml:14:12: allocatable cpu is '2x', not a Kubernetes quantity\n");
  CHECK(import_error(list_of(node_yaml("n1", {{"example.com/rack", "r1"}}, 8) +
                             "  spec:\n    taints: [{key: a, effect: Sometimes}]\n")) ==
        "nodes.yaml:14:14: a taint needs a key and an effect of NoSchedule, PreferNoSchedule or NoExecute (key 'a', "
        "effect 'Sometimes')\n");

  Topology h100 = load_topology("dgx-h100", [](const std::string&) { return std::optional<std::string>(); });
  o.node_type = &h100;
  CHECK(import_error(list_of(node_yaml("n1", {{"example.com/rack", "r1"}}, 4)), o) ==
        "nodes.yaml:7:11: node 'n1' has 4 GPUs in its capacity, but the node type has 8 (8 x H100 from dgx-h100)\n");
}

TEST_CASE("k8s-nodes: what Kueue counts is kept per node: allocatable, taints, labels, state") {
  // Kueue's TAS counts every resource of status.allocatable (pkg/resources
  // ResourceValue: cpu in millicores, the rest in units), skips cordoned and
  // NotReady nodes, applies taints and matches node selectors on labels.
  const std::string nodes = list_of(
      node_yaml("n1", {{"example.com/rack", "r1"}, {"pool", "a"}}, 4,
                "    allocatable:\n      cpu: \"7910m\"\n      memory: 32561656Ki\n      pods: \"110\"\n"
                "      nvidia.com/gpu: \"4\"\n      example.com/fpga: \"2\"\n") +
      "  spec:\n    taints:\n    - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n" +
      node_yaml("n2", {{"example.com/rack", "r1"}}, 4) + "  spec:\n    unschedulable: true\n");
  ImportOptions o;
  o.level_labels = {"example.com/rack"};
  ImportResult r = import("nodes.yaml", nodes, o);
  const Topology& t = r.topology;
  auto [first, last] = t.domains_at(t.host_level());
  REQUIRE(last - first == 2);
  const NodeResources& n1 = t.node_resources(first);
  CHECK(n1.allocatable == ResourceList{{"cpu", 7910}, {"example.com/fpga", 2}, {"memory", 32561656LL * 1024},
                                       {"pods", 110}});  // the GPUs are the node's devices
  REQUIRE(n1.taints.size() == 1);
  CHECK(n1.taints[0].str() == "nvidia.com/gpu=present:NoSchedule");
  CHECK(n1.state == DeviceState::up);
  CHECK(t.node_resources(first + 1).state == DeviceState::drain);
  // The node's own labels; the level label stays with the rack.
  CHECK(t.labels(t.domain(first).labels) == Labels{{"pool", "a"}});

  // The native format keeps all of it.
  std::string written = write_topology_yaml(t, {});
  Topology back = parse_topology_yaml(written, "back.yaml", {});
  auto [bf, bl] = back.domains_at(back.host_level());
  CHECK(back.node_resources(bf) == n1);
  CHECK(back.node_resources(bf + 1).state == DeviceState::drain);
  CHECK(back.labels(back.domain(bf).labels) == Labels{{"pool", "a"}});
  CHECK(write_topology_yaml(back, {}) == written);
}

TEST_CASE("k8s-nodes: a list without GPU nodes is a CPU cluster, CPU nodes of a GPU cluster on request") {
  ImportOptions o;
  o.level_labels = {"example.com/rack"};
  const std::string cpu_only = list_of(node_yaml("c1", {{"example.com/rack", "r1"}}, -1,
                                                 "  status:\n    allocatable: {cpu: \"4\", pods: \"10\"}\n"));
  ImportResult r = import("nodes.yaml", cpu_only, o);
  CHECK(r.topology.accelerators().empty());
  CHECK(r.topology.node_resources(r.topology.domains_at(r.topology.host_level()).first).allocatable ==
        ResourceList{{"cpu", 4000}, {"pods", 10}});
  REQUIRE_FALSE(r.warnings.empty());
  CHECK_THAT(r.warnings[0].message, Catch::Contains("the nodes are imported without accelerators"));

  const std::string mixed = list_of(node_yaml("g1", {{"example.com/rack", "r1"}}, 8) +
                                    node_yaml("c1", {{"example.com/rack", "r1"}}, 0));
  CHECK(hostnames(import("nodes.yaml", mixed, o).topology) == std::vector<std::string>{"g1"});
  o.cpu_nodes = true;
  Topology both = import("nodes.yaml", mixed, o).topology;
  CHECK(hostnames(both) == std::vector<std::string>{"c1", "g1"});
  CHECK(both.accelerators().size() == 8);
}

TEST_CASE("k8s-nodes: a node list is told apart from other TOPO files by its content") {
  // What commands taking a TOPO read through this importer: kubectl's List
  // of Nodes (JSON or YAML), a NodeList whose items omit their kind, Node
  // documents; not a pod list, a mixed list, a topology file or bad YAML.
  CHECK(is_k8s_node_list(R"({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a"}}]})"));
  CHECK(is_k8s_node_list("kind: NodeList\nitems:\n- metadata: {name: a}\n"));
  CHECK(is_k8s_node_list("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: b}\n"));
  CHECK_FALSE(is_k8s_node_list("kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n"));
  CHECK_FALSE(is_k8s_node_list("kind: List\nitems:\n- kind: Node\n- kind: Pod\n"));
  CHECK_FALSE(is_k8s_node_list("kind: List\nitems:\n- metadata: {name: a}\n"));
  CHECK_FALSE(is_k8s_node_list("kind: List\nitems: []\n"));
  CHECK_FALSE(is_k8s_node_list("name: c\nlevels: [cluster, node]\nblocks: {}\n"));
  CHECK_FALSE(is_k8s_node_list("kind: [Node\n"));
  CHECK_FALSE(is_k8s_node_list(""));
}
