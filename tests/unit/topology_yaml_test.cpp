#include "topoplan/io/topology_yaml.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "topoplan/model/fabric.hpp"

using namespace topoplan;

namespace {

// The diagnostics an input produces, each as "file:line:col: message".
std::vector<std::string> errors_of(const std::string& text, const ParameterSettings& settings = {}) {
  try {
    parse_topology_yaml(text, "t.yaml", settings);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.str());
    return out;
  }
  return {};
}

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

// Counts links of a type between devices whose names match two prefixes.
std::size_t count_links(const Topology& t, std::string_view type) {
  std::size_t n = 0;
  for (const Link& l : t.links())
    if (t.link_type(l).name == type) n += l.count;
  return n;
}

const char* kTwoLevel = R"(name: t
levels: [cluster, node]
blocks:
  n:
    level: node
    devices:
      - {name: "gpu[0-3]", kind: gpu, model: X, memory: 80}
      - {name: "nic[0-3]", kind: nic}
    links:
      - {from: "gpu*", to: "nic*", type: pcie5x16, mode: pairwise}
      - {from: "gpu*", type: nvlink4, mode: mesh, count: 6}
  c:
    level: cluster
    devices:
      - {name: "leaf[0-1]", kind: switch}
    children:
      - {block: n, count: 3, name: "node{i}"}
    links:
      - {from: "*/nic*", to: "leaf*", type: ib-ndr, mode: rail}
)";

}  // namespace

TEST_CASE("a small file builds the hierarchy, devices and links it describes") {
  Topology t = parse_topology_yaml(kTwoLevel, "t.yaml");
  CHECK(t.name() == "t");
  CHECK(t.accelerators().size() == 12);
  CHECK(t.domain_count_at(1) == 3);
  // Default hostname: the path with '/' replaced by '-'.
  CHECK(t.domain_name(t.domains_at(1).first) == "node0");
  CHECK(count_links(t, "pcie5x16") == 12);
  CHECK(count_links(t, "nvlink4") == std::size_t{3} * 6 * 6);  // 6 pairs per node, count 6
  CHECK(count_links(t, "ib-ndr") == 12);
  // Rail mode: NIC k goes to leaf k mod 2.
  TopologyIndex index(t);
  DeviceId nic3 = *index.find_device("node1/nic3");
  REQUIRE(t.links_of(nic3).size() == 2);
  bool to_leaf1 = false;
  for (LinkId id : t.links_of(nic3))
    to_leaf1 = to_leaf1 || t.device_name(t.link(id).other(nic3)) == "leaf1";
  CHECK(to_leaf1);
  const Device& gpu = t.device(t.accelerators()[0]);
  CHECK(t.str(gpu.model) == "X");
  CHECK(gpu.memory_gib == Approx(80));
}

TEST_CASE("groups, templates and parameters shape names and counts") {
  const char* text = R"(name: g
parameters:
  racks: {default: 5, min: 1, max: 100, help: racks}
levels: [cluster, su, rack, node]
blocks:
  node:
    level: node
    hostname: "{rack}-n{j+1:02}"
    devices: [{name: gpu0, kind: gpu}]
  rack:
    level: rack
    labels: {unit: "{su}", index: "{rack_g}"}
    children: [{block: node, count: 2}]
  su:
    level: su
  c:
    level: cluster
    children:
      - {block: rack, count: "{racks}", name: "r{g:03}", group: {block: su, size: 2, name: "su{i}"}}
)";
  Topology t = parse_topology_yaml(text, "g.yaml");
  CHECK(t.domain_count_at(1) == 3);  // 5 racks in SUs of 2: 2 + 2 + 1
  CHECK(t.domain_count_at(2) == 5);
  CHECK(t.domain_path(t.domains_at(2).first + 4) == "su2/r004");
  CHECK(t.domain_name(t.domains_at(3).first + 1) == "r000-n02");
  const Domain& r3 = t.domain(t.domains_at(2).first + 3);
  CHECK(t.labels(r3.labels) == Labels{{"index", "3"}, {"unit", "su1"}});

  ParameterSettings two{{{"racks", "2"}}, "g:racks=2"};
  CHECK(parse_topology_yaml(text, "g.yaml", two).accelerators().size() == 4);
  CHECK(any_contains(errors_of(text, {{{"rack", "2"}}, "g:rack=2"}), "did you mean 'racks'"));
  CHECK(any_contains(errors_of(text, {{{"racks", "0"}}, "g:racks=0"}), "between 1 and 100"));
  CHECK(any_contains(errors_of(text, {{{"racks", "two"}}, "g:racks=two"}), "whole number"));
}

TEST_CASE("ring, chain and groups modes wire direct networks") {
  const char* text = R"(name: d
levels: [cluster, node]
blocks:
  node:
    level: node
    devices: [{name: "lpu[0-3]", kind: lpu}]
    links:
      - {from: "lpu*", type: groq-c2c, mode: ring}
  c:
    level: cluster
    children: [{block: node, count: 4}]
    links:
      - {from: "*/lpu0", type: groq-c2c, mode: chain, count: 3}
      - {from: "*/lpu*", type: groq-c2c, mode: groups, group: node}
)";
  Topology t = parse_topology_yaml(text, "d.yaml");
  // 4 rings of 4, a chain of 3 triple links, 6 group pairs.
  CHECK(count_links(t, "groq-c2c") == 4 * 4 + 3 * 3 + 6);
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size.size() == 1);
  CHECK(islands.level == 0);
}

TEST_CASE("repeated blocks get the links their own names give them") {
  // Every rack below holds the same devices; racks after the first take
  // their links from the first when their domains have the same names.
  // Here node names carry the rack's name, so a pattern naming one node
  // matches only in rack r0: r1 must not get a copy of that link.
  const char* text = R"(name: rep
levels: [cluster, rack, node]
blocks:
  node:
    level: node
    devices: [{name: "gpu[0-1]", kind: gpu}, {name: nic0, kind: nic}]
    links:
      - {from: "gpu*", to: nic0, type: pcie5x16}
  rack:
    level: rack
    devices: [{name: tor, kind: switch}]
    children: [{block: node, count: 2, name: "{rack}n{i}"}]
    links:
      - {from: "*/nic0", to: tor, type: ib-ndr}
      - {from: "r0n1/gpu0", to: tor, type: eth-100g, optional: true}
  plain:
    level: rack
    devices: [{name: tor, kind: switch}]
    children: [{block: node, count: 2, name: "n{i}"}]
    links:
      - {from: "*/nic0", to: tor, type: ib-ndr}
      - {from: "n1/gpu0", to: tor, type: eth-100g}
  c:
    level: cluster
    children:
      - {block: rack, count: 3, name: "r{i}"}
      - {block: plain, count: 3, name: "p{i}"}
)";
  Topology t = parse_topology_yaml(text, "rep.yaml");
  auto links_of = [&](std::string_view rack) {
    std::vector<std::string> out;
    for (const Link& l : t.links()) {
      std::string a = t.device_name(l.a), b = t.device_name(l.b);
      if (a.rfind(rack, 0) == 0)
        out.push_back(fmt::format("{} {} {}", a, b, t.link_type(l).name));
    }
    return out;
  };
  // Per rack: 2 nodes x 2 PCIe links, 2 NIC uplinks, and the one named link.
  CHECK(links_of("r0").size() == 7);
  CHECK(links_of("r1").size() == 6);
  CHECK(links_of("r2").size() == 6);
  for (const char* p : {"p0", "p1", "p2"}) {
    std::vector<std::string> links = links_of(p);
    REQUIRE(links.size() == 7);
    // The copies land on the rack's own devices.
    for (const std::string& l : links) CHECK(l.find(p) != std::string::npos);
  }
  CHECK(count_links(t, "eth-100g") == 4);
}

TEST_CASE("overrides change state, speed and labels of what they match") {
  std::string text = std::string(kTwoLevel) + R"(overrides:
  - {node: "node1", state: drain}
  - {device: "node2/gpu[2-3]", state: down, speed: 0.5, labels: {slot: bad}}
)";
  Topology t = parse_topology_yaml(text, "t.yaml");
  TopologyIndex index(t);
  CHECK(t.device(*index.find_device("node1/gpu0")).state == DeviceState::drain);
  CHECK(t.device(*index.find_device("node1/nic0")).state == DeviceState::drain);
  const Device& g = t.device(*index.find_device("node2/gpu3"));
  CHECK(g.state == DeviceState::down);
  CHECK(g.speed == Approx(0.5));
  CHECK(t.labels(g.labels) == Labels{{"slot", "bad"}});
  CHECK(t.device(*index.find_device("node2/gpu1")).state == DeviceState::up);
  CHECK(any_contains(errors_of(std::string(kTwoLevel) + "overrides:\n  - {node: nope, state: down}\n"),
                     "t.yaml:21:12: override 'nope' matches nothing"));
}

TEST_CASE("errors name the file, line and column and suggest a fix") {
  std::string text = kTwoLevel;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = text;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK(errors_of(replace("mode: rail", "mode: rial")) ==
        std::vector<std::string>{"t.yaml:19:59: unknown link mode 'rial'; modes are all, pairwise, rail, mesh, ring, "
                                 "chain, groups; did you mean 'rail'?"});
  CHECK(any_contains(errors_of(replace("kind: nic", "knid: nic")), "t.yaml:8:28: unknown key 'knid' in a device; did "
                                                                    "you mean 'kind'?"));
  CHECK(any_contains(errors_of(replace("type: ib-ndr", "type: ib-nrd")), "t.yaml:19:45: unknown link type 'ib-nrd'"));
  CHECK(any_contains(errors_of(replace("level: node\n", "level: nod\n")), "did you mean 'node'?"));
  CHECK(any_contains(errors_of(replace("count: 3", "count: -3")), "t.yaml:17:27: count is -3"));
  CHECK(any_contains(errors_of(replace("memory: 80", "memory: lots")), "'memory' must be a number, not 'lots'"));
  CHECK(any_contains(errors_of(replace("\"*/nic*\"", "\"*/nix*\"")), "t.yaml:19:16: pattern '*/nix*' matches no device in any 'c' domain"));
  CHECK(any_contains(errors_of(replace("block: n,", "block: m,")), "unknown block 'm'; did you mean 'n'?"));
  CHECK(any_contains(errors_of(replace("name: \"node{i}\"", "name: \"node\"")), "two domains named 'node'"));
  CHECK(any_contains(errors_of(replace("name: \"node{i}\"", "name: \"node{k}\"")), "unknown variable 'k'"));
  CHECK(count_links(parse_topology_yaml(replace("mode: pairwise", "mode: all"), "t.yaml"), "pcie5x16") == std::size_t{3} * 16);
  CHECK(any_contains(errors_of(replace("to: \"nic*\", type: pcie5x16, mode: pairwise",
                                       "to: \"nic[0-2]\", type: pcie5x16, mode: pairwise")),
                     "as many 'from' as 'to'"));
}

TEST_CASE("every problem in a file is reported, not just the first") {
  const char* text = R"(name: t
levels: [cluster, node]
blocks:
  n:
    level: node
    colour: red
    devices:
      - {name: "gpu0", kind: gpx}
      - {name: "nic0", kind: nic, speed: fast}
  c:
    level: cluster
    children: [{block: n}]
)";
  std::vector<std::string> errors = errors_of(text);
  CHECK(errors.size() == 3);
  CHECK(any_contains(errors, "t.yaml:6:5: unknown key 'colour'"));
  CHECK(any_contains(errors, "t.yaml:8:30: unknown device kind 'gpx'"));
  CHECK(any_contains(errors, "t.yaml:9:42: 'speed' must be a number"));
}

TEST_CASE("malformed and hostile files fail cleanly") {
  CHECK(any_contains(errors_of("name: [unclosed"), "t.yaml:1:"));
  CHECK(any_contains(errors_of("just a string"), "t.yaml:1:1: not a topology: a topology file is a mapping"));
  CHECK(any_contains(errors_of(""), "t.yaml:1:1: the file is empty; a topology file is a mapping"));
  CHECK(any_contains(errors_of("levels: x\nname: \xE9\n"), "t.yaml:2:7: byte 0xe9 is not UTF-8; is the file Latin-1?"));
  // A few aliases are YAML, not a bomb: the file is read, and fails on its content.
  CHECK(any_contains(errors_of("name: &a t\nlevels: [*a, n]\nblocks: {}\n"), "a topology file needs 'blocks'"));
  CHECK(any_contains(errors_of(std::string("a: &a [x, x, x, x, x, x, x, x, x, x]\n") +
                               "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
                               "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n" +
                               "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"),
                     "aliases expand to more than 10,000,000 nodes"));
  CHECK(any_contains(errors_of("name: t\nlevels: &l [a, *l]\n"), "t.yaml:2:16: invalid YAML: alias '*l' refers to a node that contains it"));
  CHECK(any_contains(errors_of("name: t\nname: u\nlevels: [c]\n"), "t.yaml:2:1: key 'name' is given twice"));
  CHECK(any_contains(errors_of(std::string(10000, '[')), "nesting deeper than"));
  CHECK(any_contains(errors_of("name: t\nlevels: []\nblocks: {}\n"), "'levels' must be a list"));
  CHECK(any_contains(errors_of("name: \"a b\"\nlevels: [c]\nblocks: {c: {level: c}}\n"), "contains a space"));
  // A bomb: a million nodes of 100,000 GPUs each, refused after building the first node.
  const char* bomb = R"(name: b
levels: [cluster, node]
blocks:
  n: {level: node, devices: [{name: "gpu[0-99999]", kind: gpu}]}
  c: {level: cluster, children: [{block: n, count: 1000000}]}
)";
  CHECK(any_contains(errors_of(bomb), "t.yaml:5:52: the topology would have more than 4000000 devices"));
  // Domains likewise: a million racks of a thousand empty nodes.
  const char* domains = R"(name: d
levels: [cluster, rack, node]
blocks:
  n: {level: node}
  r: {level: rack, children: [{block: n, count: 1000}]}
  c: {level: cluster, children: [{block: r, count: 1000000}]}
)";
  CHECK(any_contains(errors_of(domains), "t.yaml:6:52: the topology would have more than"));
  const char* quadratic = R"(name: q
levels: [cluster, node]
blocks:
  n: {level: node, devices: [{name: "gpu[0-99999]", kind: gpu}], links: [{from: "gpu*", type: nvlink4, mode: mesh}]}
  c: {level: cluster, children: [{block: n}]}
)";
  CHECK(any_contains(errors_of(quadratic), "more than 20000000 links"));
  CHECK(any_contains(errors_of("name: t\nlevels: [c, n]\nblocks:\n  n: {level: n, devices: [{name: \"g[1-\", kind: gpu}]}\n"
                               "  c: {level: c, children: [{block: n}]}\n"),
                     "unclosed '['"));
}

TEST_CASE("children must sit exactly one level below") {
  const char* text = R"(name: t
levels: [cluster, rack, node]
blocks:
  n: {level: node, devices: [{name: gpu0, kind: gpu}]}
  c: {level: cluster, children: [{block: n}]}
)";
  CHECK(any_contains(errors_of(text), "block 'n' is at level 'node' but children of 'c' here must be at level 'rack'"));
  const char* gpu_in_rack = R"(name: t
levels: [cluster, node]
blocks:
  c: {level: cluster, devices: [{name: gpu0, kind: gpu}]}
)";
  CHECK(any_contains(errors_of(gpu_in_rack), "a gpu must sit in a block of the host level 'node'"));
}

TEST_CASE("describe reads the header without building") {
  TopologyInfo info = describe_topology_yaml(R"(name: big
description: huge
parameters: {n: {default: 3, max: 9, help: count}}
levels: [cluster, node]
blocks: {oops: not even checked}
)",
                                             "big.yaml");
  CHECK(info.name == "big");
  CHECK(info.description == "huge");
  REQUIRE(info.parameters.size() == 1);
  CHECK(info.parameters[0].default_value == 3);
  CHECK(info.parameters[0].max == 9);
  CHECK(info.levels == std::vector<std::string>{"cluster", "node"});
}

TEST_CASE("host blocks carry Kubernetes resources, taints and state, overrides set a node's state") {
  auto with = [](const std::string& keys) {
    std::string s = kTwoLevel;
    s.replace(s.find("    devices:\n"), 0, keys);
    return s;
  };
  Topology t = parse_topology_yaml(with("    resources: {cpu: 7910m, memory: 31Gi, pods: 110}\n"
                                        "    taints: [{key: gpu, value: yes, effect: NoSchedule}]\n") +
                                       "overrides:\n  - {node: node1, state: drain}\n",
                                   "t.yaml");
  TopologyIndex index(t);
  DomainId node0 = *index.find_domain("node0");
  DomainId node1 = *index.find_domain("node1");
  CHECK(t.has_node_resources());
  CHECK(t.node_resources(node0).allocatable == ResourceList{{"cpu", 7910}, {"memory", 31LL << 30}, {"pods", 110}});
  CHECK(t.node_resources(node0).taints == std::vector<Taint>{{"gpu", "yes", "NoSchedule"}});
  CHECK(t.node_resources(node0).state == DeviceState::up);
  CHECK(t.node_resources(node1).state == DeviceState::drain);  // the node itself, not only its devices
  CHECK(t.device(*index.find_device("node1/gpu0")).state == DeviceState::drain);
  CHECK_FALSE(parse_topology_yaml(kTwoLevel, "t.yaml").has_node_resources());

  CHECK(errors_of(with("    resources: {cpu: lots}\n")) ==
        std::vector<std::string>{"t.yaml:6:22: resource 'cpu' is 'lots', not a Kubernetes quantity (such as 500m, "
                                 "64, 16Gi)"});
  CHECK(errors_of(with("    resources: {nvidia.com/gpu: 4}\n")) ==
        std::vector<std::string>{"t.yaml:6:17: 'nvidia.com/gpu' is counted from the node's accelerator devices; it "
                                 "is not a resource"});
  CHECK(any_contains(errors_of(with("    taints: [{key: gpu, effect: Never}]\n")),
                     "taint effect 'Never' is not NoSchedule, PreferNoSchedule or NoExecute"));
  CHECK(any_contains(errors_of(with("    state: asleep\n")), "unknown state 'asleep'"));
  std::string cluster_state = kTwoLevel;
  cluster_state.replace(cluster_state.find("    level: cluster\n"), 19, "    level: cluster\n    state: down\n");
  CHECK(any_contains(errors_of(cluster_state), "only blocks of the host level 'node' have 'state'"));
}
