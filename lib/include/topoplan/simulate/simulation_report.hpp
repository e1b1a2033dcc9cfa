// A simulation's result as text (a table per policy, then the assumptions)
// and JSON (every number, the timeline and every job), from one structure.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "topoplan/simulate/simulation_metrics.hpp"
#include "topoplan/simulate/simulator.hpp"

namespace topoplan {

struct SimulationReport {
  std::string topology;  // as given on the command line
  std::string trace;
  std::string trace_format;
  std::vector<std::string> job_ids;  // trace order
  std::uint64_t accelerators = 0;
  std::string accelerator_noun = "GPUs";
  std::vector<std::string> levels;  // coarsest first
  double slowdown_scale = 1;
  std::optional<double> comm_fraction;  // the flag's; nullopt: by size
  double checkpoint_interval_s = 0;
  std::string failures_source;  // "" when nothing fails
  std::uint64_t seed = 0;
  std::vector<std::string> assumptions;  // the trace reader's
  std::vector<PolicyRun> runs;
  std::vector<PolicyMetrics> metrics;  // metrics[i] summarises runs[i]
};

/// "45 s", "12.5 min", "3.2 h", "4.1 d".
std::string human_duration(double seconds);

void write_simulation_text(std::ostream& out, const SimulationReport& report);
void write_simulation_json(std::ostream& out, const SimulationReport& report);

}  // namespace topoplan
