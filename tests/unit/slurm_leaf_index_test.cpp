// SlurmLeafIndex against counts taken by hand over the nodes, on random
// occupancies changed step by step and re-read only where they changed.
#include "../../lib/src/placement/slurm_leaf_index.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "test_presets.hpp"

using namespace topoplan;

namespace {

std::uint32_t brute_count(const Occupancy& occ, std::uint32_t k, DomainId leaf) {
  const Topology& t = occ.topology();
  const Domain& d = t.domain(leaf);
  std::uint32_t n = 0;
  for (std::uint32_t c = 0; c < d.child_count; ++c) {
    const Domain& node = t.domain(d.first_child + c);
    std::uint32_t free = 0;
    for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) free += occ.is_free(a) ? 1u : 0u;
    n += free >= k ? 1u : 0u;
  }
  return n;
}

}  // namespace

TEST_CASE("slurm leaf index: counts and best fit follow the occupancy through reported changes") {
  Topology t = test::preset("gb200-nvl72:racks=6");
  Occupancy occ(t);
  SlurmLeafIndex index(occ);
  const LevelIndex leaf_level = index.leaf_level();
  REQUIRE(leaf_level + 1 == t.host_level());
  auto [first, last] = t.domains_at(leaf_level);
  REQUIRE(last - first > 2);
  const auto n = static_cast<std::uint32_t>(t.accelerators().size());
  std::mt19937 rng(3);
  for (int step = 0; step < 200; ++step) {
    std::vector<DomainId> changed;
    for (int i = 0; i < 12; ++i) {
      const auto a = static_cast<std::uint32_t>(rng() % n);
      if (occ.is_free(a)) occ.take(a, 1);
      else occ.release(a);
      changed.push_back(occ.node_of(a));
    }
    index.refresh(changed);
    CHECK(index.consistent());
    const auto k = static_cast<std::uint32_t>(1 + rng() % occ.max_node_accelerators());
    const DomainId from = first + static_cast<DomainId>(rng() % (last - first));
    const DomainId to = from + 1 + static_cast<DomainId>(rng() % (last - from));
    const DomainId masked = from + static_cast<DomainId>(rng() % (to - from));
    index.mask(k, masked);
    DomainId expected = kNone;
    for (DomainId leaf = from; leaf < to; ++leaf) {
      INFO("step " << step << ", k " << k << ", leaf " << t.domain_name(leaf));
      CHECK(index.count(k, leaf) == brute_count(occ, k, leaf));
      const std::uint32_t c = brute_count(occ, k, leaf);
      if (leaf == masked || c == 0) continue;
      if (expected == kNone || c < brute_count(occ, k, expected)) expected = leaf;
    }
    CHECK(index.best(k, from, to) == expected);
    index.unmask(k, masked);
  }
  // An unreported change shows in the totals.
  std::uint32_t a = 0;
  while (!occ.is_free(a)) ++a;
  occ.take(a, 2);
  CHECK_FALSE(index.consistent());
}
