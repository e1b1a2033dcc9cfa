// A placed job node by node: shares, whole nodes, counts per node, replicas
// and the rank order that launchers would not reproduce.
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include "topoplan/formats/job_layout.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

// The layout of the single job of a one-entry plan.
JobLayout layout(const Topology& t, const std::string& entry) {
  Plan plan = parse_plan_yaml("jobs:\n  - " + entry + "\n", "plan.yaml", t);
  REQUIRE(plan.placements.size() == 1);
  return layout_of(t, plan.placements[0]);
}

}  // namespace

TEST_CASE("job layout: whole nodes in topology order, one count per node") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobLayout l = layout(t, "{name: a, devices: \"r0001-n00/gpu[0-3],r0000-n17/gpu[0-3]\"}");
  // Listed rack 1 first, the nodes still come in topology order.
  CHECK(hostnames(t, l.nodes) == std::vector<std::string>{"r0000-n17", "r0001-n00"});
  CHECK(l.whole_nodes);
  CHECK(describe_nodes(l) == "2 whole nodes");
  CHECK(l.per_node == 4);
  CHECK(l.nodes[0].accelerators == 4);
  CHECK(l.kind == DeviceKind::gpu);
  CHECK_FALSE(l.mixed_kinds);
  // Rank 4 (r0000-n17/gpu0) follows r0001-n00/gpu3: a step back.
  CHECK(l.rank_order == "rank 4 (r0000-n17/gpu0) comes after r0001-n00/gpu3");
}

TEST_CASE("job layout: partial and uneven nodes") {
  Topology t = preset("gb200-nvl72:racks=1");
  JobLayout l = layout(t, "{name: a, devices: \"r0000-n00/gpu[0-3],r0000-n01/gpu[2-3]\"}");
  REQUIRE(l.nodes.size() == 2);
  CHECK(l.nodes[0].whole);
  CHECK_FALSE(l.nodes[1].whole);
  CHECK(l.nodes[1].accelerators == 2);
  CHECK_FALSE(l.whole_nodes);
  CHECK(l.per_node == 0);
  CHECK(l.rank_order.empty());
  CHECK(describe_nodes(l) == "2 nodes (1 whole)");

  JobLayout even = layout(t, "{name: b, devices: \"r0000-n0[2-4]/gpu[1-2]\"}");
  CHECK(even.per_node == 2);
  CHECK_FALSE(even.whole_nodes);
  CHECK(describe_nodes(even) == "part of 3 nodes");
}

TEST_CASE("job layout: a rank order that steps back inside a node") {
  Topology t = preset("dgx-h100:nodes=2");
  JobLayout l = layout(t, "{name: a, devices: [h100-00000/gpu1, h100-00000/gpu0, h100-00001/gpu0]}");
  CHECK(l.rank_order == "rank 1 (h100-00000/gpu0) comes after h100-00000/gpu1");
  CHECK(l.per_node == 0);  // 2 and 1
}

TEST_CASE("job layout: replicas and their nodes") {
  Topology t = preset("dgx-h100:nodes=4");
  JobLayout apart = layout(t, "{name: s, kind: inference, replica_devices: [\"h100-00002/gpu[0-7]\", "
                              "\"h100-00000/gpu[0-7]\"]}");
  REQUIRE(apart.replica_nodes.size() == 2);
  CHECK(hostnames(t, apart.replica_nodes[0]) == std::vector<std::string>{"h100-00002"});
  CHECK(hostnames(t, apart.replica_nodes[1]) == std::vector<std::string>{"h100-00000"});
  // Each replica is in order; a later replica on an earlier node is not a
  // rank order problem (ranks count per replica).
  CHECK(apart.rank_order.empty());

  JobLayout shared = layout(t, "{name: s, kind: inference, replica_devices: [\"h100-00001/gpu[0-3]\", "
                               "\"h100-00001/gpu[4-7]\"]}");
  // Two replicas on one node: one node, held whole, in both replicas' lists.
  CHECK(shared.whole_nodes);
  CHECK(shared.nodes.size() == 1);
  CHECK(shared.nodes[0].accelerators == 8);
  CHECK(hostnames(t, shared.replica_nodes[1]) == std::vector<std::string>{"h100-00001"});

  JobLayout backwards = layout(t, "{name: s, kind: inference, replica_devices: [\"h100-00000/gpu0\", "
                                  "[h100-00001/gpu1, h100-00001/gpu0]]}");
  CHECK(backwards.rank_order == "rank 1 of replica 1 (h100-00001/gpu0) comes after h100-00001/gpu1");
}

TEST_CASE("job layout: LPUs are their own kind") {
  Topology t = preset("groq:racks=1");
  const Domain& node = t.domain(t.domains_at(t.host_level()).first);
  std::string host(t.hostname(t.domains_at(t.host_level()).first));
  JobLayout l = layout(t, "{name: g, hosts: " + host + "}");
  CHECK(l.kind == DeviceKind::lpu);
  CHECK(l.whole_nodes);
  CHECK(l.per_node == node.accelerator_count());
}
