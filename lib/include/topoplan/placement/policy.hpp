// Placement policies: given what is free, choose the accelerators for one
// group (a training job, or one replica of a service). The planner
// (planner.hpp) runs the queue, gang semantics, spreading and pricing around
// them, the same for every policy, so policies differ only in their choice.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/job.hpp"
#include "topoplan/placement/capacity_view.hpp"

namespace topoplan {

/// Prices a candidate placement: seconds of communication per step for `job`
/// on `ranks` (device ids in rank order). Implemented over the cost model.
class PlacementPricer {
 public:
  virtual ~PlacementPricer() = default;
  virtual double step_seconds(const Job& job, std::span<const DeviceId> ranks) const = 0;
};

/// One group to place.
struct PlaceRequest {
  std::uint32_t units = 0;                  // accelerators, or nodes when the view counts nodes
  std::uint32_t granule = 1;                // keep runs of this many accelerators in one node (TP groups)
  std::uint32_t group = 1;                  // and runs of this many on one side of any coarser split
                                            // (a model replica: TP x PP), where it can be done
  std::optional<LevelIndex> required;       // all in one domain of this level
  std::optional<LevelIndex> preferred;      // as few domains of this level as possible
  const Job* job = nullptr;                 // for pricing; may be null
  const PlacementPricer* pricer = nullptr;  // may be null
};

/// A job whose replicas must all sit in one domain of `level`
/// (Job::replicas_within): Kueue's slices inside one required domain.
struct WithinRequest {
  PlaceRequest replica;               // one replica, as place() gets it
  std::uint32_t replicas = 1;
  LevelIndex level = 0;
  std::optional<LevelIndex> spread;   // at most one replica per domain of this level
};

/// How many replicas each domain of `request.level` can take by its usable
/// counts alone: each replica inside one domain of `replica.required` when
/// that is finer, and with `spread` at most one per domain of that level.
/// Indexed by domain id minus the level's first id.
std::vector<std::uint32_t> replica_capacity(const CapacityView& view, const WithinRequest& request);

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  /// Accelerator indices (into Topology::accelerators()) in rank order, or an
  /// empty vector when the request does not fit. Must be deterministic.
  virtual std::vector<std::uint32_t> place(const CapacityView& view, const PlaceRequest& request) const = 0;
  /// The domains of `request.level` to try for all replicas of a job, best
  /// first; the planner places every replica with place() inside the first
  /// domain that takes them all. Empty: none can. nullopt: the policy cannot
  /// express the constraint, so the replicas are placed without it and
  /// check_placement reports it when broken. The default, for `topo`: every
  /// domain with room for all replicas by replica_capacity, the tightest
  /// first (fewest replicas, then fewest free units, then hierarchy order),
  /// so that large free domains stay whole.
  virtual std::optional<std::vector<DomainId>> within_domains(const CapacityView& view,
                                                              const WithinRequest& request) const;
  /// Why place() returns nothing for `request` when the policy knows better
  /// than the free counts (a peer scheduler's own rule); empty otherwise.
  virtual std::string why_not(const CapacityView& view, const PlaceRequest& request) const;
};

/// The policies by name: topo (default), kueue, slurm, slurm-22.05, naive.
/// Throws InputError (with the list and a suggestion) for an unknown name.
std::unique_ptr<PlacementPolicy> make_policy(std::string_view name, const Topology& topology);
std::vector<std::string> policy_names();

}  // namespace topoplan
