#include "topoplan/simulate/simulation.hpp"

#include "topoplan/placement/policy.hpp"

namespace topoplan {

SimulationReport simulate(const Topology& topology, const Trace& trace, const SimulationRequest& request) {
  if (request.policies.empty()) throw InputError({}, "--policies needs at least one policy");
  for (const std::string& p : request.policies) make_policy(p, topology);  // unknown names fail here, with a suggestion

  std::string stage;
  auto report_progress = [&](double fraction) {
    if (request.progress) request.progress(stage, fraction);
  };
  SimulationOptions options = request.options;
  options.progress = report_progress;
  stage = "simulate: preparing";
  report_progress(0);
  Simulator simulator(topology, trace, options);

  SimulationReport report;
  report.topology = request.topology;
  report.trace = trace.name;
  report.trace_format = trace.format;
  report.job_ids.reserve(trace.jobs.size());
  for (const TraceJob& j : trace.jobs) report.job_ids.push_back(j.id);
  report.accelerators = topology.accelerators().size();
  for (const Level& l : topology.levels()) report.levels.push_back(l.name);
  report.slowdown_scale = options.slowdown.scale;
  report.comm_fraction = options.slowdown.comm_fraction;
  report.checkpoint_interval_s = options.checkpoint_interval_s;
  report.seed = options.seed;
  if (options.failures)
    report.failures_source = options.failures->source.empty() ? request.failures_file : options.failures->source;
  report.assumptions = trace.assumptions;
  for (const std::string& p : request.policies) {
    stage = "simulate: " + p;
    report.runs.push_back(simulator.run(p));
    report.metrics.push_back(summarize(report.runs.back()));
  }
  return report;
}

}  // namespace topoplan
