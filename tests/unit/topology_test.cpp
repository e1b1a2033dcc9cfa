#include "topoplan/model/topology.hpp"

#include <catch2/catch.hpp>

#include "topoplan/model/topology_builder.hpp"

using namespace topoplan;

namespace {

// Two racks of two nodes with two GPUs each, built out of order on purpose.
Topology small() {
  TopologyBuilder b("t", {"cluster", "rack", "node"});
  DomainId r1 = b.add_domain(b.root(), "r1");
  DomainId r0 = b.add_domain(b.root(), "r0");
  DomainId n10 = b.add_domain(r1, "n0");
  DomainId n00 = b.add_domain(r0, "n0");
  DomainId n01 = b.add_domain(r0, "n1");
  b.set_hostname(n10, "h10");
  b.set_hostname(n00, "h00");
  b.set_hostname(n01, "h01");
  DeviceProperties gpu{"H100", 80, 1.0f, DeviceState::up, {}};
  DeviceId a = b.add_device(n10, DeviceKind::gpu, "gpu0", gpu);
  DeviceId c = b.add_device(n00, DeviceKind::gpu, "gpu0", gpu);
  b.add_device(n01, DeviceKind::gpu, "gpu0", gpu);
  DeviceId d = b.add_device(n00, DeviceKind::gpu, "gpu1", gpu);
  DeviceId sw = b.add_device(b.root(), DeviceKind::network_switch, "spine", {});
  b.add_link(a, sw, *find_link_type("ib-ndr"));
  b.add_link(c, d, *find_link_type("nvlink4"), 18);
  DiagnosticSink sink;
  return b.finish(sink);
}

}  // namespace

TEST_CASE("domains are numbered by level and depth-first order") {
  Topology t = small();
  REQUIRE(t.domain_count() == 6);
  CHECK(t.domain_count_at(1) == 2);
  auto [first, last] = t.domains_at(2);
  CHECK(last - first == 3);
  // Insertion order r1, r0 is kept; children follow their parents.
  CHECK(t.domain_path(t.domains_at(1).first) == "r1");
  CHECK(t.domain_name(first) == "h10");
  const Domain& r0 = t.domain(t.domains_at(1).first + 1);
  CHECK(r0.child_count == 2);
  CHECK(t.domain_path(r0.first_child) == "r0/n0");
}

TEST_CASE("accelerators are in hierarchy order and domains own ranges") {
  Topology t = small();
  auto accels = t.accelerators();
  REQUIRE(accels.size() == 4);
  std::vector<std::string> names;
  for (DeviceId id : accels) names.push_back(t.device_name(id));
  CHECK(names == std::vector<std::string>{"h10/gpu0", "h00/gpu0", "h00/gpu1", "h01/gpu0"});
  const Domain& r0 = t.domain(t.domains_at(1).first + 1);
  CHECK(r0.accel_begin == 1);
  CHECK(r0.accel_end == 4);
  CHECK(t.accelerator_index(accels[2]) == 2);
}

TEST_CASE("descendants at a level are a contiguous range") {
  Topology t = small();
  auto [r1, r0] = std::pair{t.domains_at(1).first, t.domains_at(1).first + 1};
  auto nodes = t.domains_at(2);
  CHECK(t.descendants_at(r1, 2) == std::pair{nodes.first, nodes.first + 1});
  CHECK(t.descendants_at(r0, 2) == std::pair{nodes.first + 1, nodes.second});
  CHECK(t.descendants_at(t.root(), 2) == nodes);
  CHECK(t.descendants_at(t.root(), 1) == t.domains_at(1));
  CHECK(t.descendants_at(r0, 1) == std::pair{r0, r0 + 1});
  auto coarser = t.descendants_at(nodes.first, 1);
  CHECK(coarser.first == coarser.second);
}

TEST_CASE("links are found from both ends and keep their multiplicity") {
  Topology t = small();
  TopologyIndex index(t);
  auto gpu = index.find_device("h00/gpu0");
  REQUIRE(gpu);
  REQUIRE(t.links_of(*gpu).size() == 1);
  const Link& link = t.link(t.links_of(*gpu)[0]);
  CHECK(link.count == 18);
  CHECK(link.total_bandwidth() == Approx(450));
  CHECK(t.link_type(link).name == "nvlink4");
  CHECK(index.find_device("spine"));
  CHECK(index.find_domain("r0/n1") == index.find_domain("h01"));
  CHECK_FALSE(index.find_device("h00/gpu7"));
}

TEST_CASE("the builder reports every structural problem at once") {
  TopologyBuilder b("t", {"cluster", "node"});
  std::uint32_t here = b.add_origin({"f.yaml", 3, 5});
  DomainId n0 = b.add_domain(b.root(), "n", here);
  DomainId n1 = b.add_domain(b.root(), "n", here);
  b.set_hostname(n0, "same");
  b.set_hostname(n1, "same");
  DeviceId g = b.add_device(n0, DeviceKind::gpu, "gpu0", {}, here);
  b.add_device(n0, DeviceKind::gpu, "gpu0", {}, here);
  b.add_device(b.root(), DeviceKind::gpu, "stray", {}, here);
  b.add_link(g, g, *find_link_type("nvlink4"), 0, -1, -1, here);
  DiagnosticSink sink;
  try {
    b.finish(sink);
    FAIL("finish should throw");
  } catch (const InputError& e) {
    std::vector<std::string> messages;
    for (const Diagnostic& d : e.diagnostics()) messages.push_back(d.str());
    auto has = [&](const std::string& needle) {
      return std::any_of(messages.begin(), messages.end(),
                         [&](const std::string& m) { return m.find(needle) != std::string::npos; });
    };
    CHECK(has("two domains named 'n'"));
    CHECK(has("hostname 'same' is used by more than one node"));
    CHECK(has("two devices named 'gpu0'"));
    CHECK(has("must sit in a node"));
    CHECK(has("to itself"));
    CHECK(has("link count"));
    CHECK(messages.front().rfind("f.yaml:3:5: ", 0) == 0);
  }
}

TEST_CASE("link types parse with canonical names and sourced defaults") {
  auto ndr = find_link_type("ib-ndr");
  REQUIRE(ndr);
  CHECK(ndr->bandwidth == Approx(50));
  CHECK(find_link_type("ib-400g")->name == "ib-ndr");
  CHECK(find_link_type("pcie5x16")->bandwidth == Approx(63.015).epsilon(1e-3));
  CHECK(find_link_type("pcie4")->name == "pcie4x16");
  CHECK(find_link_type("nvlink5")->bandwidth == Approx(50));
  CHECK(find_link_type("nvlink4")->bandwidth == Approx(25));
  CHECK(find_link_type("roce-200g")->bandwidth == Approx(25));
  CHECK(find_link_type("xgmi")->bandwidth == Approx(64));
  CHECK_FALSE(find_link_type("nvlink6"));
  CHECK_FALSE(find_link_type("pcie5x3"));
  CHECK_FALSE(find_link_type("ib-fast"));
  CHECK(is_scale_up(find_link_type("groq-c2c")->family));
  CHECK_FALSE(is_scale_up(find_link_type("pcie5x16")->family));
}
