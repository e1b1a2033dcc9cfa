// Growth: the cluster with more of the same units (`--add gb200-nvl72:racks=4`
// on gb200-nvl72:racks=8 is gb200-nvl72:racks=12), the plan's placed jobs
// where they are, and which of its unplaced jobs now fit (placed in the
// planner's queue order on the grown cluster).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/placement/planner.hpp"

namespace topoplan {

/// The TOPO argument of the grown cluster. `spec` is `[NAME:]KEY=N,...`:
/// each parameter KEY of `argument`'s topology grows by N (N >= 1); NAME,
/// when given, must be what `argument` names (a preset or a file). Throws
/// InputError for a name that does not match, an unknown parameter (with
/// the ones there are) or a bad count.
std::string grown_topology_argument(const std::string& argument, const Topology& topology, const std::string& spec);

struct GrowthResult {
  std::string topology;                  // the grown TOPO argument
  std::string policy;
  Plan after;                            // on the grown cluster, priced
  std::vector<std::size_t> now_fit;      // plan indices of unplaced jobs that now fit
  std::vector<std::size_t> still_unplaced;
  std::uint64_t accelerators_before = 0;
  std::uint64_t accelerators_after = 0;
  std::vector<std::uint32_t> domains_before;  // per level
  std::vector<std::uint32_t> domains_after;
};

/// `plan` read against the grown topology `grown` (its device names are the
/// same); `before` is the cluster the plan was made for.
GrowthResult grow(const Topology& before, const Topology& grown, const std::string& grown_argument, const Plan& plan,
                  const std::string& policy);

}  // namespace topoplan
