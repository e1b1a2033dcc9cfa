// The `kueue` peer policy: Kueue's topology-aware scheduling (TAS) as read in
// kubernetes-sigs/kueue at ff69552e79ad (v0.20.0-devel, 2026-08-22). All
// functions named below are in pkg/cache/scheduler/tas_flavor_snapshot.go
// unless another file is given.
//
// Mapping of our model onto Kueue's:
// - Kueue's Topology levels are our levels below the root (a Kueue Topology
//   has no single "cluster" domain); the host level is Kueue's
//   kubernetes.io/hostname level. A level value is a domain's local name, or
//   the hostname for nodes.
// - Kueue counts pods. One accelerator is one pod requesting 1 GPU; a job with
//   tensor-parallel groups (PlaceRequest::granule > 1, dividing the request) is
//   one pod per group requesting `granule` GPUs, so a group never straddles
//   nodes; a whole-node job is one pod per node requesting all of its GPUs.
// - required: L  -> annotation podset-required-topology: L;
//   preferred: L -> podset-preferred-topology: L; with both, required wins
//   (Kueue rejects two annotations, tas_validation.go). A request at our root
//   level, which Kueue cannot name, is treated as preferred at Kueue's top
//   level (it is satisfied by any placement).
// - No annotation: the ClusterQueue is taken to be TAS-only, so TAS is implied
//   (isTASImplied in pkg/scheduler/flavorassigner/tas_flavorassigner.go) and
//   the request is unconstrained at the lowest level
//   (levelKeyWithImpliedFallback, isUnconstrained).
// - Profile: the default since v0.15, TASProfileMixed (pkg/features/
//   kube_features.go): BestFit for required and preferred, LeastFreeCapacity
//   for unconstrained (useBestFitAlgorithm, useLeastFreeCapacityAlgorithm).
//   Leaders, node affinity and balanced placement are not modelled.
// - Slices (podset-slice-required-topology: L2 with podset-required-topology:
//   L1) are the job's replicas, each required at L2, with replicas_within: L1.
//   The L1 domain is chosen as Kueue chooses it (rule 7); inside it each slice
//   is then placed as one required request (rules 1-6), which gives each
//   slice an L2 domain of its own, as Kueue's descent at the slice level does.
//
// Rules:
// 1. Capacity roll-up (fillInCounts, fillLeafCounts, fillInCountsHelper): a
//    node holds floor(usable GPUs / GPUs per pod) pods; a domain holds the sum
//    of its children.
// 2. Domain order (sortedDomains, sortedDomainsWithLeader): BestFit sorts by
//    pods that fit descending, LeastFreeCapacity ascending; ties by level
//    values ascending, compared as strings level by level
//    (compareDomainLevelValues), so "r10" sorts before "r2".
// 3. Best fit (findBestFitDomainBy): among the sorted candidates, the first
//    with the fewest pods that still hold the request.
// 4. Choosing the level and domains (findLevelWithFitDomains):
//    - BestFit: if the largest domain of the level holds the request, take the
//      best fit (rule 3) of the level;
//    - LeastFreeCapacity: the first domain, in ascending order, that holds it;
//    - otherwise: required fails; preferred retries one level up
//      (searchLevelIdx-1) until Kueue's top level; at the top level (and for
//      unconstrained at its own level) domains are taken greedily in sorted
//      order, each whole, and with BestFit the domain that completes the
//      request is the best fit of the rest ("optimize the last domain").
// 5. Descent (findTopologyAssignment phase 2b, updateCountsToMinimumGeneric):
//    the counts are first distributed over the chosen domains in the order
//    found; then level by level the children of all chosen domains are pooled,
//    sorted by rule 2, and filled greedily (each child whole), the last one the
//    best fit (rule 3) of the rest with BestFit. Pooling means a parent's share
//    is not enforced below the fit level, as in Kueue without slices.
// 6. Rank order (buildAssignment sorts by compareDomainLevelValues;
//    rankToDomainID in pkg/controller/tas/topology_ungater.go expands the
//    assignment in stored order): nodes in lexicographic order of their level
//    values, consecutive ranks on one node; inside a node, its usable
//    accelerators in device order (the device plugin's choice, not Kueue's).
// 7. Slices (fillInCountsHelper, findLevelWithFitDomains,
//    findBestFitDomainForSlices): a domain of the slice level holds
//    floor(pods / pods per slice) slices, coarser domains the sum of their
//    children's; the domains of the required level are sorted by slices
//    descending, then pods ascending, then level values (sortedDomains), and
//    BestFit takes the first with the fewest slices that still holds them
//    all. When the first holds too few, the required request fails.
#include "topoplan/placement/kueue_policy.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string_view>

namespace topoplan {

namespace {

// Kueue's level values of a domain at its own level: the hostname for nodes,
// the local name elsewhere.
std::string_view level_value(const Topology& t, DomainId d) {
  const Domain& dom = t.domain(d);
  return dom.level == t.host_level() && dom.hostname != 0 ? t.hostname(d) : t.str(dom.name);
}

std::vector<std::uint32_t> lexicographic_ranks(const Topology& t) {
  std::vector<std::uint32_t> rank(t.domain_count(), 0);
  for (LevelIndex l = 1; l <= t.host_level(); ++l) {
    auto [first, last] = t.domains_at(l);
    std::vector<DomainId> ids(last - first);
    std::iota(ids.begin(), ids.end(), first);
    // Comparing the parents' ranks, then the own value, is comparing the whole
    // vector of level values.
    std::sort(ids.begin(), ids.end(), [&](DomainId a, DomainId b) {
      std::uint32_t pa = rank[t.domain(a).parent];
      std::uint32_t pb = rank[t.domain(b).parent];
      if (pa != pb) return pa < pb;
      std::string_view va = level_value(t, a);
      std::string_view vb = level_value(t, b);
      if (va != vb) return va < vb;
      return a < b;
    });
    for (std::uint32_t i = 0; i < ids.size(); ++i) rank[ids[i]] = i;
  }
  return rank;
}

enum class FitAlgorithm { best_fit, least_free_capacity };

// One run of Kueue's assignment for one PodSet.
class Assignment {
 public:
  Assignment(const Topology& t, const std::vector<std::uint32_t>& lex, FitAlgorithm algorithm)
      : t_(t), lex_(lex), algorithm_(algorithm), pods_(t.domain_count(), 0) {}

  // Rule 1: pods per node, summed upwards.
  void fill_counts(const std::vector<std::uint32_t>& node_pods) {
    auto [first, last] = t_.domains_at(t_.host_level());
    for (DomainId n = first; n < last; ++n) pods_[n] = node_pods[n - first];
    for (LevelIndex l = t_.host_level(); l-- > 0;) {
      auto [lf, ll] = t_.domains_at(l);
      for (DomainId d = lf; d < ll; ++d) {
        const Domain& dom = t_.domain(d);
        std::uint32_t sum = 0;
        for (std::uint32_t c = 0; c < dom.child_count; ++c) sum += pods_[dom.first_child + c];
        pods_[d] = sum;
      }
    }
  }

  std::uint32_t pods(DomainId d) const { return pods_[d]; }

  // Rule 2.
  void sort(std::vector<DomainId>& domains) const {
    std::sort(domains.begin(), domains.end(), [&](DomainId a, DomainId b) {
      if (pods_[a] != pods_[b])
        return algorithm_ == FitAlgorithm::best_fit ? pods_[a] > pods_[b] : pods_[a] < pods_[b];
      if (lex_[a] != lex_[b]) return lex_[a] < lex_[b];
      return a < b;  // different levels never meet here; keeps the order total
    });
  }

  // Rule 3: index of the best fit in sorted[from:], or `from` when none holds `needed`.
  std::size_t best_fit(const std::vector<DomainId>& sorted, std::size_t from, std::uint32_t needed) const {
    std::size_t best = from;
    bool found = false;
    for (std::size_t i = from; i < sorted.size(); ++i)
      if (pods_[sorted[i]] >= needed && (!found || pods_[sorted[i]] < pods_[sorted[best]])) {
        best = i;
        found = true;
      }
    return best;
  }

  struct Fit {
    LevelIndex level = 0;
    std::vector<DomainId> domains;
  };

  // Rule 4.
  std::optional<Fit> find_level(LevelIndex level, LevelIndex top_level, std::uint32_t needed, bool required,
                                bool unconstrained) const {
    auto [first, last] = t_.domains_at(level);
    std::vector<DomainId> sorted(last - first);
    std::iota(sorted.begin(), sorted.end(), first);
    sort(sorted);
    if (sorted.empty()) return std::nullopt;
    const bool bf = algorithm_ == FitAlgorithm::best_fit;
    DomainId top = sorted.front();
    if (bf && pods_[top] >= needed) top = sorted[best_fit(sorted, 0, needed)];
    if (!bf) {
      for (DomainId d : sorted)
        if (pods_[d] >= needed) return Fit{level, {d}};
      if (required) return std::nullopt;
    }
    if (pods_[top] >= needed) return Fit{level, {top}};
    if (required) return std::nullopt;
    if (level > top_level && !unconstrained) return find_level(level - 1, top_level, needed, required, unconstrained);
    Fit fit{level, {}};
    std::int64_t remaining = needed;
    for (std::size_t i = 0; i < sorted.size() && remaining > 0; ++i) {
      DomainId d = sorted[i];
      if (bf && pods_[d] >= remaining) d = sorted[best_fit(sorted, i, static_cast<std::uint32_t>(remaining))];
      fit.domains.push_back(d);
      remaining -= pods_[d];
    }
    if (remaining > 0) return std::nullopt;
    return fit;
  }

  // Rule 5, one level: gives `count` pods to `domains` (in this order), each
  // whole, the last the best fit of the rest; returns the domains used, with
  // their pod counts overwritten by what they got.
  std::vector<DomainId> distribute(const std::vector<DomainId>& domains, std::uint32_t count) {
    std::vector<DomainId> used;
    std::uint32_t remaining = count;
    for (std::size_t i = 0; i < domains.size(); ++i) {
      DomainId d = domains[i];
      if (algorithm_ == FitAlgorithm::best_fit && pods_[d] >= remaining) d = domains[best_fit(domains, i, remaining)];
      used.push_back(d);
      if (pods_[d] >= remaining) {
        pods_[d] = remaining;
        return used;
      }
      remaining -= pods_[d];
    }
    return {};  // Kueue logs "code assumptions violated"; cannot happen after find_level
  }

  std::vector<DomainId> descend(Fit fit, std::uint32_t count) {
    std::vector<DomainId> current = distribute(fit.domains, count);
    for (LevelIndex level = fit.level; level < t_.host_level() && !current.empty(); ++level) {
      std::vector<DomainId> children;
      for (DomainId d : current) {
        const Domain& dom = t_.domain(d);
        for (std::uint32_t c = 0; c < dom.child_count; ++c) children.push_back(dom.first_child + c);
      }
      sort(children);
      current = distribute(children, count);
    }
    return current;
  }

 private:
  const Topology& t_;
  const std::vector<std::uint32_t>& lex_;
  FitAlgorithm algorithm_;
  std::vector<std::uint32_t> pods_;  // per domain: pods that fit, then pods assigned
};

// Pods per accelerator request: whole nodes, tensor-parallel groups, or
// single accelerators (see the mapping above).
std::uint32_t pod_size_of(const CapacityView& view, const PlaceRequest& request) {
  if (view.whole_nodes()) return 1;
  return request.granule > 1 && request.units % request.granule == 0 ? request.granule : 1;
}

std::vector<std::uint32_t> pods_per_node(const CapacityView& view, std::uint32_t pod_size) {
  const Topology& t = view.topology();
  auto [first_node, last_node] = t.domains_at(t.host_level());
  std::vector<std::uint32_t> node_pods(last_node - first_node, 0);
  for (DomainId n = first_node; n < last_node; ++n)
    node_pods[n - first_node] = view.whole_nodes() ? view.count(n) : view.accelerators(n) / pod_size;
  return node_pods;
}

}  // namespace

std::optional<std::vector<DomainId>> KueuePolicy::within_domains(const CapacityView& view,
                                                                 const WithinRequest& request) const {
  const Topology& t = view.topology();
  const PlaceRequest& r = request.replica;
  std::vector<DomainId> out;
  if (r.units == 0) return out;
  std::vector<std::uint32_t> other_lex;
  if (&t != topology_) other_lex = lexicographic_ranks(t);
  const std::vector<std::uint32_t>& lex = &t == topology_ ? lex_rank_ : other_lex;

  // Rule 7: slices per domain of the slice level, summed up to the required level.
  const std::uint32_t pod_size = pod_size_of(view, r);
  const std::uint32_t slice_pods = std::max(1u, view.whole_nodes() ? r.units : r.units / pod_size);
  Assignment run(t, lex, FitAlgorithm::best_fit);
  run.fill_counts(pods_per_node(view, pod_size));
  const LevelIndex level = request.level;
  const LevelIndex slice_level = std::max(r.required.value_or(level), level);
  auto [first, last] = t.domains_at(level);
  std::vector<std::uint32_t> slices(last - first, 0);
  auto [slice_first, slice_last] = t.domains_at(slice_level);
  for (DomainId d = slice_first; d < slice_last; ++d) slices[t.ancestor(d, level) - first] += run.pods(d) / slice_pods;

  std::vector<DomainId> sorted(last - first);
  std::iota(sorted.begin(), sorted.end(), first);
  std::sort(sorted.begin(), sorted.end(), [&, first = first](DomainId a, DomainId b) {
    if (slices[a - first] != slices[b - first]) return slices[a - first] > slices[b - first];
    if (run.pods(a) != run.pods(b)) return run.pods(a) < run.pods(b);
    if (lex[a] != lex[b]) return lex[a] < lex[b];
    return a < b;
  });
  if (sorted.empty() || slices[sorted.front() - first] < request.replicas) return out;
  DomainId best = sorted.front();
  for (DomainId d : sorted)
    if (slices[d - first] >= request.replicas && slices[d - first] < slices[best - first]) best = d;
  out.push_back(best);
  return out;
}

KueuePolicy::KueuePolicy(const Topology& topology) : topology_(&topology), lex_rank_(lexicographic_ranks(topology)) {}

std::vector<std::uint32_t> KueuePolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  const Topology& t = view.topology();
  if (request.units == 0) return {};
  std::vector<std::uint32_t> other_lex;
  if (&t != topology_) other_lex = lexicographic_ranks(t);
  const std::vector<std::uint32_t>& lex = &t == topology_ ? lex_rank_ : other_lex;

  // Pods: whole nodes, tensor-parallel groups, or single accelerators.
  const bool whole = view.whole_nodes();
  const std::uint32_t pod_size = pod_size_of(view, request);
  const std::uint32_t needed = whole ? request.units : request.units / pod_size;
  std::vector<std::uint32_t> node_pods = pods_per_node(view, pod_size);

  // Kueue's levels start below our root, unless the root is the only level.
  const LevelIndex top_level = t.host_level() == 0 ? 0 : 1;
  LevelIndex level = t.host_level();
  bool required = false;
  bool unconstrained = false;
  if (request.required) {
    level = std::max(*request.required, top_level);
    required = *request.required >= top_level;
  } else if (request.preferred) {
    level = std::max(*request.preferred, top_level);
  } else {
    unconstrained = true;
  }
  Assignment run(t, lex, unconstrained ? FitAlgorithm::least_free_capacity : FitAlgorithm::best_fit);
  run.fill_counts(node_pods);
  std::optional<Assignment::Fit> fit = run.find_level(level, top_level, needed, required, unconstrained);
  if (!fit) return {};
  std::vector<DomainId> nodes = run.descend(std::move(*fit), needed);

  // Rule 6: ranks follow the nodes' level values.
  std::sort(nodes.begin(), nodes.end(), [&](DomainId a, DomainId b) { return lex[a] < lex[b]; });
  std::vector<std::uint32_t> out;
  std::uint32_t pods = 0;
  for (DomainId n : nodes) {
    const Domain& node = t.domain(n);
    pods += run.pods(n);
    std::uint32_t take = whole ? (run.pods(n) ? node.accelerator_count() : 0) : run.pods(n) * pod_size;
    for (std::uint32_t a = node.accel_begin; a < node.accel_end && take > 0; ++a)
      if (view.usable(a)) {
        out.push_back(a);
        --take;
      }
  }
  if (pods != needed) out.clear();
  return out;
}

}  // namespace topoplan
