// The inside of PlannerState (planner_state.hpp): the occupancy, the policy,
// tenants, domains exclusive jobs keep to themselves, the scenario mask, and
// the jobs placed so far; plus the steps every placement shares (views that
// carry a job's constraints, replicas one by one, spreading, rollback).
// Failure explanations (placement_explain.hpp) read it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "job_shape.hpp"
#include "price_cache.hpp"
#include "topoplan/placement/planner_state.hpp"
#include "topoplan/placement/policy.hpp"

namespace topoplan {

/// A running pod's accelerators: the first free ones of its node (a pod list
/// says how many a node's pods hold, not which).
void take_running(const Topology& t, const RunningPods::OnNode& n, std::uint32_t owner, Occupancy& occupancy);

class PlannerCore {
 public:
  using JobId = PlannerState::JobId;

  struct Entry {
    Job job;
    JobPlacement placement;
    std::vector<DomainId> kept;   // domains it keeps to itself (exclusive_level)
    std::uint32_t tenant = kNone;
    bool active = true;
  };

  PlannerCore(const Topology& topology, PlannerOptions options);
  /// A copy with the same jobs, occupancy, mask and cached prices, and a
  /// policy of its own.
  PlannerCore(const PlannerCore& other);
  PlannerCore& operator=(const PlannerCore&) = delete;

  const Topology& t;
  PlannerOptions options;
  Occupancy occupancy;
  NodeUsage usage;  // what placed and running pods use besides accelerators
  std::unique_ptr<PlacementPolicy> policy;
  std::uint32_t node_size;  // accelerators of the typical node
  std::vector<float> speed_levels;  // distinct accelerator speeds, fastest first (speed_aware.hpp)
  ScenarioMask mask;
  std::vector<Entry> jobs;

  /// A tenant's id, registering it when new (kNone for "").
  std::uint32_t tenant_id(const std::string& tenant);
  /// A tenant's id if known, else an id no node carries (kNone for "").
  std::uint32_t find_tenant(const std::string& tenant) const;
  bool any_tenant() const { return !tenants_.empty(); }

  /// What `job` may use: its model, its tenant's nodes, nothing in
  /// `excluded`, only what is inside `inside` (kNone: anywhere), and for an
  /// exclusive job only domains of its level nobody else uses.
  CapacityView view_for(const Job& job, const JobShape& shape, const std::vector<DomainId>& excluded,
                        DomainId inside = kNone) const;
  /// The same constraints over another occupancy (e.g. empty()).
  CapacityView view_over(const Occupancy& occupancy, const Job& job, const JobShape& shape) const;
  PlaceRequest request_for(const Job& job, const JobShape& shape) const;
  std::vector<std::uint32_t> place_replica(const Job& job, const JobShape& shape,
                                           const std::vector<DomainId>& excluded, DomainId inside = kNone) const;

  /// Places every replica or none, inside `inside` unless it is kNone; on
  /// success the accelerators are taken for `id` and `out` holds the devices.
  bool place(const Job& job, const JobShape& shape, JobId id, JobPlacement& out, DomainId inside = kNone);
  /// Places `count` replicas or none, each apart (by the job's spread level)
  /// from the domains in `excluded` and from each other, inside `inside`
  /// unless it is kNone; a replicas_within job without `inside` goes to the
  /// domains the policy names. On success the accelerators are taken for
  /// `id` and `out` holds one device list per replica.
  bool place_replicas(const Job& job, const JobShape& shape, JobId id, std::uint32_t count,
                      std::vector<DomainId> excluded, DomainId inside, std::vector<std::vector<DeviceId>>& out);
  /// Tells the policy that free accelerators changed on these nodes other
  /// than by taking what it returned (PlacementPolicy::nodes_changed).
  void nodes_changed(std::vector<DomainId> nodes) const;
  /// The same for accelerators (indices), reported by their nodes.
  void accelerators_changed(const std::vector<std::uint32_t>& accels) const;
  /// Takes the accelerators of running pods for `owner` and counts the rest
  /// of what they request as node usage.
  void occupy_running(const RunningPods& running, JobId owner);
  /// Takes the rest of each domain of `level` the replicas touch for `id`.
  std::vector<DomainId> keep(JobId id, std::uint32_t tenant, LevelIndex level,
                             const std::vector<std::vector<DeviceId>>& replicas);
  /// Free accelerators that exclusive_level jobs keep to themselves.
  std::uint64_t kept_free() const;
  /// Nothing taken, the mask applied: what the topology can hold at all.
  const Occupancy& empty() const;
  void apply_mask(const ScenarioMask& next);

 private:
  bool place_inside(const Job& job, const JobShape& shape, JobId id, std::uint32_t count,
                    std::vector<DomainId> excluded, DomainId inside, std::vector<std::vector<DeviceId>>& out);
  bool place_pod_groups(const Job& job, const JobShape& shape, JobId id, std::uint32_t groups, JobPlacement& out);
  const std::vector<std::uint8_t>* class_mask(const std::string& pattern) const;
  void exclude_isolated(const Job& job, CapacityView& view) const;

  std::unique_ptr<PriceCache> prices_;  // over options.pricer, when given
  std::map<std::string, std::uint32_t> tenants_;
  mutable std::map<std::string, std::vector<std::uint8_t>> class_masks_;  // per model glob; empty: every class
  mutable std::unique_ptr<Occupancy> empty_;
  // Jobs whose service isolates its tenant above the node, and how many of
  // `jobs` have been looked at for them (exclude_isolated).
  mutable std::vector<JobId> isolating_;
  mutable std::size_t isolation_seen_ = 0;
  mutable std::optional<LevelIndex> nvlink_level_;  // nvlink_domain_level, once needed
};

}  // namespace topoplan
