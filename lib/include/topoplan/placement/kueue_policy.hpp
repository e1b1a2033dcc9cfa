// The `kueue` peer policy: what Kueue's topology-aware scheduling (TAS) would
// assign. It places pods, as Kueue does: each Kueue workload of a job (a Job,
// a JobSet, one LeaderWorkerSet group, one Deployment pod) gets Kueue's
// assignment (kueue_tas.hpp) on the nodes of its flavor, pods per node by the
// node's free capacity in every requested resource. lib/src/placement/
// kueue_policy.cpp says how topoplan's jobs and nodes become Kueue's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/kueue_tas.hpp"
#include "topoplan/placement/kueue_workload.hpp"
#include "topoplan/placement/policy.hpp"

namespace topoplan {

class KueuePolicy : public PlacementPolicy {
 public:
  /// Kueue with the feature gates `gates` (by default those of ff69552e).
  explicit KueuePolicy(const Topology& topology, kueue::Gates gates = {});
  ~KueuePolicy() override;

  std::string_view name() const override { return "kueue"; }
  const kueue::Gates& gates() const { return gates_; }
  /// One pod group of the request as accelerators (for callers that place
  /// accelerators, such as the planner's suggestions).
  std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const override;
  /// Kueue workloads of the job: a LeaderWorkerSet's groups and a
  /// Deployment's pods each; a service's replicas each; else one.
  std::uint32_t pod_groups(const Job& job) const override;
  PodPlacement place_pods(const CapacityView& view, const PlaceRequest& request) const override;
  void nodes_changed(const std::vector<DomainId>& nodes) const override;

  /// The workload Kueue would see for a job of topoplan's own format (or a
  /// request without a job): pods of the request's granule (or of one
  /// accelerator, or of a whole node), its levels as the topology's Kueue
  /// levels (default_kueue_levels).
  static KueueWorkload workload_for(const Topology& topology, const PlaceRequest& request, bool whole_nodes);

 private:
  struct Flavor;
  Flavor& flavor(const Topology& topology, const KueueFlavor& f) const;

  kueue::Gates gates_;
  mutable std::map<std::string, std::unique_ptr<Flavor>> flavors_;  // trees by flavor, built on first use
  // Nodes of every placement returned, and of every change the planner
  // reported (nodes_changed), in order: where free accelerators may have
  // changed since.
  mutable std::vector<DomainId> touched_;
  // Allocatable per resource and node of the last topology seen.
  mutable const Topology* allocatable_topology_ = nullptr;
  mutable std::map<std::string, std::vector<std::int64_t>, std::less<>> allocatable_;
};

/// The gates of a `--policy` value: `kueue` (Kueue's defaults at ff69552e),
/// `kueue:balanced` (TASBalancedPlacement), `kueue:best-fit` (TASProfileMixed
/// off: BestFit for unconstrained requests too), `kueue:affinity`
/// (TASRespectNodeAffinityPreferred), or `kueue:GATE=true|false,...` with
/// Kueue's gate names (TASProfileMixed, TASBalancedPlacement,
/// TASRespectNodeAffinityPreferred, TASMultiLayerTopology); shorthands and
/// gates combine. Throws InputError for anything else.
kueue::Gates parse_kueue_policy(std::string_view name);

}  // namespace topoplan
