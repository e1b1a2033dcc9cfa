// topoplan cost: the time of a collective on a set of accelerators
#include <iostream>
#include <memory>
#include <optional>

#include "cli_support.hpp"
#include "command.hpp"
#include "topoplan/cost/byte_size.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/cost_report.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::cli {

namespace {

struct CostOptions {
  std::string topology;
  std::string collective;
  std::string size;
  std::string sweep;
  std::string devices;
  std::optional<long long> first;
  std::string plan;
  std::string job;
  std::optional<long long> replica;
  std::string algorithm = "auto";
  Format format = Format::text;
};

Collective collective_argument(const std::string& text) {
  if (auto op = parse_collective(text)) return *op;
  std::string hint = did_you_mean(text, collective_names());
  throw InputError({"--collective", 0, 0},
                   "unknown collective '" + text + "'" + (hint.empty() ? "" : "; " + hint) +
                       " (allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv)");
}

Algorithm algorithm_argument(const std::string& text) {
  if (auto a = parse_algorithm(text)) return *a;
  std::string hint = did_you_mean(text, algorithm_names());
  throw InputError({"--algorithm", 0, 0},
                   "unknown algorithm '" + text + "'" + (hint.empty() ? "" : "; " + hint) +
                       " (auto, ring, tree, nvls, nvlstree, hierarchical, p2p)");
}

// The devices of one replica of a job in a plan (written by `plan -o` or by
// hand), in the plan's rank order.
std::vector<DeviceId> job_ranks(const Topology& topology, const CostOptions& o) {
  if (o.job.empty()) throw InputError({"--plan", 0, 0}, "--plan needs --job NAME to say whose devices to price");
  Plan plan = parse_plan_yaml(read_input(o.plan), o.plan, topology);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    if (plan.jobs[i].name != o.job) {
      names.push_back(plan.jobs[i].name);
      continue;
    }
    const JobPlacement& p = plan.placements[i];
    if (!p.placed || p.replicas.empty())
      throw InputError(plan.jobs[i].where, "job '" + o.job + "' is not placed in this plan");
    long long replica = o.replica.value_or(0);
    if (replica < 0 || static_cast<std::size_t>(replica) >= p.replicas.size())
      throw InputError({"--replica", 0, 0}, "job '" + o.job + "' has replicas 0 to " +
                                                std::to_string(p.replicas.size() - 1) + ", not " +
                                                std::to_string(replica));
    return p.replicas[static_cast<std::size_t>(replica)];
  }
  std::string hint = did_you_mean(o.job, names);
  throw InputError({o.plan, 0, 0}, "no job '" + o.job + "' in the plan" + (hint.empty() ? "" : "; " + hint));
}

int run_cost(const CostOptions& o) {
  const Collective op = collective_argument(o.collective);
  const Algorithm algorithm = algorithm_argument(o.algorithm);
  if (o.size.empty() == o.sweep.empty())
    throw InputError({"--size", 0, 0}, "give either --size SIZE or --sweep FROM:TO");
  std::optional<SizeRange> range;
  std::uint64_t bytes = 0;
  if (!o.sweep.empty())
    range = parse_size_range(o.sweep, "--sweep");
  else
    bytes = parse_byte_size(o.size, "--size");
  if (o.first && *o.first < 1) throw InputError({"--first", 0, 0}, "must be at least 1");
  // --job and --replica pick ranks out of a plan; without one they would be ignored.
  if (o.plan.empty() && !o.job.empty())
    throw InputError({"--job", 0, 0}, "names a job of a plan; give the plan with --plan PLAN");
  if (o.plan.empty() && o.replica)
    throw InputError({"--replica", 0, 0}, "picks a replica of a job of a plan; give --plan PLAN --job NAME");

  Topology topology = load_topology_argument(o.topology);
  // Ranks come from --first, --devices or a job of a plan; the model only
  // sees the vector.
  std::vector<DeviceId> ranks;
  if (!o.plan.empty()) {
    ranks = job_ranks(topology, o);
  } else {
    RankSelection selection;
    selection.devices = o.devices;
    if (o.first) selection.first = static_cast<std::uint64_t>(*o.first);
    ranks = select_ranks(topology, selection);
  }

  CostModel model(topology);
  CollectiveQuery query{ranks, op, bytes, algorithm};
  if (range) {
    std::vector<CollectiveCost> sweep = model.sweep(query, range->from, range->to);
    if (o.format == Format::json)
      write_sweep_json(std::cout, model, sweep);
    else
      write_sweep_text(std::cout, model, sweep);
    return kSuccess;
  }
  CollectiveCost cost = model.collective(query);
  if (o.format == Format::json)
    write_cost_json(std::cout, model, cost);
  else
    write_cost_text(std::cout, model, cost);
  return kSuccess;
}

}  // namespace

Action setup_cost(CLI::App& command) {
  auto o = std::make_shared<CostOptions>();
  command.add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  command.add_option("--collective,-c", o->collective,
                     "allreduce, allgather, reducescatter, alltoall, broadcast, reduce or sendrecv")
      ->required()
      ->option_text("OP");
  command.add_option("--size,-s", o->size,
                     "message size in nccl-tests' convention: 1048576, 8G, 256MiB, 1GB (K/M/G binary, KB/MB/GB decimal)")
      ->option_text("SIZE");
  command.add_option("--sweep", o->sweep, "sizes FROM:TO in powers of two, as nccl-tests -b FROM -e TO -f 2")
      ->option_text("FROM:TO");
  command.add_option("--devices,-d", o->devices,
                     "ranks in order: accelerators (HOST/gpuK), hostnames or domains, hostlist brackets allowed")
      ->option_text("LIST");
  auto* first =
      command.add_option("--first,-n", o->first, "the first N accelerators of the topology")->option_text("N");
  auto* plan = command.add_option("--plan", o->plan, "a plan (from 'topoplan plan -o PLAN' or by hand) ...")
                   ->option_text("PLAN");
  command.add_option("--job", o->job, "... and the job in it whose devices are the ranks")->option_text("NAME");
  command.add_option("--replica", o->replica, "which replica of a multi-replica job (default 0)")->option_text("K");
  plan->excludes(first);
  command.get_option("--devices")->excludes(plan)->excludes(first);
  command.add_option("--algorithm,-a", o->algorithm,
                     "auto (fastest the hardware supports), ring, tree, nvls, nvlstree, hierarchical or p2p")
      ->option_text("ALGO");
  add_format_option(command, o->format);
  command.footer(
      "Prints the time, algbw and busbw (nccl-tests definitions), the algorithm and protocol,\n"
      "the bottleneck and the traffic per tier. Without --devices, --first or --plan, all\n"
      "accelerators.\n"
      "The model is described in topoplan-cost(7).\n\n"
      "Examples:\n"
      "  topoplan cost gb200-nvl72 --collective allreduce --size 1G --first 72\n"
      "  topoplan cost dgx-h100:nodes=2 -c alltoall -s 256MiB --devices 'h100-0000[0-1]'\n"
      "  topoplan cost dgx-h100:nodes=1 -c allreduce --sweep 1K:16G --format json\n"
      "  topoplan plan gb200-nvl72:racks=8 samples/jobs-nvl72.yaml -o plan.yaml\n"
      "  topoplan cost gb200-nvl72:racks=8 -c allreduce -s 1G --plan plan.yaml --job pretrain-405b");
  return [o]() { return run_cost(*o); };
}

}  // namespace topoplan::cli
