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

#include "split_sizing.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/placement/policy.hpp"
#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

namespace {

constexpr std::size_t kCandidates = 8;
constexpr double kCostTolerance = 0.02;

// How a group is kept together when it is split: runs of `node` accelerators
// (a TP group) never straddle two nodes, and runs of `group` (a model replica,
// TP x PP) never straddle two children of any coarser domain, so that only
// data-parallel traffic crosses the slow boundaries.
struct Granules {
  std::uint32_t node = 1;
  std::uint32_t group = 1;
};

// Takes `units` from `domain` into `out`; false when it cannot.
bool distribute(const CapacityView& view, DomainId domain, std::uint32_t units, Granules granule,
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
  // Buffers per level, reused: a fill recurses one level down at a time, so
  // a level's buffers are never in use twice, and placing a job allocates
  // nothing here (this was a third of the planner's allocations).
  struct Buffers {
    std::vector<std::pair<std::uint32_t, DomainId>> children;
    std::vector<std::uint8_t> used;
  };
  thread_local std::vector<Buffers> scratch;
  // Sized for every level before any reference is taken: a deeper call
  // must not reallocate what its callers hold.
  if (scratch.size() <= t.host_level()) scratch.resize(t.host_level() + 1);
  std::vector<std::pair<std::uint32_t, DomainId>>& children = scratch[d.level].children;
  children.clear();
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
  // Largest first, ties in hierarchy order (ids ascend as they were added):
  // a stable sort without stable_sort's buffer allocation.
  std::sort(children.begin(), children.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  std::uint32_t remaining = units;
  bool child_is_node = d.level + 1 == t.host_level();
  std::vector<std::uint8_t>& used = scratch[d.level].used;
  used.assign(children.size(), 0);
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
    // Take whole TP groups from each node and whole replicas from anything coarser.
    std::uint32_t unit = child_is_node ? granule.node : granule.group;
    if (unit > 1 && !view.whole_nodes()) amount -= amount % unit;
    amount = std::min(amount, remaining);
    if (amount == 0) continue;
    if (!distribute(view, children[largest].second, amount, granule, out)) return false;
    remaining -= amount;
  }
  return true;
}

// Other ways, for groups that must span several children of a domain: the
// balanced splits of split_sizing.hpp (equal shares over the fewest children
// that hold the group, or one more, in whole replicas or whole TP groups),
// each child filled as distribute does. Collective traffic crosses every
// child's boundary, so the child with the smallest share, which has the
// fewest NICs, sets the pace; the cost model decides which split wins.
// Each fill goes to `add(fill)`, built in `out` (cleared first).
template <typename Add>
void balanced(const CapacityView& view, DomainId domain, std::uint32_t units, Granules granule,
              std::vector<std::uint32_t>& out, Add&& add) {
  const Topology& t = view.topology();
  const Domain& d = t.domain(domain);
  if (d.level == t.host_level()) return;
  const bool child_is_node = d.level + 1 == t.host_level();
  std::vector<std::uint32_t> alignments;
  if (view.whole_nodes()) {
    // Whole nodes: a split of nodes over racks (or SUs), in whole replicas
    // where a replica is whole nodes.
    if (child_is_node) return;
    const std::uint32_t per_node = t.domain(t.descendants_at(domain, t.host_level()).first).accelerator_count();
    if (per_node > 0 && granule.group > per_node && granule.group % per_node == 0)
      alignments.push_back(granule.group / per_node);
    alignments.push_back(1);
  } else if (child_is_node) {
    alignments.push_back(std::max(1u, granule.node));
  } else {
    alignments.push_back(std::max(1u, granule.group));
    if (granule.node != granule.group) alignments.push_back(std::max(1u, granule.node));
  }
  // Over nodes, only the fewest that hold it: one node more is what the
  // fewest-nodes fill and the greedy fill already weigh, and this is the
  // common case for small jobs, where every candidate costs.
  for (const Split& split : balanced_splits(view, domain, units, alignments, !child_is_node)) {
    out.clear();
    bool ok = true;
    for (const SplitShare& share : split)
      if (!distribute(view, share.child, share.units, granule, out)) {
        ok = false;
        break;
      }
    if (ok) add(out);
  }
}

// The other way to fill a domain: the fullest-free nodes first, wherever
// they sit in it, so the group spans as few nodes as possible (which wins
// where crossing a node costs more than crossing a rack, as on PCIe boxes).
bool fewest_nodes(const CapacityView& view, DomainId domain, std::uint32_t units, Granules granule,
                  std::vector<std::uint32_t>& out) {
  const Topology& t = view.topology();
  const Domain& d = t.domain(domain);
  if (view.whole_nodes() || d.level == t.host_level()) return false;
  thread_local std::vector<std::pair<std::uint32_t, DomainId>> nodes;
  nodes.clear();
  auto [first, last] = t.descendants_at(domain, t.host_level());
  for (DomainId n = first; n < last; ++n) {
    if (t.domain(n).accelerator_count() == 0) continue;
    std::uint32_t free = view.accelerators(n);
    if (granule.node > 1) free -= free % granule.node;
    if (free > 0) nodes.emplace_back(free, n);
  }
  // Largest first, ties in hierarchy order (ids ascend as they were added):
  // a stable sort without stable_sort's buffer allocation.
  std::sort(nodes.begin(), nodes.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  std::uint32_t remaining = units;
  for (auto [free, node] : nodes) {
    if (remaining == 0) break;
    if (!distribute(view, node, std::min(free, remaining), granule, out)) return false;
    remaining -= std::min(free, remaining);
  }
  return remaining == 0;
}

// Sorts accelerator indices that come in ascending runs (a fill takes each
// node's accelerators in order, nodes in any order): the runs are sorted,
// not the elements, which for a 4,096-GPU job is 1,024 items, not 4,096.
void sort_runs(std::vector<std::uint32_t>& v) {
  thread_local std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // (first index into v, length)
  runs.clear();
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    while (j < v.size() && v[j] > v[j - 1]) ++j;
    runs.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i));
    i = j;
  }
  if (runs.size() <= 1) return;
  std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) { return v[a.first] < v[b.first]; });
  thread_local std::vector<std::uint32_t> out;
  out.clear();
  out.reserve(v.size());
  for (auto [first, length] : runs) out.insert(out.end(), v.begin() + first, v.begin() + first + length);
  // Runs of distinct domains never interleave, so this is sorted; if two
  // did, sort the rest of the way.
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  v.swap(out);  // v's old storage is the next call's buffer
}

// What a candidate does to the free space left for later jobs, compared
// when candidates cost the same (within kCostTolerance):
// - broken: free accelerators of domains that were entirely free and are now
//   only partly used (breaking a whole free SU is worse than a free node);
// - concentration: the change of the sum over all domains of free^2, higher
//   (less negative) when what is left sits in few domains rather than in many
//   small remnants; taking n from a domain with f free changes it by
//   (f - n)^2 - f^2, which favours the tightest domains (best fit).
struct Fragmentation {
  std::uint64_t broken = 0;
  double concentration = 0;
};

Fragmentation fragmentation(const CapacityView& view, const std::vector<std::uint32_t>& accels) {
  // `accels` is sorted and every domain owns a contiguous range of
  // accelerators, so the accelerators taken from one domain form one run.
  const Topology& t = view.topology();
  Fragmentation f;
  auto account = [&](DomainId d, std::uint32_t n) {
    std::uint32_t free = view.accelerators(d);
    std::uint32_t usable = view.occupancy().usable_in(d);
    if (free == usable && n < free) f.broken += free;
    double before = free;
    double left = free > n ? free - n : 0;
    f.concentration += left * left - before * before;
  };
  std::vector<DomainId> current(t.host_level() + 1, kNone);
  std::vector<std::uint32_t> taken(t.host_level() + 1, 0);
  for (std::uint32_t a : accels) {
    DomainId d = view.occupancy().node_of(a);
    for (LevelIndex l = t.domain(d).level; d != t.root(); d = t.domain(d).parent, --l) {
      if (current[l] == d) {
        ++taken[l];
        continue;
      }
      if (current[l] != kNone) account(current[l], taken[l]);
      current[l] = d;
      taken[l] = 1;
    }
  }
  for (LevelIndex l = 0; l < current.size(); ++l)
    if (current[l] != kNone) account(current[l], taken[l]);
  return f;
}

}  // namespace

std::vector<std::uint32_t> TopoPolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  const Topology& t = view.topology();
  if (request.units == 0) return {};
  LevelIndex coarsest = request.required.value_or(0);
  if (view.count(t.root()) < request.units) return {};
  const Occupancy& occ = view.occupancy();
  for (LevelIndex level = t.host_level() + 1; level-- > coarsest;) {
    const std::uint32_t most = view.whole_nodes() ? occ.max_nodes_at(level) : occ.max_accelerators_at(level);
    if (most < request.units) continue;
    // Best fit, inside the busiest parent, then hierarchy order.
    std::vector<DomainId> fitting = view.tightest(level, request.units, kCandidates);
    if (fitting.empty()) continue;

    // Candidates live in a pool whose buffers are reused from job to job:
    // the fills are built in `fill` and copied in, so placing a job
    // allocates (almost) nothing.
    thread_local std::vector<std::vector<std::uint32_t>> pool;
    thread_local std::vector<std::uint32_t> fill;
    thread_local std::vector<DeviceId> ranks;
    std::size_t count = 0;
    for (DomainId d : fitting) {
      // Keep replicas and TP groups whole where the free space allows, else
      // only TP groups, else place unaligned.
      bool placed = false;
      for (Granules g : {Granules{request.granule, request.group}, Granules{request.granule, request.granule},
                         Granules{1, 1}}) {
        fill.clear();
        if (distribute(view, d, request.units, g, fill)) {
          placed = true;
          break;
        }
      }
      if (!placed) continue;
      const std::size_t first_of_domain = count;
      auto add = [&](std::vector<std::uint32_t>& candidate) {
        sort_runs(candidate);
        for (std::size_t c = first_of_domain; c < count; ++c)
          if (pool[c] == candidate) return;
        if (pool.size() == count) pool.emplace_back();
        pool[count++].assign(candidate.begin(), candidate.end());
      };
      add(fill);
      // With a cost model, also price other fills of the same domain: greedy
      // keeping only TP groups whole, balanced shares, and fewest nodes.
      if (!request.pricer) continue;
      Granules aligned{request.granule, request.group};
      fill.clear();
      if (request.group > request.granule && distribute(view, d, request.units, {request.granule, request.granule}, fill))
        add(fill);
      balanced(view, d, request.units, aligned, fill, add);
      fill.clear();
      if (fewest_nodes(view, d, request.units, aligned, fill)) add(fill);
    }
    std::size_t best = count;
    double best_cost = 0;
    Fragmentation best_frag;
    for (std::size_t c = 0; c < count; ++c) {
      const std::vector<std::uint32_t>& chosen = pool[c];
      double cost = 0;
      if (request.pricer && request.job && count > 1) {
        ranks.clear();
        for (std::uint32_t a : chosen) ranks.push_back(t.accelerators()[a]);
        cost = request.pricer->step_seconds(*request.job, ranks);
      }
      Fragmentation frag = fragmentation(view, chosen);
      bool better = best == count;
      if (!better) {
        double scale = std::max(best_cost, 1e-12);
        if (cost < best_cost && (best_cost - cost) / scale > kCostTolerance)
          better = true;
        else if (std::abs(cost - best_cost) / scale <= kCostTolerance)
          better = frag.broken < best_frag.broken ||
                   (frag.broken == best_frag.broken && frag.concentration > best_frag.concentration);
      }
      if (better) {
        best = c;
        best_cost = cost;
        best_frag = frag;
      }
    }
    if (best < count) return pool[best];
  }
  return {};
}

}  // namespace topoplan
