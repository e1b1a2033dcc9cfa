// The fit index (lib/include/topoplan/placement/fit_index.hpp) against a
// brute-force order: after random takes and releases on several presets,
// visiting a level from `units` yields exactly the domains with at least
// that many free units, sorted by free units, then their parent's free units
// (0 under the root), then id, for accelerators and for whole nodes alike.
#include "topoplan/placement/fit_index.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "test_presets.hpp"
#include "topoplan/placement/occupancy.hpp"

using namespace topoplan;

namespace {

using Key = std::tuple<std::uint32_t, std::uint32_t, DomainId>;

std::vector<Key> brute(const Occupancy& occ, LevelIndex level, bool nodes, std::uint32_t units) {
  const Topology& t = occ.topology();
  auto count = [&](DomainId d) { return nodes ? occ.free_nodes_in(d) : occ.free_in(d); };
  std::vector<Key> out;
  auto [first, last] = t.domains_at(level);
  for (DomainId d = first; d < last; ++d) {
    const DomainId p = t.domain(d).parent;
    const std::uint32_t pc = p == kNone || p == t.root() ? 0 : count(p);
    if (count(d) >= units) out.emplace_back(count(d), pc, d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Key> indexed(const Occupancy& occ, LevelIndex level, bool nodes, std::uint32_t units) {
  std::vector<Key> out;
  occ.fit_index().visit(occ, level, nodes, units, [&](const FitIndex::Entry& e) {
    out.emplace_back(e.count, e.parent_count, e.domain);
    return true;
  });
  return out;
}

}  // namespace

TEST_CASE("fit index: every level in best-fit order after random takes and releases") {
  for (const char* name : {"gb200-nvl72:racks=3", "dgx-h100:nodes=12", "pcie-8gpu:nodes=6", "groq:racks=2"}) {
    const Topology t = test::preset(name);
    Occupancy occ(t);
    std::mt19937 rng(7);
    const auto n = static_cast<std::uint32_t>(t.accelerators().size());
    std::uint32_t stopped_early = 0;
    for (int round = 0; round < 60; ++round) {
      // A burst of changes: runs of accelerators taken or released, so that
      // whole nodes and racks fill and empty.
      for (int k = 0; k < 6; ++k) {
        const std::uint32_t first = static_cast<std::uint32_t>(rng() % n);
        const std::uint32_t len = 1 + static_cast<std::uint32_t>(rng() % 12);
        const bool take = rng() % 3 != 0;
        for (std::uint32_t a = first; a < std::min(n, first + len); ++a) {
          if (take && occ.is_free(a)) occ.take(a, 1);
          if (!take && !occ.is_free(a)) occ.release(a);
        }
      }
      INFO(name << " round " << round);
      for (bool nodes : {false, true})
        for (LevelIndex level = 1; level <= t.host_level(); ++level) {
          const std::uint32_t units = static_cast<std::uint32_t>(rng() % 4);
          CHECK(indexed(occ, level, nodes, units) == brute(occ, level, nodes, units));
        }
      // A visit that stops early sees a prefix of the order.
      std::vector<Key> prefix;
      occ.fit_index().visit(occ, t.host_level(), false, 1, [&](const FitIndex::Entry& e) {
        prefix.emplace_back(e.count, e.parent_count, e.domain);
        return prefix.size() < 3;
      });
      const std::vector<Key> all = brute(occ, t.host_level(), false, 1);
      REQUIRE(prefix.size() <= all.size());
      CHECK(std::vector<Key>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(prefix.size())) == prefix);
      stopped_early += prefix.size() == 3;
    }
    CHECK(stopped_early > 0);
  }
}

TEST_CASE("fit index: a copied occupancy keeps its own order") {
  const Topology t = test::preset("gb200-nvl72:racks=2");
  Occupancy occ(t);
  for (std::uint32_t a = 0; a < 10; ++a) occ.take(a, 1);
  CHECK(indexed(occ, t.host_level(), false, 1) == brute(occ, t.host_level(), false, 1));
  Occupancy copy = occ;
  for (std::uint32_t a = 10; a < 40; ++a) copy.take(a, 2);
  occ.release(3);
  CHECK(indexed(copy, t.host_level(), false, 1) == brute(copy, t.host_level(), false, 1));
  CHECK(indexed(occ, t.host_level(), false, 1) == brute(occ, t.host_level(), false, 1));
  CHECK(indexed(copy, 1, true, 0) == brute(copy, 1, true, 0));
}
