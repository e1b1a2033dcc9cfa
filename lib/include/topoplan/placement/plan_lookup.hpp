// One job's devices in a plan, by name: what `cost --plan PLAN --job NAME`
// prices and what a what-if names when it asks about one job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/placement/planner.hpp"

namespace topoplan {

struct PlanReplica {
  Job job;
  std::vector<DeviceId> devices;  // in the plan's rank order
};

/// Job `job` and the devices of its replica `replica`. Throws InputError
/// naming `plan_file` when the plan has no such job (with a suggestion), the
/// job is not placed, or the replica does not exist.
PlanReplica plan_replica(const Plan& plan, const std::string& job, long long replica, const std::string& plan_file);

}  // namespace topoplan
