// CapacityView adjusts the occupancy's counts for what a job may not use;
// here every count is checked against a brute-force count over accelerators
// with the same rules, on random occupancies and random constraints.
#include "topoplan/placement/capacity_view.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>

#include "engine_fixtures.hpp"

using namespace topoplan;

namespace {

struct Rules {
  std::vector<std::uint8_t> classes;  // empty: any
  bool tenant_rule = false;
  std::uint32_t tenant = kNone;
  DomainId inside = kNone;
  std::vector<DomainId> excluded;
  std::uint32_t drop_every = 0;  // restrict(): drop accelerators a % drop_every == 1
};

bool brute_usable(const Topology& t, const Occupancy& occ, const Rules& r, std::uint32_t a) {
  if (!occ.is_free(a)) return false;
  if (!r.classes.empty() && !r.classes[occ.class_of(a)]) return false;
  if (r.tenant_rule) {
    std::uint32_t owner = occ.node_tenant(occ.node_of(a));
    if (owner != kNone && owner != r.tenant) return false;
  }
  if (r.inside != kNone && (a < t.domain(r.inside).accel_begin || a >= t.domain(r.inside).accel_end)) return false;
  for (DomainId e : r.excluded)
    if (a >= t.domain(e).accel_begin && a < t.domain(e).accel_end) return false;
  if (r.drop_every && a % r.drop_every == 1) return false;
  return true;
}

CapacityView make_view(const Occupancy& occ, const Rules& r, bool whole, bool restrict_first) {
  CapacityView v(occ, whole);
  auto drop = [&]() {
    if (r.drop_every) v.restrict([&](std::uint32_t a) { return a % r.drop_every != 1; });
  };
  if (restrict_first) drop();
  if (!r.classes.empty()) v.only_classes(r.classes);
  if (r.tenant_rule) v.for_tenant(r.tenant);
  if (r.inside != kNone) v.inside(r.inside);
  for (DomainId e : r.excluded) v.exclude(e);
  if (!restrict_first) drop();
  return v;
}

}  // namespace

TEST_CASE("capacity view: counts equal a brute-force count under every kind of constraint") {
  Topology t = test::engine_topology();
  const auto n = static_cast<std::uint32_t>(t.accelerators().size());
  auto [first_node, last_node] = t.domains_at(t.host_level());
  std::mt19937 rng(11);
  auto next = [&]() { return static_cast<std::uint32_t>(rng()); };
  for (int round = 0; round < 60; ++round) {
    Occupancy occ(t);
    // A random occupancy: each node's takers are of one tenant or none.
    for (DomainId node = first_node; node < last_node; ++node) {
      std::uint32_t tenant = next() % 3 == 0 ? kNone : static_cast<std::uint32_t>(next() % 2);
      for (std::uint32_t a = t.domain(node).accel_begin; a < t.domain(node).accel_end; ++a)
        if (next() % 3 == 0) occ.take(a, 1, tenant);
    }
    if (next() % 2) occ.set_available(next() % n, false);
    Rules r;
    if (next() % 3 == 0) r.classes = {static_cast<std::uint8_t>(next() % 2), static_cast<std::uint8_t>(next() % 2)};
    if (next() % 2) {
      r.tenant_rule = true;
      std::uint32_t pick = next() % 4;
      r.tenant = pick < 2 ? pick : pick == 2 ? kNone : kNone - 2;
    }
    if (next() % 3 == 0) r.inside = static_cast<DomainId>(next() % t.domain_count());
    for (std::uint32_t k = next() % 4; k > 0; --k) r.excluded.push_back(static_cast<DomainId>(1 + next() % (t.domain_count() - 1)));
    if (next() % 4 == 0) r.drop_every = 3;
    const bool whole = next() % 2;
    for (bool restrict_first : {false, true}) {
      CapacityView v = make_view(occ, r, whole, restrict_first);
      INFO("round " << round << (restrict_first ? " restricted first" : ""));
      for (std::uint32_t a = 0; a < n; ++a) CHECK(v.usable(a) == brute_usable(t, occ, r, a));
      for (DomainId d = 0; d < t.domain_count(); ++d) {
        const Domain& dom = t.domain(d);
        std::uint32_t accels = 0, nodes = 0;
        for (std::uint32_t a = dom.accel_begin; a < dom.accel_end; ++a) accels += brute_usable(t, occ, r, a);
        for (DomainId node = first_node; node < last_node; ++node) {
          if (!t.contains(d, node) || t.domain(node).accelerator_count() == 0) continue;
          bool all = true;
          for (std::uint32_t a = t.domain(node).accel_begin; a < t.domain(node).accel_end; ++a)
            all = all && brute_usable(t, occ, r, a);
          nodes += all;
        }
        INFO("domain " << t.domain_name(d));
        CHECK(v.accelerators(d) == accels);
        CHECK(v.nodes(d) == nodes);
        CHECK(v.count(d) == (whole ? nodes : accels));
        // exact: the occupancy's counts hold for it and everything below.
        if (v.exact(d)) {
          auto [f, l] = t.descendants_at(d, t.host_level());
          for (DomainId e = d; e < t.domain_count(); ++e)
            if (t.contains(d, e)) CHECK(v.accelerators(e) == occ.free_in(e));
          CHECK(l >= f);
        }
      }
      // exact_at(): exact() for a whole level at once.
      for (LevelIndex level = 0; level <= t.host_level(); ++level) {
        auto [first, last] = t.domains_at(level);
        std::vector<std::uint8_t> flags = v.exact_at(level);
        REQUIRE(flags.size() == last - first);
        for (DomainId d = first; d < last; ++d) CHECK((flags[d - first] != 0) == v.exact(d));
        // cut_at(): outside its range nothing counts; inside, exactly the
        // listed domains are not exact. Filters have no cut.
        std::optional<CapacityView::LevelCut> cut = v.cut_at(level);
        const bool some_class_left_out =
            std::any_of(r.classes.begin(), r.classes.end(), [](std::uint8_t w) { return w == 0; });
        if (some_class_left_out || r.drop_every > 0) CHECK(!cut);
        if (!cut) continue;
        CHECK(std::is_sorted(cut->inexact.begin(), cut->inexact.end()));
        for (DomainId d = first; d < last; ++d) {
          INFO("cut of level " << level << " at " << t.domain_name(d));
          if (d < cut->first || d >= cut->last) {
            CHECK(v.accelerators(d) == 0);
            continue;
          }
          const bool listed = std::binary_search(cut->inexact.begin(), cut->inexact.end(), d);
          CHECK(listed == !v.exact(d));
        }
      }
      // tightest(): the brute-force best-fit order.
      for (LevelIndex level = 0; level <= t.host_level(); ++level)
        for (std::uint32_t units : {1u, 2u, 3u, 5u}) {
          std::vector<FitIndex::Entry> all;
          auto [first, last] = t.domains_at(level);
          for (DomainId d = first; d < last; ++d) {
            DomainId p = t.domain(d).parent;
            if (v.count(d) >= units)
              all.push_back({v.count(d), p == kNone || p == t.root() ? 0u : v.count(p), d});
          }
          std::sort(all.begin(), all.end());
          std::vector<DomainId> expected;
          for (std::size_t i = 0; i < all.size() && i < 4; ++i) expected.push_back(all[i].domain);
          INFO("level " << level << ", " << units << " units");
          CHECK(v.tightest(level, units, 4) == expected);
        }
    }
  }
}

TEST_CASE("capacity view: a plain view is the occupancy") {
  Topology t = test::engine_topology();
  Occupancy occ(t);
  occ.take(0, 1);
  CapacityView v(occ, false);
  for (DomainId d = 0; d < t.domain_count(); ++d) {
    CHECK(v.exact(d));
    CHECK(v.accelerators(d) == occ.free_in(d));
    CHECK(v.nodes(d) == occ.free_nodes_in(d));
  }
  CapacityView inside(occ, false);
  inside.inside(*TopologyIndex(t).find_domain("r1"));
  CHECK(inside.accelerators(t.root()) == 12);
  CHECK(inside.accelerators(*TopologyIndex(t).find_domain("r0")) == 0);
  CHECK_FALSE(inside.exact(t.root()));
  CHECK(inside.exact(*TopologyIndex(t).find_domain("r1")));
}
