// A plan as a running cluster: its placed jobs held by a PlannerState, the
// starting point of every what-if (re-plan, capacity, preemption, growth).
#pragma once

#include <string>
#include <vector>

#include "topoplan/placement/planner_state.hpp"

namespace topoplan {

struct PlanState {
  PlannerState state;
  std::vector<PlannerState::JobId> ids;  // per plan job: its id in `state`, kNone when not placed
};

/// Occupies every placed job of `plan` (PlannerState::occupy), in plan order.
PlanState occupy_plan(const Topology& topology, const Plan& plan, PlannerOptions options);

/// The policy to re-plan with: `requested` when given, else the plan's own
/// when it names one topoplan has, else "topo".
std::string replan_policy(const Plan& plan, const std::string& requested);

/// The index of the plan's job named `name`; throws InputError located at
/// `option`, with a did-you-mean, when there is none.
std::size_t plan_job_index(const Plan& plan, const std::string& name, const std::string& option);

/// Plan job indices in the planner's queue order: priority, then plan order.
std::vector<std::size_t> queue_order(const Plan& plan);

/// Fills the free counts of a plan's summary (free and unavailable
/// accelerators, largest free island and whole free domains per level)
/// with the accelerators a scenario mask takes away counted as unavailable.
void count_free(const Topology& topology, const ScenarioMask& mask, Plan& plan);

}  // namespace topoplan
