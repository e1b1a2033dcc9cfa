// export --to kueue: the Topology, the ResourceFlavor and the node labels, in
// both styles; label keys carried by imported topologies; names made valid.
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "topoplan/formats/topology_export.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/model/topology_builder.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::string kueue(const Topology& t, std::string style = "") {
  ExportOptions o;
  o.style = std::move(style);
  return find_export_format("kueue")->run(t, o);
}

std::vector<std::string> node_labels(const YAML::Node& topology) {
  std::vector<std::string> out;
  for (const YAML::Node& l : topology["spec"]["levels"]) out.push_back(l["nodeLabel"].as<std::string>());
  return out;
}

std::map<std::string, std::string> labels_of(const YAML::Node& node) {
  std::map<std::string, std::string> out;
  for (const auto& kv : node["metadata"]["labels"]) out[kv.first.as<std::string>()] = kv.second.as<std::string>();
  return out;
}

// A two-node topology with the given rack names and hostnames.
Topology two_racks(const std::string& rack_a, const std::string& rack_b, const std::string& host_b = "h2") {
  TopologyBuilder b("Odd&Names", {"cluster", "rack", "node"});
  DomainId ra = b.add_domain(b.root(), rack_a);
  DomainId rb = b.add_domain(b.root(), rack_b);
  DomainId h1 = b.add_domain(ra, "n1");
  DomainId h2 = b.add_domain(rb, "n2");
  b.set_hostname(h1, "h1");
  b.set_hostname(h2, host_b);
  b.add_device(h1, DeviceKind::gpu, "gpu0", {});
  b.add_device(h2, DeviceKind::gpu, "gpu0", {});
  DiagnosticSink sink;
  return b.finish(sink);
}

}  // namespace

TEST_CASE("kueue yaml: Topology v1beta2, ResourceFlavor and one labelled Node per host") {
  Topology t = preset("gb200-nvl72:racks=9");
  std::vector<YAML::Node> docs = YAML::LoadAll(kueue(t));
  REQUIRE(docs.size() == 2 + 9 * 18);
  CHECK(docs[0]["apiVersion"].as<std::string>() == "kueue.x-k8s.io/v1beta2");
  CHECK(docs[0]["kind"].as<std::string>() == "Topology");
  CHECK(docs[0]["metadata"]["name"].as<std::string>() == "gb200-nvl72");
  CHECK(node_labels(docs[0]) == std::vector<std::string>{"topoplan.io/su", "topoplan.io/rack", "kubernetes.io/hostname"});

  CHECK(docs[1]["kind"].as<std::string>() == "ResourceFlavor");
  CHECK(docs[1]["spec"]["topologyName"].as<std::string>() == "gb200-nvl72");
  CHECK(docs[1]["spec"]["nodeLabels"]["topoplan.io/cluster"].as<std::string>() == "gb200-nvl72");

  CHECK(docs[2]["apiVersion"].as<std::string>() == "v1");
  CHECK(docs[2]["kind"].as<std::string>() == "Node");
  CHECK(docs[2]["metadata"]["name"].as<std::string>() == "r0000-n00");
  CHECK(labels_of(docs[2]) == std::map<std::string, std::string>{{"topoplan.io/cluster", "gb200-nvl72"},
                                                                 {"topoplan.io/su", "su000"},
                                                                 {"topoplan.io/rack", "r0000"}});
  // The ninth rack starts the second scalable unit.
  CHECK(labels_of(docs[2 + 8 * 18])["topoplan.io/su"] == "su001");
  CHECK(docs.back()["metadata"]["name"].as<std::string>() == "r0008-n17");
}

TEST_CASE("kueue kubectl: label commands, then the objects through kubectl apply") {
  std::string text = kueue(preset("dgx-h100:nodes=2"), "kubectl");
  CHECK_THAT(text, Catch::Contains("\nset -e\nkubectl label node h100-00000 --overwrite topoplan.io/cluster=dgx-h100 "));
  CHECK_THAT(text, Catch::Contains("\nkubectl apply -f - <<'EOF'\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"));
  CHECK_THAT(text, Catch::EndsWith("  topologyName: \"dgx-h100\"\nEOF\n"));
  std::size_t commands = 0;
  for (std::size_t at = text.find("\nkubectl label node "); at != std::string::npos;
       at = text.find("\nkubectl label node ", at + 1))
    ++commands;
  CHECK(commands == 2);
}

TEST_CASE("kueue: levels keep the label keys an imported topology carries") {
  std::string nodes = R"(apiVersion: v1
kind: List
items:
- metadata: {name: a, labels: {topology.k8s.aws/network-node-layer-1: nn-1, topology.k8s.aws/network-node-layer-2: nn-x}}
  status: {capacity: {nvidia.com/gpu: "8"}}
- metadata: {name: b, labels: {topology.k8s.aws/network-node-layer-1: nn-1, topology.k8s.aws/network-node-layer-2: nn-y}}
  status: {capacity: {nvidia.com/gpu: "8"}}
)";
  std::vector<ImportSource> sources{{"eks.yaml", nodes}};
  Topology t = find_import_format("k8s-nodes")->run(sources, {}).topology;
  std::vector<YAML::Node> docs = YAML::LoadAll(kueue(t));
  CHECK(node_labels(docs[0]) == std::vector<std::string>{"topology.k8s.aws/network-node-layer-1",
                                                         "topology.k8s.aws/network-node-layer-2",
                                                         "kubernetes.io/hostname"});
  CHECK(docs[1]["spec"]["nodeLabels"]["topoplan.io/cluster"].as<std::string>() == "eks");
  CHECK(labels_of(docs[3]) == std::map<std::string, std::string>{{"topoplan.io/cluster", "eks"},
                                                                 {"topology.k8s.aws/network-node-layer-1", "nn-1"},
                                                                 {"topology.k8s.aws/network-node-layer-2", "nn-y"}});
}

TEST_CASE("kueue: names become label values, distinct among siblings, deterministically") {
  Topology t = two_racks("rack#1", "rack@1");
  std::string text = kueue(t);
  CHECK(text == kueue(t));
  std::vector<YAML::Node> docs = YAML::LoadAll(text);
  CHECK(docs[0]["metadata"]["name"].as<std::string>() == "odd-names");
  std::string a = labels_of(docs[2])["topoplan.io/rack"], b = labels_of(docs[3])["topoplan.io/rack"];
  CHECK(a == "rack-1");
  CHECK(b != a);
  CHECK_THAT(b, Catch::StartsWith("rack-1-"));
  CHECK(labels_of(docs[2])["topoplan.io/cluster"] == "Odd-Names");

  Topology long_name = two_racks(std::string(80, 'r'), std::string(80, 'r') + "x");
  docs = YAML::LoadAll(kueue(long_name));
  a = labels_of(docs[2])["topoplan.io/rack"];
  b = labels_of(docs[3])["topoplan.io/rack"];
  CHECK(a.size() <= 63);
  CHECK(b.size() <= 63);
  CHECK(a != b);
}

TEST_CASE("kueue: a derived key never repeats a key another level carries") {
  TopologyBuilder b("t", {"cluster", "row", "rack", "node"});
  DomainId row = b.add_domain(b.root(), "row1");
  b.set_domain_labels(row, {{"topoplan.io/rack", "row1"}});
  DomainId rack = b.add_domain(row, "rack1");
  DomainId host = b.add_domain(rack, "n");
  b.set_hostname(host, "h");
  b.add_device(host, DeviceKind::gpu, "gpu0", {});
  DiagnosticSink sink;
  std::vector<YAML::Node> docs = YAML::LoadAll(kueue(b.finish(sink)));
  CHECK(node_labels(docs[0]) == std::vector<std::string>{"topoplan.io/rack", "topoplan.io/rack-2", "kubernetes.io/hostname"});
}

TEST_CASE("kueue: hostnames that are no node names and --level are errors") {
  Topology t = two_racks("r1", "r2", "Host_2");
  CHECK_THROWS_WITH(kueue(t), "hostname 'Host_2' is not a Kubernetes node name (a lower-case DNS subdomain), so "
                              "Kueue cannot refer to it");
  ExportOptions o;
  o.level = "rack";
  CHECK_THROWS_WITH(find_export_format("kueue")->run(preset("dgx-h100"), o),
                    "--level: --level is for the Slurm formats; a Kueue Topology has every level");
}
