// Occupancy keeps every count incrementally; here each one is checked against
// a recount from scratch after every step of random takes, releases and
// availability changes.
#include "topoplan/placement/occupancy.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "engine_fixtures.hpp"

using namespace topoplan;

namespace {

struct Shadow {
  std::vector<std::uint32_t> owner;   // kNone: free
  std::vector<bool> available;
  std::vector<std::uint32_t> tenant;  // of the owner
};

void check_counts(const Topology& t, const Occupancy& occ, const Shadow& s) {
  const auto n = static_cast<std::uint32_t>(t.accelerators().size());
  auto [first_node, last_node] = t.domains_at(t.host_level());
  std::vector<std::uint32_t> node_free(t.domain_count(), 0);
  std::vector<std::uint32_t> node_tenant(t.domain_count(), kNone);
  for (std::uint32_t a = 0; a < n; ++a) {
    DomainId node = occ.node_of(a);
    if (s.owner[a] == kNone && s.available[a]) ++node_free[node];
    if (s.owner[a] != kNone && s.tenant[a] != kNone) node_tenant[node] = s.tenant[a];
    CHECK(occ.is_free(a) == (s.owner[a] == kNone && s.available[a]));
    CHECK(occ.owner(a) == (s.owner[a] != kNone ? s.owner[a] : s.available[a] ? Occupancy::kFree : Occupancy::kUnavailable));
  }
  for (DomainId d = 0; d < t.domain_count(); ++d) {
    const Domain& dom = t.domain(d);
    std::uint32_t free = 0, usable = 0, free_nodes = 0, tenanted = 0, tenant0 = 0;
    std::vector<std::uint32_t> with(occ.max_node_accelerators() + 1, 0);
    std::vector<std::uint32_t> cls_free(occ.models().size(), 0), cls_nodes(occ.models().size(), 0);
    for (std::uint32_t a = dom.accel_begin; a < dom.accel_end; ++a) {
      bool is_free = s.owner[a] == kNone && s.available[a];
      free += is_free;
      usable += s.owner[a] != kNone || s.available[a];
      cls_free[occ.class_of(a)] += is_free;
    }
    for (DomainId node = first_node; node < last_node; ++node) {
      if (!t.contains(d, node)) continue;
      const Domain& nd = t.domain(node);
      const bool whole = nd.accelerator_count() > 0 && node_free[node] == nd.accelerator_count();
      free_nodes += whole;
      ++with[node_free[node]];
      if (node_tenant[node] != kNone) tenanted += node_free[node];
      if (node_tenant[node] == 0) tenant0 += node_free[node];
      bool uniform = true;
      for (std::uint32_t a = nd.accel_begin; a < nd.accel_end; ++a) uniform = uniform && occ.class_of(a) == occ.class_of(nd.accel_begin);
      if (whole && uniform) ++cls_nodes[occ.class_of(nd.accel_begin)];
    }
    INFO("domain " << t.domain_name(d));
    CHECK(occ.free_in(d) == free);
    CHECK(occ.usable_in(d) == usable);
    CHECK(occ.free_nodes_in(d) == free_nodes);
    CHECK(occ.tenanted_free_in(d) == tenanted);
    CHECK(occ.tenant_free_in(d, 0) == tenant0);
    if (dom.level < t.host_level())
      for (std::uint32_t c = 0; c <= occ.max_node_accelerators(); ++c) CHECK(occ.nodes_with_free(d, c) == with[c]);
    else
      CHECK(occ.node_tenant(d) == node_tenant[d]);
    for (std::uint32_t k = 0; k < occ.models().size(); ++k) {
      CHECK(occ.class_free_in(d, k) == cls_free[k]);
      CHECK(occ.class_free_nodes_in(d, k) == cls_nodes[k]);
    }
  }
  // The fit index: every level in (free, parent's free, id) order.
  for (bool nodes : {false, true})
    for (LevelIndex l = 1; l <= t.host_level(); ++l) {
      std::vector<FitIndex::Entry> expected;
      auto [first, last] = t.domains_at(l);
      auto free = [&](DomainId x) { return nodes ? occ.free_nodes_in(x) : occ.free_in(x); };
      for (DomainId d = first; d < last; ++d) {
        DomainId p = t.domain(d).parent;
        expected.push_back({free(d), p == t.root() ? 0u : free(p), d});
      }
      std::sort(expected.begin(), expected.end());
      std::vector<DomainId> seen;
      occ.fit_index().visit(occ, l, nodes, 0, [&](const FitIndex::Entry& e) {
        seen.push_back(e.domain);
        return true;
      });
      std::vector<DomainId> want;
      for (const auto& e : expected) want.push_back(e.domain);
      INFO("level " << l << (nodes ? " in nodes" : ""));
      CHECK(seen == want);
    }
}

}  // namespace

TEST_CASE("occupancy: the topology's states and static sizes") {
  Topology t = test::engine_topology();
  Occupancy occ(t);
  CHECK(occ.models().size() == 2);
  CHECK(occ.per_class());
  CHECK(occ.free_in(t.root()) == 30);  // one GPU is down in the topology
  CHECK(occ.usable_in(t.root()) == 30);
  CHECK(occ.max_node_accelerators() == 4);
  CHECK(occ.max_accelerators_at(1) == 12);
  CHECK(occ.max_nodes_at(0) == 9);
  CHECK(occ.max_nodes_at(1) == 3);
  CHECK(occ.nodes_with_free(t.root(), 4) == 6);
  CHECK(occ.nodes_with_free(t.root(), 2) == 3);  // r2's two B nodes, and the mixed node with its GPU down
}

TEST_CASE("occupancy: every incremental count equals a recount") {
  Topology t = test::engine_topology();
  Occupancy occ(t);
  const auto n = static_cast<std::uint32_t>(t.accelerators().size());
  Shadow s{std::vector<std::uint32_t>(n, kNone), std::vector<bool>(n, true), std::vector<std::uint32_t>(n, kNone)};
  for (std::uint32_t a = 0; a < n; ++a) s.available[a] = t.device(t.accelerators()[a]).state == DeviceState::up;
  // Each node is given to one tenant, or none, as the planner does.
  std::mt19937 rng(7);
  auto next = [&]() { return static_cast<std::uint32_t>(rng()); };
  std::vector<std::uint32_t> node_tenant(t.domain_count());
  for (auto& x : node_tenant) x = next() % 3 == 0 ? kNone : static_cast<std::uint32_t>(next() % 2);
  check_counts(t, occ, s);
  for (int step = 0; step < 400; ++step) {
    std::uint32_t a = next() % n;
    switch (next() % 4) {
      case 0:
      case 1:
        if (s.owner[a] == kNone && s.available[a]) {
          std::uint32_t tenant = node_tenant[occ.node_of(a)];
          occ.take(a, 5 + a % 3, tenant);
          s.owner[a] = 5 + a % 3;
          s.tenant[a] = tenant;
        } else {
          occ.take(a, 99, kNone);  // not free: nothing happens
        }
        break;
      case 2:
        occ.release(a);
        s.owner[a] = kNone;
        s.tenant[a] = kNone;
        break;
      default: {
        bool available = next() % 2 == 0;
        occ.set_available(a, available);
        s.available[a] = available;
        break;
      }
    }
    check_counts(t, occ, s);
  }
}
