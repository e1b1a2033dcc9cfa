// A TOPO argument as the commands load it: a preset, a topology file, a
// Kubernetes or openb node list, each file read once and told apart by its
// content.
#include "topoplan/formats/topology_argument.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>

using namespace topoplan;

namespace {

// Files by name, counting how often each is read.
struct Files {
  std::map<std::string, std::string> text;
  std::map<std::string, int> reads;

  FileReader reader() {
    return [this](const std::string& path) -> std::optional<std::string> {
      ++reads[path];
      auto it = text.find(path);
      if (it == text.end()) return std::nullopt;
      return it->second;
    };
  }
};

const char* kTopology = R"(name: pair
parameters:
  nodes: {default: 1, min: 1, max: 8}
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "h{g}"
    devices:
      - {name: "gpu[0-1]", kind: gpu, model: H100}
  cluster:
    level: cluster
    children:
      - {block: node, count: "{nodes}", name: "n{g}"}
root: cluster
)";

// Two GPU nodes in rack r1 and a CPU node, as `kubectl get nodes -o yaml`.
const char* kNodeList = R"(apiVersion: v1
kind: List
items:
- kind: Node
  metadata:
    name: g1
    labels: {example.com/rack: r1, kubernetes.io/hostname: g1}
  status:
    capacity: {nvidia.com/gpu: "4"}
    conditions: [{type: Ready, status: "True"}]
- kind: Node
  metadata:
    name: g2
    labels: {example.com/rack: r1, kubernetes.io/hostname: g2}
  status:
    capacity: {nvidia.com/gpu: "4"}
    conditions: [{type: Ready, status: "True"}]
- kind: Node
  metadata:
    name: c1
    labels: {example.com/rack: r1, kubernetes.io/hostname: c1}
  status:
    allocatable: {cpu: "4"}
    conditions: [{type: Ready, status: "True"}]
)";

std::string error_of(const std::string& argument, Files& files, const TopologyArgumentOptions& options = {}) {
  try {
    load_topology_argument(argument, files.reader(), options);
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

}  // namespace

TEST_CASE("a topology file is read once and takes its settings") {
  Files files;
  files.text["pair.yaml"] = kTopology;
  ImportResult r = load_topology_argument("pair.yaml:nodes=3", files.reader());
  CHECK(r.topology.name() == "pair");
  CHECK(r.topology.accelerators().size() == 6);
  CHECK(r.warnings.empty());
  CHECK(files.reads == std::map<std::string, int>{{"pair.yaml", 1}});
}

TEST_CASE("a preset is not looked for on disk") {
  Files files;
  ImportResult r = load_topology_argument("dgx-h100:nodes=2", files.reader());
  CHECK(r.topology.accelerators().size() == 16);
  CHECK(files.reads.empty());
}

TEST_CASE("a Kubernetes node list is imported with its levels, CPU nodes kept, and read once") {
  Files files;
  files.text["nodes.yaml"] = kNodeList;
  ImportResult r = load_topology_argument("nodes.yaml", files.reader(), {{"example.com/rack"}});
  const Topology& t = r.topology;
  CHECK(t.levels().size() == 3);  // cluster, rack, node
  CHECK(t.accelerators().size() == 8);
  CHECK(t.domains_at(t.host_level()).second - t.domains_at(t.host_level()).first == 3);  // c1 too
  CHECK(files.reads == std::map<std::string, int>{{"nodes.yaml", 1}});
  // Settings belong to native topologies.
  CHECK(error_of("nodes.yaml:racks=2", files) ==
        "nodes.yaml:racks=2: 'nodes.yaml' is a Kubernetes node list, which takes no settings; settings are "
        "parameters of a topology in topoplan's format (topoplan-topology(5))");
}

TEST_CASE("an openb node list is imported") {
  Files files;
  files.text["openb.csv"] = "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0001,64000,262144,2,P100\n";
  ImportResult r = load_topology_argument("openb.csv", files.reader());
  CHECK(r.topology.accelerators().size() == 2);
  CHECK(files.reads == std::map<std::string, int>{{"openb.csv", 1}});
}

TEST_CASE("what is neither a topology nor a node list is refused as a topology") {
  Files files;
  files.text["bad.yaml"] = "name: [x\n";
  CHECK_THAT(error_of("bad.yaml", files), Catch::StartsWith("bad.yaml:"));
  files.text["pods.yaml"] = "kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n";
  CHECK_THAT(error_of("pods.yaml", files), Catch::StartsWith("pods.yaml:1:1: not a topology"));
  Files none;
  CHECK_THAT(error_of("dgx-h10", none), Catch::Contains("no such file or built-in topology (did you mean 'dgx-h100'"));
}
