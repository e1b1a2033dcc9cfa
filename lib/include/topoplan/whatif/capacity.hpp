// How many more jobs of one shape fit: PlannerState::place in a loop on a
// copy of the plan's state (fits now) and on the same cluster empty (fits
// at all), with the same policy, so the count is what the planner would
// place, fragmentation included.
#pragma once

#include <cstdint>
#include <string>

#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/planner_state.hpp"

namespace topoplan {

struct CapacityCount {
  std::uint64_t fits_now = 0;    // beside the plan's jobs
  std::uint64_t fits_empty = 0;  // on the cluster with nothing running
  /// The accelerators one such job takes (all replicas), as placed.
  std::uint64_t accelerators_each = 0;
  /// Why one more does not fit beside the plan's jobs (the planner's words).
  std::string reason_now;
  std::string reason_empty;
};

/// Counts copies of `probe` that fit beside the jobs of `state` (which is
/// left unchanged) and on its topology with nothing running (the state's
/// mask and policy apply to both).
CapacityCount count_capacity(const PlannerState& state, const Job& probe);

}  // namespace topoplan
