// Placing a job that declares a shape (job.hpp, ChainShape): its chips come
// from the chain finder instead of the policy, in pipeline order; a `spare`
// level keeps one whole node free beside it in each such domain it uses; and
// when it does not fit, the reason says how long a shape the free chips
// still form and which jobs would have to move. The planner's hooks.
#pragma once

#include <vector>

#include "planner_core.hpp"

namespace topoplan {

/// One replica of a shaped job in `view`: accelerator indices in pipeline
/// order, or empty when the shape is not there.
std::vector<std::uint32_t> place_shaped(const PlannerCore& core, const CapacityView& view, const Job& job,
                                        const JobShape& shape);

/// The spare nodes of a placed shaped job with a spare level: in each such
/// domain its chips use, the last node whose accelerators are all free.
std::vector<DomainId> spare_nodes(const PlannerCore& core, const JobShape& shape, const JobPlacement& placement);

/// Why a shaped job does not fit ("72 free LPUs, but the longest chain of
/// directly linked free LPUs is 40") and which jobs moving would make room.
void explain_shaped(const PlannerCore& core, const Job& job, const JobShape& shape, JobPlacement& out);

}  // namespace topoplan
