// Why a job does not fit, in words a user can act on ("needs 300 GPUs in one
// rack; a rack holds at most 72"), and what would work instead ("fits with
// `preferred: rack` across 2 racks at +40 % step time"). Reads the planner
// state; changes nothing.
#pragma once

#include "planner_core.hpp"

namespace topoplan {

/// Fills out.reason and, where one exists, out.suggestion for a job that
/// PlannerCore::place could not place.
void explain_unplaced(const PlannerCore& core, const Job& job, const JobShape& shape, JobPlacement& out);

}  // namespace topoplan
