// topoplan whatif: failures, drains, growth, capacity, preemption,
// resilience and a failure-rate Monte Carlo, asked of a plan.
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "device_perf_option.hpp"
#include "nccl_options.hpp"
#include "topoplan/io/failure_rates.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/job_spec.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/whatif/capacity.hpp"
#include "topoplan/whatif/growth.hpp"
#include "topoplan/whatif/monte_carlo.hpp"
#include "topoplan/whatif/plan_state.hpp"
#include "topoplan/whatif/preemption.hpp"
#include "topoplan/whatif/replan.hpp"
#include "topoplan/whatif/resilience.hpp"
#include "topoplan/whatif/scenario.hpp"
#include "topoplan/whatif/whatif_report.hpp"

namespace topoplan::cli {

namespace {

struct WhatIfOptions {
  std::string topology;
  std::string plan;
  std::vector<std::string> fail;
  std::vector<std::string> drain;
  std::string add;
  std::string capacity;
  std::string clear;
  std::string for_job;
  bool resilience = false;
  std::string mtbf;
  std::uint64_t seed = 1;
  double days = 30;
  std::uint32_t trials = 1000;
  std::string policy;
  DevicePerfOption device_perf;
  NcclOptions nccl;
  std::string output;
  Format format = Format::text;
};

// A job given on the command line: inline fields, or a manifest with one job;
// its perf_class checked against --device-perf like the plan's jobs.
Job job_argument(const std::string& text, const std::string& option, const Topology& topology,
                 const DevicePerfOption& perf) {
  Job job;
  if (looks_like_job_spec(text) && !read_file(text)) {
    job = parse_job_spec(text, option);
  } else {
    ManifestJobs jobs = read_job_manifests({{read_input(text), text}}, topology, {});
    if (jobs.jobs.size() != 1)
      throw InputError({text, 0, 0}, fmt::format("{} needs one job; this file has {}", option, jobs.jobs.size()));
    job = std::move(jobs.jobs.front());
  }
  check_job_perf_classes(perf, topology, std::span<const Job>(&job, 1));
  return job;
}

// -o FILE: the plan after the scenario, as `plan -o` writes it.
void write_plan_file(const std::string& path, const Topology& topology, const Plan& plan) {
  if (path.empty()) return;
  std::ostringstream text;
  bool json = path.size() > 5 && path.substr(path.size() - 5) == ".json";
  if (json)
    write_plan_json(text, topology, plan);
  else
    write_plan_yaml(text, topology, plan);
  write_file_atomically(path, text.str());
}

int run_scenario_command(const WhatIfOptions& o, const Topology& topology, const Plan& plan) {
  const bool fail = !o.fail.empty();
  const std::vector<Target> targets = resolve_targets(topology, fail ? o.fail : o.drain, fail ? "--fail" : "--drain");
  ScenarioResult result =
      run_scenario(topology, plan, targets, {fail ? ScenarioKind::fail : ScenarioKind::drain, o.policy});
  write_plan_file(o.output, topology, result.after);
  if (o.format == Format::json)
    write_scenario_json(std::cout, topology, result);
  else
    write_scenario_text(std::cout, topology, result);
  bool whole = true;
  for (const JobChange& c : result.changes) whole = whole && c.stopped.empty() && c.waiting.empty();
  return whole ? kSuccess : kNegative;
}

int run_growth(const WhatIfOptions& o, const Topology& topology, const std::string& plan_text, const Plan& plan) {
  const std::string argument = grown_topology_argument(o.topology, topology, o.add);
  Topology grown = with_device_perf(o.device_perf, with_nccl_options(o.nccl, load_topology_argument(argument)));
  Plan on_grown = parse_plan_yaml(plan_text, o.plan, grown);
  on_grown.topology = plan.topology;
  GrowthResult result = grow(topology, grown, argument, on_grown, o.policy);
  write_plan_file(o.output, grown, result.after);
  if (o.format == Format::json)
    write_growth_json(std::cout, grown, o.add, on_grown, result);
  else
    write_growth_text(std::cout, grown, o.add, on_grown, result);
  return kSuccess;
}

int run_capacity(const WhatIfOptions& o, const Topology& topology, const Plan& plan) {
  Job probe = job_argument(o.capacity, "--capacity", topology, o.device_perf);
  JobPricer pricer(topology);
  PlanState ps = occupy_plan(topology, plan, {replan_policy(plan, o.policy), &pricer, true});
  CapacityCount count = count_capacity(ps.state, probe);
  if (o.format == Format::json)
    write_capacity_json(std::cout, topology, probe, count);
  else
    write_capacity_text(std::cout, topology, probe, count);
  return kSuccess;
}

int run_clear(const WhatIfOptions& o, const Topology& topology, const Plan& plan) {
  PreemptionReport report;
  report.plan = &plan;
  report.level = resolve_level(topology, o.clear, "--clear");
  if (looks_like_job_spec(o.for_job) || read_file(o.for_job)) {
    report.job = job_argument(o.for_job, "--for", topology, o.device_perf);
  } else {
    report.self = plan_job_index(plan, o.for_job, "--for");
    report.job = plan.jobs[report.self];
  }
  JobPricer pricer(topology);
  PlanState ps = occupy_plan(topology, plan, {replan_policy(plan, o.policy), &pricer, false});
  report.choice = choose_preemption(ps, report.job, report.level, report.self);
  report.after = plan_after_preemption(plan, report.job, report.self, report.choice);
  price_plan(topology, report.after, &pricer);
  if (report.choice.found) write_plan_file(o.output, topology, report.after);
  if (o.format == Format::json)
    write_preemption_json(std::cout, topology, report);
  else
    write_preemption_text(std::cout, topology, report);
  return report.choice.found ? kSuccess : kNegative;
}

int run_monte_carlo(const WhatIfOptions& o, const Topology& topology, const Plan& plan) {
  FailureRates rates = parse_failure_rates(read_input(o.mtbf), o.mtbf, topology);
  MonteCarloOptions options{o.seed, o.days, o.trials};
  MonteCarloResult result = monte_carlo(topology, plan, component_rates(topology, rates), options);
  if (o.format == Format::json)
    write_monte_carlo_json(std::cout, topology, plan, o.mtbf, rates, result);
  else
    write_monte_carlo_text(std::cout, topology, plan, o.mtbf, rates, result);
  return kSuccess;
}

int run_whatif(const WhatIfOptions& o) {
  std::vector<std::string> given;
  if (!o.fail.empty()) given.emplace_back("--fail");
  if (!o.drain.empty()) given.emplace_back("--drain");
  if (!o.add.empty()) given.emplace_back("--add");
  if (!o.capacity.empty()) given.emplace_back("--capacity");
  if (!o.clear.empty()) given.emplace_back("--clear");
  if (o.resilience) given.emplace_back("--resilience");
  if (!o.mtbf.empty()) given.emplace_back("--mtbf");
  if (given.size() != 1)
    throw InputError({"whatif", 0, 0},
                     given.empty() ? "give a scenario: --fail, --drain, --add, --capacity, --clear, --resilience or --mtbf"
                                   : fmt::format("one scenario per call, not {}", fmt::join(given, " and ")));
  if (!o.clear.empty() && o.for_job.empty()) throw InputError({"--clear", 0, 0}, "needs --for JOB: the job to make room for");
  if (o.clear.empty() && !o.for_job.empty()) throw InputError({"--for", 0, 0}, "is for --clear LEVEL");
  if (!o.output.empty() && (o.resilience || !o.capacity.empty() || !o.mtbf.empty()))
    throw InputError({"-o", 0, 0}, "writes the plan after --fail, --drain, --add or --clear");
  if (!(o.days > 0) || o.days > 36'500) throw InputError({"--days", 0, 0}, "must be above 0 and at most 36500");

  Topology topology = with_device_perf(o.device_perf, with_nccl_options(o.nccl, load_topology_argument(o.topology)));
  const std::string plan_text = read_input(o.plan);
  Plan plan = parse_plan_yaml(plan_text, o.plan, topology);
  check_job_perf_classes(o.device_perf, topology, plan.jobs);
  if (plan.topology.empty()) plan.topology = o.topology;
  if (!o.fail.empty() || !o.drain.empty()) return run_scenario_command(o, topology, plan);
  if (!o.add.empty()) return run_growth(o, topology, plan_text, plan);
  if (!o.capacity.empty()) return run_capacity(o, topology, plan);
  if (!o.clear.empty()) return run_clear(o, topology, plan);
  if (!o.mtbf.empty()) return run_monte_carlo(o, topology, plan);
  const std::vector<JobResilience> jobs = resilience(topology, plan);
  if (o.format == Format::json)
    write_resilience_json(std::cout, topology, plan, jobs);
  else
    write_resilience_text(std::cout, topology, plan, jobs);
  return kSuccess;
}

}  // namespace

Action setup_whatif(CLI::App& command) {
  auto o = std::make_shared<WhatIfOptions>();
  command.add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  command.add_option("PLAN", o->plan, "a plan: from 'topoplan plan -o', by hand, or from another scheduler")->required();
  command.add_option("--fail", o->fail, "devices, links (A--B), nodes, racks or any domain that fail")
      ->option_text("NAME...");
  command.add_option("--drain", o->drain, "the same, drained for planned maintenance")->option_text("NAME...");
  command.add_option("--add", o->add, "more of the same units, e.g. gb200-nvl72:racks=4")->option_text("SPEC");
  command.add_option("--capacity", o->capacity, "how many more jobs of this shape fit (KEY=VALUE,... or a file)")
      ->option_text("JOBSPEC");
  command.add_option("--clear", o->clear, "the cheapest preemption that fits --for JOB in one domain of LEVEL")
      ->option_text("LEVEL");
  command.add_option("--for", o->for_job, "a job of the plan, or a JOBSPEC, for --clear")->option_text("JOB");
  command.add_flag("--resilience", o->resilience, "failures at each level every job survives where it is");
  command.add_option("--mtbf", o->mtbf, "a Monte Carlo over the component failure rates in FILE")
      ->option_text("FILE");
  command.add_option("--seed", o->seed, "the Monte Carlo's seed (default 1)")->option_text("N");
  command.add_option("--days", o->days, "length of each Monte Carlo trial (default 30)")->option_text("D");
  command.add_option("--trials", o->trials, "Monte Carlo trials (default 1000)")
      ->check(CLI::Range(1u, 10'000'000u))
      ->option_text("N");
  command.add_option("--policy", o->policy, "policy for re-placing jobs (default: the plan's, else topo)")
      ->option_text("P");
  add_device_perf_option(command, o->device_perf);
  add_nccl_options(command, o->nccl);
  command.add_option("-o,--output", o->output, "write the plan after --fail, --drain, --add or --clear to FILE")
      ->option_text("FILE");
  add_format_option(command, o->format);
  command.footer(
      "One scenario per call, asked of the plan as it runs:\n"
      "  --fail NAME...     what stops, what runs degraded and at what step time, the\n"
      "                     capacity lost; the jobs hit re-placed, everything else kept\n"
      "  --drain NAME...    planned maintenance: which jobs must move first, where, at\n"
      "                     what cost (services move replica by replica)\n"
      "  --add SPEC         growth: which unplaced jobs fit on the larger cluster\n"
      "  --capacity JOBSPEC how many more such jobs fit now, and on the empty cluster\n"
      "  --clear LEVEL --for JOB\n"
      "                     the cheapest jobs to preempt so JOB fits in one domain of\n"
      "                     LEVEL: fewest accelerators, then lowest priority, then fewest jobs\n"
      "  --resilience       failures per level every job survives where it is\n"
      "  --mtbf FILE        interruptions per job and day, the chance each service keeps\n"
      "                     its guarantee, capacity lost (FAILURE RATES in topoplan-formats(5))\n\n"
      "NAMEs are those topology show, plan and render print: r0000-n03/gpu1,\n"
      "su000/r0003/nvsw4 (or r0003/nvsw4), a hostname, su000/r0003 (or r0003), a link as\n"
      "A--B; hostlists name several (r0003-n[00-03]). JOBSPEC is a job's fields, e.g.\n"
      "gpus=72,required=rack or replicas=4,gpus_per_replica=8,spread=rack, or a manifest\n"
      "with one job. Exit status 1 when a job stops or a drain must wait (--fail,\n"
      "--drain) or no domain can be cleared (--clear).\n\n"
      "Examples:\n"
      "  topoplan whatif gb200-nvl72:racks=8 plan.yaml --fail r0003\n"
      "  topoplan whatif gb200-nvl72:racks=8 plan.yaml --drain r0001/nvsw[0-1]\n"
      "  topoplan whatif gb200-nvl72:racks=8 plan.yaml --capacity gpus=72,required=rack\n"
      "  topoplan whatif gb200-nvl72:racks=8 plan.yaml --clear rack --for gpus=72,priority=50\n"
      "  topoplan whatif gb200-nvl72:racks=8 plan.yaml --mtbf samples/failure-rates-llama3.yaml --seed 7");
  return [o]() { return run_whatif(*o); };
}

}  // namespace topoplan::cli
