// The built-in topologies (topologies/*.yaml) must match the facts their
// comments cite: devices by kind, memory, scale-up and network bandwidth per
// accelerator, scale-up islands, switch oversubscription and parameter limits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology_validation.hpp"

using namespace topoplan;

namespace {

Topology load(const std::string& argument) {
  return load_topology(argument, [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
}

using KindCounts = std::array<std::size_t, kDeviceKindCount>;

// Counts in DeviceKind order: gpu, lpu, cpu, nic, pcie-switch, nvswitch, switch.
KindCounts kinds(const Topology& t) {
  KindCounts out{};
  for (const Device& d : t.devices()) ++out[static_cast<std::size_t>(d.kind)];
  return out;
}

struct Range {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void add(double x) {
    min = std::min(min, x);
    max = std::max(max, x);
  }
};

// GB/s per direction of all scale-up links (NVLink, xGMI, Groq C2C) at each
// accelerator.
Range scale_up_per_accelerator(const Topology& t) {
  Range r;
  for (DeviceId a : t.accelerators()) {
    double bw = 0;
    for (LinkId id : t.links_of(a))
      if (is_scale_up(t.link_type(t.link(id)).family)) bw += t.link(id).total_bandwidth();
    r.add(bw);
  }
  return r;
}

// GB/s per direction of network links (InfiniBand, RoCE, Ethernet) that leave
// each node, divided by the node's accelerators.
Range network_per_accelerator(const Topology& t) {
  std::vector<double> per_node(t.domain_count(), 0);
  for (const Link& l : t.links()) {
    if (!is_network(t.link_type(l).family)) continue;
    for (DeviceId end : {l.a, l.b}) {
      DomainId d = t.device(end).domain;
      if (t.domain(d).level == t.host_level()) per_node[d] += l.total_bandwidth();
    }
  }
  Range r;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId node = first; node < last; ++node)
    r.add(per_node[node] / t.domain(node).accelerator_count());
  return r;
}

Range memory_per_accelerator(const Topology& t) {
  Range r;
  for (DeviceId a : t.accelerators()) r.add(static_cast<double>(t.device(a).memory_gib));
  return r;
}

// Oversubscription (down / up) of the switches that have uplinks, and the
// number of top-tier switches (no uplinks).
struct Tiers {
  Range oversubscription;
  std::size_t top = 0;
};

Tiers tiers(const Topology& t) {
  Tiers out;
  for (const SwitchLoad& s : switch_loads(t)) {
    if (s.up > 0)
      out.oversubscription.add(s.oversubscription());
    else
      ++out.top;
  }
  return out;
}

// Islands all of `size` accelerators, `count` of them, each exactly one
// domain of `level`.
void check_islands(const Topology& t, std::size_t count, std::uint32_t size, const std::string& level) {
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size.size() == count);
  CHECK(std::all_of(islands.size.begin(), islands.size.end(), [&](std::uint32_t s) { return s == size; }));
  auto l = t.find_level(level);
  REQUIRE(l);
  CHECK(islands.level == *l);
  CHECK(islands.level_is_island);
}

// The parameter's default and range, and that values outside it are refused.
// The bare name is one unit (a node, or a rack for NVL72 and Groq): the
// parameter's default is 1, and `topology list` says so.
void check_parameter(const std::string& name, const std::string& parameter, long long default_value,
                     long long max) {
  Topology t = load(name);
  REQUIRE(t.parameters().size() == 1);
  CHECK(t.parameters().front().value == default_value);
  const TopologyParameter& p = t.parameters().front();
  CHECK(p.name == parameter);
  CHECK(p.default_value == default_value);
  CHECK(p.min == 1);
  CHECK(p.max == max);
  CHECK_THROWS_AS(load(name + ":" + parameter + "=0"), InputError);
  CHECK_THROWS_AS(load(name + ":" + parameter + "=" + std::to_string(max + 1)), InputError);
}

// The device (by local name) that `device` reaches over a link of `kind`.
std::vector<std::string> neighbours(const Topology& t, const std::string& device, DeviceKind kind) {
  TopologyIndex index(t);
  auto id = index.find_device(device);
  REQUIRE(id);
  std::vector<std::string> out;
  for (LinkId l : t.links_of(*id)) {
    DeviceId peer = t.link(l).other(*id);
    if (t.device(peer).kind == kind) out.push_back(t.device_name(peer));
  }
  return out;
}

// Links of a GPU to each NVSwitch, in NVSwitch order.
std::vector<int> nvlinks_per_switch(const Topology& t, const std::string& gpu) {
  TopologyIndex index(t);
  auto id = index.find_device(gpu);
  REQUIRE(id);
  std::vector<std::pair<DeviceId, int>> per;
  for (LinkId l : t.links_of(*id)) {
    DeviceId peer = t.link(l).other(*id);
    if (t.device(peer).kind == DeviceKind::nvswitch) per.emplace_back(peer, t.link(l).count);
  }
  std::sort(per.begin(), per.end());
  std::vector<int> out;
  for (const auto& p : per) out.push_back(p.second);
  return out;
}

}  // namespace

TEST_CASE("every built-in topology is present, loads at its default and validates") {
  std::set<std::string> names;
  for (const BuiltinTopology& b : builtin_topologies()) {
    names.insert(std::string(b.name));
    Topology t = load(std::string(b.name));
    CHECK(t.name() == b.name);
    CHECK_FALSE(t.description().empty());
    CHECK(t.description().find('\n') == std::string::npos);
    INFO(b.name);
    CHECK(validate_topology(t).empty());
  }
  CHECK(names == std::set<std::string>{"dgx-b200", "dgx-b300", "dgx-h100", "dgx-h200", "gb200-nvl72", "gb300-nvl72",
                                       "groq", "h800", "mi300x", "pcie-8gpu"});
}

TEST_CASE("gb200-nvl72: 72 GB200 per rack on 9 NVLink 5 switch trays, 400G per GPU") {
  check_parameter("gb200-nvl72", "racks", 1, 4096);
  Topology one = load("gb200-nvl72:racks=1");
  CHECK(kinds(one) == KindCounts{72, 0, 36, 72, 0, 9, 4 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(186));
  CHECK(memory_per_accelerator(one).max == Approx(186));
  CHECK(scale_up_per_accelerator(one).min == Approx(900));  // 18 x 50 GB/s
  CHECK(scale_up_per_accelerator(one).max == Approx(900));
  CHECK(network_per_accelerator(one).min == Approx(50));    // 400 Gb/s
  CHECK(network_per_accelerator(one).max == Approx(50));
  check_islands(one, 1, 72, "rack");
  CHECK(validate_topology(one).empty());

  Topology nine = load("gb200-nvl72:racks=9");  // one full SU and one rack
  CHECK(kinds(nine) == KindCounts{648, 0, 324, 648, 0, 81, 2 * 4 + 8});
  CHECK(nine.domain_count_at(1) == 2);
  check_islands(nine, 9, 72, "rack");
  Tiers full = tiers(load("gb200-nvl72:racks=8"));
  CHECK(full.oversubscription.min == Approx(1.0));
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(full.top == 8);
  CHECK(validate_topology(nine).empty());
}

TEST_CASE("gb300-nvl72: GB200's rack with 288 GB GPUs and 800G ConnectX-8") {
  check_parameter("gb300-nvl72", "racks", 1, 4096);
  Topology one = load("gb300-nvl72:racks=1");
  CHECK(kinds(one) == KindCounts{72, 0, 36, 72, 0, 9, 4 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(288));
  CHECK(memory_per_accelerator(one).max == Approx(288));
  CHECK(scale_up_per_accelerator(one).min == Approx(900));
  CHECK(scale_up_per_accelerator(one).max == Approx(900));
  CHECK(network_per_accelerator(one).min == Approx(100));  // 800 Gb/s
  CHECK(network_per_accelerator(one).max == Approx(100));
  // ConnectX-8: Gen6 x16 to the GPU, Gen5 x16 to the Grace.
  TopologyIndex index(one);
  auto nic = index.find_device("r0000-n00/nic0");
  REQUIRE(nic);
  std::set<std::string> host_links;
  for (LinkId l : one.links_of(*nic)) host_links.insert(one.link_type(one.link(l)).name);
  CHECK(host_links == std::set<std::string>{"pcie6x16", "pcie5x16", "ib-xdr"});
  check_islands(one, 1, 72, "rack");
  CHECK(validate_topology(one).empty());

  Topology sixteen = load("gb300-nvl72:racks=16");
  CHECK(kinds(sixteen) == KindCounts{1152, 0, 576, 1152, 0, 144, 2 * 4 + 8});
  check_islands(sixteen, 16, 72, "rack");
  Tiers t = tiers(sixteen);
  CHECK(t.oversubscription.min == Approx(1.0));
  CHECK(t.oversubscription.max == Approx(1.0));
  CHECK(validate_topology(sixteen).empty());
}

TEST_CASE("every bare preset name is one node, or one rack for NVL72 and Groq") {
  const std::pair<const char*, std::size_t> units[] = {
      {"dgx-h100", 8}, {"dgx-h200", 8}, {"dgx-b200", 8}, {"dgx-b300", 8}, {"h800", 8}, {"pcie-8gpu", 8},
      {"mi300x", 8},   {"gb200-nvl72", 72}, {"gb300-nvl72", 72}, {"groq", 72}};
  for (const auto& [name, accelerators] : units) {
    INFO(name);
    CHECK(load(name).accelerators().size() == accelerators);
  }
}

TEST_CASE("dgx-h100: 8 H100 on 4 NVSwitch chips, a 400G NIC per GPU, 32-node SUs") {
  check_parameter("dgx-h100", "nodes", 1, 16384);
  Topology one = load("dgx-h100:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 8, 4, 4, 8 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(80));
  CHECK(memory_per_accelerator(one).max == Approx(80));
  // 18 NVLink 4 links of 25 GB/s: 900 GB/s bidirectional, 450 per direction.
  CHECK(scale_up_per_accelerator(one).min == Approx(450));
  CHECK(scale_up_per_accelerator(one).max == Approx(450));
  CHECK(nvlinks_per_switch(one, "h100-00000/gpu3") == std::vector<int>{5, 4, 4, 5});
  CHECK(network_per_accelerator(one).min == Approx(50));
  CHECK(network_per_accelerator(one).max == Approx(50));
  // GPU k and NIC k share a PCIe switch (PIX); switch 1 hangs off CPU 0.
  CHECK(neighbours(one, "h100-00000/gpu3", DeviceKind::pcie_switch) ==
        neighbours(one, "h100-00000/nic3", DeviceKind::pcie_switch));
  CHECK(neighbours(one, "h100-00000/gpu3", DeviceKind::pcie_switch) == std::vector<std::string>{"h100-00000/psw1"});
  CHECK(neighbours(one, "h100-00000/psw1", DeviceKind::cpu) == std::vector<std::string>{"h100-00000/cpu0"});
  check_islands(one, 1, 8, "node");
  CHECK(validate_topology(one).empty());

  Topology t33 = load("dgx-h100:nodes=33");
  CHECK(kinds(t33) == KindCounts{264, 0, 66, 264, 132, 132, 2 * 8 + 8});
  CHECK(t33.domain_count_at(1) == 2);
  CHECK(TopologyIndex(t33).find_domain("h100-00032"));
  check_islands(t33, 33, 8, "node");
  CHECK(validate_topology(t33).empty());

  Tiers full = tiers(load("dgx-h100:nodes=32"));
  CHECK(full.oversubscription.min == Approx(1.0));  // 32 x 400G down, 8 x 4 x 400G up
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(full.top == 8);
  CHECK(tiers(one).oversubscription.max == Approx(1.0 / 32));
}

TEST_CASE("dgx-h100 loads at its largest size") {
  Topology t = load("dgx-h100:nodes=16384");
  CHECK(t.accelerators().size() == 131072);
  CHECK(kinds(t) == KindCounts{131072, 0, 32768, 131072, 65536, 65536, 512 * 8 + 8});
  CHECK(t.domain_count_at(1) == 512);
  ScaleUpIslands islands = find_scale_up_islands(t);
  CHECK(islands.size.size() == 16384);
  Tiers full = tiers(t);
  CHECK(full.oversubscription.min == Approx(1.0));
  CHECK(full.oversubscription.max == Approx(1.0));
}

TEST_CASE("dgx-h200: dgx-h100 with 141 GB per GPU") {
  check_parameter("dgx-h200", "nodes", 1, 16384);
  Topology one = load("dgx-h200:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 8, 4, 4, 8 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(141));  // 1,128 GB / 8
  CHECK(memory_per_accelerator(one).max == Approx(141));
  CHECK(scale_up_per_accelerator(one).min == Approx(450));
  CHECK(scale_up_per_accelerator(one).max == Approx(450));
  CHECK(network_per_accelerator(one).min == Approx(50));
  CHECK(network_per_accelerator(one).max == Approx(50));
  check_islands(one, 1, 8, "node");
  CHECK(validate_topology(one).empty());

  Topology t64 = load("dgx-h200:nodes=64");
  CHECK(kinds(t64) == KindCounts{512, 0, 128, 512, 256, 256, 2 * 8 + 8});
  check_islands(t64, 64, 8, "node");
  Tiers full = tiers(t64);
  CHECK(full.oversubscription.min == Approx(1.0));
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(validate_topology(t64).empty());
}

TEST_CASE("dgx-b200: 8 B200 on 2 NVLink 5 switch chips, 400G per GPU") {
  check_parameter("dgx-b200", "nodes", 1, 16384);
  Topology one = load("dgx-b200:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 8, 4, 2, 8 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(180));  // 1,440 GB / 8
  CHECK(memory_per_accelerator(one).max == Approx(180));
  CHECK(scale_up_per_accelerator(one).min == Approx(900));
  CHECK(scale_up_per_accelerator(one).max == Approx(900));
  CHECK(nvlinks_per_switch(one, "b200-00000/gpu5") == std::vector<int>{9, 9});
  CHECK(network_per_accelerator(one).min == Approx(50));
  CHECK(network_per_accelerator(one).max == Approx(50));
  CHECK(neighbours(one, "b200-00000/gpu5", DeviceKind::pcie_switch) ==
        neighbours(one, "b200-00000/nic5", DeviceKind::pcie_switch));
  check_islands(one, 1, 8, "node");
  CHECK(validate_topology(one).empty());

  Topology t40 = load("dgx-b200:nodes=40");
  CHECK(kinds(t40) == KindCounts{320, 0, 80, 320, 160, 80, 2 * 8 + 8});
  check_islands(t40, 40, 8, "node");
  Tiers full = tiers(load("dgx-b200:nodes=64"));
  CHECK(full.oversubscription.min == Approx(1.0));
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(validate_topology(t40).empty());
}

TEST_CASE("dgx-b300: 8 B300, 800G ConnectX-8 per GPU, 64-node SUs with 16 rail leaves") {
  check_parameter("dgx-b300", "nodes", 1, 16384);
  Topology one = load("dgx-b300:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 8, 0, 2, 16 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(288));
  CHECK(memory_per_accelerator(one).max == Approx(288));
  CHECK(scale_up_per_accelerator(one).min == Approx(900));
  CHECK(scale_up_per_accelerator(one).max == Approx(900));
  CHECK(network_per_accelerator(one).min == Approx(100));
  CHECK(network_per_accelerator(one).max == Approx(100));
  check_islands(one, 1, 8, "node");
  CHECK(validate_topology(one).empty());

  // One SU: 16 leaves under 8 spines; rail k of nodes 0-31 and of nodes 32-63
  // end on different leaves.
  Topology su = load("dgx-b300:nodes=64");
  CHECK(kinds(su) == KindCounts{512, 0, 128, 512, 0, 128, 16 + 8});
  auto leaf = [&](const std::string& nic) { return neighbours(su, nic, DeviceKind::network_switch); };
  CHECK(leaf("b300-00000/nic3") == leaf("b300-00031/nic3"));
  CHECK(leaf("b300-00000/nic3") != leaf("b300-00032/nic3"));
  CHECK(leaf("b300-00032/nic3") == leaf("b300-00063/nic3"));
  CHECK(leaf("b300-00000/nic3") != leaf("b300-00000/nic4"));
  Tiers full = tiers(su);
  CHECK(full.oversubscription.min == Approx(1.0));  // 32 x 800G down, 8 x 4 x 800G up
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(full.top == 8);
  check_islands(su, 64, 8, "node");
  CHECK(validate_topology(su).empty());

  Topology t65 = load("dgx-b300:nodes=65");
  CHECK(kinds(t65) == KindCounts{520, 0, 130, 520, 0, 130, 2 * 16 + 8});
  CHECK(t65.domain_count_at(1) == 2);
  CHECK(validate_topology(t65).empty());
}

TEST_CASE("h800: dgx-h100's layout with 8 NVLink 4 links per GPU") {
  check_parameter("h800", "nodes", 1, 16384);
  Topology one = load("h800:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 8, 4, 4, 8 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(80));
  CHECK(memory_per_accelerator(one).max == Approx(80));
  CHECK(scale_up_per_accelerator(one).min == Approx(200));  // 8 x 25 GB/s
  CHECK(scale_up_per_accelerator(one).max == Approx(200));
  CHECK(nvlinks_per_switch(one, "h800-00000/gpu0") == std::vector<int>{2, 2, 2, 2});
  CHECK(network_per_accelerator(one).min == Approx(50));  // CX7 400G
  CHECK(network_per_accelerator(one).max == Approx(50));
  check_islands(one, 1, 8, "node");
  CHECK(validate_topology(one).empty());

  Topology t32 = load("h800:nodes=32");
  CHECK(kinds(t32) == KindCounts{256, 0, 64, 256, 128, 128, 8 + 8});
  Tiers full = tiers(t32);
  CHECK(full.oversubscription.min == Approx(1.0));
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(validate_topology(t32).empty());
}

TEST_CASE("pcie-8gpu: 8 L40S without NVLink, 4 servers per ToR, 2:1 spines") {
  check_parameter("pcie-8gpu", "nodes", 1, 16384);
  Topology one = load("pcie-8gpu:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 4, 4, 0, 1 + 4});
  CHECK(memory_per_accelerator(one).min == Approx(48));
  CHECK(memory_per_accelerator(one).max == Approx(48));
  CHECK(scale_up_per_accelerator(one).max == Approx(0));
  CHECK(network_per_accelerator(one).min == Approx(12.5));  // 4 x 200G for 8 GPUs
  CHECK(network_per_accelerator(one).max == Approx(12.5));
  // Two GPUs and one NIC per switch, two switches per socket.
  CHECK(neighbours(one, "l40s-00000/gpu2", DeviceKind::pcie_switch) ==
        neighbours(one, "l40s-00000/nic1", DeviceKind::pcie_switch));
  CHECK(neighbours(one, "l40s-00000/psw1", DeviceKind::cpu) == std::vector<std::string>{"l40s-00000/cpu0"});
  CHECK(neighbours(one, "l40s-00000/psw2", DeviceKind::cpu) == std::vector<std::string>{"l40s-00000/cpu1"});
  ScaleUpIslands islands = find_scale_up_islands(one);
  CHECK(islands.size.empty());
  CHECK(std::all_of(islands.island_of.begin(), islands.island_of.end(), [](std::uint32_t i) { return i == kNone; }));
  CHECK(validate_topology(one).empty());

  Topology t9 = load("pcie-8gpu:nodes=9");
  CHECK(kinds(t9) == KindCounts{72, 0, 18, 36, 36, 0, 3 + 4});
  CHECK(t9.domain_count_at(1) == 3);
  Tiers full = tiers(load("pcie-8gpu:nodes=8"));
  CHECK(full.oversubscription.min == Approx(2.0));  // 16 x 200G down, 4 x 400G up
  CHECK(full.oversubscription.max == Approx(2.0));
  CHECK(full.top == 4);
  CHECK(validate_topology(t9).empty());
}

TEST_CASE("mi300x: 8 MI300X fully connected by xGMI, 400G per GPU") {
  check_parameter("mi300x", "nodes", 1, 16384);
  Topology one = load("mi300x:nodes=1");
  CHECK(kinds(one) == KindCounts{8, 0, 2, 8, 4, 0, 8 + 8});
  CHECK(memory_per_accelerator(one).min == Approx(192));
  CHECK(memory_per_accelerator(one).max == Approx(192));
  CHECK(scale_up_per_accelerator(one).min == Approx(7 * 64));  // one x16 link to each of 7 peers
  CHECK(scale_up_per_accelerator(one).max == Approx(7 * 64));
  CHECK(neighbours(one, "mi300x-00000/gpu0", DeviceKind::gpu).size() == 7);
  CHECK(network_per_accelerator(one).min == Approx(50));
  CHECK(network_per_accelerator(one).max == Approx(50));
  check_islands(one, 1, 8, "node");
  CHECK(validate_topology(one).empty());

  Topology t48 = load("mi300x:nodes=48");
  CHECK(kinds(t48) == KindCounts{384, 0, 96, 384, 192, 0, 2 * 8 + 8});
  check_islands(t48, 48, 8, "node");
  Tiers full = tiers(load("mi300x:nodes=32"));
  CHECK(full.oversubscription.min == Approx(1.0));
  CHECK(full.oversubscription.max == Approx(1.0));
  CHECK(validate_topology(t48).empty());
}

TEST_CASE("groq: 72-LPU racks in a C2C dragonfly of at most 145 racks") {
  check_parameter("groq", "racks", 1, 145);
  Topology one = load("groq:racks=1");
  CHECK(kinds(one) == KindCounts{0, 72, 18, 0, 0, 0, 0});
  CHECK(memory_per_accelerator(one).min == Approx(0.215).epsilon(0.01));  // 220 MiB
  CHECK(memory_per_accelerator(one).max == Approx(0.215).epsilon(0.01));
  // 7 local links + 2 links to another node of the rack, 14 GB/s each.
  CHECK(scale_up_per_accelerator(one).min == Approx(9 * 14));
  CHECK(scale_up_per_accelerator(one).max == Approx(9 * 14));
  CHECK(network_per_accelerator(one).max == Approx(0));
  CHECK(switch_loads(one).empty());
  check_islands(one, 1, 72, "rack");
  CHECK(validate_topology(one).empty());

  // 73 racks: 72 peers per rack, one inter-rack link per LPU.
  Topology t73 = load("groq:racks=73");
  CHECK(kinds(t73) == KindCounts{0, std::size_t{73} * 72, std::size_t{73} * 18, 0, 0, 0, 0});
  CHECK(scale_up_per_accelerator(t73).min == Approx(10 * 14));
  CHECK(scale_up_per_accelerator(t73).max == Approx(10 * 14));
  CHECK(validate_topology(t73).empty());

  // Uneven at other counts: 2 racks share one link.
  Range two = scale_up_per_accelerator(load("groq:racks=2"));
  CHECK(two.min == Approx(9 * 14));
  CHECK(two.max == Approx(10 * 14));
}

TEST_CASE("groq loads at its largest size: 10,440 LPUs, 4 global links each") {
  Topology t = load("groq:racks=145");
  CHECK(t.accelerators().size() == 10440);
  CHECK(kinds(t) == KindCounts{0, 10440, 2610, 0, 0, 0, 0});
  // 7 local + 2 intra-rack + 2 inter-rack links per LPU.
  CHECK(scale_up_per_accelerator(t).min == Approx(11 * 14));
  CHECK(scale_up_per_accelerator(t).max == Approx(11 * 14));
  // Every rack pair is joined once.
  std::size_t inter_rack = 0;
  auto rack = t.find_level("rack");
  REQUIRE(rack);
  for (const Link& l : t.links())
    if (t.ancestor(t.device(l.a).domain, *rack) != t.ancestor(t.device(l.b).domain, *rack)) inter_rack += l.count;
  CHECK(inter_rack == 145 * 144 / 2);
  // One island spanning the whole dragonfly.
  ScaleUpIslands islands = find_scale_up_islands(t);
  REQUIRE(islands.size.size() == 1);
  CHECK(islands.size.front() == 10440);
  CHECK(islands.level == 0);
  CHECK(islands.level_is_island);
  CHECK(validate_topology(t).empty());
}
