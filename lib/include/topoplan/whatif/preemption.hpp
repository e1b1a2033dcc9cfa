// Kueue's "required topology force fit" (kubernetes-sigs/kueue#12478) asked
// of a plan: the cheapest set of running jobs to preempt so that a job fits
// inside one domain of a level. Cheapest is fewest accelerators preempted,
// then the lowest priority among the highest of those preempted, then
// fewest jobs, then the first domain in hierarchy order.
//
// Per domain, a branch and bound over the jobs running in it (cheapest
// first) releases and restores them on the plan's PlannerState and asks
// PlannerState::place_in whether the job fits; a set that frees too few
// accelerators is never tried, and no set is extended once it is worse than
// the best found. tests/unit/preemption_test.cpp holds it against trying
// every subset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/placement/planner.hpp"
#include "topoplan/whatif/plan_state.hpp"

namespace topoplan {

struct PreemptionOptions {
  /// Placement attempts before the search stops with the best set found so
  /// far (then `exhaustive` is false).
  std::uint64_t budget = 100'000;
};

struct PreemptionChoice {
  bool found = false;                  // some domain of the level can take the job
  DomainId domain = kNone;
  std::vector<std::size_t> preempt;    // plan job indices, in plan order
  std::uint64_t accelerators_preempted = 0;
  std::int64_t highest_priority = 0;   // among the preempted; 0 when none
  JobPlacement placement;              // where the job goes
  bool exhaustive = true;              // false when the budget ran out
  std::uint64_t attempts = 0;          // placement attempts made
  std::string reason;                  // when not found: why no domain can take it
};

/// The cheapest preemption for `job` inside one domain of `level`. `self` is
/// the job's index in the plan when it is one of the plan's (kNone otherwise):
/// a placed job moves, its own accelerators free for it. The state is left
/// as it was.
PreemptionChoice choose_preemption(PlanState& plan_state, const Job& job, LevelIndex level, std::size_t self,
                                   const PreemptionOptions& options = {});

/// Whether choice `a` is cheaper than `b` by the order above (domain last).
bool cheaper(const PreemptionChoice& a, const PreemptionChoice& b);

/// The plan after the preemption: the preempted jobs not placed (with the
/// reason), the job placed in the chosen domain (appended when it is not
/// one of the plan's).
Plan plan_after_preemption(const Plan& plan, const Job& job, std::size_t self, const PreemptionChoice& choice);

}  // namespace topoplan
