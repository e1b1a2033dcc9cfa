// import --from topograph: NVIDIA Topograph's cluster models.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "import_test_support.hpp"
#include "test_presets.hpp"
#include "topograph_models.hpp"
#include "topoplan/formats/topology_export.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology_validation.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {

ImportResult model(const std::string& text, const ImportOptions& options = {}) {
  return import_text("topograph", "m.yaml", text, options);
}

// Island -> sorted hostnames of its GPUs' nodes.
std::set<std::set<std::string>> islands_by_host(const Topology& t) {
  ScaleUpIslands islands = find_scale_up_islands(t);
  std::map<std::uint32_t, std::set<std::string>> by_island;
  std::uint32_t accel = 0;
  for (const Device& d : t.devices()) {
    if (!is_accelerator(d.kind)) continue;
    std::uint32_t island = islands.island_of[accel++];
    if (island != kNone) by_island[island].insert(std::string(t.hostname(d.domain)));
  }
  std::set<std::set<std::string>> out;
  for (auto& [island, hosts] : by_island) out.insert(hosts);
  return out;
}

// The hostnames below each domain of `level`.
std::set<std::set<std::string>> host_sets(const Topology& t, LevelIndex level) {
  std::map<DomainId, std::set<std::string>> below;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId h = first; h < last; ++h) below[t.ancestor(h, level)].insert(std::string(t.hostname(h)));
  std::set<std::set<std::string>> out;
  for (auto& [d, hosts] : below) out.insert(hosts);
  return out;
}

std::string labels_of(const Topology& t, const std::string& domain) {
  std::optional<DomainId> d = TopologyIndex(t).find_domain(domain);
  if (!d) return "(no domain " + domain + ")";
  std::string out;
  for (const auto& [k, v] : t.labels(t.domain(*d).labels)) out += fmt::format("{}={};", k, v);
  return out;
}

}  // namespace

TEST_CASE("topograph: a switch tree with NVL72 accelerator domains") {
  Topology gb200 = preset("gb200-nvl72:racks=1");
  ImportOptions o;
  o.node_type = &gb200;
  ImportResult r = import_data("topograph", "topograph/nvl72.yaml", o);
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(r.warnings.empty());
  CHECK(level_names(t) == std::vector<std::string>{"core", "spine", "leaf", "node"});
  CHECK(t.domain_count_at(t.host_level()) == 72);
  // Each accelerator domain (18 GB200 trays of 4 GPUs) is one island, built
  // with the node type's own NVLink switch trays, one per leaf.
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size == std::vector<std::uint32_t>(4, 72));
  CHECK(islands.level == *t.find_level("leaf"));
  CHECK(islands.level_is_island);
  CHECK(count_kind(t, DeviceKind::nvswitch) == std::size_t{4} * 9);
  // Labels: the spine's zone on the spine, the domain of a whole leaf on it.
  CHECK(labels_of(t, "spine-1") == "topology.kubernetes.io/zone=zone1;");
  CHECK(labels_of(t, "spine-1/leaf-1-2") == "accelerator.topology.test/domain=nvl-1-2;");
  CHECK(labels_of(t, "nvl72") == "topology.kubernetes.io/region=us-east;");
}

TEST_CASE("topograph: exported to Slurm, the model gives what Topograph itself writes") {
  // Topograph's CI turns tests/models/large.yaml into these two files.
  ImportOptions o;
  o.gpus_per_node = 8;
  Topology model = import_data("topograph", "topograph/large.yaml", o).topology;
  auto slurm = [](const std::string& text) { return import_text("slurm", "t.conf", text).topology; };
  auto exported = [&](const char* format) {
    ExportOptions e;
    return find_export_format(format)->run(model, e);
  };
  // Tree: the same hosts under each leaf, the same leaves under each spine.
  Topology ours = slurm(exported("slurm-tree"));
  Topology theirs = import_data("slurm", "slurm/topograph-expected.slinky-oci-sim-tree.conf").topology;
  REQUIRE(ours.levels().size() == theirs.levels().size());
  for (LevelIndex l = 1; l < ours.host_level(); ++l) CHECK(host_sets(ours, l) == host_sets(theirs, l));
  // Blocks: each NVLink domain one block of the same hosts.
  // (topoplan's file keeps the levels above the blocks; Topograph's has none.)
  ours = slurm(exported("slurm-block"));
  theirs = import_data("slurm", "slurm/topograph-expected.slinky-dra-block.conf").topology;
  CHECK(host_sets(ours, ours.host_level() - 1) == host_sets(theirs, 1));
  CHECK(host_sets(ours, ours.host_level() - 1).size() == 12);
}

TEST_CASE("topograph: uneven blocks and generic nodes") {
  ImportResult r = import_data("topograph", "topograph/small-tree.yaml");
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(level_names(t) == std::vector<std::string>{"spine", "leaf", "node"});
  CHECK(islands_by_host(t) == std::set<std::set<std::string>>{{"I21", "I22", "I25"}, {"I34", "I35", "I36"}});
  // Without a node type, 8 generic GPUs per node and a warning that says so.
  CHECK(count_kind(t, DeviceKind::gpu) == std::size_t{6} * 8);
  CHECK(any_warning_contains(r, "a 24-GPU NVLink partition; for GB200/GB300 NVL72 racks"));
  ImportOptions four;
  four.gpus_per_node = 4;
  CHECK_FALSE(any_warning_contains(import_data("topograph", "topograph/small-tree.yaml", four), "generic"));
}

TEST_CASE("topograph: accelerator domains of many racks (Topograph's dual-level model)") {
  // Two domains, each over the racks (sub-domains) of one spine; some racks
  // are empty, one is partly filled.
  ImportOptions o;
  o.gpus_per_node = 4;
  ImportResult r = import_data("topograph", "topograph/dual-xclr-irregular.yaml", o);
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  std::set<std::set<std::string>> expected;
  std::size_t hosts = 0;
  for (const auto& [domain, members] : topograph_domains("dual-xclr-irregular.yaml")) {
    expected.insert(members);
    hosts += members.size();
  }
  CHECK(islands_by_host(t) == expected);
  CHECK(t.domain_count_at(t.host_level()) == hosts);
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.level == *t.find_level("spine"));
  // Racks keep their sub-domain label; the empty racks are reported.
  CHECK(labels_of(t, "sw-01/rack-1-02") ==
        "accelerator.topology.test/domain=domain-01;accelerator.topology.test/sub-domain=rack-1-02;");
  CHECK(any_warning_contains(r, "switch 'rack-1-03' has no nodes and no child switches"));
  CHECK(r.warnings.size() == 2);  // rack-1-03 and rack-1-13; rack-2-11 is not even listed
}

TEST_CASE("topograph: implied leaves, shared leaves, domains across switches") {
  // spine-2's leaves are named only in its list; leaf-a holds two domains;
  // domain x spans two spines, its racks told apart by sub-domains.
  ImportResult r = model(R"(switches:
  core:
    switches: [spine-1, spine-2]
  spine-1:
    labels: {topology.kubernetes.io/zone: z1}
    switches: [leaf-a, leaf-b]
  spine-2:
    switches: [leaf-c]
blocks:
- switch: leaf-a
  nodes: ["a[1-2]"]
  annotations: {accelerator.topology.test/domain: d1}
- switch: leaf-a
  nodes: [a3]
  annotations: {accelerator.topology.test/domain: d2}
- switch: leaf-b
  nodes: ["b[1-2]"]
  annotations: {accelerator.topology.test/domain: x, accelerator.topology.test/sub-domain: rack-b}
- switch: leaf-c
  nodes: ["[1-2]"]
  annotations: {accelerator.topology.test/domain: x, accelerator.topology.test/sub-domain: rack-c}
)");
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(islands_by_host(t) ==
        std::set<std::set<std::string>>{{"a1", "a2"}, {"a3"}, {"b1", "b2", "1", "2"}});
  // Two islands in one leaf get distinct switch names; x sits at the top.
  TopologyIndex index(t);
  CHECK(index.find_device("spine-1/leaf-a/nvl-d1"));
  CHECK(index.find_device("spine-1/leaf-a/nvl-d2"));
  CHECK(index.find_device("nvl-x"));
  // Block labels stay on the nodes when the leaf's nodes differ.
  CHECK(labels_of(t, "a3") == "accelerator.topology.test/domain=d2;");
  CHECK(labels_of(t, "spine-2/leaf-c") ==
        "accelerator.topology.test/domain=x;accelerator.topology.test/sub-domain=rack-c;");
}

TEST_CASE("topograph: two domains on one leaf with an NVL72 node type") {
  Topology gb200 = preset("gb200-nvl72:racks=1");
  ImportOptions o;
  o.node_type = &gb200;
  ImportResult r = model(R"(switches:
  core: {switches: [leaf]}
blocks:
- {switch: leaf, nodes: ["n[1-2]"], annotations: {accelerator.topology.test/domain: nvl1}}
- {switch: leaf, nodes: [n3], annotations: {accelerator.topology.test/domain: nvl2}}
)",
                         o);
  CHECK(validate_topology(r.topology).empty());
  CHECK(islands_by_host(r.topology) == std::set<std::set<std::string>>{{"n1", "n2"}, {"n3"}});
  TopologyIndex index(r.topology);
  CHECK(index.find_device("leaf/nvl1-nvsw0"));
  CHECK(index.find_device("leaf/nvl2-nvsw8"));
}

TEST_CASE("topograph: a block-only model is a list of blocks") {
  ImportResult r = model(R"(blocks:
- nodes: ["n[1-2]"]
  annotations: {accelerator.topology.test/domain: nvl1}
- nodes: [n3, n4]
  annotations: {accelerator.topology.test/domain: nvl1}
- nodes: [n5]
)");
  const Topology& t = r.topology;
  CHECK(validate_topology(t).empty());
  CHECK(level_names(t) == std::vector<std::string>{"cluster", "block", "node"});
  CHECK(t.domain_count_at(1) == 2);
  CHECK(islands_by_host(t) == std::set<std::set<std::string>>{{"n1", "n2", "n3", "n4"}});
  TopologyIndex index(t);
  CHECK(index.find_domain("nvl1/n4"));
  CHECK(index.find_domain("block3/n5"));
}

TEST_CASE("topograph: model errors name the place") {
  auto e = [](const std::string& text) { return error_of([&] { model(text); }); };
  CHECK(e("- topology: t\n") == "m.yaml:1:1: a Topograph model is a mapping with `blocks:` (and usually "
                                "`switches:`); this is not one");
  CHECK(e("switches:\n  s: {switches: [l]}\n") ==
        "m.yaml:1:1: the model has no `blocks:` list, the only place a Topograph model names its nodes");
  CHECK(e("switches:\n  s: {switches: [l]}\nblocks:\n- {switch: lx, nodes: [a]}\n") ==
        "m.yaml:4:12: block 1 names unknown switch 'lx' (did you mean 'l'?)");
  CHECK(e("switches:\n  s: {switches: [l]}\nblocks:\n- {switch: s, nodes: [a]}\n") ==
        "m.yaml:4:12: block 1 puts nodes on switch 's', which has child switches; nodes belong on leaf switches "
        "(as in Slurm's topology/tree)");
  CHECK(e("switches:\n  a: {switches: [l]}\n  b: {switches: [l]}\nblocks:\n- {switch: l, nodes: [x]}\n") ==
        "m.yaml:3:18: switch 'l' has two parent switches, 'a' and 'b'");
  CHECK(e("blocks:\n- nodes: [x]\n- nodes: [\"x,y\"]\n") == "m.yaml:3:10: node 'x' is in two blocks, 1 and 2");
  CHECK(e("switches:\n  s: {switches: [l]}\nblocks:\n- {switch: l, nodes: [a]}\n- nodes: [b]\n") ==
        "m.yaml:5:3: block 2 has no `switch` while other blocks have one; topoplan needs every node in the switch "
        "tree");
  CHECK(e("switches:\n  s:\nblocks:\n- nodes: [a]\n") ==
        "m.yaml:2:3: switch 's' has an empty definition; leave out a switch that has nothing to say, or give it "
        "`switches:`");
  CHECK(e("blocks:\n- nodes: \"n[1-2]\"\n") ==
        "m.yaml:2:10: the `nodes` of block 1 must be a list of hostlists, as in [\"node[1101-1118]\"]");
  CHECK(e("blocks:\n- nodes: [\"n[2-1]\"]\n") .find("m.yaml:2:11:") == 0);
  CHECK(e("switches:\n  a: {switches: [b]}\n  b: {switches: [a]}\n  c: {}\nblocks:\n- {switch: c, nodes: [x]}\n")
            .find("cycle") != std::string::npos);
  CHECK(e("swiches: {}\nblocks:\n- nodes: [x]\n").find("switches") != std::string::npos);
}

TEST_CASE("topograph: the hosts one import may name") {
  ImportOptions small;
  small.max_hosts = 16;
  CHECK(model("blocks:\n- nodes: [\"n[1-16]\"]\n", small).topology.accelerators().size() == 128);
  CHECK(error_of([&] { model("blocks:\n- nodes: [\"n[1-17]\"]\n", small); }) ==
        "m.yaml:2:11: nodes 'n[1-17]': '[1-17]' names more than 16 items");
  CHECK(error_of([&] { model("blocks:\n- nodes: [\"n[1-9]\"]\n- nodes: [\"m[1-9]\"]\n", small); }) ==
        "m.yaml:3:11: the file names more than 16 nodes and switches; topoplan imports at most that many");
  // The default is far above any cluster built so far.
  CHECK(ImportOptions{}.max_hosts >= 100'000);
}
