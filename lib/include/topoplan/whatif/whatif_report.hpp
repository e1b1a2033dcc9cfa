// What-if results for people (text) and machines (JSON), one writer pair per
// scenario, each from the same result structure. The JSON keys are listed in
// topoplan(1), WHAT-IF.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/io/failure_rates.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/whatif/capacity.hpp"
#include "topoplan/whatif/growth.hpp"
#include "topoplan/whatif/monte_carlo.hpp"
#include "topoplan/whatif/preemption.hpp"
#include "topoplan/whatif/replan.hpp"
#include "topoplan/whatif/resilience.hpp"

namespace topoplan {

/// --fail and --drain.
void write_scenario_text(std::ostream& out, const Topology& topology, const ScenarioResult& result);
void write_scenario_json(std::ostream& out, const Topology& topology, const ScenarioResult& result);

/// --add; `grown` is the grown cluster.
void write_growth_text(std::ostream& out, const Topology& grown, const std::string& spec, const Plan& plan,
                       const GrowthResult& result);
void write_growth_json(std::ostream& out, const Topology& grown, const std::string& spec, const Plan& plan,
                       const GrowthResult& result);

/// --capacity.
void write_capacity_text(std::ostream& out, const Topology& topology, const Job& probe, const CapacityCount& count);
void write_capacity_json(std::ostream& out, const Topology& topology, const Job& probe, const CapacityCount& count);

/// What --clear answered.
struct PreemptionReport {
  const Plan* plan = nullptr;     // the plan as given
  Job job;                        // the job to fit
  std::size_t self = kNone;       // its index in the plan, or kNone for a JOBSPEC
  LevelIndex level = 0;
  PreemptionChoice choice;
  Plan after;                     // plan_after_preemption, priced
};
void write_preemption_text(std::ostream& out, const Topology& topology, const PreemptionReport& report);
void write_preemption_json(std::ostream& out, const Topology& topology, const PreemptionReport& report);

/// --resilience.
void write_resilience_text(std::ostream& out, const Topology& topology, const Plan& plan,
                           const std::vector<JobResilience>& jobs);
void write_resilience_json(std::ostream& out, const Topology& topology, const Plan& plan,
                           const std::vector<JobResilience>& jobs);

/// --mtbf; `file` is the failure-rate file as named on the command line.
void write_monte_carlo_text(std::ostream& out, const Topology& topology, const Plan& plan, const std::string& file,
                            const FailureRates& rates, const MonteCarloResult& result);
void write_monte_carlo_json(std::ostream& out, const Topology& topology, const Plan& plan, const std::string& file,
                            const FailureRates& rates, const MonteCarloResult& result);

}  // namespace topoplan
