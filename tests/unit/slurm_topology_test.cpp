// Slurm topology.conf / topology.yaml import and export (lib/src/formats/
// slurm_*.cpp), through the format registry as the command line uses them.
#include <catch2/catch.hpp>

#include "import_test_support.hpp"

#include "source_dir.hpp"
#include "test_presets.hpp"

#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology_summary.hpp"

#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "topoplan/formats/topology_export.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/io/topology_writer.hpp"
#include "topoplan/io/topology_yaml.hpp"

using namespace topoplan;
using topoplan::test::hostnames;
using topoplan::test::level_names;
using topoplan::test::preset;

namespace {

std::string slurp(const std::string& name) { return topoplan::test::source_file("tests/data/slurm/" + name); }

ImportResult import_text(const std::string& path, const std::string& text, const ImportOptions& options = {}) {
  ImportSource source{path, text};
  return find_import_format("slurm")->run(std::span<const ImportSource>(&source, 1), options);
}

ImportResult import_file(const std::string& name, const ImportOptions& options = {}) {
  return import_text(name, slurp(name), options);
}

std::string export_as(const Topology& t, const std::string& format, const ExportOptions& options = {}) {
  return find_export_format(format)->run(t, options);
}

// Every diagnostic of the InputError `f` throws, as `line:col: message`.
template <typename F>
std::vector<std::string> errors_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics())
      out.push_back(fmt::format("{}:{}: {}", d.where.line, d.where.column, d.message));
    return out;
  }
  FAIL("no InputError");
  return {};
}


// Paths of the domains of every level above the hosts, in id order.
std::vector<std::string> switch_paths(const Topology& t) {
  std::vector<std::string> out;
  for (DomainId d = 1; d < t.domains_at(t.host_level()).first; ++d) out.push_back(t.domain_path(d));
  return out;
}

// The hostnames below `d`, in order.
std::vector<std::string> hosts_below(const Topology& t, DomainId d) {
  std::vector<std::string> out;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId h = first; h < last; ++h)
    if (t.contains(d, h)) out.emplace_back(t.hostname(h));
  return out;
}

std::optional<DeviceId> device_named(const Topology& t, const std::string& name) {
  return TopologyIndex(t).find_device(name);
}

bool linked(const Topology& t, DeviceId a, DeviceId b) {
  for (LinkId l : t.links_of(a))
    if (t.link(l).other(a) == b) return true;
  return false;
}

std::string without_comments(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line))
    if (line.empty() || line[0] != '#') out += line + '\n';
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("slurm import: a tree of uneven depth, with Slurm's syntax") {
  ImportResult r = import_file("uneven-tree.conf");
  const Topology& t = r.topology;
  CHECK(r.warnings.empty());
  CHECK(t.name() == "uneven-tree");
  // core is tier 2, the spines tier 1, the leaves tier 0.
  CHECK(level_names(t) == V{"switch2", "switch1", "leaf", "node"});
  CHECK(hostnames(t) == V{"gpu-1-01", "gpu-1-02", "gpu-2-01", "gpu-2-02", "n001", "n002", "n003", "n007", "b08", "b09",
                          "b10", "c1", "c2"});
  // leaf-c sits directly below core: a pass-through domain keeps it on the
  // leaf level, like every other leaf.
  CHECK(switch_paths(t) == V{"spine1", "spine2", "leaf-c", "spine1/leaf-a1", "spine1/leaf-a2", "spine2/leaf-b",
                             "leaf-c/leaf-c"});
  // Switch devices: one per Slurm switch, linked up the tree and to the NICs.
  auto core = device_named(t, "switch");
  auto leaf_c = device_named(t, "leaf-c/leaf-c/switch");
  auto spine1 = device_named(t, "spine1/switch");
  auto leaf_a1 = device_named(t, "spine1/leaf-a1/switch");
  REQUIRE(core);
  REQUIRE(leaf_c);
  REQUIRE(spine1);
  REQUIRE(leaf_a1);
  CHECK(linked(t, *leaf_c, *core));
  CHECK(linked(t, *spine1, *core));
  CHECK(linked(t, *leaf_a1, *spine1));
  CHECK_FALSE(linked(t, *leaf_a1, *core));
  auto nic = device_named(t, "gpu-1-01/nic7");
  REQUIRE(nic);
  CHECK(linked(t, *nic, *leaf_a1));
  CHECK(t.accelerators().size() == std::size_t{13} * 8);
  CHECK(t.link_type(t.link(t.links_of(*nic).back())).name == "ib-ndr");
}

TEST_CASE("slurm import: escapes, continuations and comments as parse_config.c reads them") {
  ImportResult r = import_text("x.conf", "SwitchName=top Switches=a\\\n,b  # the leaves\n"
                                         "SwitchName=a Nodes=n\\#1 \\\n  LinkSpeed=5\n"
                                         "SwitchName=b Nodes=\"m1\"\n# SwitchName=c Nodes=z1\n");
  CHECK(hostnames(r.topology) == V{"n#1", "m1"});
  // A name no writer could give back (a backslash, from "\\\\") is refused.
  CHECK(errors_of([] { import_text("x.conf", "SwitchName=a Nodes=n\\\\1\n"); }) ==
        V{"1:20: domain name 'n\\1' contains '\\'"});
  CHECK(switch_paths(r.topology) == V{"a", "b"});
}

TEST_CASE("slurm import: several top switches get a root level") {
  ImportResult r = import_text("two.conf", "SwitchName=s1 Nodes=a[1-2]\nSwitchName=s2 Nodes=b1\n");
  CHECK(level_names(r.topology) == V{"cluster", "leaf", "node"});
  CHECK(switch_paths(r.topology) == V{"s1", "s2"});
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message.find("share no parent") != std::string::npos);
  // Exported again, it stays a forest: no root switch joins the trees, which
  // would let Slurm run a job across them.
  std::string conf = export_as(r.topology, "slurm-tree");
  CHECK(conf.find("SwitchName=two") == std::string::npos);
  CHECK(conf.find("SwitchName=s1 Nodes=a[1-2]\n") != std::string::npos);
  CHECK(conf.find("SwitchName=s2 Nodes=b1\n") != std::string::npos);
  ImportResult back = import_text("two.conf", conf);
  CHECK(level_names(back.topology) == level_names(r.topology));
  CHECK(switch_paths(back.topology) == switch_paths(r.topology));
  // A root that holds a switch is no forest.
  CHECK(export_as(preset("dgx-h100:nodes=64"), "slurm-tree").find("SwitchName=dgx-h100 ") != std::string::npos);
}

TEST_CASE("slurm import: the real topograph tree") {
  ImportResult r = import_file("topograph-expected.slinky-oci-sim-tree.conf");
  const Topology& t = r.topology;
  CHECK(level_names(t) == V{"switch2", "switch1", "leaf", "node"});
  CHECK(t.domain_count_at(1) == 6);
  CHECK(t.domain_count_at(2) == 12);
  CHECK(t.domain_count_at(3) == 96);
  CHECK(hosts_below(t, *TopologyIndex(t).find_domain("switch.2.3/switch.1.6")) ==
        V{"srv3201", "srv3202", "srv3203", "srv3204", "srv3205", "srv3206", "srv3207", "srv3208"});
}

TEST_CASE("slurm import: every structural problem of a tree at once, with positions") {
  std::vector<std::string> e = errors_of([] { import_file("errors-tree.conf"); });
  CHECK(e == V{
                 "9:12: switch 'leaf1' is defined twice (first on line 4)",
                 "1:26: switch 'root' lists unknown switch 'spine9' (did you mean 'spine1'?)",
                 "3:28: switch 'leaf1' has two parents: 'spine1' (line 2) and 'spine2'",
                 "5:24: node 'n4' is in two leaf switches: 'leaf1' and 'leaf2'",
                 "8:35: switch 'both' has both Switches= and Nodes=",
                 "6:12: switches form a cycle, each listed among the child switches of the next: loop1, loop2, loop1",
             });
}

TEST_CASE("slurm import: syntax errors name line and column") {
  std::vector<std::string> e = errors_of([] { import_file("errors-syntax.conf"); });
  CHECK(e == V{
                 "1:28: unknown key 'Cables' on the line of switch 's1'; known: Switches, Nodes, LinkSpeed",
                 "2:21: Nodes 'n[7-': unclosed '['",
                 "3:20: operator '+=' is not valid in topology.conf",
                 "4:1: nodes= belongs on the line of a SwitchName= or BlockName=",
                 "5:21: unterminated quoted value",
                 "6:25: LinkSpeed 'fast' is not a number",
                 std::string("7:1: topology/block lines (BlockName, BlockSizes) in a file with SwitchName lines "
                             "(topology/tree); Slurm reads one plugin's keys"),
             });
}

TEST_CASE("slurm import: blocks and BlockSizes") {
  ImportResult r = import_file("topograph-expected.slinky-dra-block.conf");
  const Topology& t = r.topology;
  CHECK(r.warnings.empty());
  CHECK(level_names(t) == V{"cluster", "block", "node"});
  CHECK(t.domain_count_at(1) == 12);
  CHECK(t.domain_count_at(2) == 96);
  CHECK(t.description() == "Slurm topology/block: 12 blocks, 96 nodes, BlockSizes=8,16,32");
  CHECK(hosts_below(t, *TopologyIndex(t).find_domain("rack62")).front() == "srv6201");

  ImportResult azure = import_file("azure-block_topology.txt");
  CHECK(azure.topology.domain_count_at(1) == 4);
  CHECK(hosts_below(azure.topology, *TopologyIndex(azure.topology).find_domain(
                                         "block_5e797fc6-0f46-421a-8724-0e102c0f721e"))
            .size() == 18);

  CHECK(errors_of([] { import_file("azure-slurm_illegal_block_topology.txt"); }) ==
        V{"17:1: no blocks: topology/block needs at least one BlockName line; 4 are commented out (slurmctld stops "
          "with \"No blocks configured\")"});
  CHECK(errors_of([] { import_text("b.conf", "BlockName=b1 Nodes=n[1-8]\nBlockSizes=8,24,16,16\n"); }) ==
        V{"2:14: BlockSizes entry 24 is not the base block size 8 times a power of two (8, 16, 32, ... up to 32768 x 8)",
          "2:20: BlockSizes entry 16 is not larger than the one before it (16)"});
  CHECK(errors_of([] { import_text("b.conf", "BlockName=b1 Nodes=n[1-8]\nBlockName=b2 Nodes=n8\nBlockSizes=8,x\n"); }) ==
        V{"3:14: BlockSizes entry 'x' is not a positive node count"});
  CHECK(errors_of([] { import_text("b.conf", "BlockName=b1 Nodes=n[1-8]\nBlockName=b2 Nodes=n8\n"); }) ==
        V{"2:20: node 'n8' is in two blocks: 'b1' and 'b2'"});
  // Smaller blocks than the base: Slurm 25.05 accepts them, older ones do not.
  ImportResult small = import_text("b.conf", "BlockName=b1 Nodes=n[1-8]\nBlockName=b2 Nodes=n9\n");
  REQUIRE(small.warnings.size() == 1);
  CHECK(small.warnings[0].message == "block 'b2' has 1 nodes, fewer than the base block size 8 (Slurm before 25.05 "
                                     "refuses that)");
}

TEST_CASE("slurm import: topology.yaml picks the cluster default or the named topology") {
  ImportResult r = import_file("multi.yaml");
  CHECK(level_names(r.topology) == V{"cluster", "block", "node"});
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].str() == "multi.yaml:13:3: the file has 3 topologies (topo1, topo2, topo3); importing 'topo2', "
                               "the cluster default; choose another with --slurm-topology");
  ImportOptions o;
  o.slurm_topology = "topo1";
  ImportResult tree = import_file("multi.yaml", o);
  CHECK(tree.warnings.empty());
  CHECK(switch_paths(tree.topology) == V{"s1", "s2"});
  o.slurm_topology = "topo3";
  CHECK(errors_of([&] { import_file("multi.yaml", o); }) ==
        V{"22:3: topology 'topo3' is flat: it has no switches or blocks to import"});
  o.slurm_topology = "topo4";
  CHECK(errors_of([&] { import_file("multi.yaml", o); }) ==
        V{"0:0: no topology 'topo4' (did you mean 'topo1'?); the file has topo1, topo2, topo3"});
  CHECK(errors_of([] { import_text("t.yaml", "- topology: a\n  tree:\n    switches:\n      - switch: s\n"
                                             "        nodes: n[1-\n        link: 3\n"); }) ==
        V{"6:9: unknown key 'link' in switch", "5:16: nodes 'n[1-': unclosed '['"});
}

TEST_CASE("slurm import: names, level comments and lenient YAML lists") {
  CHECK(errors_of([] { import_text("t.conf", "SwitchName=a[1] Nodes=n1\nBlockName=b/c Nodes=n2\n"); }) ==
        V{"1:12: SwitchName 'a[1]' contains a hostlist character ('[', ']' or ',')",
          "2:11: BlockName 'b/c' contains '/', which topoplan uses between domain names",
          "2:1: topology/block lines (BlockName, BlockSizes) in a file with SwitchName lines (topology/tree); "
          "Slurm reads one plugin's keys"});
  ImportResult r = import_text("t.conf", "# topoplan-levels: top, rack, host\nSwitchName=s Nodes=n1\n");
  CHECK(level_names(r.topology) == V{"leaf", "node"});
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message ==
        "the topoplan-levels: comment (top, rack, host) names 3 levels, the file has 2; using leaf, node");
  r = import_text("t.conf", "# topoplan-levels: my rack, host\nSwitchName=s Nodes=n1\n");
  CHECK(level_names(r.topology) == V{"leaf", "node"});
  r = import_text("t.conf", "# topoplan-levels: rack, host\nSwitchName=s Nodes=n1\n");
  CHECK(level_names(r.topology) == V{"rack", "host"});
  CHECK(r.warnings.empty());
  r = import_text("t.yaml", "- topology: t\n  tree:\n    switches:\n      - {switch: top, children: [a, b]}\n"
                            "      - {switch: a, nodes: [n1, 'n[2-3]']}\n      - {switch: b, nodes: m1}\n");
  CHECK(hostnames(r.topology) == V{"n1", "n2", "n3", "m1"});
  CHECK(errors_of([] { import_text("t.yaml", "topology: t\ntree: {}\n"); }) ==
        V{"1:1: topology.yaml must be a list of topologies (`- topology: NAME` items)"});
  r = import_text("t.yaml", "[{topology: t, block: {blocks: [{block: b, nodes: 'n[1-2]'}]}}]\n");
  CHECK(hostnames(r.topology) == V{"n1", "n2"});
  CHECK(errors_of([] { import_text("t.yaml", "- topology: t\n  flat: true\n- topology: t\n  flat: true\n"); }) ==
        V{"3:3: topology 't' is defined twice (first on line 1)"});
}

TEST_CASE("slurm import: node types and hostile sizes") {
  ImportOptions o;
  Topology dgx = preset("dgx-h100:nodes=1");
  o.node_type = &dgx;
  ImportResult r = import_text("t.conf", "SwitchName=s Nodes=h[1-2]\n", o);
  CHECK(r.topology.accelerators().size() == 16);
  CHECK(r.topology.device(r.topology.accelerators()[0]).model == r.topology.device(r.topology.accelerators()[15]).model);
  o.node_type = nullptr;
  o.gpus_per_node = 4;
  CHECK(import_text("t.conf", "SwitchName=s Nodes=h[1-2]\n", o).topology.accelerators().size() == 8);
  // A hostlist that would name a billion hosts is refused before expansion.
  std::vector<std::string> e = errors_of([] { import_text("t.conf", "SwitchName=s Nodes=h[0-999999999]\n"); });
  REQUIRE(e.size() == 1);
  CHECK(e[0] == "1:20: Nodes 'h[0-999999999]': '[0-999999999]' names more than 200000 items");
  // Many lists each under the limit: the file as a whole is refused.
  std::string many;
  for (int i = 0; i < 5; ++i) many += fmt::format("SwitchName=s{} Nodes=h{}-[0-99999]\n", i, i);
  CHECK(errors_of([&] { import_text("t.conf", many); }) ==
        V{"3:21: the file names more than 200000 nodes and switches; topoplan imports at most that many"});
  // A caller that takes untrusted files sets a lower limit; conf and yaml
  // both keep it.
  ImportOptions small;
  small.max_hosts = 10;
  CHECK(import_text("t.conf", "SwitchName=s Nodes=h[1-10]\n", small).topology.accelerators().size() == 80);
  CHECK(errors_of([&] { import_text("t.conf", "SwitchName=s Nodes=h[1-11]\n", small); }) ==
        V{"1:20: Nodes 'h[1-11]': '[1-11]' names more than 10 items"});
  CHECK(errors_of([&] { import_text("t.conf", "SwitchName=s Nodes=h[1-6]\nSwitchName=t Nodes=g[1-6]\n", small); }) ==
        V{"2:20: the file names more than 10 nodes and switches; topoplan imports at most that many"});
  const std::string yaml = "- topology: t\n  cluster_default: true\n  tree:\n    switches:\n      - switch: s\n";
  CHECK(import_text("topology.yaml", yaml + "        nodes: h[1-10]\n", small).topology.accelerators().size() == 80);
  CHECK(errors_of([&] { import_text("topology.yaml", yaml + "        nodes: h[1-11]\n", small); }) ==
        V{"6:16: nodes 'h[1-11]': '[1-11]' names more than 10 items"});
  std::string huge = "SwitchName=s Nodes=" + std::string(1'000'001, 'x') + "\n";
  CHECK(errors_of([&] { import_text("t.conf", huge); }) ==
        V{"1:1: line of 1000020 characters; topoplan reads at most 1000000"});
  o.fabric_link = "ib-xdr2";
  CHECK(errors_of([&] { import_text("t.conf", "SwitchName=s Nodes=h1\n", o); }).size() == 1);
}

TEST_CASE("slurm export: tree of a DGX H100 cluster") {
  std::string conf = export_as(preset("dgx-h100:nodes=64"), "slurm-tree");
  CHECK(conf.find("SwitchName=dgx-h100 Switches=su[000-001]\n") != std::string::npos);
  CHECK(conf.find("SwitchName=su000 Nodes=h100-[00000-00031]\n") != std::string::npos);
  CHECK(conf.find("SwitchName=su001 Nodes=h100-[00032-00063]\n") != std::string::npos);
  CHECK(conf.find("# topoplan-levels: cluster, su, node\n") != std::string::npos);
  CHECK(conf == export_as(preset("dgx-h100:nodes=64"), "slurm-tree"));
}

TEST_CASE("slurm export: hostlists Slurm 22.05 reads back") {
  // compress_hostlist would write r[0000-0002]-n00; Slurm refuses text after
  // the last bracket.
  ImportResult r = import_text("t.conf", "SwitchName=top Switches=a,b\nSwitchName=a Nodes=r0000-n00,r0001-n00,r0002-n00\n"
                                         "SwitchName=b Nodes=r0000-n[01-02],r0001-n[01-02]\n");
  std::string conf = export_as(r.topology, "slurm-tree");
  CHECK(conf.find("SwitchName=a Nodes=r0000-n00,r0001-n00,r0002-n00\n") != std::string::npos);
  CHECK(conf.find("SwitchName=b Nodes=r[0000-0001]-n[01-02]\n") != std::string::npos);
  CHECK(hostnames(import_text("t.conf", conf).topology) == hostnames(r.topology));
}

TEST_CASE("slurm round trip: native -> topology.conf -> native keeps hosts, switches and levels") {
  for (std::string name : {"dgx-h100:nodes=64", "gb200-nvl72:racks=20"}) {
    INFO(name);
    Topology original = preset(name);
    ImportResult back = import_text("topology.conf", export_as(original, "slurm-tree"));
    CHECK(back.warnings.empty());
    CHECK(back.topology.name() == original.name());  // the root switch carries it
    CHECK(level_names(back.topology) == level_names(original));
    CHECK(hostnames(back.topology) == hostnames(original));
    CHECK(switch_paths(back.topology) == switch_paths(original));
  }
  // Uneven depth: the pass-through domain is left out of the export and put
  // back by the import.
  ImportResult uneven = import_file("uneven-tree.conf");
  std::string conf = export_as(uneven.topology, "slurm-tree");
  CHECK(conf.find("SwitchName=uneven-tree Switches=spine[1-2],leaf-c\n") != std::string::npos);
  CHECK(conf.find("SwitchName=leaf-c Nodes=c[1-2]\n") != std::string::npos);
  CHECK(conf.find("SwitchName=spine1.leaf-a2 Nodes=n[001-003,007]\n") != std::string::npos);
  ImportResult again = import_text("topology.conf", conf);
  CHECK(again.warnings.empty());
  CHECK(level_names(again.topology) == level_names(uneven.topology));
  CHECK(hostnames(again.topology) == hostnames(uneven.topology));
  CHECK(switch_paths(again.topology) == switch_paths(uneven.topology));
}

TEST_CASE("slurm round trip: blocks are the NVL72 racks") {
  Topology original = preset("gb200-nvl72:racks=20");
  std::string conf = export_as(original, "slurm-block");
  CHECK(conf.find("BlockSizes=18,36,72,144,288\n") != std::string::npos);
  ImportResult back = import_text("topology.conf", conf);
  CHECK(back.warnings.empty());
  // The block names are the racks' paths, and the levels comment names every
  // level down to theirs: the SUs come back, the name too.
  CHECK(conf.find("# topoplan-levels: cluster, su, rack, node\n") != std::string::npos);
  CHECK(back.topology.name() == "gb200-nvl72");
  LevelIndex rack = *original.find_level("rack");
  CHECK(level_names(back.topology) == level_names(original));
  CHECK(back.topology.domain_count_at(1) == original.domain_count_at(1));  // 3 SUs: 8 + 8 + 4 racks
  CHECK(back.topology.domain_count_at(2) == original.domain_count_at(rack));
  CHECK(hostnames(back.topology) == hostnames(original));
  auto [first, last] = original.domains_at(rack);
  for (DomainId d = first; d < last; ++d) {
    auto block = TopologyIndex(back.topology).find_domain(original.domain_path(d));
    REQUIRE(block);
    CHECK(hosts_below(back.topology, *block) == hosts_below(original, d));
  }
  // With the preset's node type, every block is one NVLink island again, and
  // the fabric between blocks is non-blocking.
  ImportOptions with_nodes;
  with_nodes.node_type = &original;
  ImportResult islands = import_text("topology.conf", conf, with_nodes);
  ScaleUpIslands found = find_scale_up_islands(islands.topology);
  CHECK(found.size == std::vector<std::uint32_t>(20, 72));
  CHECK(found.level_is_island);
  CHECK(islands.topology.levels()[found.level].name == "rack");
  TopologySummary summary = summarize(islands.topology);
  for (const SwitchTierSummary& tier : summary.switch_tiers)
    if (tier.up > 0) CHECK(tier.oversubscription == Approx(1.0));
  // --level chooses another level; the host level is refused.
  ExportOptions o;
  o.level = "su";
  CHECK(export_as(original, "slurm-block", o).find("BlockSizes=72,144\n") != std::string::npos);
  o.level = "node";
  CHECK(errors_of([&] { export_as(original, "slurm-block", o); }) ==
        V{"0:0: 'node' is the host level; the block level must be a level above it"});
  o.level = "rak";
  CHECK(errors_of([&] { export_as(original, "slurm-tree", o); }) ==
        V{"0:0: topology 'gb200-nvl72' has no level 'rak' (did you mean 'rack'?); its levels are cluster, su, rack, node"});
}

TEST_CASE("slurm export: topology.yaml holds a tree and a block topology that import back") {
  Topology original = preset("gb200-nvl72:racks=4");
  std::string yaml = export_as(original, "slurm-yaml");
  ImportResult tree = import_text("topology.yaml", yaml);
  CHECK(tree.warnings.size() == 1);  // which of the two was taken
  CHECK(level_names(tree.topology) == level_names(original));
  CHECK(switch_paths(tree.topology) == switch_paths(original));
  ImportOptions o;
  o.slurm_topology = "block";
  ImportResult block = import_text("topology.yaml", yaml, o);
  CHECK(level_names(block.topology) == level_names(original));
  CHECK(hostnames(block.topology) == hostnames(original));
}

TEST_CASE("slurm round trip through the native format gives the same Slurm files") {
  for (std::string name : {"dgx-h100:nodes=64", "gb200-nvl72:racks=20"}) {
    INFO(name);
    Topology original = preset(name);
    ImportOptions o;
    o.name = original.name();
    o.node_type = &original;
    std::string tree = export_as(original, "slurm-tree");
    Topology native = parse_topology_yaml(write_topology_yaml(import_text("topology.conf", tree, o).topology), "n.yaml");
    CHECK(export_as(native, "slurm-tree") == tree);
    // Blocks: the same lines; comments may differ, since a node type holds
    // no rack NVSwitches, so the blocks are no longer scale-up islands.
    std::string blocks = export_as(original, "slurm-block");
    native = parse_topology_yaml(write_topology_yaml(import_text("topology.conf", blocks, o).topology), "n.yaml");
    CHECK(without_comments(export_as(native, "slurm-block")) == without_comments(blocks));
  }
  ImportResult uneven = import_file("uneven-tree.conf");
  Topology native = parse_topology_yaml(write_topology_yaml(uneven.topology), "native.yaml");
  CHECK(export_as(native, "slurm-tree") == export_as(uneven.topology, "slurm-tree"));
  CHECK(switch_paths(native) == switch_paths(uneven.topology));
}
