#include "topoplan/cost/cost_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/cost/byte_size.hpp"
#include "topoplan/cost/nccl_tuning.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

namespace {

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "inf";
  return fmt::format("{:.{}f}", value, decimals);
}

std::string method(const CollectiveCost& c) {
  return fmt::format("{}/{}", algorithm_name(c.algorithm), protocol_name(c.protocol));
}

std::string plural(std::uint32_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

bool outside(const TierCost& t) { return is_outside(t.tier); }

// One thread driving several GPUs (CollectiveCost::gpus_per_thread): what
// its serial launches add, or that they are not priced.
std::string threads_text(const CollectiveCost& c) {
  const std::string who =
      fmt::format("one thread drives {} (nccl-tests -g {})", plural(c.gpus_per_thread, "GPU"), c.gpus_per_thread);
  if (c.serial_launch_us > 0)
    return fmt::format("{}: {} serial launches add {} us a call", who, c.gpus_per_thread - 1,
                       fixed(c.serial_launch_us, 3));
  return who + ": launches not priced (only ROCm's serial ones are; topoplan-cost(7), Calibration)";
}

double outside_share(const CollectiveCost& c) {
  return c.time_us > 0 && std::isfinite(c.time_us) ? c.outside_us / c.time_us : 0.0;
}

// The NCCL release the model follows where the topology's environment does
// not already name it (--nccl-version, CostModelOptions); "" otherwise.
std::string option_release(const CostModel& model) {
  const auto& version = model.nccl_version();
  if (!version || version == model.topology().nccl_environment().version) return "";
  return version->str();
}

// Where the NCCL environment's settings come from: the topology file's
// nccl: mapping, or a command line option (a setting located at "--...").
std::string environment_origin(const NcclEnvironment& env) {
  bool file = false;
  bool option = false;
  for (const NcclSetting& s : env.settings) (s.where.file.rfind("--", 0) == 0 ? option : file) = true;
  return option ? (file ? "the topology's and requested" : "requested") : "the topology's";
}

std::string scope(const CostModel& model, const CollectiveCost& c) {
  const char* kind = c.generation == Generation::lpu ? "LPU" : "GPU";
  if (!c.scale_up)
    return fmt::format("{} of {}: {} without scale-up links", plural(c.ranks, kind), model.topology().name(),
                       plural(c.nodes, "node"));
  return fmt::format("{} of {}: {} in {}", plural(c.ranks, kind), model.topology().name(), plural(c.nodes, "node"),
                     plural(c.islands, "scale-up island"));
}

void write_point_json(JsonWriter& j, const CostModel& model, const CollectiveCost& c,
                      const EpKernelReport* kernel = nullptr) {
  const Topology& t = model.topology();
  j.begin_object();
  j.field("collective", collective_name(c.op));
  j.field("size_bytes", static_cast<unsigned long long>(c.bytes));
  j.field("ranks", c.ranks);
  j.field("islands", c.islands);
  j.field("scale_up", c.scale_up);
  j.field("nodes", c.nodes);
  j.field("generation", generation_name(c.generation));
  j.field("algorithm", algorithm_name(c.algorithm));
  j.field("protocol", protocol_name(c.protocol));
  j.field("forced", c.forced);
  if (const NcclEnvironment& env = t.nccl_environment(); !env.empty()) {
    j.key("nccl_environment").begin_object();
    for (const NcclSetting& s : env.settings) j.field(s.name, s.value);
    j.end_object();
  }
  if (model.nccl_version()) j.field("nccl_version", model.nccl_version()->str());
  j.field("reachable", c.reachable);
  j.field("time_us", c.time_us, 3);
  j.field("latency_us", c.latency_us, 3);
  j.field("outside_us", c.outside_us, 3);
  j.field("outside_share", outside_share(c), 4);
  j.field("one_island_us", c.one_island_us, 3);
  j.field("one_island_ranks", c.one_island_ranks);
  j.field("algbw_gbps", c.algbw_gbps, 3);
  j.field("busbw_gbps", c.busbw_gbps, 3);
  if (c.gpus_per_thread > 1) {
    j.field("gpus_per_thread", c.gpus_per_thread);
    j.field("serial_launch_us", c.serial_launch_us, 3);
  }
  j.field("bottleneck", bottleneck_text(model, c));
  if (kernel) {
    j.key("kernel").begin_object();
    j.field("name", ep_kernel_name(kernel->kernel));
    j.field("phase", ep_phase_name(kernel->phase));
    j.field("fixed_us", kernel->terms.fixed_us, 3);
    j.field("per_put_us", kernel->terms.per_put_us, 3);
    j.field("wire_us", kernel->terms.wire_us, 3);
    j.field("forward_us", kernel->terms.forward_us, 3);
    j.end_object();
  }
  if (c.nvls_channels > 0) {
    j.key("launch").begin_object();
    j.field("channels", c.nvls_channels);
    j.field("heads", c.nvls_heads);
    j.field("chunk_bytes", c.nvls_chunk_bytes);
    j.end_object();
  }
  if (c.p2p_batches > 0) {
    j.key("p2p_batches").begin_object();
    j.field("batches", c.p2p_batches);
    j.field("peers_per_batch", nccl::kP2pPerBatch);
    j.field("latency_us", c.p2p_batch_us, 3);
    j.end_object();
  }
  if (c.network_channels > 0) {
    j.key("network_channels").begin_object();
    j.field("channels", c.network_channels);
    j.field("gbps_per_channel", nccl::kHopperNetChannelBw, 1);
    j.field("time_us", c.network_channels_us, 3);
    j.end_object();
  }
  if (c.transfer_us > 0) {
    j.field("transfer_us", c.transfer_us, 3);
    j.field("tiers_us", c.tiers_us, 3);
  }
  if (c.fill_us > 0) j.field("fill_us", c.fill_us, 3);
  if (c.nvlstree_cap_gbps > 0) {
    j.key("nvlstree_cap").begin_object();
    j.field("heads", c.nvls_heads);
    j.field("gbps_per_head", c.nvlstree_cap_gbps, 1);
    j.field("time_us", c.transfer_us, 3);
    j.end_object();
  }
  if (c.send_channels > 0) {
    j.key("send_channels").begin_object();
    j.field("channels", c.send_channels);
    j.field("per_peer", c.send_channels_per_peer);
    j.field("gbps_per_channel", nccl::kP2pChannelBw, 1);
    j.field("time_us", c.transfer_us, 3);
    j.end_object();
  }
  j.key("levels").begin_array();
  for (const TierCost& tier : c.tiers()) {
    j.begin_object();
    j.field("tier", tier_label(t, tier));
    j.field("where", tier_where(t, model.fabric(), tier));
    j.field("phase", static_cast<unsigned>(tier.phase));
    j.field("outside", outside(tier));
    j.field("bytes", tier.bytes, 0);
    j.field("bandwidth_gbps", tier.bandwidth, 3);
    j.field("time_us", tier.time_us, 3);
    j.end_object();
  }
  j.end_array();
  j.key("candidates").begin_array();
  for (const Candidate& cand : c.candidates()) {
    j.begin_object();
    j.field("algorithm", algorithm_name(cand.algorithm));
    j.field("protocol", protocol_name(cand.protocol));
    j.field("time_us", cand.time_us, 3);
    j.field("nccl_estimate_us", cand.tuner_us, 3);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace

std::string tier_label(const Topology& topology, const TierCost& tier) {
  switch (tier.tier) {
    case Tier::scale_up: return tier.nvls ? "scale-up nvls" : "scale-up";
    case Tier::pcie: return "pcie";
    case Tier::socket: return "cpu-link";
    case Tier::nic: return "nic";
    case Tier::island:
      return fmt::format("{} egress", tier.level < topology.levels().size() ? topology.levels()[tier.level].name
                                                                            : std::string("island"));
    case Tier::level:
      return fmt::format("{} uplinks", tier.level < topology.levels().size() ? topology.levels()[tier.level].name
                                                                             : std::string("level"));
  }
  return "?";
}

std::string tier_where(const Topology& topology, const FabricProfile& fabric, const TierCost& tier) {
  if (tier.where == kNone) return "-";
  switch (tier.tier) {
    case Tier::scale_up:
    case Tier::pcie:
    case Tier::nic: return topology.device_name(fabric.accelerator(tier.where).device);
    case Tier::socket:
    case Tier::island:
    case Tier::level: return topology.domain_name(tier.where);
  }
  return "-";
}

std::string bottleneck_text(const CostModel& model, const CollectiveCost& cost) {
  if (cost.ranks <= 1) return "none";
  if (cost.bottleneck == kNone) return "latency";
  const TierCost& t = cost.tiers()[cost.bottleneck];
  const std::string what = tier_label(model.topology(), t);
  if (!cost.reachable) return fmt::format("{} {}: no path", what, tier_where(model.topology(), model.fabric(), t));
  // Where NCCL's channels, not the NICs, set the transfer through them.
  if (cost.network_channels > 0) {
    const std::string channels =
        fmt::format("{} channels at {} GB/s", cost.network_channels, nccl::kHopperNetChannelBw);
    if (!outside(t)) return channels + " through the NICs";
    return fmt::format("{} {} ({})", what, tier_where(model.topology(), model.fabric(), t), channels);
  }
  // Where NCCL's send channels, not the links, set a send's transfer.
  if (cost.send_channels > 0)
    return fmt::format("{} send channels at {} GB/s", cost.send_channels, nccl::kP2pChannelBw);
  // Where NCCL's per-head NVLSTree cap, not a tier, sets the transfer.
  if (cost.nvlstree_cap_gbps > 0)
    return fmt::format("{} at NCCL's NVLSTree cap ({} GB/s a head)", plural(cost.nvls_heads, "head"),
                       fixed(cost.nvlstree_cap_gbps, 1));
  return fmt::format("{} {}", what, tier_where(model.topology(), model.fabric(), t));
}

// Why the transfer takes longer than the tiers' bytes at their rates.
std::string transfer_text(const CollectiveCost& c) {
  const std::string tiers = fmt::format("the tiers' {} us", fixed(c.tiers_us, 3));
  if (c.network_channels > 0 || c.send_channels > 0 || c.nvlstree_cap_gbps > 0) return tiers + " at the pace below";
  if (!(c.tiers_us > 0) || std::abs(c.transfer_us - c.tiers_us) <= c.tiers_us * 5e-4) return "the tiers' time";
  return fmt::format("{} at {:.0f} % (the protocol's rate and the size ramp)", tiers, 100 * c.tiers_us / c.transfer_us);
}

// What a choice's pipeline fill is made of (fill_us).
std::string_view fill_text(Algorithm a) {
  switch (a) {
    case Algorithm::tree:
      return "the first chunk up and down the tree";
    case Algorithm::nvls:
      return "NVLS's first loop through its stages";
    case Algorithm::nvlstree:
      return "NVLS's first loop and the network tree's hops";
    default:
      return "the first chunk through the hops";
  }
}

std::string ep_kernel_text(const EpKernelReport& k) {
  std::string text = fmt::format("{} {}:", ep_kernel_name(k.kernel), ep_phase_name(k.phase));
  const EpDispatchTerms& t = k.terms;
  if (k.kernel == EpKernel::deepep) {
    text += fmt::format(" links {} us", fixed(t.wire_us, 3));
    if (t.forward_us > 0)
      text += fmt::format(", forwarding SMs {} us{}", fixed(t.forward_us, 3),
                          t.forward_us > t.wire_us ? " (the bound)" : "");
    return text;
  }
  if (k.kernel == EpKernel::nccl) return text + fmt::format(" wire {} us", fixed(t.wire_us, 3));
  text += fmt::format(" fixed {} us", fixed(t.fixed_us, 3));
  if (t.per_put_us > 0) text += fmt::format(" + puts {} us", fixed(t.per_put_us, 3));
  return text + fmt::format(" + wire {} us", fixed(t.wire_us, 3));
}

void write_cost_text(std::ostream& out, const CostModel& model, const CollectiveCost& c,
                     const EpKernelReport* kernel) {
  const Topology& t = model.topology();
  fmt::print(out, "{} of {} ({} B) on {}\n", collective_name(c.op), format_byte_size(c.bytes), c.bytes,
             scope(model, c));
  if (!c.reachable) {
    fmt::print(out, "  time        unreachable: some ranks have no path to the others\n");
    fmt::print(out, "  bottleneck  {}\n", bottleneck_text(model, c));
    return;
  }
  fmt::print(out, "  algorithm   {}{}\n", method(c), c.forced ? " (requested)" : " (auto)");
  if (kernel) fmt::print(out, "  kernel      {}\n", ep_kernel_text(*kernel));
  if (c.nvls_channels > 0)
    fmt::print(out, "  launch      {} channels x {}, {} chunks\n", c.nvls_channels, plural(c.nvls_heads, "head"),
               format_byte_size(c.nvls_chunk_bytes));
  if (!t.nccl_environment().empty())
    fmt::print(out, "  nccl env    {} ({})\n", t.nccl_environment().describe(),
               environment_origin(t.nccl_environment()));
  if (const std::string release = option_release(model); !release.empty())
    fmt::print(out, "  nccl        {} (its tuner's tables choose)\n", release);
  if (c.gpus_per_thread > 1) fmt::print(out, "  threads     {}\n", threads_text(c));
  fmt::print(out, "  time        {} us (latency {} us)\n", fixed(c.time_us, 3), fixed(c.latency_us, 3));
  if (c.transfer_us > 0) fmt::print(out, "  transfer    {} us: {}\n", fixed(c.transfer_us, 3), transfer_text(c));
  if (c.network_channels > 0)
    fmt::print(out, "  channels    {} channels through each node's NICs at {} GB/s a channel set the transfer: {} us\n",
               c.network_channels, nccl::kHopperNetChannelBw, fixed(c.network_channels_us, 3));
  if (c.nvlstree_cap_gbps > 0)
    fmt::print(
        out,
        "  heads       {} into the network tree at NCCL's NVLSTree cap of {} GB/s a head set the transfer: {} us\n",
        plural(c.nvls_heads, "head"), fixed(c.nvlstree_cap_gbps, 1), fixed(c.transfer_us, 3));
  if (c.send_channels > 0)
    fmt::print(out, "  channels    {} send channels{} at {} GB/s a channel set the transfer: {} us\n", c.send_channels,
               c.send_channels_per_peer < c.send_channels ? fmt::format(" ({} a peer)", c.send_channels_per_peer) : "",
               nccl::kP2pChannelBw, fixed(c.transfer_us, 3));
  if (c.fill_us > 0)
    fmt::print(out, "  fill        {} us until the pipeline is full ({})\n", fixed(c.fill_us, 3),
               fill_text(c.algorithm));
  if (c.p2p_batches > 1)
    fmt::print(out, "  sends       {} batches of up to {} peers a channel, one after another: {} us of the latency\n",
               c.p2p_batches, nccl::kP2pPerBatch, fixed(c.p2p_batch_us, 3));
  fmt::print(out, "  algbw       {} GB/s\n", fixed(c.algbw_gbps, 2));
  fmt::print(out, "  busbw       {} GB/s\n", fixed(c.busbw_gbps, 2));
  fmt::print(out, "  bottleneck  {}\n", bottleneck_text(model, c));
  if (c.islands > 1 && c.one_island_us > 0)
    fmt::print(out, "  crossing    {} us ({:.1f}% of the time) for spanning {} {}: {} us on {} of one {}\n",
               fixed(c.outside_us, 3), 100 * outside_share(c), c.islands, c.scale_up ? "scale-up islands" : "nodes",
               fixed(c.one_island_us, 3), plural(c.one_island_ranks, c.generation == Generation::lpu ? "LPU" : "GPU"),
               c.scale_up ? "island" : "node");
  else if (c.islands > 1)
    fmt::print(out, "  outside     {} us ({:.1f}% of the time) leaving the {} {}\n", fixed(c.outside_us, 3),
               100 * outside_share(c), c.islands, c.scale_up ? "scale-up islands" : "nodes");
  if (c.tier_count > 0) {
    fmt::print(out, "\n  {:<16} {:<24} {:>16} {:>10} {:>12}  {}\n", "tier", "where", "bytes", "GB/s", "time us",
               "side");
    for (const TierCost& tier : c.tiers()) {
      std::string label = tier_label(t, tier);
      if (tier.phase > 0 || c.algorithm == Algorithm::hierarchical) label += fmt::format(" [{}]", tier.phase + 1);
      fmt::print(out, "  {:<16} {:<24} {:>16} {:>10} {:>12}  {}\n", label, tier_where(t, model.fabric(), tier),
                 fixed(tier.bytes, 0), fixed(tier.bandwidth, 2), fixed(tier.time_us, 3),
                 outside(tier) ? "outside" : "inside");
    }
  }
  if (c.candidate_count > 0) {
    fmt::print(out, "\n  {:<24} {:>12} {:>16}\n", "candidate", "time us", "NCCL's estimate");
    for (const Candidate& cand : c.candidates()) {
      const bool chosen = cand.algorithm == c.algorithm && cand.protocol == c.protocol;
      fmt::print(out, "  {:<24} {:>12} {:>16}{}\n",
                 fmt::format("{}/{}", algorithm_name(cand.algorithm), protocol_name(cand.protocol)),
                 fixed(cand.time_us, 3), fixed(cand.tuner_us, 3), chosen ? "  *" : "");
    }
  }
}

void write_cost_json(std::ostream& out, const CostModel& model, const CollectiveCost& c,
                     const EpKernelReport* kernel) {
  JsonWriter j(out);
  write_point_json(j, model, c, kernel);
}

void write_sweep_text(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep) {
  if (sweep.empty()) return;
  const CollectiveCost& first = sweep.front();
  const NcclEnvironment& env = model.topology().nccl_environment();
  const std::string release = option_release(model);
  fmt::print(out, "{} on {}{}{}{}\n", collective_name(first.op), scope(model, first),
             first.forced ? fmt::format(", algorithm {}", algorithm_name(first.algorithm)) : "",
             env.empty() ? "" : fmt::format(", within {}", env.describe()),
             release.empty() ? "" : fmt::format(", NCCL {}", release));
  if (first.gpus_per_thread > 1) fmt::print(out, "threads: {}\n", threads_text(first));
  fmt::print(out, "{:>14} {:>14} {:>11} {:>11} {:>8}  {:<20} {}\n", "size (B)", "time (us)", "algbw GB/s",
             "busbw GB/s", "outside", "algorithm", "bottleneck");
  for (const CollectiveCost& c : sweep)
    fmt::print(out, "{:>14} {:>14} {:>11} {:>11} {:>7}%  {:<20} {}\n", c.bytes,
               c.reachable ? fixed(c.time_us, 3) : "unreachable", fixed(c.algbw_gbps, 2), fixed(c.busbw_gbps, 2),
               fixed(100 * outside_share(c), 1), method(c), bottleneck_text(model, c));
}

std::string step_part_tier(const Topology& topology, const StepPart& part) {
  if (!part.reachable) return "unreachable";
  if (part.latency_bound) return "latency";
  TierCost t;
  t.tier = part.tier;
  t.level = part.level;
  t.nvls = part.tier == Tier::scale_up && (part.algorithm == Algorithm::nvls || part.algorithm == Algorithm::nvlstree);
  return tier_label(topology, t);
}

std::string step_part_text(const Topology& topology, const StepPart& part) {
  std::string out = fmt::format("{} ({}/{}), {} ranks in {}", step_part_tier(topology, part),
                                algorithm_name(part.algorithm), protocol_name(part.protocol), part.ranks,
                                plural(part.islands, "island"));
  if (part.seconds > 0 && part.outside_seconds > 0)
    out += fmt::format(", {:.0f}% outside", 100 * part.outside_seconds / part.seconds);
  return out;
}

namespace {

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "unreachable";
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

}  // namespace

void write_step_parts_json(JsonWriter& j, const Topology& topology, const StepCost& step) {
  j.begin_array();
  for (std::size_t k = 0; k < kStepKinds; ++k) {
    const StepPart& part = step.parts[k];
    if (part.groups == 0) continue;
    j.begin_object();
    j.field("kind", step_kind_name(static_cast<StepKind>(k)));
    j.key("seconds");
    if (std::isfinite(part.seconds)) j.value(part.seconds, 9); else j.null();
    j.field("outside_seconds", part.outside_seconds, 9);
    j.field("groups", part.groups);
    j.field("ranks", part.ranks);
    j.field("islands", part.islands);
    j.field("collective", collective_name(part.op));
    j.field("algorithm", algorithm_name(part.algorithm));
    j.field("protocol", protocol_name(part.protocol));
    j.field("tier", step_part_tier(topology, part));
    j.end_object();
  }
  j.end_array();
}

void write_step_text(std::ostream& out, const CostModel& model, std::string_view job, const Parallelism& par,
                     const StepCost& step) {
  const Topology& topology = model.topology();
  const std::string release = option_release(model);
  fmt::print(out, "step of {} on {}{} (tp {} x pp {} x dp {}, ep {}): {} of communication", job, topology.name(),
             release.empty() ? "" : ", NCCL " + release, par.tp, par.pp, par.dp, par.ep, seconds_text(step.seconds()));
  if (step.outside_seconds() > 0 && step.seconds() > 0)
    fmt::print(out, ", {} ({:.1f}%) outside the scale-up islands", seconds_text(step.outside_seconds()),
               100 * step.outside_seconds() / step.seconds());
  fmt::print(out, "\n\n  {:<4} {:>12} {:>12} {:>7}  {}\n", "kind", "per step", "outside", "groups", "where the slowest group runs");
  for (std::size_t k = 0; k < kStepKinds; ++k) {
    const StepPart& part = step.parts[k];
    if (part.groups == 0) continue;
    fmt::print(out, "  {:<4} {:>12} {:>12} {:>7}  {}\n", step_kind_name(static_cast<StepKind>(k)),
               seconds_text(part.seconds), seconds_text(part.outside_seconds), part.groups,
               step_part_text(topology, part));
  }
}

void write_step_json(std::ostream& out, const CostModel& model, std::string_view job, const Parallelism& par,
                     const StepCost& step) {
  const Topology& topology = model.topology();
  JsonWriter j(out);
  j.begin_object();
  j.field("job", job);
  j.field("topology", topology.name());
  if (model.nccl_version()) j.field("nccl_version", model.nccl_version()->str());
  j.key("parallelism").begin_object();
  j.field("tp", par.tp).field("pp", par.pp).field("dp", par.dp).field("ep", par.ep);
  j.end_object();
  j.key("step_seconds");
  if (std::isfinite(step.seconds())) j.value(step.seconds(), 9); else j.null();
  j.field("outside_seconds", step.outside_seconds(), 9);
  j.key("parts");
  write_step_parts_json(j, topology, step);
  j.end_object();
}

void write_sweep_json(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep) {
  JsonWriter j(out);
  j.begin_object();
  j.field("topology", model.topology().name());
  if (!sweep.empty()) {
    j.field("collective", collective_name(sweep.front().op));
    j.field("ranks", sweep.front().ranks);
  }
  j.key("points").begin_array();
  for (const CollectiveCost& c : sweep) write_point_json(j, model, c);
  j.end_array();
  j.end_object();
}

}  // namespace topoplan
