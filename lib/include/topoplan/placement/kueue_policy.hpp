// The `kueue` peer policy: what Kueue's topology-aware scheduling (TAS) would
// assign, with its default profile (BestFit for required and preferred
// requests, LeastFreeCapacity for requests without a topology annotation).
// lib/src/placement/kueue_policy.cpp states the rules and where in Kueue's
// source each one comes from.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/placement/policy.hpp"

namespace topoplan {

class KueuePolicy : public PlacementPolicy {
 public:
  /// Precomputes Kueue's lexicographic domain order for `topology`; place()
  /// recomputes it when given a view of another topology.
  explicit KueuePolicy(const Topology& topology);
  std::string_view name() const override { return "kueue"; }
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;
  /// Slices inside one required domain: Kueue's BestFit by slice count.
  std::optional<std::vector<DomainId>> within_domains(const CapacityView& view,
                                                      const WithinRequest& request) const override;

 private:
  const Topology* topology_;
  // Per domain: its position among the domains of its level when they are
  // sorted by Kueue's level values (ancestor names, then hostname).
  std::vector<std::uint32_t> lex_rank_;
};

}  // namespace topoplan
