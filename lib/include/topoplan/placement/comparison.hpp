// `compare`: the same jobs planned by several policies, side by side.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/placement/planner.hpp"

namespace topoplan {

struct Comparison {
  std::vector<Plan> plans;  // one per policy, in the order asked
};

/// Plans `jobs` once per policy (each on the same starting occupancy).
Comparison compare_policies(const Topology& topology, const std::vector<Job>& jobs,
                            const std::vector<std::string>& policies, const PlanOptions& options);

void write_comparison_text(std::ostream& out, const Topology& topology, const Comparison& comparison);
void write_comparison_json(std::ostream& out, const Topology& topology, const Comparison& comparison);

}  // namespace topoplan
