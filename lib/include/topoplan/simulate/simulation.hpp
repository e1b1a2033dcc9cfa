// One simulation study: a trace replayed on a topology under each of several
// policies, assembled into the report that text, JSON and the chart render
// (simulation_report.hpp, simulation_chart.hpp).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/simulate/simulation_report.hpp"
#include "topoplan/simulate/simulator.hpp"
#include "topoplan/simulate/trace.hpp"

namespace topoplan {

struct SimulationRequest {
  std::string topology;               // how the topology was named (command line), for the report
  std::vector<std::string> policies;  // make_policy's names, in report order; at least one
  /// The simulator's options; options.progress is replaced by `progress` below.
  SimulationOptions options;
  /// Where options.failures came from when the file names no source.
  std::string failures_file;
  /// Called with a stage ("simulate: preparing", "simulate: topo", ...) and
  /// the fraction of it done, in [0, 1].
  std::function<void(std::string_view stage, double fraction)> progress;
};

/// Replays `trace` on `topology` under every policy of the request, in its
/// order. Throws InputError for an unknown policy or no policy (before any
/// replay) and for jobs the topology cannot hold (Simulator's checks).
SimulationReport simulate(const Topology& topology, const Trace& trace, const SimulationRequest& request);

}  // namespace topoplan
