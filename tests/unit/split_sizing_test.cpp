#include "../../lib/src/placement/split_sizing.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/placement/occupancy.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

// (child's position among its siblings, units) per share.
std::vector<std::pair<std::uint32_t, std::uint32_t>> shares(const Topology& t, DomainId parent, const Split& split) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const SplitShare& s : split) out.emplace_back(s.child - t.domain(parent).first_child, s.units);
  return out;
}

using Shares = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

}  // namespace

TEST_CASE("split sizing: a job larger than a rack is split evenly, in whole replicas or whole nodes") {
  Topology t = preset("gb200-nvl72:racks=3");
  Occupancy occ(t);
  CapacityView view(occ, true);  // whole nodes: 18 per rack
  const DomainId su = t.domains_at(*t.find_level("su")).first;
  // 20 nodes in replicas of 4 nodes: racks hold 16 aligned nodes each, so
  // two racks take 12 + 8 (equal shares rounded up to a replica), three
  // 8 + 8 + 4; node by node 10 + 10 and 7 + 7 + 6 (smallest share last).
  std::vector<Split> splits = balanced_splits(view, su, 20, {4, 1});
  REQUIRE(splits.size() == 4);
  CHECK(shares(t, su, splits[0]) == Shares{{0, 12}, {1, 8}});
  CHECK(shares(t, su, splits[1]) == Shares{{0, 8}, {1, 8}, {2, 4}});
  CHECK(shares(t, su, splits[2]) == Shares{{0, 10}, {1, 10}});
  CHECK(shares(t, su, splits[3]) == Shares{{0, 7}, {1, 7}, {2, 6}});
}

TEST_CASE("split sizing: a child without room for its share leaves it to the others") {
  Topology t = preset("gb200-nvl72:racks=3");
  Occupancy occ(t);
  // Rack 0 keeps 4 free nodes, rack 1 all 18, rack 2 none.
  const auto [r0, r_end] = t.domains_at(*t.find_level("rack"));
  for (DomainId r = r0; r < r_end; ++r) {
    const Domain& rack = t.domain(r);
    const std::uint32_t keep = r == r0 ? 4 * 4 : r == r0 + 1 ? 72 : 0;
    for (std::uint32_t a = rack.accel_begin + keep; a < rack.accel_end; ++a) occ.take(a, 0);
  }
  CapacityView view(occ, true);
  const DomainId su = t.domains_at(*t.find_level("su")).first;
  std::vector<Split> splits = balanced_splits(view, su, 20, {1});
  // The fewest racks are rack 1 and rack 0: rack 0 takes its 4, rack 1 the
  // rest; no third rack has room.
  REQUIRE(splits.size() == 1);
  CHECK(shares(t, su, splits[0]) == Shares{{0, 4}, {1, 16}});
  // Nothing to split when one rack holds it, or nothing holds it.
  CHECK(balanced_splits(view, su, 18, {1}).empty());
  CHECK(balanced_splits(view, su, 23, {1}).empty());
}

TEST_CASE("split sizing: without one_more, only the fewest children") {
  Topology t = preset("gb200-nvl72:racks=3");
  Occupancy occ(t);
  CapacityView view(occ, true);
  const DomainId su = t.domains_at(*t.find_level("su")).first;
  std::vector<Split> splits = balanced_splits(view, su, 20, {1}, false);
  REQUIRE(splits.size() == 1);
  CHECK(shares(t, su, splits[0]) == Shares{{0, 10}, {1, 10}});
}
