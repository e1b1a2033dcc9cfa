// Kueue's TAS assignment on small trees whose answers are worked out by hand
// from Kueue's rules (kueue_tas.cpp) and the examples of Kueue's KEP 2724
// (keps/2724-topology-aware-scheduling/README.md @ff69552e). Kueue's own test
// table is ported end to end in kueue_conformance_test.cpp.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "topoplan/placement/kueue_tas.hpp"

using namespace topoplan;
using namespace topoplan::kueue;

namespace {

constexpr const char* kHost = "kubernetes.io/hostname";

struct Fixture {
  Tree tree;
  std::vector<LeafFit> fits;
  std::map<std::string, std::uint32_t> leaf_of;

  explicit Fixture(std::vector<std::string> levels) : tree(std::move(levels)) {}

  // A leaf with `pods` free slots for the workers (and, when `leader_cost`
  // is given, room for a leader that costs that many worker slots).
  void leaf(std::vector<std::string> values, std::int32_t pods, std::int32_t leader_cost = -1) {
    std::string name = values.back();
    std::uint32_t l = tree.add_leaf(values);
    if (fits.size() <= l) fits.resize(l + 1);
    LeafFit& f = fits[l];
    f.feasible = true;
    f.pods = pods;
    f.pods_with_leader = pods;
    if (leader_cost >= 0 && pods >= leader_cost) {
      f.leader = true;
      f.pods_with_leader = pods - leader_cost;
    }
    leaf_of[name] = l;
  }

  Assignment run(const Request& r, const Gates& g = {}) {
    tree.finish();
    return assign(tree, fits, r, g, Exclusions{});
  }

  std::map<std::string, int> by_name(const std::vector<LeafPods>& pods) const {
    std::map<std::string, int> out;
    for (const LeafPods& p : pods) out[tree.values(tree.leaf_domain(p.leaf)).back()] += p.pods;
    return out;
  }
};

Request pods(std::int32_t n, TopologyRequest t) {
  Request r;
  r.count = n;
  r.topology = std::move(t);
  return r;
}

TopologyRequest required(std::string level) {
  TopologyRequest t;
  t.required = std::move(level);
  return t;
}

TopologyRequest preferred(std::string level) {
  TopologyRequest t;
  t.preferred = std::move(level);
  return t;
}

TopologyRequest implied() {
  TopologyRequest t;
  t.implied = true;
  return t;
}

// KEP 2724, "Selecting the algorithm": a rack with nodes free for 3, 3, 2 and
// 1 pods and a PodSet of 7.
Fixture kep_rack() {
  Fixture f({"rack", kHost});
  f.leaf({"r1", "a"}, 3);
  f.leaf({"r1", "b"}, 3);
  f.leaf({"r1", "c"}, 2);
  f.leaf({"r1", "d"}, 1);
  return f;
}

}  // namespace

TEST_CASE("BestFit takes the largest nodes, then the tightest for the last pods (KEP 2724 example)") {
  Fixture f = kep_rack();
  Assignment a = f.run(pods(7, required("rack")));
  REQUIRE(a.ok);
  CHECK(f.by_name(a.workers) == std::map<std::string, int>{{"a", 3}, {"b", 3}, {"d", 1}});
}

TEST_CASE("LeastFreeCapacity walks the nodes from the least free (KEP 2724 example)") {
  // Unconstrained (implied TAS) with the default TASProfileMixed.
  Fixture f = kep_rack();
  Assignment a = f.run(pods(7, implied()));
  REQUIRE(a.ok);
  CHECK(f.by_name(a.workers) == std::map<std::string, int>{{"a", 3}, {"b", 1}, {"c", 2}, {"d", 1}});

  // With TASProfileMixed off, unconstrained requests use BestFit too.
  Fixture g = kep_rack();
  Gates best_fit;
  best_fit.profile_mixed = false;
  Assignment b = g.run(pods(7, implied()), best_fit);
  REQUIRE(b.ok);
  CHECK(g.by_name(b.workers) == std::map<std::string, int>{{"a", 3}, {"b", 3}, {"d", 1}});
}

TEST_CASE("BestFit picks the smallest domain that holds the request, ties go by level values") {
  Fixture f({"block", "rack", kHost});
  f.leaf({"b1", "r1", "x1"}, 4);
  f.leaf({"b1", "r2", "x2"}, 2);
  f.leaf({"b1", "r10", "x3"}, 2);
  f.leaf({"b2", "r3", "x4"}, 8);
  Assignment a = f.run(pods(2, required("rack")));
  REQUIRE(a.ok);
  // r2 and r10 both hold exactly 2; level values compare as strings, so
  // "r10" comes first among the tightest.
  CHECK(f.by_name(a.workers) == std::map<std::string, int>{{"x3", 2}});
}

TEST_CASE("required fails with Kueue's message, preferred walks up and then spreads") {
  Fixture f({"block", "rack", kHost});
  f.leaf({"b1", "r1", "x1"}, 2);
  f.leaf({"b1", "r2", "x2"}, 2);
  f.leaf({"b2", "r3", "x3"}, 1);
  Assignment a = f.run(pods(3, required("rack")));
  CHECK_FALSE(a.ok);
  CHECK(a.reason == "topology \"default\" allows to fit only 2 out of 3 pod(s)");

  Fixture g({"block", "rack", kHost});
  g.leaf({"b1", "r1", "x1"}, 2);
  g.leaf({"b1", "r2", "x2"}, 2);
  g.leaf({"b2", "r3", "x3"}, 1);
  Assignment b = g.run(pods(3, preferred("rack")));
  REQUIRE(b.ok);  // no rack holds 3, block b1 does
  CHECK(g.by_name(b.workers) == std::map<std::string, int>{{"x1", 2}, {"x2", 1}});

  Fixture h({"block", "rack", kHost});
  h.leaf({"b1", "r1", "x1"}, 2);
  h.leaf({"b1", "r2", "x2"}, 2);
  h.leaf({"b2", "r3", "x3"}, 1);
  Assignment c = h.run(pods(5, preferred("rack")));
  REQUIRE(c.ok);  // no block holds 5: both blocks, at the top level
  CHECK(h.by_name(c.workers) == std::map<std::string, int>{{"x1", 2}, {"x2", 2}, {"x3", 1}});
  CHECK_FALSE(h.run(pods(6, preferred("rack"))).ok);
}

TEST_CASE("balanced placement evens out the domains (KEP 2724: 12 pods on 10 and 10 give 6 and 6)") {
  auto tree = []() {
    Fixture f({"block", "rack", kHost});
    f.leaf({"b1", "r1", "x1"}, 10);
    f.leaf({"b1", "r2", "x2"}, 10);
    return f;
  };
  Fixture bf = tree();
  Assignment a = bf.run(pods(12, preferred("rack")));
  REQUIRE(a.ok);
  CHECK(bf.by_name(a.workers) == std::map<std::string, int>{{"x1", 10}, {"x2", 2}});

  Fixture balanced = tree();
  Gates g;
  g.balanced_placement = true;
  Assignment b = balanced.run(pods(12, preferred("rack")), g);
  REQUIRE(b.ok);
  CHECK(balanced.by_name(b.workers) == std::map<std::string, int>{{"x1", 6}, {"x2", 6}});
  // Required requests never balance.
  Fixture req = tree();
  CHECK_FALSE(req.run(pods(12, required("rack")), g).ok);
}

TEST_CASE("slices: each slice in one domain of the slice level, the tightest domains first") {
  Fixture f({"block", "rack", kHost});
  f.leaf({"b1", "r1", "x1"}, 3);
  f.leaf({"b1", "r1", "x2"}, 3);
  f.leaf({"b1", "r2", "x3"}, 4);
  TopologyRequest t = required("block");
  t.slices.push_back({"rack", 4});
  // r1 has 6 pods but holds one slice of 4; r2 holds one: 8 pods are both.
  Assignment a = f.run(pods(8, t));
  REQUIRE(a.ok);
  // Each rack gets one slice; inside r1 the pods go to the nodes by BestFit.
  CHECK(f.by_name(a.workers) == std::map<std::string, int>{{"x1", 3}, {"x2", 1}, {"x3", 4}});
  // 12 pods are 3 slices; the block holds 2.
  Fixture g({"block", "rack", kHost});
  g.leaf({"b1", "r1", "x1"}, 3);
  g.leaf({"b1", "r1", "x2"}, 3);
  g.leaf({"b1", "r2", "x3"}, 4);
  Assignment b = g.run(pods(12, t));
  CHECK_FALSE(b.ok);
  CHECK(b.reason == "topology \"default\" allows to fit only 2 out of 3 slice(s)");
}

TEST_CASE("multi-layer slices count only whole inner slices, and say so per level") {
  Fixture f({"block", "rack", kHost});
  f.leaf({"b1", "r1", "x1"}, 3);
  f.leaf({"b1", "r1", "x2"}, 3);
  f.leaf({"b1", "r2", "x3"}, 6);
  TopologyRequest t = required("block");
  t.slices = {{"rack", 6}, {kHost, 2}};
  // r1's hosts hold 2 + 2 pods in pairs: no rack slice of 6 there.
  Assignment a = f.run(pods(12, t));
  CHECK_FALSE(a.ok);
  CHECK(a.reason ==
        "topology \"default\" doesn't allow to fit; 1/2 slice(s) fit on level rack; 5/6 slice(s) fit on level "
        "kubernetes.io/hostname");
}

TEST_CASE("a leader takes its node's room from the workers, and the pair stays in one domain") {
  Fixture f({"rack", kHost});
  f.leaf({"r1", "h1"}, 1, 1);  // one slot; the leader takes it
  f.leaf({"r1", "h2"}, 3, 1);  // three slots; with the leader two are left
  Request r = pods(3, required("rack"));
  r.leader = true;
  Assignment a = f.run(r);
  REQUIRE(a.ok);
  CHECK(f.by_name(a.leader) == std::map<std::string, int>{{"h2", 1}});
  CHECK(f.by_name(a.workers) == std::map<std::string, int>{{"h1", 1}, {"h2", 2}});
}

TEST_CASE("Kueue's checks of the requested levels come before capacity") {
  Fixture f({"block", kHost});
  f.leaf({"b1", "x1"}, 4);
  TopologyRequest t = required("block");
  t.slices.push_back({kHost, 0});
  CHECK(f.run(pods(2, t)).reason == "slice topology requested, but slice size not provided");
  t.slices = {{"rack", 1}};
  CHECK(f.run(pods(2, t)).reason == "no requested topology level for slices: rack");
  CHECK(f.run(pods(2, required("rack"))).reason == "no requested topology level: rack");
  TopologyRequest above = required(kHost);
  above.slices = {{"block", 1}};
  CHECK(f.run(pods(2, above)).reason == "podset slice topology block is above the podset topology " +
                                            std::string(kHost));
}

TEST_CASE("preferred node affinity outranks fit when TASRespectNodeAffinityPreferred is on") {
  auto tree = []() {
    Fixture f({kHost});
    f.leaf({"big"}, 8);
    f.leaf({"small"}, 2);
    f.fits[f.leaf_of["small"]].affinity = 10;
    return f;
  };
  Fixture off = tree();
  Assignment a = off.run(pods(3, preferred(kHost)));
  REQUIRE(a.ok);
  CHECK(off.by_name(a.workers) == std::map<std::string, int>{{"big", 3}});  // the only node that holds 3
  Fixture on = tree();
  Gates g;
  g.respect_affinity_preferred = true;
  Assignment b = on.run(pods(3, preferred(kHost)), g);
  REQUIRE(b.ok);
  // The preferred node first, the rest where BestFit puts it.
  CHECK(on.by_name(b.workers) == std::map<std::string, int>{{"big", 1}, {"small", 2}});
}

TEST_CASE("exclusions are reported as Kueue reports them") {
  Fixture f({kHost});
  f.leaf({"x1"}, 0);
  f.tree.finish();
  Exclusions ex;
  ex.total = 3;
  ex.node_selector = 1;
  ex.taints["gpu=yes:NoSchedule"] = 1;
  ex.resources["cpu"] = 1;
  Assignment a = assign(f.tree, f.fits, pods(1, required(kHost)), Gates{}, ex);
  CHECK(a.reason == "topology \"default\" doesn't allow to fit any of 1 pod(s). Total nodes: 3; excluded: "
                    "nodeSelector: 1, resource \"cpu\": 1, taint \"gpu=yes:NoSchedule\": 1");
}

TEST_CASE("assign_counts with its index answers as assign does, on random trees") {
  // The fast path (counts per domain, lookups in (pods, level values) order)
  // against the full algorithm on the same capacities: every answer and
  // every reason must be the same.
  std::mt19937 rng(2724);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    const int levels = uniform(1, 3);
    std::vector<std::string> keys;
    for (int l = 0; l + 1 < levels; ++l) keys.push_back("l" + std::to_string(l));
    keys.push_back(kHost);
    Tree tree(keys);
    std::vector<LeafFit> fits;
    const int leaves = uniform(1, 24);
    for (int i = 0; i < leaves; ++i) {
      std::vector<std::string> values;
      for (int l = 0; l + 1 < levels; ++l) values.push_back("d" + std::to_string(uniform(0, 3)));
      values.push_back("h" + std::to_string(i));
      std::uint32_t leaf = tree.add_leaf(values);
      if (fits.size() <= leaf) fits.resize(leaf + 1);
      fits[leaf].feasible = true;
      fits[leaf].pods = fits[leaf].pods_with_leader = uniform(0, 5);
    }
    tree.finish();
    std::vector<std::int64_t> pods(tree.domain_count(), 0);
    CountIndex index(tree);
    for (std::uint32_t leaf = 0; leaf < tree.leaf_count(); ++leaf)
      for (std::uint32_t d = tree.leaf_domain(leaf); d != 0xffffffffu; d = tree.parent(d)) pods[d] += fits[leaf].pods;
    for (std::uint32_t d = 0; d < tree.domain_count(); ++d) index.set(d, pods[d]);
    Workspace ws;
    for (int q = 0; q < 6; ++q) {
      Request r;
      r.count = uniform(1, 30);
      const std::string& level = keys[static_cast<std::size_t>(uniform(0, levels - 1))];
      switch (uniform(0, 3)) {
        case 0: r.topology.required = level; break;
        case 1: r.topology.preferred = level; break;
        case 2: r.topology.unconstrained = true; break;
        default: r.topology.implied = true; break;
      }
      Gates g;
      g.profile_mixed = uniform(0, 1) == 1;
      Assignment full = assign(tree, fits, r, g, Exclusions{});
      Assignment fast = assign_counts(tree, ws, pods, &index, r, g, Exclusions{});
      INFO("round " << round << " query " << q);
      REQUIRE(full.ok == fast.ok);
      REQUIRE(full.reason == fast.reason);
      REQUIRE(full.workers.size() == fast.workers.size());
      for (std::size_t i = 0; i < full.workers.size(); ++i) {
        CHECK(full.workers[i].leaf == fast.workers[i].leaf);
        CHECK(full.workers[i].pods == fast.workers[i].pods);
      }
      ++compared;
    }
  }
  CHECK(compared == 2400);
}
