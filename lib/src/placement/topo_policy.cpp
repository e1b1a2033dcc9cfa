// The topology-aware policy (`--policy topo`, the default).
//
// 1. Locality first: find the finest level at which one domain can hold the
//    whole group (a node, then a rack / NVLink domain, then a scalable unit,
//    ...), never coarser than a `required` level.
// 2. Fragmentation second: among the domains of that level that fit, prefer
//    the tightest (best fit) inside the busiest parent, so large free islands
//    stay whole for later jobs.
// 3. Cost third: price the few best candidates with the cost model and keep
//    the cheapest; candidates within 2 % of each other are ranked by how many
//    fully free nodes and islands they break.
// Inside the chosen domain the group descends level by level: into the
// tightest child that holds the rest, or else across the fewest children,
// largest first, in multiples of the tensor-parallel group size so that no TP
// group straddles two nodes.
#include <algorithm>
#include <numeric>

#include "topoplan/model/fabric.hpp"
#include "topoplan/placement/policy.hpp"
#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

namespace {

constexpr std::size_t kCandidates = 8;
constexpr double kCostTolerance = 0.02;

// Takes `units` from `domain` into `out`; false when it cannot.
bool distribute(const CapacityView& view, DomainId domain, std::uint32_t units, std::uint32_t granule,
                std::vector<std::uint32_t>& out) {
  const Topology& t = view.topology();
  const Domain& d = t.domain(domain);
  if (units == 0) return true;
  if (d.level == t.host_level()) {
    if (view.whole_nodes()) {
      if (units != 1 || !view.node_free(domain)) return false;
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a) out.push_back(a);
      return true;
    }
    std::uint32_t taken = 0;
    for (std::uint32_t a = d.accel_begin; a < d.accel_end && taken < units; ++a)
      if (view.usable(a)) {
        out.push_back(a);
        ++taken;
      }
    return taken == units;
  }
  // Children that can contribute, largest first (ties: hierarchy order).
  std::vector<std::pair<std::uint32_t, DomainId>> children;
  for (std::uint32_t c = 0; c < d.child_count; ++c) {
    DomainId child = d.first_child + c;
    std::uint32_t n = view.count(child);
    if (n > 0) children.emplace_back(n, child);
  }
  auto tightest = [&](std::uint32_t need) {
    DomainId best = kNone;
    std::uint32_t best_count = 0;
    for (auto [n, child] : children)
      if (n >= need && (best == kNone || n < best_count)) {
        best = child;
        best_count = n;
      }
    return best;
  };
  if (DomainId one = tightest(units); one != kNone) return distribute(view, one, units, granule, out);
  std::stable_sort(children.begin(), children.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::uint32_t remaining = units;
  bool child_is_node = d.level + 1 == t.host_level();
  std::vector<std::uint8_t> used(children.size(), 0);
  while (remaining > 0) {
    // The tightest unused child that covers the rest ends the search.
    std::size_t fit = children.size();
    for (std::size_t i = 0; i < children.size(); ++i)
      if (!used[i] && children[i].first >= remaining && (fit == children.size() || children[i].first < children[fit].first))
        fit = i;
    if (fit < children.size()) return distribute(view, children[fit].second, remaining, granule, out);
    std::size_t largest = children.size();
    for (std::size_t i = 0; i < children.size() && largest == children.size(); ++i)
      if (!used[i]) largest = i;
    if (largest == children.size()) return false;
    used[largest] = 1;
    std::uint32_t amount = children[largest].first;
    // Keep TP groups inside one node: take whole groups from each node.
    if (child_is_node && granule > 1 && !view.whole_nodes()) amount -= amount % granule;
    amount = std::min(amount, remaining);
    if (amount == 0) continue;
    if (!distribute(view, children[largest].second, amount, granule, out)) return false;
    remaining -= amount;
  }
  return true;
}

// The other way to fill a domain: the fullest-free nodes first, wherever
// they sit in it, so the group spans as few nodes as possible (which wins
// where crossing a node costs more than crossing a rack, as on PCIe boxes).
bool fewest_nodes(const CapacityView& view, DomainId domain, std::uint32_t units, std::uint32_t granule,
                  std::vector<std::uint32_t>& out) {
  const Topology& t = view.topology();
  const Domain& d = t.domain(domain);
  if (view.whole_nodes() || d.level == t.host_level()) return false;
  std::vector<std::pair<std::uint32_t, DomainId>> nodes;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId n = first; n < last; ++n) {
    const Domain& node = t.domain(n);
    if (node.accel_begin < d.accel_begin || node.accel_end > d.accel_end || node.accelerator_count() == 0) continue;
    std::uint32_t free = view.accelerators(n);
    if (granule > 1) free -= free % granule;
    if (free > 0) nodes.emplace_back(free, n);
  }
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::uint32_t remaining = units;
  for (auto [free, node] : nodes) {
    if (remaining == 0) break;
    if (!distribute(view, node, std::min(free, remaining), granule, out)) return false;
    remaining -= std::min(free, remaining);
  }
  return remaining == 0;
}

// Fully free nodes and scale-up islands that a selection starts to use.
std::uint32_t broken_islands(const CapacityView& view, const std::vector<std::uint32_t>& accels,
                             LevelIndex island_level) {
  const Topology& t = view.topology();
  std::vector<DomainId> touched;
  for (std::uint32_t a : accels) {
    DomainId node = view.occupancy().node_of(a);
    touched.push_back(node);
    if (island_level < t.host_level()) touched.push_back(t.ancestor(node, island_level));
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::uint32_t broken = 0;
  for (DomainId d : touched) {
    const Domain& dom = t.domain(d);
    std::uint32_t usable = view.occupancy().usable_in(d);
    if (usable > 0 && view.accelerators(d) == usable) {
      // Fully free before; broken unless the selection takes all of it.
      std::uint32_t inside = 0;
      for (std::uint32_t a : accels) inside += (a >= dom.accel_begin && a < dom.accel_end) ? 1 : 0;
      if (inside < usable) ++broken;
    }
  }
  return broken;
}

}  // namespace

TopoPolicy::TopoPolicy(LevelIndex island_level) : island_level_(island_level) {}

std::vector<std::uint32_t> TopoPolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  const Topology& t = view.topology();
  if (request.units == 0) return {};
  LevelIndex coarsest = request.required.value_or(0);
  for (LevelIndex level = t.host_level() + 1; level-- > coarsest;) {
    auto [first, last] = t.domains_at(level);
    std::vector<DomainId> fitting;
    for (DomainId d = first; d < last; ++d)
      if (view.count(d) >= request.units) fitting.push_back(d);
    if (fitting.empty()) continue;
    // Best fit, inside the busiest parent, then hierarchy order.
    std::stable_sort(fitting.begin(), fitting.end(), [&](DomainId x, DomainId y) {
      if (view.count(x) != view.count(y)) return view.count(x) < view.count(y);
      DomainId px = t.domain(x).parent;
      DomainId py = t.domain(y).parent;
      std::uint32_t fx = px == kNone ? 0 : view.count(px);
      std::uint32_t fy = py == kNone ? 0 : view.count(py);
      return fx < fy;
    });
    if (fitting.size() > kCandidates) fitting.resize(kCandidates);

    std::vector<std::uint32_t> best;
    double best_cost = 0;
    std::uint32_t best_broken = 0;
    std::vector<DeviceId> ranks;
    std::vector<std::vector<std::uint32_t>> candidates;
    for (DomainId d : fitting) {
      std::vector<std::uint32_t> chosen;
      if (!distribute(view, d, request.units, request.granule, chosen)) {
        chosen.clear();
        // TP alignment can fail where plain counts fit; place unaligned then.
        if (request.granule <= 1 || !distribute(view, d, request.units, 1, chosen)) continue;
      }
      candidates.push_back(std::move(chosen));
      // With a cost model, also try the fewest-nodes fill of the same domain.
      std::vector<std::uint32_t> packed;
      if (request.pricer && fewest_nodes(view, d, request.units, request.granule, packed)) {
        std::sort(packed.begin(), packed.end());
        std::vector<std::uint32_t> sorted = candidates.back();
        std::sort(sorted.begin(), sorted.end());
        if (packed != sorted) candidates.push_back(std::move(packed));
      }
    }
    for (std::vector<std::uint32_t>& chosen : candidates) {
      std::sort(chosen.begin(), chosen.end());
      double cost = 0;
      if (request.pricer && request.job && candidates.size() > 1) {
        ranks.clear();
        for (std::uint32_t a : chosen) ranks.push_back(t.accelerators()[a]);
        cost = request.pricer->step_seconds(*request.job, ranks);
      }
      std::uint32_t broken = broken_islands(view, chosen, island_level_);
      bool better = best.empty();
      if (!better) {
        double scale = std::max(best_cost, 1e-12);
        if (cost < best_cost && (best_cost - cost) / scale > kCostTolerance)
          better = true;
        else if (std::abs(cost - best_cost) / scale <= kCostTolerance && broken < best_broken)
          better = true;
      }
      if (better) {
        best = std::move(chosen);
        best_cost = cost;
        best_broken = broken;
      }
    }
    if (!best.empty()) return best;
  }
  return {};
}

}  // namespace topoplan
