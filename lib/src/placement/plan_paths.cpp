#include "topoplan/placement/plan_paths.hpp"

#include <fmt/format.h>

namespace topoplan {

std::vector<DevicePath> plan_paths(const Plan& plan) {
  std::vector<DevicePath> out;
  for (std::size_t j = 0; j < plan.jobs.size() && j < plan.placements.size(); ++j) {
    const Job& job = plan.jobs[j];
    const JobPlacement& placement = plan.placements[j];
    if (!placement.placed) continue;
    // A group's chips are all linked to each other: no order to draw.
    const PathShape shape = job.shape == ChainShape::chain  ? PathShape::chain
                            : job.shape == ChainShape::ring ? PathShape::ring
                                                            : PathShape::set;
    for (std::size_t r = 0; r < placement.replicas.size(); ++r) {
      if (placement.replicas[r].empty()) continue;
      DevicePath& path = out.emplace_back();
      path.name = placement.replicas.size() == 1 ? job.name : fmt::format("{}[{}]", job.name, r);
      path.shape = shape;
      path.devices = placement.replicas[r];
    }
  }
  return out;
}

}  // namespace topoplan
