// topoplan's own placement policy: locality first (the finest level whose
// domain holds the group), then the cost model among the best-fitting domains
// and several ways to fill each, then fragmentation. See
// lib/src/placement/topo_policy.cpp for the rules.
#pragma once

#include "topoplan/placement/policy.hpp"

namespace topoplan {

class TopoPolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "topo"; }
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;
};

/// First fit in device order; the topology is ignored (so are required,
/// preferred and replicas_within levels, which `check` and `evaluate` then
/// report as violated).
class NaivePolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "naive"; }
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;
  std::optional<std::vector<DomainId>> within_domains(const CapacityView&, const WithinRequest&) const override {
    return std::nullopt;
  }
};

}  // namespace topoplan
