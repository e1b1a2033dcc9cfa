// The samples that re-express NVIDIA Topograph's test models in our format
// must describe the same switches, NVLink blocks, hostnames and labels as the
// originals (tests/data/topograph, read here with yaml-cpp), and so must
// `import --from topograph` of the originals.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "source_dir.hpp"
#include "test_presets.hpp"
#include "topograph_models.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology_validation.hpp"

using namespace topoplan;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  REQUIRE(!s.str().empty());
  return s.str();
}

// The same, from our topology: the label of each node's NVLink-block ancestor.
std::map<std::string, std::set<std::string>> our_blocks(const Topology& t, LevelIndex block_level) {
  std::map<std::string, std::set<std::string>> out;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId node = first; node < last; ++node) {
    const Domain& block = t.domain(t.ancestor(node, block_level));
    for (const auto& [key, value] : t.labels(block.labels))
      if (key == "accelerator.topology.test/domain") out[value].insert(std::string(t.hostname(node)));
  }
  return out;
}

// What the originals hold, counted by hand from tests/data/topograph, so that
// a comparison of two empty readings cannot pass.
struct Counts {
  std::size_t domains;
  std::size_t hosts;
};

void check_blocks(const Topology& t, const std::string& original, const std::string& block_level, Counts counts) {
  CHECK(validate_topology(t).empty());
  auto expected = test::topograph_domains(original);
  REQUIRE(expected.size() == counts.domains);
  std::size_t hosts = 0;
  for (const auto& [domain, names] : expected) hosts += names.size();
  REQUIRE(hosts == counts.hosts);
  REQUIRE(t.domain_count_at(t.host_level()) == counts.hosts);
  auto level = t.find_level(block_level);
  REQUIRE(level);
  CHECK(our_blocks(t, *level) == expected);
  // Each Topograph block is one NVLink island of our topology.
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size.size() == expected.size());
  CHECK(islands.level == *level);
  CHECK(islands.level_is_island);
}

void check_sample(const std::string& sample, const std::string& original, const std::string& block_level,
                  Counts counts) {
  Topology t = parse_topology_yaml(slurp(std::string(TOPOPLAN_SOURCE_DIR) + "/samples/" + sample), sample);
  check_blocks(t, original, block_level, counts);
  // The importer reads the original into the same blocks, hosts and levels.
  Topology gb200 = test::preset("gb200-nvl72:racks=1");
  ImportOptions o;
  o.node_type = &gb200;
  std::string path = std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/topograph/" + original;
  ImportSource source{path, slurp(path)};
  Topology imported = find_import_format("topograph")->run({&source, 1}, o).topology;
  check_blocks(imported, original, block_level, counts);
  CHECK(imported.levels().size() == t.levels().size());
  for (std::size_t l = 0; l < t.levels().size(); ++l)
    CHECK(imported.domain_count_at(static_cast<LevelIndex>(l)) == t.domain_count_at(static_cast<LevelIndex>(l)));
}

}  // namespace

TEST_CASE("samples/topograph-nvl72.yaml matches Topograph's nvl72 model") {
  check_sample("topograph-nvl72.yaml", "nvl72.yaml", "leaf", {4, 72});  // 4 NVL72 domains of 18 nodes
  // The switch tree: core over 2 spines over 2 leaves each, as in the model.
  Topology t = parse_topology_yaml(slurp(std::string(TOPOPLAN_SOURCE_DIR) + "/samples/topograph-nvl72.yaml"), "s");
  YAML::Node model = YAML::LoadFile(std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/topograph/nvl72.yaml");
  CHECK(t.domain_count_at(1) == model["switches"]["core"]["switches"].size());
  std::size_t leaves = 0;
  for (const auto& sw : model["switches"])
    if (sw.first.as<std::string>() != "core") leaves += sw.second["switches"].size();
  CHECK(t.domain_count_at(2) == leaves);
  const Domain& spine = t.domain(t.domains_at(1).first);
  CHECK(t.labels(spine.labels) == Labels{{"topology.kubernetes.io/zone", "zone1"}});
}

TEST_CASE("samples/topograph-small-tree.yaml matches Topograph's small-tree model") {
  check_sample("topograph-small-tree.yaml", "small-tree.yaml", "leaf", {2, 6});  // nvl2: I21, I22, I25; nvl3: I34-36
}
