// The `slurm` peer policies: what Slurm's select/cons_tres with
// topology/tree would allocate when the switch tree is our domain tree (one
// switch per domain above the host level, leaf switches just above the nodes)
// and the node order is ours. lib/src/placement/slurm_policy.cpp states the
// rules and where in Slurm's source each one comes from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/policy.hpp"

namespace topoplan {

/// Slurm changed how it picks the next leaf switch in 24.05.3 (commits
/// 2ec1d02624 and 64263118c3, ticket 20547); both behaviours are kept so
/// that plans can be compared with either generation of clusters.
enum class SlurmTreeRules : std::uint8_t {
  current,  // 24.05.3 and later: `slurm`
  v22_05,   // 22.05 up to 24.05.2 (Debian bookworm ships 22.05): `slurm-22.05`
};

class SlurmPolicy : public PlacementPolicy {
 public:
  explicit SlurmPolicy(SlurmTreeRules rules = SlurmTreeRules::current) : rules_(rules) {}
  std::string_view name() const override;
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;
  /// When the allocation spans leaf switches under --switches=1: what Slurm
  /// does, and that it leaves the job pending.
  std::string why_not(const CapacityView& view, const PlaceRequest& request) const override;
  /// Slurm allocates a job's nodes at once and has no outer domain for its
  /// segments: replicas_within is not expressed (check reports it).
  std::optional<std::vector<DomainId>> within_domains(const CapacityView&, const WithinRequest&) const override {
    return std::nullopt;
  }

 private:
  std::vector<std::uint32_t> allocate(const CapacityView& view, const PlaceRequest& request, std::string* why) const;
  SlurmTreeRules rules_;
};

}  // namespace topoplan
