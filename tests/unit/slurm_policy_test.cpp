// The `slurm` policies against the rules of Slurm's _eval_nodes_topo
// (select/cons_tres + topology/tree), each expectation worked out by hand from
// the rule it names; where 22.05 and 24.05.3+ differ, both are pinned.
#include "topoplan/placement/slurm_policy.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/placement/planner.hpp"

using namespace topoplan;

namespace {

using Runs = std::vector<std::pair<std::string, int>>;

// Takes the first `n` accelerators of a node (all when n is 0).
void busy(Occupancy& occ, const std::string& host, std::uint32_t n = 0) {
  const Topology& t = occ.topology();
  TopologyIndex index(t);
  std::optional<DomainId> node = index.find_domain(host);
  REQUIRE(node);
  const Domain& d = t.domain(*node);
  std::uint32_t end = n == 0 ? d.accel_end : d.accel_begin + n;
  for (std::uint32_t a = d.accel_begin; a < end; ++a) occ.take(a, 7);
}

std::vector<std::uint32_t> place(const Occupancy& occ, std::uint32_t units, bool whole,
                                 SlurmTreeRules rules = SlurmTreeRules::current,
                                 std::optional<std::string> required = std::nullopt, std::uint32_t granule = 1) {
  const Topology& t = occ.topology();
  SlurmPolicy policy(rules);
  CapacityView view(occ, whole);
  PlaceRequest r;
  r.units = units;
  r.granule = granule;
  if (required) r.required = t.find_level(*required);
  return policy.place(view, r);
}

std::vector<std::uint32_t> nodes(const Occupancy& occ, std::uint32_t n, SlurmTreeRules rules = SlurmTreeRules::current,
                                 std::optional<std::string> required = std::nullopt) {
  return place(occ, n, true, rules, std::move(required));
}

// Hostnames in rank order with how many consecutive ranks each holds.
Runs runs(const Topology& t, const std::vector<std::uint32_t>& accels) {
  Runs out;
  for (std::uint32_t a : accels) {
    std::string host(t.hostname(t.device(t.accelerators()[a]).domain));
    if (out.empty() || out.back().first != host)
      out.emplace_back(host, 1);
    else
      ++out.back().second;
  }
  return out;
}

// Hostnames in rank order.
std::vector<std::string> hosts(const Topology& t, const std::vector<std::uint32_t>& accels) {
  std::vector<std::string> out;
  for (const auto& [host, count] : runs(t, accels)) out.push_back(host);
  return out;
}

// Hostnames "PREFIX-nA" .. "PREFIX-nB".
std::vector<std::string> range(const std::string& prefix, int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back(prefix + "-n" + std::to_string(i));
  return out;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Four leaf switches of eight 1-GPU nodes under one root switch.
const char* kLeaves = R"(name: leaves
levels: [cluster, leaf, node]
blocks:
  node: {level: node, devices: [{name: gpu0, kind: gpu}]}
  leaf: {level: leaf, children: [{block: node, count: 8, name: "n{i}"}]}
  c: {level: cluster, children: [{block: leaf, count: 4, name: "l{i}"}]}
)";

// Two SU switches of two leaf switches of four 1-GPU nodes.
const char* kTree = R"(name: tree
levels: [cluster, su, leaf, node]
blocks:
  node: {level: node, devices: [{name: gpu0, kind: gpu}]}
  leaf: {level: leaf, children: [{block: node, count: 4, name: "n{i}"}]}
  su: {level: su, children: [{block: leaf, count: 2, name: "l{i}"}]}
  c: {level: cluster, children: [{block: su, count: 2, name: "s{i}"}]}
)";

}  // namespace

TEST_CASE("slurm: the tightest leaf that holds the job, nodes in bitmap order") {
  Topology t = parse_topology_yaml(kLeaves, "leaves.yaml");
  Occupancy occ(t);
  // Free nodes per leaf: l0 6, l1 3 (n1, n3, n5), l2 4, l3 8.
  for (int n : {0, 1}) busy(occ, "l0-n" + std::to_string(n));
  for (int n : {0, 2, 4, 6, 7}) busy(occ, "l1-n" + std::to_string(n));
  for (int n : {4, 5, 6, 7}) busy(occ, "l2-n" + std::to_string(n));
  // 3 fits every leaf; the tightest is l1, whose free nodes are taken in order.
  CHECK(hosts(t, nodes(occ, 3)) == std::vector<std::string>{"l1-n1", "l1-n3", "l1-n5"});
  // 4: l2 (4 free) is tighter than l0 (6) and l3 (8).
  CHECK(hosts(t, nodes(occ, 4)) == range("l2", 0, 3));
  // 7: only l3 holds it.
  CHECK(hosts(t, nodes(occ, 7)) == range("l3", 0, 6));
  // More than is free: no top switch has enough nodes.
  CHECK(nodes(occ, 22).empty());
}

TEST_CASE("slurm: no leaf holds it: the largest leaf first, then the tightest for the rest") {
  Topology t = parse_topology_yaml(kLeaves, "leaves.yaml");
  Occupancy occ(t);
  // Free: l0 6, l1 3, l2 4, l3 0.
  for (int n : {0, 1}) busy(occ, "l0-n" + std::to_string(n));
  for (int n : {0, 1, 2, 3, 4}) busy(occ, "l1-n" + std::to_string(n));
  for (int n : {4, 5, 6, 7}) busy(occ, "l2-n" + std::to_string(n));
  for (int n = 0; n < 8; ++n) busy(occ, "l3-n" + std::to_string(n));
  // 9: no leaf fits, all share the root, so the largest, l0 (6), wins; the
  // remaining 3 fit l1 (3) and l2 (4) at the same distance: l1 is tighter.
  CHECK(hosts(t, nodes(occ, 9)) == range("l0", 2, 7) + range("l1", 5, 7));
}

TEST_CASE("slurm: ranks follow node order, not the order leaves were chosen in") {
  Topology t = parse_topology_yaml(kLeaves, "leaves.yaml");
  Occupancy occ(t);
  // Free: l0 3 (n5-n7), l1 6 (n2-n7), l2 and l3 none.
  for (int n = 0; n < 5; ++n) busy(occ, "l0-n" + std::to_string(n));
  for (int n : {0, 1}) busy(occ, "l1-n" + std::to_string(n));
  for (int n = 0; n < 8; ++n) busy(occ, "l2-n" + std::to_string(n));
  for (int n = 0; n < 8; ++n) busy(occ, "l3-n" + std::to_string(n));
  // 8: l1 (6, the larger) is chosen first, then 2 nodes of l0; rank 0 is on l0.
  CHECK(hosts(t, nodes(occ, 8)) == range("l0", 5, 6) + range("l1", 2, 7));
}

TEST_CASE("slurm: the first leaf comes from the tightest subtree, the rest from nearby leaves") {
  Topology t = parse_topology_yaml(kTree, "tree.yaml");
  Occupancy occ(t);
  // Free: s0/l0 2 (n2, n3), s0/l1 0, s1/l0 4, s1/l1 2 (n2, n3).
  for (int n : {0, 1}) busy(occ, "s0-l0-n" + std::to_string(n));
  for (int n = 0; n < 4; ++n) busy(occ, "s0-l1-n" + std::to_string(n));
  for (int n : {0, 1}) busy(occ, "s1-l1-n" + std::to_string(n));
  // 5: no leaf fits; s0/l0 and s1/l0 have different parents, so their SU
  // switches are compared: s1 (6) fits, s0 (2) does not, so s1/l0 is first.
  // The last node: s0/l0 (2 free, 4 hops away, scanned first) against s1/l1
  // (2 free, 2 hops): equal fit, so the closer one wins under both rule sets.
  for (SlurmTreeRules rules : {SlurmTreeRules::current, SlurmTreeRules::v22_05})
    CHECK(hosts(t, nodes(occ, 5, rules)) == range("s1-l0", 0, 3) + range("s1-l1", 2, 2));
}

TEST_CASE("slurm: leaves under different switches are compared by their parents") {
  Topology t = parse_topology_yaml(kTree, "tree.yaml");
  Occupancy occ(t);
  // Free: s0/l0 4, s0/l1 0 (s0 holds 4); s1/l0 3, s1/l1 3 (s1 holds 6).
  for (int n = 0; n < 4; ++n) busy(occ, "s0-l1-n" + std::to_string(n));
  busy(occ, "s1-l0-n3");
  busy(occ, "s1-l1-n3");
  // 5: no leaf fits. s0/l0 is the largest leaf, but against s1/l0 the SU
  // switches decide: s1 (6) fits and s0 (4) does not. The other 2 nodes come
  // from s1/l1, 2 hops away instead of 4.
  CHECK(hosts(t, nodes(occ, 5)) == range("s1-l0", 0, 2) + range("s1-l1", 0, 1));
}

TEST_CASE("slurm: a closer leaf must fit (24.05.3+) or be no worse a fit (22.05)") {
  Topology t = parse_topology_yaml(kTree, "tree.yaml");
  Occupancy occ(t);
  // Free: s0/l0 1 (n3), s0/l1 0, s1/l0 4, s1/l1 2 (n2, n3).
  for (int n : {0, 1, 2}) busy(occ, "s0-l0-n" + std::to_string(n));
  for (int n = 0; n < 4; ++n) busy(occ, "s0-l1-n" + std::to_string(n));
  for (int n : {0, 1}) busy(occ, "s1-l1-n" + std::to_string(n));
  // 5: s1/l0 first as above; 1 node left. Scanning from s0/l0 (1 free, 4
  // hops): s1/l1 is closer (2 hops) and fits, but s0/l0 is the tighter fit.
  // 24.05.3+ takes the closer leaf that fits; 22.05 replaces the best only
  // with a closer leaf that compares at least as well, so it stays on s0/l0.
  CHECK(hosts(t, nodes(occ, 5, SlurmTreeRules::current)) == range("s1-l0", 0, 3) + range("s1-l1", 2, 2));
  CHECK(hosts(t, nodes(occ, 5, SlurmTreeRules::v22_05)) == range("s0-l0", 3, 3) + range("s1-l0", 0, 3));
}

TEST_CASE("slurm: counts of switches above a used-up leaf") {
  Topology t = parse_topology_yaml(kTree, "tree.yaml");
  Occupancy occ(t);
  // Free: s0/l0 1 (n3), s0/l1 1 (n3), s1/l0 4, s1/l1 1 (n3); s0 holds 2, s1 5.
  for (const char* leaf : {"s0-l0", "s0-l1", "s1-l1"})
    for (int n = 0; n < 3; ++n) busy(occ, std::string(leaf) + "-n" + std::to_string(n));
  // 6: s1/l0 first (its SU holds more), 2 left. s1/l1 is closer than s0/l0
  // but neither leaf holds 2, so their SUs are compared: s1 now holds 1 (4 of
  // its 5 are taken; 24.05.3 subtracts them, 22.05 keeps comparing with 5 but
  // then needs a fit at least as good). Either way s0/l0 stays the best, and
  // the last node comes from s0/l1, scanned before s1/l1 at equal distance.
  for (SlurmTreeRules rules : {SlurmTreeRules::current, SlurmTreeRules::v22_05})
    CHECK(hosts(t, nodes(occ, 6, rules)) ==
          std::vector<std::string>{"s0-l0-n3", "s0-l1-n3"} + range("s1-l0", 0, 3));
}

TEST_CASE("slurm: required leaf is --switches=1, and a node is -N 1") {
  Topology t = parse_topology_yaml(kLeaves, "leaves.yaml");
  Occupancy occ(t);
  // Free: l0 6, l1 3, l2 4, l3 8.
  for (int n : {0, 1}) busy(occ, "l0-n" + std::to_string(n));
  for (int n : {0, 1, 2, 3, 4}) busy(occ, "l1-n" + std::to_string(n));
  for (int n : {4, 5, 6, 7}) busy(occ, "l2-n" + std::to_string(n));
  CHECK(hosts(t, nodes(occ, 7, SlurmTreeRules::current, "leaf")) == range("l3", 0, 6));
  // 9 fits no leaf: without the constraint it spreads; with it, it waits.
  CHECK(nodes(occ, 9).size() == 9);
  CHECK(nodes(occ, 9, SlurmTreeRules::current, "leaf").empty());
  // Required at the root constrains nothing; at the node level a whole-node
  // job can only ask for one node.
  CHECK(nodes(occ, 9, SlurmTreeRules::current, "cluster").size() == 9);
  CHECK(nodes(occ, 1, SlurmTreeRules::current, "node").size() == 1);
  CHECK(nodes(occ, 2, SlurmTreeRules::current, "node").empty());
}

TEST_CASE("slurm: --gpus=N counts nodes, not GPUs, when it chooses leaves") {
  Topology t = parse_topology_yaml(R"(name: gpus
levels: [cluster, leaf, node]
blocks:
  node: {level: node, devices: [{name: "gpu[0-3]", kind: gpu}]}
  c:
    level: cluster
    children:
      - {block: leaf2, count: 1, name: a}
      - {block: leaf4, count: 1, name: b}
  leaf2: {level: leaf, children: [{block: node, count: 2, name: "n{i}"}]}
  leaf4: {level: leaf, children: [{block: node, count: 4, name: "n{i}"}]}
)",
                                   "gpus.yaml");
  Occupancy occ(t);
  busy(occ, "a-n0", 3);  // leaf a: one node with 1 free GPU (n1 is full)
  busy(occ, "a-n1");     // leaf b: four nodes with 4 free GPUs each
  // One node is asked for, so both leaves "fit" and the one with fewer
  // candidate nodes, a, wins although it has 1 GPU; the remaining 3 come
  // from b's first node.
  CHECK(runs(t, place(occ, 4, false)) == Runs{{"a-n0", 1}, {"b-n0", 3}});
  // With tensor-parallel groups of 2, a's node offers no whole group.
  CHECK(runs(t, place(occ, 4, false, SlurmTreeRules::current, std::nullopt, 2)) == Runs{{"b-n0", 4}});
  // --switches=1 then leaves the job pending although leaf b could hold it.
  CHECK(place(occ, 4, false, SlurmTreeRules::current, "leaf").empty());
  // -N 1: only nodes with 4 free GPUs qualify.
  CHECK(runs(t, place(occ, 4, false, SlurmTreeRules::current, "node")) == Runs{{"b-n0", 4}});
}

TEST_CASE("slurm: the planner runs both rule sets by name") {
  Topology t = parse_topology_yaml(kLeaves, "leaves.yaml");
  for (const char* name : {"slurm", "slurm-22.05"}) {
    PlanOptions o;
    o.policy = name;
    Job job;
    job.name = "a";
    job.nodes = 3;
    job.exclusive = true;
    Plan p = plan_jobs(t, {job}, o);
    REQUIRE(p.placements[0].placed);
    CHECK(p.placements[0].device_count() == 3);
  }
  CHECK(make_policy("slurm-22.05", t)->name() == "slurm-22.05");
}

TEST_CASE("slurm: a GPU job that spills over leaf switches under --switches=1 says why it is pending") {
  // Two 18-node racks; 14 nodes of rack 0 busy. 32 GPUs: rack 0 (4 free
  // nodes) is the best fit for one node, so the job spills into rack 1 and
  // --switches=1 leaves it pending, as a real slurmctld does
  // (tests/scripts/slurm_switches.sh). As 8 whole nodes it goes to rack 1.
  Topology t = parse_topology_yaml(R"(name: two
levels: [cluster, rack, node]
blocks:
  n: {level: node, devices: [{name: "gpu[0-3]", kind: gpu, model: GB200}]}
  r: {level: rack, children: [{block: n, count: 18, name: "n{i}"}]}
  c: {level: cluster, children: [{block: r, count: 2, name: "r{i}"}]}
root: c
)",
                                   "two.yaml");
  Occupancy occ(t);
  for (int i = 0; i < 14; ++i) busy(occ, "r0-n" + std::to_string(i));
  SlurmPolicy policy(SlurmTreeRules::v22_05);
  PlaceRequest r;
  r.units = 32;
  r.required = LevelIndex{1};
  CapacityView view(occ, false);
  CHECK(policy.place(view, r).empty());
  CHECK(policy.why_not(view, r) ==
        "Slurm leaves it pending on --switches=1: asked for GPUs, it fills the rack with the fewest free nodes "
        "('r0') and spills into 'r1' (whole nodes, -N, go to a rack that holds them all)");
  PlaceRequest nodes;
  nodes.units = 8;
  nodes.required = LevelIndex{1};
  CapacityView whole(occ, true);
  std::vector<std::uint32_t> got = policy.place(whole, nodes);
  REQUIRE(got.size() == 32);
  CHECK(hosts(t, got) == range("r1", 0, 7));
  CHECK(policy.why_not(whole, nodes).empty());
  // With rack 0 free of other work, the GPU job fits in it and nothing is said.
  Occupancy idle(t);
  CapacityView idle_view(idle, false);
  CHECK(policy.place(idle_view, r).size() == 32);
  CHECK(policy.why_not(idle_view, r).empty());
}

namespace {

// Five levels, so that rule 3's distances reach over two switch levels
// above the leaves: 2 pods x 2 SUs x 3 racks (leaf switches) x 3 nodes of
// 4 GPUs.
const char* kDeepTree = R"(name: deep
levels: [cluster, pod, su, rack, node]
blocks:
  n:
    level: node
    hostname: "{pod}{su}{rack}{node}"
    devices:
      - {name: "gpu[0-3]", kind: gpu}
  r:
    level: rack
    children:
      - {block: n, count: 3, name: "n{i}"}
  s:
    level: su
    children:
      - {block: r, count: 3, name: "r{i}"}
  p:
    level: pod
    children:
      - {block: s, count: 2, name: "s{i}"}
  cluster:
    level: cluster
    children:
      - {block: p, count: 2, name: "p{i}"}
root: cluster
)";

}  // namespace

TEST_CASE("slurm: the leaf index chooses what the scan of every leaf switch chooses, job after job") {
  Topology t = parse_topology_yaml(kDeepTree, "deep.yaml");
  const auto n = static_cast<std::uint32_t>(t.accelerators().size());
  const auto domains = static_cast<std::uint32_t>(t.domain_count());
  std::mt19937 rng(5);
  auto next = [&](std::uint32_t bound) { return static_cast<std::uint32_t>(rng() % bound); };
  for (int round = 0; round < 20; ++round) {
    Occupancy occ(t);
    SlurmPolicy indexed(SlurmTreeRules::current, SlurmSearch::indexed);  // lives as long as the occupancy
    std::uint32_t job = 0;
    std::uint32_t placed = 0;
    for (int step = 0; step < 60; ++step) {
      INFO("round " << round << " step " << step);
      PlaceRequest r;
      r.granule = std::array<std::uint32_t, 3>{1, 2, 4}[next(3)];
      r.units = (1 + next(12)) * (next(2) ? r.granule : 1);
      if (next(6) == 0) r.required = t.host_level();
      if (next(6) == 0) r.required = t.host_level() - 1;
      CapacityView view(occ, false);
      // A spread replica's view (domains excluded) or one kept inside a domain.
      if (next(3) == 0)
        for (std::uint32_t k = 1 + next(3); k > 0; --k) view.exclude(1 + next(domains - 1));
      if (next(5) == 0) view.inside(next(domains));
      const std::vector<std::uint32_t> got = indexed.place(view, r);
      const std::vector<std::uint32_t> scanned = SlurmPolicy(SlurmTreeRules::current, SlurmSearch::scan).place(view, r);
      INFO(r.units << " GPUs in groups of " << r.granule);
      REQUIRE(got == scanned);
      placed += got.empty() ? 0u : 1u;
      // Take what was returned (the policy knows), or leave it.
      if (next(4) != 0) {
        ++job;
        for (std::uint32_t a : got) occ.take(a, job);
      }
      // Release some accelerators and tell the policy, as the planner does.
      if (next(3) == 0) {
        std::vector<DomainId> nodes;
        for (std::uint32_t a = next(n), k = next(16); k > 0; --k, a = (a + 7) % n)
          if (!occ.is_free(a)) {
            occ.release(a);
            nodes.push_back(occ.node_of(a));
          }
        indexed.nodes_changed(nodes);
      }
    }
    CHECK(placed > 0);
  }
}

TEST_CASE("slurm: a change nobody reported does not mislead the leaf index") {
  Topology t = parse_topology_yaml(kDeepTree, "deep.yaml");
  Occupancy occ(t);
  SlurmPolicy indexed(SlurmTreeRules::current, SlurmSearch::indexed);
  PlaceRequest r;
  r.units = 3;
  CapacityView view(occ, false);
  // Every rack has three candidate nodes: the first rack's first node.
  REQUIRE(runs(t, indexed.place(view, r)) == Runs{{"p0s0r0n0", 3}});
  // Two nodes of another rack fill up and nobody tells the policy: that
  // rack is now the best fit (one candidate node).
  busy(occ, "p1s0r1n0");
  busy(occ, "p1s0r1n1");
  CHECK(runs(t, indexed.place(view, r)) == Runs{{"p1s0r1n2", 3}});
}
