// A plan's placed jobs as device paths for `render --plan`: a chain or ring
// job's chips in pipeline order, every other job's devices as a set; one
// path per replica when a job has several ("serve[1]").
#pragma once

#include <vector>

#include "topoplan/model/device_path.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

/// The paths of `plan`'s placed jobs, in plan order (replicas in order).
std::vector<DevicePath> plan_paths(const Plan& plan);

}  // namespace topoplan
