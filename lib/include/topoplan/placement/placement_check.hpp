// Whether placements honour their jobs: required, spread, replicas_within and
// exclusive_level levels, models, device states, tenants, exclusive nodes and
// devices shared between jobs. For plans from topoplan, from other
// schedulers, or written by hand.
#pragma once

#include <string>
#include <vector>

#include "topoplan/placement/planner.hpp"

namespace topoplan {

/// Nodes (hostnames) and domains per level a set of devices spans, in
/// hierarchy order; level 0 (the root) is left out.
struct Span {
  std::vector<DomainId> nodes;
  std::vector<std::vector<DomainId>> domains;  // per level index; [0] empty
};
Span span_of(const Topology& topology, const std::vector<std::vector<DeviceId>>& replicas);

/// Constraint violations of every placement of a plan, one message each, per
/// job (empty for a job that honours its constraints; "not placed: ..." for
/// one that is not placed). Linear in the plan's devices.
std::vector<std::vector<std::string>> check_plan(const Topology& topology, const Plan& plan);

/// The same for one job of the plan. Builds the plan's index each time: use
/// check_plan for all of them.
std::vector<std::string> check_placement(const Topology& topology, const Plan& plan, std::size_t job);

}  // namespace topoplan
