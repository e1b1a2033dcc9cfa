// Free capacity as one placement sees it: the occupancy narrowed by the
// job's constraints (accelerator model, tenant isolation, a domain it must
// stay inside, domains it must avoid) and counted in accelerators or in whole
// free nodes.
//
// A view is cheap: it reads the occupancy's incremental counts and adjusts
// them for what it leaves out, so building one per replica costs
// O(excluded domains), not a pass over the cluster. Only restrict() with an
// arbitrary predicate (and a model filter combined with tenant isolation)
// falls back to visiting every accelerator. The occupancy must not change
// while a view of it is in use.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "topoplan/placement/occupancy.hpp"

namespace topoplan {

class CapacityView {
 public:
  CapacityView(const Occupancy& occupancy, bool whole_nodes);

  const Topology& topology() const { return occupancy_->topology(); }
  const Occupancy& occupancy() const { return *occupancy_; }
  bool whole_nodes() const { return whole_nodes_; }
  /// Whether anything narrows the occupancy's free counts, so that a policy
  /// keeping counts of its own over the occupancy cannot use them.
  bool narrowed() const { return !simple_; }

  /// Only accelerators of the given classes (indices into
  /// Occupancy::models(); `wanted[k]` for class k) count.
  void only_classes(const std::vector<std::uint8_t>& wanted);
  /// Tenant isolation: nodes another tenant's jobs use are left out; with
  /// `tenant` == kNone (a job without a tenant) every node a tenant uses is.
  void for_tenant(std::uint32_t tenant);
  /// Only accelerators inside `domain` count.
  void inside(DomainId domain);
  /// Makes a whole domain unusable (e.g. one already holding a replica).
  void exclude(DomainId domain);
  /// Keeps only accelerators for which `usable` holds. Visits every
  /// accelerator: prefer the narrower calls above.
  void restrict(const std::function<bool(std::uint32_t accel)>& usable);

  /// Usable units in a domain: accelerators, or whole nodes.
  std::uint32_t count(DomainId domain) const { return whole_nodes_ ? nodes(domain) : accelerators(domain); }
  /// Usable accelerators in a domain (whatever the unit).
  std::uint32_t accelerators(DomainId domain) const {
    return simple_ ? occupancy_->free_in(domain) : filtered_ ? free_[domain] : adjusted(domain, false);
  }
  /// Whole usable nodes in a domain.
  std::uint32_t nodes(DomainId domain) const {
    return simple_ ? occupancy_->free_nodes_in(domain) : filtered_ ? free_nodes_[domain] : adjusted(domain, true);
  }
  bool usable(std::uint32_t accel) const;
  /// Whether every accelerator of `node` is usable.
  bool node_free(DomainId node) const {
    return topology().domain(node).accelerator_count() > 0 &&
           accelerators(node) == topology().domain(node).accelerator_count();
  }
  /// The domains of `level` with at least `units` usable units, tightest
  /// first: the fewest units, then the busiest parent (fewest units), then
  /// hierarchy order; at most `limit` of them. Walks the occupancy's
  /// FitIndex from the first domain that fits when the view narrows the
  /// occupancy by domains only (inside, exclude); scans the level otherwise.
  std::vector<DomainId> tightest(LevelIndex level, std::uint32_t units, std::size_t limit) const;

  /// Whether the view counts `domain` and everything below it exactly as the
  /// occupancy does (no filter, no exclusion inside it, not cut by inside()),
  /// so the occupancy's per-node histograms hold for it.
  bool exact(DomainId domain) const;
  /// exact() for every domain of `level`, indexed from its first domain: one
  /// pass over the level and the exclusions instead of a search per domain.
  std::vector<std::uint8_t> exact_at(LevelIndex level) const;

  /// How the view counts the domains of one level when it narrows the
  /// occupancy by domains only (inside, exclude; a tenant rule that leaves
  /// nothing out): every domain of the level outside [first, last) counts 0,
  /// and inside it every domain but those in `inexact` (sorted) is exact().
  struct LevelCut {
    DomainId first = 0, last = 0;
    std::vector<DomainId> inexact;
  };
  /// The cut of `level` in O(exclusions), or nullopt when a filter (classes,
  /// tenants, restrict) narrows the view.
  std::optional<LevelCut> cut_at(LevelIndex level) const;

 private:
  struct Range {
    std::uint32_t begin, end;   // accelerator indices
    DomainId domain;
  };
  std::uint32_t base_accelerators(DomainId domain) const;
  std::uint32_t base_nodes(DomainId domain) const;
  bool base_usable(std::uint32_t accel) const;
  // Excluded ranges overlapping [begin, end): their index span, and whether
  // one contains the whole range.
  std::pair<std::size_t, std::size_t> excluded_within(std::uint32_t begin, std::uint32_t end, bool& covered) const;
  void prepare() const;
  void materialize();
  void recount();
  std::uint32_t adjusted(DomainId domain, bool in_nodes) const;
  // Whether every difference from the occupancy's counts comes from
  // inside() and exclude().
  bool by_domains() const;

  const Occupancy* occupancy_;
  bool whole_nodes_;
  bool simple_ = true;  // nothing narrows the occupancy's counts
  // Fast filters.
  std::vector<std::uint8_t> classes_;  // empty: every class
  bool tenant_rule_ = false;
  std::uint32_t tenant_ = kNone;
  DomainId inside_ = kNone;
  std::vector<Range> excluded_;        // sorted by begin, disjoint once prepared
  mutable bool prepared_ = true;
  mutable std::vector<std::uint64_t> excluded_accels_;  // prefix sums of base counts
  mutable std::vector<std::uint64_t> excluded_nodes_;
  // Slow path: every accelerator decided once.
  bool filtered_ = false;
  std::vector<std::uint8_t> usable_;       // per accelerator
  std::vector<std::uint32_t> free_;        // per domain
  std::vector<std::uint32_t> free_nodes_;  // per domain
};

}  // namespace topoplan
