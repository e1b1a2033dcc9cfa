// Kueue export and k8s-nodes import agree: the node labels `export --to
// kueue` writes for a preset, put on nodes with the preset's GPUs (as a
// cluster would report them), import back to the same hosts in the same
// domains, with the same names; and the native file `import` writes of it
// loads back the same.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "topoplan/formats/topology_export.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/io/topology_writer.hpp"
#include "topoplan/io/topology_yaml.hpp"

using namespace topoplan;

namespace {

// Per level below the root: the domains as their paths of local names, each
// with its hostnames.
using Membership = std::vector<std::map<std::string, std::vector<std::string>>>;

Membership membership(const Topology& t) {
  Membership out(t.host_level());
  auto [first, last] = t.domains_at(t.host_level());
  for (LevelIndex l = 1; l < t.host_level(); ++l)
    for (DomainId n = first; n < last; ++n) out[l - 1][t.domain_path(t.ancestor(n, l))].emplace_back(t.hostname(n));
  for (DomainId n = first; n < last; ++n) out[t.host_level() - 1][std::string(t.hostname(n))].emplace_back(t.hostname(n));
  return out;
}

std::map<std::string, std::uint32_t> gpus_per_host(const Topology& t) {
  std::map<std::string, std::uint32_t> out;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId n = first; n < last; ++n) out[std::string(t.hostname(n))] = t.domain(n).accelerator_count();
  return out;
}

void round_trip(const std::string& argument) {
  INFO(argument);
  Topology original = load_topology(argument, [](const std::string&) { return std::optional<std::string>(); });
  std::string exported = find_export_format("kueue")->run(original, {});

  // Rebuild `kubectl get nodes -o yaml` from the exported objects.
  std::vector<YAML::Node> docs = YAML::LoadAll(exported);
  REQUIRE(docs.size() >= 3);
  ImportOptions options;
  for (const YAML::Node& level : docs[0]["spec"]["levels"]) options.level_labels.push_back(level["nodeLabel"].as<std::string>());
  std::map<std::string, std::uint32_t> gpus = gpus_per_host(original);
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1" << YAML::Key << "kind" << YAML::Value
      << "List" << YAML::Key << "items" << YAML::Value << YAML::BeginSeq;
  for (std::size_t i = 2; i < docs.size(); ++i) {
    REQUIRE(docs[i]["kind"].as<std::string>() == "Node");
    std::string name = docs[i]["metadata"]["name"].as<std::string>();
    out << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1" << YAML::Key << "kind" << YAML::Value
        << "Node" << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value
        << name << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
    for (const auto& kv : docs[i]["metadata"]["labels"])
      out << YAML::Key << kv.first.as<std::string>() << YAML::Value << kv.second.as<std::string>();
    out << YAML::Key << "kubernetes.io/hostname" << YAML::Value << name << YAML::EndMap << YAML::EndMap;
    out << YAML::Key << "status" << YAML::Value << YAML::BeginMap << YAML::Key << "capacity" << YAML::Value
        << YAML::BeginMap << YAML::Key << "nvidia.com/gpu" << YAML::Value << fmt::format("{}", gpus.at(name))
        << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;

  std::vector<ImportSource> sources{{"nodes.yaml", out.c_str()}};
  ImportResult imported = find_import_format("k8s-nodes")->run(sources, options);
  CHECK(imported.warnings.empty());
  const Topology& back = imported.topology;
  REQUIRE(back.levels().size() == original.levels().size());
  CHECK(membership(back) == membership(original));
  CHECK(gpus_per_host(back) == gpus);
  // What `topoplan import` writes loads back to the same topology.
  Topology written = parse_topology_yaml(write_topology_yaml(back), "written.yaml");
  CHECK(membership(written) == membership(back));
  CHECK(gpus_per_host(written) == gpus);
  // Exporting the import again gives the same labels and objects.
  std::string again = find_export_format("kueue")->run(back, {});
  auto body = [](const std::string& text) { return text.substr(text.find("apiVersion: kueue.x-k8s.io")); };
  std::string expected = body(exported);
  // Only the topology name differs: the import is named after its file.
  std::string renamed = body(again);
  for (std::size_t at; (at = renamed.find("\"nodes\"")) != std::string::npos;)
    renamed.replace(at, 7, fmt::format("\"{}\"", original.name()));
  CHECK(renamed == expected);
}

}  // namespace

TEST_CASE("kueue export and k8s-nodes import round trip") {
  round_trip("gb200-nvl72:racks=9");
  round_trip("dgx-h100:nodes=40");
  round_trip("mi300x:nodes=3");
  round_trip("pcie-8gpu:nodes=2");
}
