// The locality check of a placed job: a tensor-parallel (or expert-parallel)
// group that spans several scale-up islands (NVLink domains) although one
// island would hold it pays the network for what NVLink would carry. The
// problem names the group, the islands and what it costs per step.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

class CostModel;

/// One kind of group (TP or EP) of a placed job that leaves its island.
struct LocalityIssue {
  StepKind kind = StepKind::tp;       // tp or ep
  std::size_t replica = 0;
  std::uint32_t groups = 0;           // groups of this kind in the replica
  std::uint32_t spread_groups = 0;    // of them, spanning several islands that one could hold
  std::uint32_t worst_group = 0;      // the most expensive of those, by index
  std::vector<DeviceId> worst_ranks;  // its ranks
  std::vector<DomainId> islands;      // the domains naming the islands it spans, in rank order
  double seconds = 0;                 // the worst group's collectives per step on its ranks
  double inside_seconds = 0;          // the same on accelerators of the largest island it spans
};

/// The issues of job `job` of a priced plan (each replica, TP then EP), from
/// the cost model's islands; none for a job without such groups or without
/// a model.
std::vector<LocalityIssue> locality_issues(const Topology& topology, const Plan& plan, std::size_t job,
                                           const CostModel* model);

/// The issues as check problems, one sentence each, appended to `problems`
/// (price_plan's hook; evaluate and check report them).
void add_locality_problems(const Topology& topology, const Plan& plan, std::size_t job, const CostModel* model,
                           std::vector<std::string>& problems);

}  // namespace topoplan
