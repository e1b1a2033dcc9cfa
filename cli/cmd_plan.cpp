// topoplan plan | evaluate | compare | check
#include <future>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "device_perf_option.hpp"
#include "nccl_options.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/check_report.hpp"
#include "topoplan/placement/comparison.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/manifests/pod_list.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/support/ascii.hpp"
#include "topoplan/support/comma_list.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan::cli {

namespace {

enum class PlanFormat { text, json, yaml };

struct PlanCommandOptions {
  std::string topology;
  std::vector<std::string> jobs;
  std::string plan;
  std::string policy = "topo";
  std::string policies = "topo,kueue,slurm,naive";
  std::string occupied;
  std::string output;
  std::vector<std::string> level_labels;
  DevicePerfOption device_perf;
  NcclOptions nccl;
  PlanFormat format = PlanFormat::text;
};

// `--format`: plans print as text, JSON or YAML (the file format); reports
// (compare, check) as text or JSON.
void add_plan_format(CLI::App& command, PlanFormat& format, bool yaml = true) {
  auto* option = command.add_option_function<std::string>(
      "--format",
      [&format](const std::string& v) {
        format = v == "json" ? PlanFormat::json : v == "yaml" ? PlanFormat::yaml : PlanFormat::text;
      },
      yaml ? "output format: text (default), json or yaml (the plan file format)" : "output format: text (default) or json");
  if (yaml)
    option->check(CLI::IsMember({"text", "json", "yaml"}))->option_text("text|json|yaml");
  else
    option->check(CLI::IsMember({"text", "json"}))->option_text("text|json");
}

void print_warning(const Diagnostic& d) { write_diagnostic(std::cerr, "warning", d); }

// JOBS as read from their files ('-': stdin), every unreadable one reported.
std::vector<ManifestInput> read_jobs(const std::vector<std::string>& paths) {
  std::vector<ManifestInput> inputs;
  DiagnosticSink sink;
  for (const std::string& path : paths) {
    try {
      inputs.push_back({read_input(path), path});
    } catch (const InputError& e) {
      for (const Diagnostic& d : e.diagnostics()) sink.error(d.where, d.message);
    }
  }
  sink.throw_if_any();
  return inputs;
}

// TOPO; a Kubernetes node list takes its levels from a Kueue Topology among
// the job inputs.
Topology load_topology_for(const PlanCommandOptions& o, const std::vector<ManifestInput>& inputs) {
  Topology topology = load_topology_argument(o.topology, kueue_topology_levels(inputs));
  return with_device_perf(o.device_perf, with_nccl_options(o.nccl, std::move(topology)));
}

// JOBS in any format topoplan reads (native, Kubernetes, sbatch); what it
// cannot honour is a warning on stderr. Jobs the scheduler itself would
// refuse are left out: `check` reports them as problems, the others warn.
ManifestJobs load_jobs(ParsedManifests parsed, const Topology& topology, const PlanCommandOptions& o,
                       bool rejections_are_problems = false) {
  ManifestOptions options;
  for (const std::string& l : o.level_labels) options.level_labels.push_back(parse_level_label(l));
  ManifestJobs jobs = read_job_manifests(std::move(parsed), topology, options);
  check_job_perf_classes(o.device_perf, topology, jobs.jobs);
  for (const Diagnostic& d : jobs.warnings) print_warning(d);
  if (!rejections_are_problems)
    for (const Diagnostic& d : jobs.rejections) print_warning({d.where, d.message + "; left out"});
  return jobs;
}

std::string render_plan(const Topology& topology, const Plan& plan, PlanFormat format) {
  std::ostringstream out;
  if (format == PlanFormat::json)
    write_plan_json(out, topology, plan);
  else if (format == PlanFormat::yaml)
    write_plan_yaml(out, topology, plan);
  else
    write_plan_text(out, topology, plan);
  return out.str();
}

// A plan file of many jobs in YAML is rendered in two halves on two cores
// (beside the terminal view, emit): 10,000 jobs on 131,040 GPUs make 2.9 MB,
// and its hostlists are an eighth of planning them.
std::string render_plan_file(const Topology& topology, const Plan& plan, PlanFormat format) {
  constexpr std::size_t kSplitFrom = 512;  // jobs; below, a thread costs more than it saves
  if (format != PlanFormat::yaml || plan.jobs.size() < kSplitFrom) return render_plan(topology, plan, format);
  const std::size_t half = plan.jobs.size() / 2;
  auto second = std::async(std::launch::async, [&] {
    std::ostringstream part;
    write_plan_yaml_entries(part, topology, plan, half, plan.jobs.size());
    return part.str();
  });
  std::ostringstream out;
  write_plan_yaml_header(out, plan);
  write_plan_yaml_entries(out, topology, plan, 0, half);
  out << second.get();
  return out.str();
}

// -o FILE: .json for JSON, .yaml or .yml for YAML, in any case (as render's
// extensions); anything else is refused rather than silently written as YAML.
PlanFormat plan_file_format(const std::string& path) {
  refuse_directory(path);
  std::string base = path.substr(path.rfind('/') + 1);
  std::size_t dot = base.rfind('.');
  const std::string ext = ascii_lower(dot == std::string::npos ? "" : base.substr(dot + 1));
  if (ext == "json") return PlanFormat::json;
  if (ext == "yaml" || ext == "yml") return PlanFormat::yaml;
  throw InputError({path, 0, 0}, fmt::format("{}; plan files are .yaml (or .yml) or .json",
                                             ext.empty() ? "no extension" : "unknown extension '." + base.substr(dot + 1) + "'"));
}

// -o FILE: the extension picks JSON or YAML; stdout still gets the table.
int emit(const Topology& topology, const Plan& plan, const PlanCommandOptions& o) {
  // The file and the terminal view are rendered side by side (both only read
  // the plan); the file is still written first.
  std::future<std::string> file;
  if (!o.output.empty())
    file = std::async(std::launch::async, [&] { return render_plan_file(topology, plan, plan_file_format(o.output)); });
  std::string shown = render_plan(topology, plan, o.format);
  if (file.valid()) write_file_atomically(o.output, file.get());
  std::cout << shown;
  return kSuccess;
}

// The pricer's fabric profile needs nothing but the topology, so it is built
// on a second core while the manifests or the plan are read: a sixth of
// planning 10,000 jobs on 131,040 GPUs. Its errors arrive through get().
std::future<std::unique_ptr<JobPricer>> pricer_for(const Topology& topology) {
  return std::async(std::launch::async, [&topology] { return std::make_unique<JobPricer>(topology); });
}

// JOBS parsed on a second core while the topology loads: their syntax and
// topoplan's own jobs need no topology (a third of planning 10,000 jobs).
// Problems are held and reported when the jobs are read, after the
// topology's own.
std::future<ParsedManifests> parse_on_the_side(const std::vector<ManifestInput>& inputs) {
  return std::async(std::launch::async, [&inputs] { return ParsedManifests(inputs); });
}

// --occupied: a plan, or the pods already running (kubectl get pods).
struct Occupied {
  Plan plan;
  RunningPods running;
};

void load_occupied(const PlanCommandOptions& o, const Topology& topology, PlanOptions& options, Occupied& occupied) {
  if (o.occupied.empty()) return;
  std::string text = read_input(o.occupied);
  if (is_pod_list(text)) {
    std::vector<Diagnostic> warnings;
    occupied.running = read_pod_list({{text, o.occupied}}, topology, warnings);
    for (const Diagnostic& d : warnings) print_warning(d);
    options.running = &occupied.running;
  } else {
    occupied.plan = parse_plan_yaml(text, o.occupied, topology);
    options.occupied = &occupied.plan;
  }
}

void add_occupied(CLI::App& command, PlanCommandOptions& o) {
  command.add_option("--occupied", o.occupied,
                     "what is already taken: a plan, or the pods already running (kubectl get pods -A -o json)")
      ->option_text("FILE");
}

int run_plan(const PlanCommandOptions& o) {
  if (!o.output.empty()) plan_file_format(o.output);  // before the work, not after it
  std::vector<ManifestInput> inputs = read_jobs(o.jobs);
  auto parsing = parse_on_the_side(inputs);
  Topology topology = load_topology_for(o, inputs);
  auto building = pricer_for(topology);
  std::vector<Job> jobs = load_jobs(parsing.get(), topology, o).jobs;
  PlanOptions options;
  options.policy = o.policy;
  options.topology_name = o.topology;
  Occupied occupied;
  load_occupied(o, topology, options, occupied);
  const std::unique_ptr<JobPricer> pricer = building.get();
  options.pricer = pricer.get();
  Plan plan = plan_jobs(topology, std::move(jobs), options);
  return emit(topology, plan, o);
}

int run_evaluate(const PlanCommandOptions& o) {
  // The plan's YAML is read and parsed on a second core while the topology
  // loads; its problems are reported after the topology's.
  auto parsing = std::async(std::launch::async, [&o] { return PlanDocument(read_input(o.plan), o.plan); });
  Topology topology = with_device_perf(o.device_perf, with_nccl_options(o.nccl, load_topology_argument(o.topology)));
  auto building = pricer_for(topology);
  Plan plan = parse_plan_yaml(parsing.get(), topology);
  check_job_perf_classes(o.device_perf, topology, plan.jobs);
  plan.topology = o.topology;  // as given, whatever the file says
  const std::unique_ptr<JobPricer> pricer = building.get();
  price_plan(topology, plan, pricer.get());
  std::cout << render_plan(topology, plan, o.format);
  // A placement that breaks its constraints (down or shared devices, a
  // required level) is a negative verdict; jobs the plan left out are not.
  for (const JobPlacement& p : plan.placements)
    if (p.placed && !p.problems.empty()) return kNegative;
  return kSuccess;
}

int write_check(const CheckReport& report, const PlanCommandOptions& o) {
  if (o.format == PlanFormat::json)
    write_check_json(std::cout, report);
  else
    write_check_text(std::cout, report);
  return report.ok() ? kSuccess : kNegative;
}

int run_compare(const PlanCommandOptions& o) {
  std::vector<ManifestInput> inputs = read_jobs(o.jobs);
  auto parsing = parse_on_the_side(inputs);
  Topology topology = load_topology_for(o, inputs);
  auto building = pricer_for(topology);
  std::vector<Job> jobs = load_jobs(parsing.get(), topology, o).jobs;
  std::vector<std::string> policies = split_comma_list(o.policies);
  if (policies.empty()) throw InputError({}, "--policies needs at least one policy");
  PlanOptions options;
  options.topology_name = o.topology;
  const std::unique_ptr<JobPricer> pricer = building.get();
  options.pricer = pricer.get();
  Occupied occupied;
  load_occupied(o, topology, options, occupied);
  Comparison c = compare_policies(topology, jobs, policies, options);
  if (o.format == PlanFormat::json)
    write_comparison_json(std::cout, topology, c);
  else
    write_comparison_text(std::cout, topology, c);
  return kSuccess;
}

int run_check(const PlanCommandOptions& o) {
  std::vector<ManifestInput> inputs = read_jobs(o.jobs);
  Topology topology = load_topology_for(o, inputs);
  auto building = pricer_for(topology);
  // A plan (from plan -o, another scheduler, or by hand) is gated as it is;
  // manifests are planned first.
  if (inputs.size() == 1 && is_plan_yaml(inputs.front().text)) {
    Plan plan = parse_plan_yaml(inputs.front().text, inputs.front().file, topology);
    check_job_perf_classes(o.device_perf, topology, plan.jobs);
    plan.topology = o.topology;
    const std::unique_ptr<JobPricer> pricer = building.get();
    price_plan(topology, plan, pricer.get());
    return write_check(check_report(plan), o);
  }
  ManifestJobs manifest = load_jobs(ParsedManifests(inputs), topology, o, true);
  PlanOptions options;
  options.policy = o.policy;
  options.topology_name = o.topology;
  Occupied occupied;
  load_occupied(o, topology, options, occupied);
  const std::unique_ptr<JobPricer> pricer = building.get();
  options.pricer = pricer.get();
  Plan plan = plan_jobs(topology, std::move(manifest.jobs), options);
  return write_check(check_report(plan, manifest.rejections), o);
}

void add_topology(CLI::App& command, PlanCommandOptions& o) {
  command
      .add_option("TOPO", o.topology,
                  "built-in name (with :key=value parameters), topology file, or node list (kubectl get nodes -o json)")
      ->required();
}

void add_level_labels(CLI::App& command, PlanCommandOptions& o) {
  command.add_option("--level-label", o.level_labels,
                     "LABEL=LEVEL: Kubernetes node label LABEL names topology level LEVEL (repeatable)")
      ->option_text("LABEL=LEVEL");
}

}  // namespace

Action setup_plan(CLI::App& command) {
  auto o = std::make_shared<PlanCommandOptions>();
  add_topology(command, *o);
  command.add_option("JOBS", o->jobs,
                     "job manifests: topoplan's (topoplan-jobs(5)), Kubernetes workloads or sbatch scripts "
                     "(topoplan-formats(5)); '-' reads stdin")
      ->required();
  add_level_labels(command, *o);
  command.add_option("--policy", o->policy, "placement policy (default topo; see below)")->option_text("P");
  add_occupied(command, *o);
  add_device_perf_option(command, o->device_perf);
  add_nccl_options(command, o->nccl);
  command.add_option("-o,--output", o->output, "also write the plan to FILE: .yaml (or .yml) or .json")
      ->option_text("FILE");
  add_plan_format(command, o->format);
  command.footer(
      "Jobs are placed by priority (higher first), then in file order. A job that does\n"
      "not fit is listed with the reason and, where one exists, what would work.\n\n"
      "JOBS may also be Kubernetes workloads (Job, JobSet, LeaderWorkerSet, PyTorchJob,\n"
      "MPIJob, TrainJob, Volcano Job, Grove PodCliqueSet, Dynamo DynamoGraphDeployment,\n"
      "LWS DisaggregatedSet, ...) with Kueue, Volcano, KAI, Grove or Dynamo topology\n"
      "requests, or Slurm batch scripts (#SBATCH -N,\n"
      "--gpus-per-node, --segment, --switches);\n"
      "node labels name levels through --level-label or the rules in topoplan-formats(5).\n"
      "Kueue's Topology and ResourceFlavor among them say the flavor's levels and nodes.\n"
      "TOPO may be a Kubernetes node list (kubectl get nodes -o json), read with the\n"
      "levels of that Topology; --occupied may be the pods already running.\n"
      "--device-perf gives devices' measured speeds and states (up, drain, down):\n"
      "training jobs then go where the estimated step (compute at the slowest\n"
      "member's speed + communication) is shortest (topoplan-jobs(5), STRAGGLERS).\n\n"
      "Policies (rules and sources in topoplan(1)):\n"
      "  topo         ours: candidates priced by the cost model, the one that keeps\n"
      "               large islands whole among those within 2% of the cheapest\n"
      "  kueue        Kueue's topology-aware scheduling as Kueue (ff69552e, 0.20\n"
      "               development) assigns pods: per node by every requested\n"
      "               resource, with Kueue's default feature gates\n"
      "  kueue:V      with other gates: kueue:balanced (TASBalancedPlacement),\n"
      "               kueue:best-fit (TASProfileMixed off), kueue:affinity\n"
      "               (TASRespectNodeAffinityPreferred), kueue:GATE=true|false,...\n"
      "  slurm        Slurm topology/tree with cons_tres, 24.05.3 and later\n"
      "  slurm-22.05  the same as Slurm 22.05 to 24.05.2 decides\n"
      "  naive        first fit in accelerator order, topology ignored\n\n"
      "Examples:\n"
      "  topoplan plan gb200-nvl72:racks=8 samples/jobs-nvl72.yaml -o plan.yaml\n"
      "  topoplan plan gb200-nvl72:racks=8 samples/k8s-gb200-workloads.yaml --format json\n"
      "  topoplan plan gb200-nvl72:racks=8 more-jobs.yaml --occupied plan.yaml\n"
      "  topoplan plan nodes.json kueue.yaml job.yaml --policy kueue --occupied pods.json");
  return [o]() { return run_plan(*o); };
}

Action setup_evaluate(CLI::App& command) {
  auto o = std::make_shared<PlanCommandOptions>();
  add_topology(command, *o);
  command.add_option("PLAN", o->plan, "a plan: from 'topoplan plan -o', by hand, or from another scheduler")
      ->required();
  add_device_perf_option(command, o->device_perf);
  add_nccl_options(command, o->nccl);
  add_plan_format(command, o->format);
  command.footer(
      "Plan entries name devices (HOST/gpuK, hostlists allowed) or whole nodes; see topoplan-jobs(5).\n"
      "Exit status: 0 when every placed job keeps its constraints, 1 when one breaks them\n"
      "(down or shared devices, a required level, an exclusive domain), 2 for unreadable input.");
  return [o]() { return run_evaluate(*o); };
}

Action setup_compare(CLI::App& command) {
  auto o = std::make_shared<PlanCommandOptions>();
  add_topology(command, *o);
  command.add_option("JOBS", o->jobs, "job manifests (topoplan, Kubernetes or sbatch)")->required();
  add_level_labels(command, *o);
  command.add_option("--policies", o->policies, "comma-separated policies (default topo,kueue,slurm,naive)")
      ->option_text("P,P,...");
  add_occupied(command, *o);
  add_device_perf_option(command, o->device_perf);
  add_nccl_options(command, o->nccl);
  add_plan_format(command, o->format, false);
  command.footer(
      "One table: per job and policy the estimated communication time per step (with\n"
      "the other jobs sharing links) and the domains it spans per level; then the\n"
      "total (which adds placed jobs and says how many it leaves out), the jobs placed,\n"
      "the placements that break their constraints (marked '!', listed after the table),\n"
      "and the largest free island each policy leaves per level.\n"
      "Policies: topo, kueue (and its variants), slurm, slurm-22.05, naive (see\n"
      "'topoplan plan --help').\n\n"
      "Example:\n  topoplan compare dgx-h100:nodes=128 samples/jobs-superpod.yaml --policies topo,kueue");
  return [o]() { return run_compare(*o); };
}

Action setup_check(CLI::App& command) {
  auto o = std::make_shared<PlanCommandOptions>();
  add_topology(command, *o);
  command.add_option("JOBS", o->jobs, "job manifests to gate (topoplan, Kubernetes or sbatch), or one plan")
      ->required();
  add_level_labels(command, *o);
  command.add_option("--policy", o->policy, "placement policy (default topo)")->option_text("P");
  add_occupied(command, *o);
  add_device_perf_option(command, o->device_perf);
  add_nccl_options(command, o->nccl);
  add_plan_format(command, o->format, false);
  command.footer("Manifests are planned with --policy, then checked; a single plan file (from\n"
                 "'topoplan plan -o', by hand, or another scheduler's) is checked as it is.\n"
                 "Exit status: 0 when every job places and every constraint holds, 1 otherwise\n"
                 "(one line per problem, also for what Kueue, Volcano or sbatch would reject),\n"
                 "2 for unreadable input.\n\n"
                 "Examples:\n  topoplan check gb200-nvl72:racks=8 samples/k8s-gb200-workloads.yaml --format json\n"
                 "  topoplan plan gb200-nvl72:racks=8 samples/jobs-nvl72.yaml -o plan.yaml\n"
                 "  topoplan check gb200-nvl72:racks=8 plan.yaml");
  return [o]() { return run_check(*o); };
}

}  // namespace topoplan::cli
