#include "topoplan/placement/plan_lookup.hpp"

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

PlanReplica plan_replica(const Plan& plan, const std::string& job, long long replica, const std::string& plan_file) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    if (plan.jobs[i].name != job) {
      names.push_back(plan.jobs[i].name);
      continue;
    }
    const JobPlacement& p = plan.placements[i];
    if (!p.placed || p.replicas.empty())
      throw InputError(plan.jobs[i].where, fmt::format("job '{}' is not placed in this plan", job));
    if (replica < 0 || static_cast<std::size_t>(replica) >= p.replicas.size())
      throw InputError({"--replica", 0, 0},
                       fmt::format("job '{}' has replicas 0 to {}, not {}", job, p.replicas.size() - 1, replica));
    return {plan.jobs[i], p.replicas[static_cast<std::size_t>(replica)]};
  }
  std::string hint = did_you_mean(job, names);
  throw InputError({plan_file, 0, 0}, fmt::format("no job '{}' in the plan{}{}", job, hint.empty() ? "" : "; ", hint));
}

}  // namespace topoplan
