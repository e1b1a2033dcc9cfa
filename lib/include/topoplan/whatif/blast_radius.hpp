// What a scenario hits in a plan: every job and replica that loses an
// accelerator or a part of the fabric it uses (footprint.hpp), which of them
// must move (an accelerator is down or drained, or its accelerators no
// longer reach each other) and which keep running degraded, the services
// whose guarantee (min_replicas) no longer holds, and the capacity lost.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/scenario_mask.hpp"

namespace topoplan {

struct ReplicaImpact {
  std::uint32_t replica = 0;     // index into the placement's replicas
  std::vector<DeviceId> lost;    // its accelerators that are down or drained
  std::vector<DeviceId> devices; // other devices it uses that are down or drained
  std::vector<LinkId> links;     // links it uses that are out (down, drained, or an end is)
  bool broken = false;           // its accelerators no longer reach each other
  bool must_move() const { return !lost.empty() || broken; }
};

struct JobImpact {
  std::size_t job = 0;                  // index into the plan
  std::vector<ReplicaImpact> replicas;  // the replicas hit, in order
  std::uint32_t replicas_left = 0;      // replicas that keep running (degraded or not)
  std::uint32_t replicas_needed = 0;    // Job::needed_replicas()

  bool must_move() const;
  /// Hit, but every replica keeps running on what is left of its fabric.
  bool degraded() const { return !must_move(); }
  /// Fewer replicas left than the service needs (any loss for a training job).
  bool guarantee_broken() const { return replicas_left < replicas_needed; }
  std::uint64_t accelerators_lost() const;
};

struct BlastRadius {
  /// Accelerators the scenario takes away (available before, not after).
  std::uint64_t accelerators_lost = 0;
  /// Per level (index = LevelIndex): accelerators in domains of that level
  /// that had every accelerator available before and do not after, i.e.
  /// what a job asking for a whole such domain can no longer get.
  std::vector<std::uint64_t> capacity_lost;
  /// Per level: the most free accelerators in one domain once the replicas
  /// that must move have stopped (before anything is re-placed).
  std::vector<std::uint32_t> largest_free;
  std::vector<JobImpact> jobs;  // the jobs hit, in plan order
};

/// The blast radius of `mask` on the placed jobs of `plan`.
BlastRadius blast_radius(const Topology& topology, const Plan& plan, const ScenarioMask& mask);

}  // namespace topoplan
