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
std::string node_list() {
  struct Node {
    const char* name;
    const char* resources;
  };
  const Node nodes[] = {
      {"g1", "capacity: {nvidia.com/gpu: \"4\"}"},
      {"g2", "capacity: {nvidia.com/gpu: \"4\"}"},
      {"c1", "allocatable: {cpu: \"4\"}"},
  };
  std::string out = "apiVersion: v1\nkind: List\nitems:\n";
  for (const Node& n : nodes)
    out += std::string("- kind: Node\n  metadata:\n    name: ") + n.name +
           "\n    labels: {example.com/rack: r1, kubernetes.io/hostname: " + n.name + "}\n  status:\n    " +
           n.resources + "\n    conditions: [{type: Ready, status: \"True\"}]\n";
  return out;
}

std::string error_of(const std::string& argument, Files& files, const TopologyArgumentOptions& options = {}) {
  try {
    load_topology_argument(argument, files.reader(), options);
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

}  // namespace

TEST_CASE("every kind of TOPO argument loads, a file read once and a preset not looked for on disk") {
  struct Case {
    const char* argument;
    const char* file;  // "" for a preset
    std::string text;
    TopologyArgumentOptions options;
    std::size_t accelerators;
  };
  const Case cases[] = {
      {"pair.yaml:nodes=3", "pair.yaml", kTopology, {}, 6},  // a native file takes its settings
      {"dgx-h100:nodes=2", "", "", {}, 16},
      {"nodes.yaml", "nodes.yaml", node_list(), {{"example.com/rack"}}, 8},
      {"openb.csv", "openb.csv", "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0001,64000,262144,2,P100\n", {}, 2},
  };
  for (const Case& c : cases) {
    INFO(c.argument);
    Files files;
    std::map<std::string, int> reads;
    if (*c.file != 0) {
      files.text[c.file] = c.text;
      reads[c.file] = 1;
    }
    const ImportResult r = load_topology_argument(c.argument, files.reader(), c.options);
    CHECK(r.topology.accelerators().size() == c.accelerators);
    CHECK(files.reads == reads);
  }
}

TEST_CASE("a topology file with settings keeps its name and warns of nothing") {
  Files files;
  files.text["pair.yaml"] = kTopology;
  ImportResult r = load_topology_argument("pair.yaml:nodes=3", files.reader());
  CHECK(r.topology.name() == "pair");
  CHECK(r.warnings.empty());
}

TEST_CASE("a Kubernetes node list is imported with its levels and CPU nodes kept, and takes no settings") {
  Files files;
  files.text["nodes.yaml"] = node_list();
  ImportResult r = load_topology_argument("nodes.yaml", files.reader(), {{"example.com/rack"}});
  const Topology& t = r.topology;
  CHECK(t.levels().size() == 3);                                                         // cluster, rack, node
  CHECK(t.domains_at(t.host_level()).second - t.domains_at(t.host_level()).first == 3);  // c1 too
  CHECK(error_of("nodes.yaml:racks=2", files) ==
        "nodes.yaml:racks=2: 'nodes.yaml' is a Kubernetes node list, which takes no settings; settings are "
        "parameters of a topology in topoplan's format (topoplan-topology(5))");
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
