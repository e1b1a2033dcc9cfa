// Speed-aware placement for synchronous jobs (the straggler model,
// straggler_model.hpp): the policy's own choice, and its choices on views
// narrowed to ever faster devices, compared by one objective, the estimated
// step time (compute at the slowest member's speed + communication). So a
// job lands on equally fast devices under the same topology when there are
// enough, and trades a little communication for a much faster slowest
// member when that pays. The planner's hook (place_replica).
#pragma once

#include <vector>

#include "planner_core.hpp"

namespace topoplan {

/// Distinct accelerator speeds of `topology`, for the default class and every
/// other, fastest first.
std::vector<float> speed_levels(const Topology& topology);

/// Whether the planner weighs speed for `job`: a training job of several
/// ranks, under the topo policy (the peers are speed-blind), on a topology
/// whose accelerators differ in speed.
bool weighs_speed(const PlannerCore& core, const Job& job, const JobShape& shape);

/// One replica in `view` (accelerator indices, empty when none fits).
std::vector<std::uint32_t> place_speed_aware(const PlannerCore& core, const CapacityView& view, const Job& job,
                                             const JobShape& shape);

}  // namespace topoplan
