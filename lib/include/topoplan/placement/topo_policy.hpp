// topoplan's own placement policy: locality first (the finest level whose
// domain holds the group), then fragmentation (best fit in the busiest
// parent), then the cost model among the best candidates. See
// lib/src/placement/topo_policy.cpp for the rules.
#pragma once

#include "topoplan/placement/policy.hpp"

namespace topoplan {

class TopoPolicy : public PlacementPolicy {
 public:
  /// `island_level`: the level of scale-up islands (rack for NVL72, node for
  /// DGX), whose free islands the policy tries to keep whole.
  explicit TopoPolicy(LevelIndex island_level);
  std::string_view name() const override { return "topo"; }
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;

 private:
  LevelIndex island_level_;
};

/// First fit in device order; the topology is ignored (so are required and
/// preferred levels, which `check` and `evaluate` then report as violated).
class NaivePolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "naive"; }
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;
};

}  // namespace topoplan
