// Plan exporters: a plan written as what the cluster's own scheduler accepts,
// so that Slurm or Kubernetes carries it out (`topoplan export-plan`): sbatch
// lines that pin each job to its nodes, optionally in reservations, or node
// affinity patches for each job's pod templates. Each format lives in its own
// file under lib/src/formats/ and registers one entry in plan_export_formats().
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct PlanExportOptions {
  /// The plan's file and the TOPO argument, as the user gave them: named in
  /// the output's header.
  std::string plan_file;
  std::string topology_argument;
  /// slurm: the batch script each sbatch line submits; `{name}` stands for
  /// the job's name.
  std::string batch_script = "{name}.sbatch";
  /// slurm: hold each job's nodes in a reservation of its own (`scontrol
  /// create reservation`) and submit the job into it.
  bool reservations = false;
  /// slurm reservations: StartTime=, Duration= (Slurm's syntax, passed on)
  /// and Users= (empty: the user who runs the script).
  std::string reservation_start = "now";
  std::string reservation_duration = "UNLIMITED";
  std::string reservation_users;
};

/// The text to write, and a warning per thing the target cannot express,
/// each at the plan entry of the job it concerns.
struct PlanExport {
  std::string text;
  std::vector<Diagnostic> warnings;
};

/// Throws InputError when the plan cannot be written in the format at all
/// (a hostname the target cannot name, an option value it would misread).
using PlanExporter = PlanExport (*)(const Topology& topology, const Plan& plan, const PlanExportOptions& options);

struct PlanExportFormat {
  std::string_view name;     // as given to --to
  std::string_view summary;  // one line for --help
  PlanExporter run;
};

/// Every plan export format, in the order --help lists them.
std::span<const PlanExportFormat> plan_export_formats();
const PlanExportFormat* find_plan_export_format(std::string_view name);

}  // namespace topoplan
