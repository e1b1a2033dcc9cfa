// How many failures at each level a job or service survives where the plan
// put it. A replica stops when any domain holding one of its accelerators
// fails; a job keeps its guarantee while at least Job::needed_replicas()
// replicas run (a training job is one replica: any failure under it stops
// it). Survives k means every choice of k failed domains of the level
// leaves enough replicas; the worst choice is found exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/placement/planner.hpp"

namespace topoplan {

struct LevelResilience {
  LevelIndex level = 0;
  /// Failures of distinct domains of the level the job survives, whichever
  /// fail (at most replicas - replicas_needed).
  std::uint32_t survives = 0;
  /// Domains of the level the job's accelerators sit in.
  std::uint32_t domains = 0;
  /// Replicas, and accelerators, still running after the worst single
  /// failure at the level.
  std::uint32_t replicas_after_one = 0;
  std::uint64_t accelerators_after_one = 0;
};

struct JobResilience {
  std::size_t job = 0;                 // index into the plan
  std::uint32_t replicas = 0;
  std::uint32_t replicas_needed = 0;
  std::vector<LevelResilience> levels; // every level below the root, coarsest first
};

/// The resilience of every placed job of `plan`, in plan order.
std::vector<JobResilience> resilience(const Topology& topology, const Plan& plan);

/// The fewest domains whose failure stops at least `stop` of the replicas,
/// where failing domain i stops the replicas in `hits[i]` (replica indices):
/// exact, by branch and bound (hits.size() is at most the job's
/// accelerators). Returns hits.size() + 1 when even all of them stop fewer.
std::uint32_t fewest_failures(const std::vector<std::vector<std::uint32_t>>& hits, std::uint32_t replicas,
                              std::uint32_t stop);

}  // namespace topoplan
