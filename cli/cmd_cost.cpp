// topoplan cost: the time of a collective on a set of accelerators
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "nccl_options.hpp"
#include "topoplan/cost/byte_size.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/cost_report.hpp"
#include "topoplan/cost/ep_kernel.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/cost/serial_launch.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/plan_lookup.hpp"
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
  std::string protocol;
  NcclOptions nccl;
  std::string ep_kernel = "nccl";
  std::string message_size;
  std::string ep_phase = "dispatch";
  std::optional<long long> gpus_per_thread;
  Format format = Format::text;
};

// The NCCL release whose tuner chooses; the topology's without the option.
// Given to the model rather than the topology, so that `cost` tells the
// option's release apart from the topology's nccl: environment.
CostModelOptions model_options(const CostOptions& o) {
  CostModelOptions options;
  options.nccl_version = nccl_version_argument(o.nccl.version);
  return options;
}

Collective collective_argument(const std::string& text) {
  if (auto op = parse_collective(text)) return *op;
  std::string hint = did_you_mean(text, collective_names());
  throw InputError({"--collective", 0, 0},
                   "unknown collective '" + text + "'" + (hint.empty() ? "" : "; " + hint) +
                       " (allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv)");
}

// One algorithm, or a set in NCCL_ALGO's syntax (ring,tree or ^nvls,nvlstree)
// that auto chooses from.
void algorithm_argument(const std::string& text, CollectiveQuery& query) {
  if (auto a = parse_algorithm(text)) {
    query.algorithm = *a;
    return;
  }
  if (auto set = parse_algorithm_set(text)) {
    query.allowed = *set;
    return;
  }
  std::string name = text;
  if (!name.empty() && name.front() == '^') name.erase(0, 1);
  name = name.substr(0, name.find(','));
  std::string hint = did_you_mean(name, algorithm_names());
  throw InputError({"--algorithm", 0, 0},
                   "unknown algorithm '" + text + "'" + (hint.empty() ? "" : "; " + hint) +
                       " (auto, ring, tree, nvls, nvlstree, hierarchical, p2p, allpairs, or a list as NCCL_ALGO takes "
                       "it: ring,tree or ^nvls,nvlstree)");
}

// The protocols NCCL may use, in NCCL_PROTO's syntax (Simple, LL,LL128 or ^LL128).
ProtocolSet protocol_argument(const std::string& text) {
  if (auto set = parse_protocol_set(text)) return *set;
  throw InputError({"--protocol", 0, 0}, "unknown protocol list '" + text +
                                             "' (NCCL_PROTO's syntax: LL, LL128, Simple, a list such as LL,LL128, "
                                             "or ^LL128 for all but those)");
}

// A job of a plan and the devices of one of its replicas.
struct PlanJob {
  Job job;
  std::vector<DeviceId> ranks;
};

// The devices of one replica of a job in a plan (written by `plan -o` or by
// hand), in the plan's rank order.
PlanJob job_ranks(const Topology& topology, const CostOptions& o) {
  if (o.job.empty()) throw InputError({"--plan", 0, 0}, "--plan needs --job NAME to say whose devices to price");
  Plan plan = parse_plan_yaml(read_input(o.plan), o.plan, topology);
  PlanReplica r = plan_replica(plan, o.job, o.replica.value_or(0), o.plan);
  return {std::move(r.job), std::move(r.devices)};
}

int run_cost(const CostOptions& o) {
  if (o.collective.empty() && o.plan.empty())
    throw InputError({"--collective", 0, 0}, "give --collective OP, or --plan PLAN --job NAME for a job's step");
  // A job's step by parallelism: --plan and --job without --collective.
  if (o.collective.empty()) {
    if (!o.size.empty() || !o.sweep.empty() || o.algorithm != "auto" || !o.protocol.empty() || o.gpus_per_thread)
      throw InputError({"--collective", 0, 0},
                       "--size, --sweep, --algorithm, --protocol and --gpus-per-thread price "
                       "one collective: give --collective OP");
    Topology topology = with_nccl_settings(o.nccl.settings, load_topology_argument(o.topology));
    PlanJob pj = job_ranks(topology, o);
    CostModel model(topology, model_options(o));
    const Parallelism parallelism = JobPricer::parallelism_of(pj.job, pj.ranks.size());
    const StepCost step = model.step(pj.ranks, parallelism, JobPricer::workload_of(pj.job));
    if (o.format == Format::json)
      write_step_json(std::cout, model, pj.job.name, parallelism, step);
    else
      write_step_text(std::cout, model, pj.job.name, parallelism, step);
    return kSuccess;
  }

  CollectiveQuery query;
  query.op = collective_argument(o.collective);
  algorithm_argument(o.algorithm, query);
  if (!o.protocol.empty()) query.protocols = protocol_argument(o.protocol);
  if (o.size.empty() == o.sweep.empty())
    throw InputError({"--size", 0, 0}, "give either --size SIZE or --sweep FROM:TO");
  std::optional<SizeRange> range;
  if (!o.sweep.empty())
    range = parse_size_range(o.sweep, "--sweep");
  else
    query.bytes = parse_byte_size(o.size, "--size");
  if (o.first && *o.first < 1) throw InputError({"--first", 0, 0}, "must be at least 1");
  if (o.gpus_per_thread && (*o.gpus_per_thread < 1 || *o.gpus_per_thread > kMaxGpusPerThread))
    throw InputError({"--gpus-per-thread", 0, 0}, fmt::format("must be 1 to {} (nccl-tests' -g)", kMaxGpusPerThread));
  const auto gpus_per_thread = static_cast<std::uint32_t>(o.gpus_per_thread.value_or(1));
  const std::optional<EpKernel> parsed_kernel = parse_ep_kernel(o.ep_kernel);
  if (!parsed_kernel)
    throw InputError({"--ep-kernel", 0, 0},
                     fmt::format("unknown kernel '{}' ({})", o.ep_kernel, ep_kernel_names()));
  const EpKernel kernel = *parsed_kernel;
  const std::optional<EpPhase> phase = parse_ep_phase(o.ep_phase);
  if (!phase)
    throw InputError({"--ep-phase", 0, 0}, fmt::format("unknown phase '{}' (dispatch or combine)", o.ep_phase));
  std::uint64_t message = 0;
  const std::string kname(ep_kernel_name(kernel));
  if (kernel != EpKernel::nccl) {
    // A kernel library prices one dispatch or combine of one size.
    if (query.op != Collective::alltoall)
      throw InputError({"--ep-kernel", 0, 0},
                       kname + " prices an expert-parallel dispatch or combine: use --collective alltoall");
    if (range) throw InputError({"--ep-kernel", 0, 0}, kname + " prices one size; give --size, not --sweep");
    if (o.algorithm != "auto" || !o.protocol.empty())
      throw InputError({"--ep-kernel", 0, 0},
                       kname + " sends its own way; --algorithm and --protocol name NCCL's algorithms and protocols");
    if (o.gpus_per_thread)
      throw InputError({"--gpus-per-thread", 0, 0}, "prices nccl-tests' launch of an NCCL collective, not " + kname);
    if (ep_kernel_uses_message(kernel) && o.message_size.empty())
      throw InputError({"--ep-kernel", 0, 0}, kname + " needs --message-size, the bytes of one token's hidden state");
  } else if (o.ep_phase != "dispatch") {
    throw InputError({"--ep-phase", 0, 0}, "is the phase of --ep-kernel pplx, deepep or deepep-ll");
  }
  if (!o.message_size.empty()) {
    if (!ep_kernel_uses_message(kernel)) throw InputError({"--message-size", 0, 0}, "is the put size of --ep-kernel pplx");
    message = parse_byte_size(o.message_size, "--message-size");
  }
  // --job and --replica pick ranks out of a plan; without one they would be ignored.
  if (o.plan.empty() && !o.job.empty())
    throw InputError({"--job", 0, 0}, "names a job of a plan; give the plan with --plan PLAN");
  if (o.plan.empty() && o.replica)
    throw InputError({"--replica", 0, 0}, "picks a replica of a job of a plan; give --plan PLAN --job NAME");

  Topology topology = with_nccl_settings(o.nccl.settings, load_topology_argument(o.topology));
  // Ranks come from --first, --devices or a job of a plan; the model only
  // sees the vector.
  std::vector<DeviceId> ranks;
  if (!o.plan.empty()) {
    ranks = job_ranks(topology, o).ranks;
  } else {
    RankSelection selection;
    selection.devices = o.devices;
    if (o.first) selection.first = static_cast<std::uint64_t>(*o.first);
    ranks = select_ranks(topology, selection);
  }

  CostModel model(topology, model_options(o));
  query.ranks = ranks;
  if (kernel != EpKernel::nccl) {
    EpKernelReport report{kernel, *phase, {}};
    const CollectiveCost cost = ep_collective(model, query, kernel, *phase, message, &report.terms);
    if (o.format == Format::json)
      write_cost_json(std::cout, model, cost, &report);
    else
      write_cost_text(std::cout, model, cost, &report);
    return kSuccess;
  }
  if (range) {
    std::vector<CollectiveCost> sweep = model.sweep(query, range->from, range->to);
    for (CollectiveCost& c : sweep) c = with_serial_launches(c, gpus_per_thread);
    if (o.format == Format::json)
      write_sweep_json(std::cout, model, sweep);
    else
      write_sweep_text(std::cout, model, sweep);
    return kSuccess;
  }
  const CollectiveCost cost = with_serial_launches(model.collective(query), gpus_per_thread);
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
                     "allreduce, allgather, reducescatter, alltoall, broadcast, reduce or sendrecv "
                     "(without it, --plan and --job print the job's step by parallelism)")
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
                     "auto (NCCL's choice), ring, tree, nvls, nvlstree, hierarchical, p2p, allpairs (RCCL's MSCCL), "
                     "or what auto may choose from in NCCL_ALGO's syntax: ring,tree or ^nvls,nvlstree")
      ->option_text("ALGO");
  command
      .add_option("--protocol,-p", o->protocol,
                  "the protocols NCCL may use, in NCCL_PROTO's syntax: Simple, LL,LL128 or ^LL128 "
                  "(default: all, or what the topology's nccl: settings allow)")
      ->option_text("PROTO");
  add_nccl_options(command, o->nccl);
  command.add_option("--ep-kernel", o->ep_kernel,
                     "the library that runs an alltoall as expert-parallel traffic: nccl (default), pplx "
                     "(pplx-kernels, priced by its puts per peer), deepep (DeepEP's normal kernels: NVLink "
                     "forwarding) or deepep-ll (DeepEP's low-latency kernels: direct sends and a fixed cost)")
      ->option_text("KERNEL");
  command.add_option("--ep-phase", o->ep_phase, "with --ep-kernel: dispatch (default) or combine")
      ->option_text("PHASE");
  command.add_option("--message-size", o->message_size, "with --ep-kernel pplx: the bytes of one put (one token's "
                                                        "hidden state: 7168 for DeepSeek-V3 in FP8)")
      ->option_text("SIZE");
  command
      .add_option("--gpus-per-thread,-g", o->gpus_per_thread,
                  "price the collective as nccl-tests -g G measures it, one thread launching on G GPUs: on "
                  "AMD GPUs each launch beyond the first adds ROCm's serial launch (default 1, a process per GPU)")
      ->option_text("G");
  add_format_option(command, o->format);
  command.footer(
      "Prints the time, algbw and busbw (nccl-tests definitions), the algorithm and protocol\n"
      "NCCL would choose (for NVLS and NVLSTree its launch: channels, heads, chunk), the\n"
      "bottleneck, the traffic per tier and, across scale-up islands (NVLink domains), what\n"
      "the crossing costs: the time beyond the same collective inside one island. On Hopper\n"
      "across nodes a 'channels' line says when NCCL's channels, not the NICs, set the\n"
      "transfer through each node's NICs, and inside one NVLink domain when a sendrecv's\n"
      "or all-to-all's send channels, not the links, set it; a 'sends' line, when an\n"
      "all-to-all's channels each run its sends in several batches of 8 peers, one after\n"
      "another (many nodes); a 'heads' line, when NCCL's per-head NVLSTree cap sets the\n"
      "transfer. The time is the latency, the 'transfer' line's time and the 'fill' line's\n"
      "(trees, NVLS: how long the pipeline takes to fill).\n"
      "Without --devices, --first or --plan, all accelerators. With --plan and --job\n"
      "but no --collective: the job's communication per step by parallelism (TP, PP,\n"
      "DP, EP), with where each runs.\n"
      "A topology file's 'nccl:' mapping (NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE,\n"
      "NCCL_BUFFSIZE, the channel bounds: NCCL_MIN/MAX_NCHANNELS, NCCL_MIN/MAX_CTAS,\n"
      "NCCL_NVLS_NCHANNELS) sets what the platform allows and uses; --nccl NAME=VALUE sets one\n"
      "over it, as the job's environment would; --algorithm and --protocol narrow it\n"
      "further. Its 'version' (or --nccl-version) names the NCCL release: releases\n"
      "differ in the tables NCCL chooses by; its 'net_latency' is the latency the network\n"
      "plugin reports (75 us from aws-ofi-nccl on p4d and p5), which NCCL chooses by.\n"
      "The model is described in topoplan-cost(7).\n\n"
      "Examples:\n"
      "  topoplan cost gb200-nvl72 --collective allreduce --size 1G --first 72\n"
      "  topoplan cost dgx-h100:nodes=2 -c alltoall -s 256MiB --devices 'h100-0000[0-1]'\n"
      "  topoplan cost dgx-h100:nodes=1 -c allreduce --sweep 1K:16G --format json\n"
      "  topoplan cost gb200-nvl72:racks=20 -c allreduce -s 1G -n 1440 --algorithm ^nvls,nvlstree\n"
      "  topoplan cost gb200-nvl72:racks=20 -c allreduce -s 16G -n 1440 -a ^nvls,nvlstree --nccl-version 2.26.2\n"
      "  topoplan cost gb200-nvl72:racks=2 -c allreduce -s 1G -n 144 --nccl NCCL_NVLS_ENABLE=0 --nccl "
      "NCCL_BUFFSIZE=16777216\n"
      "  topoplan cost dgx-h100:nodes=2 -c allreduce --sweep 1M:1G --algorithm Ring,Tree --protocol Simple\n"
      "  topoplan cost mi300x:nodes=1 -c allreduce --sweep 1M:16M -g 8\n"
      "  topoplan cost dgx-h100:nodes=2 -c alltoall -s 7MiB --ep-kernel pplx --message-size 7168\n"
      "  topoplan cost h800:nodes=4 -c alltoall -s 14MiB --ep-kernel deepep-ll --ep-phase combine\n"
      "  topoplan plan gb200-nvl72:racks=8 samples/jobs-nvl72.yaml -o plan.yaml\n"
      "  topoplan cost gb200-nvl72:racks=8 -c allreduce -s 1G --plan plan.yaml --job pretrain-405b\n"
      "  topoplan cost gb200-nvl72:racks=8 --plan plan.yaml --job pretrain-405b");
  return [o]() { return run_cost(*o); };
}

}  // namespace topoplan::cli
