// topoplan export-plan TOPO PLAN --to FORMAT [-o FILE]
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "topoplan/formats/plan_export.hpp"
#include "topoplan/placement/plan_io.hpp"

namespace topoplan::cli {

namespace {

constexpr const char* kExportPlanFooter = R"(A plan is decided by 'topoplan plan -o PLAN' (or written by hand, see
topoplan-jobs(5)); export-plan writes it as what the cluster's scheduler
accepts, so that Slurm or Kubernetes carries it out:
  slurm       a sh script: per placed job one sbatch line with --nodelist,
              --nodes, --exclusive (whole-node jobs) and --gpus-per-node, so
              Slurm allocates exactly the planned nodes or keeps the job
              pending; --reservations first holds each job's nodes in a
              reservation (scontrol create reservation) and submits into it
  kubernetes  per placed job a v1 PodTemplate whose template is a strategic
              merge patch for the workload's pod templates: required node
              affinity on kubernetes.io/hostname In the job's nodes (and one
              per replica); kube-scheduler and Kueue's TAS keep to it
  kueue       the same as kubernetes
What the target cannot express (the accelerators inside a shared node, a
rank order, replicas of one pod template) is a warning naming the job.
Formats and the reasons for them: topoplan-formats(5), PLAN EXPORT.

Examples:
  topoplan plan gb200-nvl72:racks=8 samples/jobs-nvl72.yaml -o plan.yaml
  topoplan export-plan gb200-nvl72:racks=8 plan.yaml --to slurm -o submit.sh
  topoplan export-plan gb200-nvl72:racks=8 plan.yaml --to slurm --reservations --start 2027-01-04T08:00:00 --duration 1-00:00:00
  topoplan export-plan gb200-nvl72:racks=8 plan.yaml --to kubernetes -o patches.yaml)";

struct ExportPlanCommandOptions {
  std::string topology;
  std::string plan;
  std::string to;
  std::string output;
  PlanExportOptions options;
  CLI::Option* start = nullptr;
  CLI::Option* duration = nullptr;
  CLI::Option* users = nullptr;
  CLI::Option* batch_script = nullptr;
};

int run_export_plan(const ExportPlanCommandOptions& o) {
  const PlanExportFormat* format = find_plan_export_format(o.to);  // CLI11 checked the name
  DiagnosticSink usage;
  if (!o.options.reservations)
    for (const CLI::Option* option : {o.start, o.duration, o.users})
      if (option->count() > 0) usage.error({option->get_name(), 0, 0}, "is for reservations: add --reservations");
  if (o.to != "slurm") {
    if (o.options.reservations) usage.error({"--reservations", 0, 0}, "is for --to slurm");
    if (o.batch_script->count() > 0) usage.error({"--batch-script", 0, 0}, "is for --to slurm");
  }
  usage.throw_if_any();
  Topology topology = load_topology_argument(o.topology);
  Plan plan = parse_plan_yaml(read_input(o.plan), o.plan, topology);
  PlanExportOptions options = o.options;
  options.plan_file = o.plan;
  options.topology_argument = o.topology;
  PlanExport result = format->run(topology, plan, options);
  for (const Diagnostic& d : result.warnings) fmt::print(std::cerr, "topoplan: warning: {}\n", d.str());
  write_output(o.output, result.text);
  return kSuccess;
}

}  // namespace

Action setup_export_plan(CLI::App& command) {
  auto o = std::make_shared<ExportPlanCommandOptions>();
  std::vector<std::string> names;
  std::string formats_help = "output format:";
  for (const PlanExportFormat& f : plan_export_formats()) {
    names.emplace_back(f.name);
    formats_help += fmt::format("\n  {:<12} {}", f.name, f.summary);
  }
  command.add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  command.add_option("PLAN", o->plan, "a plan: from 'topoplan plan -o', by hand, or from another scheduler; '-' reads stdin")
      ->required();
  command.add_option("--to", o->to, formats_help)->required()->check(CLI::IsMember(names))->option_text("FORMAT");
  command.add_option("-o,--output", o->output, "write to FILE instead of stdout")->option_text("FILE");
  o->batch_script = command
                        .add_option("--batch-script", o->options.batch_script,
                                    "slurm: the script each sbatch line submits; {name} is the job's name "
                                    "(default {name}.sbatch)")
                        ->option_text("PATTERN");
  command.add_flag("--reservations", o->options.reservations,
                   "slurm: hold each job's nodes in a reservation named after the job, and submit the job into it");
  o->start = command
                 .add_option("--start", o->options.reservation_start,
                             "reservations: StartTime in Slurm's syntax (default now)")
                 ->option_text("TIME");
  o->duration = command
                    .add_option("--duration", o->options.reservation_duration,
                                "reservations: Duration in Slurm's syntax, e.g. 12:00:00 or 2-00:00:00 (default UNLIMITED)")
                    ->option_text("TIME");
  o->users = command
                 .add_option("--users", o->options.reservation_users,
                             "reservations: Users= (default: whoever runs the script)")
                 ->option_text("LIST");
  command.footer(kExportPlanFooter);
  return [o]() { return run_export_plan(*o); };
}

}  // namespace topoplan::cli
