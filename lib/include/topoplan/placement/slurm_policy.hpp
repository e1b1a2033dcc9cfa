// The `slurm` peer policies: what Slurm's select/cons_tres with
// topology/tree would allocate when the switch tree is our domain tree (one
// switch per domain above the host level, leaf switches just above the nodes)
// and the node order is ours. lib/src/placement/slurm_policy.cpp states the
// rules and where in Slurm's source each one comes from.
#pragma once

#include <cstdint>
#include <memory>
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

/// How the policy finds the leaf switch Slurm would choose next: through an
/// index of leaf switches by candidate nodes kept up to date between jobs
/// (the default, where the rules allow it), or by scanning every leaf switch
/// as Slurm does. Both give the same allocation; tests hold them equal.
enum class SlurmSearch : std::uint8_t { indexed, scan };

class SlurmLeafIndex;

class SlurmPolicy : public PlacementPolicy {
 public:
  explicit SlurmPolicy(SlurmTreeRules rules = SlurmTreeRules::current, SlurmSearch search = SlurmSearch::indexed);
  ~SlurmPolicy() override;
  SlurmPolicy(const SlurmPolicy&) = delete;
  SlurmPolicy& operator=(const SlurmPolicy&) = delete;
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
  void nodes_changed(const std::vector<DomainId>& nodes) const override;

 private:
  std::vector<std::uint32_t> allocate(const CapacityView& view, const PlaceRequest& request, std::string* why) const;
  // The index over the occupancy of `view`, brought up to date.
  SlurmLeafIndex& leaf_index(const Occupancy& occupancy) const;

  SlurmTreeRules rules_;
  SlurmSearch search_;
  mutable std::unique_ptr<SlurmLeafIndex> index_;
  // Nodes whose free accelerators may have changed since the index last
  // read them: those of every allocation returned, and those reported.
  mutable std::vector<DomainId> touched_;
};

}  // namespace topoplan
