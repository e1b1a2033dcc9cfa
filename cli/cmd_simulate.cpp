// topoplan simulate: replay a job trace under each policy.
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "device_perf_option.hpp"
#include "nccl_options.hpp"
#include "topoplan/io/failure_rates.hpp"
#include "topoplan/simulate/simulation.hpp"
#include "topoplan/simulate/simulation_chart.hpp"
#include "topoplan/simulate/simulation_report.hpp"
#include "topoplan/support/comma_list.hpp"

namespace topoplan::cli {

namespace {

struct SimulateOptions {
  std::string topology;
  std::string trace;
  std::string policies = "topo,kueue,slurm,naive";
  std::string output;
  Format format = Format::text;
  double slowdown_scale = 1.0;
  std::optional<double> comm_fraction;
  std::string mtbf;
  std::uint64_t seed = 1;
  double checkpoint_interval_s = 1800;
  std::size_t samples = 100;
  DevicePerfOption device_perf;
  NcclOptions nccl;
  bool quiet = false;
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A one-line progress bar on stderr, redrawn in place; only on a terminal.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  ~ProgressBar() { clear(); }
  void show(const std::string& label, double fraction) {
    if (!enabled_) return;
    const int width = 30;
    const int filled = static_cast<int>(std::lround(fraction * width));
    const int percent = static_cast<int>(std::lround(fraction * 100));
    if (label == label_ && percent == percent_) return;
    label_ = label;
    percent_ = percent;
    fmt::print(std::cerr, "\r{:<24} [{}{}] {:>3} %", label, std::string(static_cast<std::size_t>(filled), '#'),
               std::string(static_cast<std::size_t>(width - filled), '.'), percent);
    std::cerr.flush();
    drawn_ = true;
  }
  void clear() {
    if (!drawn_) return;
    fmt::print(std::cerr, "\r{}\r", std::string(64, ' '));
    std::cerr.flush();
    drawn_ = false;
  }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string label_;
  int percent_ = -1;
};

int run_simulate(const SimulateOptions& o) {
  Topology topology = with_device_perf(o.device_perf, with_nccl_options(o.nccl, load_topology_argument(o.topology)));
  if (o.device_perf.classes_without_default)  // trace jobs name no class
    throw InputError(*o.device_perf.classes_without_default,
                     "rows for several workload classes; a trace's jobs name none: choose one with --perf-class");
  auto [path, settings] = parse_trace_argument(o.trace);
  TraceOptions trace_options;
  trace_options.settings = settings;
  trace_options.accelerators = topology.accelerators().size();
  trace_options.host_level = topology.levels()[topology.host_level()].name;
  Trace trace = read_trace(read_input(path), path, trace_options);
  trace.name = o.trace;

  SimulationRequest request;
  request.topology = o.topology;
  request.policies = split_comma_list(o.policies);
  request.options.slowdown.scale = o.slowdown_scale;
  request.options.slowdown.comm_fraction = o.comm_fraction;
  request.options.checkpoint_interval_s = o.checkpoint_interval_s;
  request.options.samples = o.samples;
  request.options.seed = o.seed;
  FailureRates rates;
  if (!o.mtbf.empty()) {
    rates = parse_failure_rates(read_input(o.mtbf), o.mtbf, topology);
    request.options.failures = &rates;
    request.failures_file = o.mtbf;
  }
  ProgressBar bar(!o.quiet && ::isatty(STDERR_FILENO) != 0);
  request.progress = [&](std::string_view stage, double f) { bar.show(std::string(stage), f); };
  SimulationReport report = simulate(topology, trace, request);
  bar.clear();

  std::ostringstream text;
  if (o.format == Format::json) write_simulation_json(text, report);
  else write_simulation_text(text, report);
  if (!o.output.empty()) {
    if (ends_with(o.output, ".svg")) {
      write_file_atomically(o.output, simulation_svg(report));
    } else if (ends_with(o.output, ".json")) {
      std::ostringstream json;
      write_simulation_json(json, report);
      write_file_atomically(o.output, json.str());
    } else {
      std::ostringstream plain;
      write_simulation_text(plain, report);
      write_file_atomically(o.output, plain.str());
    }
  }
  std::cout << text.str();
  return kSuccess;
}

}  // namespace

Action setup_simulate(CLI::App& command) {
  auto o = std::make_shared<SimulateOptions>();
  command.add_option("TOPO", o->topology,
                     "built-in name (with :key=value parameters), topology file, or node list (kubectl get nodes "
                     "-o json, Alibaba openb node list)")
      ->required();
  command.add_option("TRACE", o->trace,
                     "job trace: topoplan CSV, Gavel trace, Alibaba openb pod list or AcmeTrace summary "
                     "(FILE:key=value,... for settings; topoplan-formats(5), TRACES)")
      ->required();
  command.add_option("--policies", o->policies, "comma-separated policies (default topo,kueue,slurm,naive)")
      ->option_text("P,P,...");
  command.add_option("-o,--output", o->output, "also write the report: .svg a chart, .json JSON, else text")
      ->option_text("FILE");
  add_format_option(command, o->format);
  command.add_option("--slowdown-scale", o->slowdown_scale,
                     "weight of the slowdown model: 0 off, 1 as modelled (default), 2 twice as strong")
      ->check(CLI::Range(0.0, 100.0))
      ->option_text("X");
  command.add_option("--comm-fraction", o->comm_fraction,
                     "communication share of the duration for jobs whose trace gives none (default: by size)")
      ->check(CLI::Range(0.0, 1.0))
      ->option_text("F");
  auto* mtbf = command.add_option("--mtbf", o->mtbf, "inject failures at these rates (topoplan-formats(5), FAILURE RATES)")
                   ->option_text("FILE");
  command.add_option("--seed", o->seed, "seed of the failure stream (default 1)")->needs(mtbf)->option_text("N");
  command.add_option("--checkpoint-interval", o->checkpoint_interval_s,
                     "seconds between a running job's checkpoints; a failed job restarts from the last one "
                     "(default 1800; 0: from the start)")
      ->check(CLI::Range(0.0, 1e9))
      ->option_text("S");
  command.add_option("--samples", o->samples, "points of the timeline, at least (default 100)")
      ->check(CLI::Range(1, 100000))
      ->option_text("N");
  add_device_perf_option(command, o->device_perf);
  add_nccl_options(command, o->nccl);
  command.add_flag("-q,--quiet", o->quiet, "no progress bar (there is none unless stderr is a terminal)");
  command.footer(
      "Replays the trace once per policy: jobs arrive, wait in one queue (priority, then\n"
      "arrival, EASY backfill: the same rule for every policy), start where the policy\n"
      "places them, run their trace duration stretched by our slowdown model, and release\n"
      "their accelerators. Per policy: job completion time (jct) and queueing delay, mean\n"
      "and p95, utilisation, the largest free island per level, the slowdown of jobs and\n"
      "the jobs that never started. Rules, model and sources: topoplan(1), SIMULATION.\n\n"
      "Examples:\n"
      "  topoplan simulate dgx-h100:nodes=8 tests/data/traces/gavel-philly-vc2869ce.trace -o report.svg\n"
      "  topoplan simulate tests/data/traces/openb_node_list_gpu_node.csv "
      "tests/data/traces/openb_pod_list_default.csv:sharing=skip --policies topo,naive\n"
      "  topoplan simulate gb200-nvl72:racks=8 tests/data/traces/acme-cluster-summary.csv:cluster=Kalos,jobs=2000 "
      "--mtbf samples/failure-rates-llama3.yaml --seed 2 --format json");
  return [o]() { return run_simulate(*o); };
}

}  // namespace topoplan::cli
