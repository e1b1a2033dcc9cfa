// The native writer: whatever it writes loads back as the same topology.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/io/topology_writer.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/topology_builder.hpp"

using namespace topoplan;

namespace {

Topology builtin(const std::string& argument) {
  return load_topology(argument, [](const std::string&) { return std::nullopt; });
}

// Everything the format can say, as comparable text lines.
std::vector<std::string> facts(const Topology& t) {
  std::vector<std::string> out;
  out.push_back("name " + t.name());
  for (const Level& l : t.levels()) out.push_back("level " + l.name);
  for (DomainId d = 0; d < t.domain_count(); ++d) {
    std::string labels;
    for (const auto& [k, v] : t.labels(t.domain(d).labels)) labels += fmt::format("{}={};", k, v);
    out.push_back(fmt::format("domain {} level={} host={} labels={}", t.domain_path(d), t.domain(d).level,
                              t.hostname(d), labels));
  }
  std::vector<std::string> devices;
  for (DeviceId i = 0; i < t.device_count(); ++i) {
    const Device& d = t.device(i);
    std::string labels;
    for (const auto& [k, v] : t.labels(d.labels)) labels += fmt::format("{}={};", k, v);
    devices.push_back(fmt::format("device {} {} model={} mem={} speed={} state={} labels={}", t.device_name(i),
                              kind_name(d.kind), t.str(d.model), d.memory_gib, d.speed, state_name(d.state), labels));
  }
  std::sort(devices.begin(), devices.end());
  out.insert(out.end(), devices.begin(), devices.end());
  std::vector<std::string> links;
  for (const Link& l : t.links()) {
    std::string a = t.device_name(l.a), b = t.device_name(l.b);
    if (b < a) std::swap(a, b);
    links.push_back(fmt::format("link {} {} {} x{} {} {}", a, b, t.link_type(l).name, l.count, l.bandwidth,
                                l.latency_us));
  }
  std::sort(links.begin(), links.end());
  out.insert(out.end(), links.begin(), links.end());
  // Accelerator order is part of the model (--first N).
  for (DeviceId a : t.accelerators()) out.push_back("accel " + t.device_name(a));
  return out;
}

void check_round_trip(const Topology& t) {
  std::string text = write_topology_yaml(t);
  INFO(text.substr(0, 4000));
  Topology back = parse_topology_yaml(text, "written.yaml");
  CHECK(facts(back) == facts(t));
  // Writing is deterministic and a fixed point.
  CHECK(write_topology_yaml(back) == text);
}

}  // namespace

TEST_CASE("every preset round-trips through the native writer", "[writer]") {
  for (const char* name : {"gb200-nvl72:racks=3", "gb300-nvl72:racks=2", "dgx-h100:nodes=40", "dgx-b300:nodes=70",
                           "h800:nodes=4", "pcie-8gpu:nodes=3", "mi300x:nodes=2", "groq:racks=2", "dgx-b200:nodes=4"}) {
    SECTION(name) { check_round_trip(builtin(name)); }
  }
}

TEST_CASE("the writer shares blocks between identical domains", "[writer]") {
  std::string text = write_topology_yaml(builtin("dgx-h100:nodes=64"));
  // One node block for 64 identical nodes, named once in a hostlist.
  CHECK(text.find("names: \"n[00-31]\"") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') < 120);
}

TEST_CASE("the writer keeps irregular details: hostnames, states, labels, odd bandwidths, twin links", "[writer]") {
  TopologyBuilder b("odd", {"cluster", "node"});
  DomainId n0 = b.add_domain(b.root(), "alpha");
  b.set_hostname(n0, "alpha");
  DomainId n1 = b.add_domain(b.root(), "beta");
  b.set_hostname(n1, "beta.example.com");
  b.set_domain_labels(n1, {{"zone", "a{b}"}});
  DeviceProperties gpu;
  gpu.model = "H100 \"SXM\"";
  gpu.memory_gib = 80;
  DeviceId g0 = b.add_device(n0, DeviceKind::gpu, "gpu0", gpu);
  gpu.state = DeviceState::drain;
  gpu.speed = 0.9f;
  // Label values come from other tools' files: control characters,
  // DEL included (an NCCL XML busid the fuzzer found), are escaped.
  gpu.labels = {{"note", "slow: since 2026"}, {"busid", "00\x7f" "0d:00\x01" ":00.0"}};
  DeviceId g1 = b.add_device(n1, DeviceKind::gpu, "gpu0", gpu);
  DeviceId sw = b.add_device(b.root(), DeviceKind::network_switch, "sw", {});
  b.add_link(g0, sw, *find_link_type("ib-ndr"), 1, 12.5, 2.0);
  b.add_link(g1, sw, *find_link_type("ib-ndr"));
  b.add_link(g1, sw, *find_link_type("ib-ndr"));
  b.add_link(g0, g1, *find_link_type("eth-100g"), 3);
  DiagnosticSink sink;
  check_round_trip(b.finish(sink));
}
