#include "topoplan/cost/cost_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/cost/byte_size.hpp"
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

std::string scope(const CostModel& model, const CollectiveCost& c) {
  const char* kind = c.generation == Generation::lpu ? "LPU" : "GPU";
  if (!c.scale_up)
    return fmt::format("{} of {}: {} without scale-up links", plural(c.ranks, kind), model.topology().name(),
                       plural(c.nodes, "node"));
  return fmt::format("{} of {}: {} in {}", plural(c.ranks, kind), model.topology().name(), plural(c.nodes, "node"),
                     plural(c.islands, "scale-up island"));
}

void write_point_json(JsonWriter& j, const CostModel& model, const CollectiveCost& c) {
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
  j.field("reachable", c.reachable);
  j.field("time_us", c.time_us, 3);
  j.field("latency_us", c.latency_us, 3);
  j.field("algbw_gbps", c.algbw_gbps, 3);
  j.field("busbw_gbps", c.busbw_gbps, 3);
  j.field("bottleneck", bottleneck_text(model, c));
  j.key("levels").begin_array();
  for (const TierCost& tier : c.tiers()) {
    j.begin_object();
    j.field("tier", tier_label(t, tier));
    j.field("where", tier_where(t, model.fabric(), tier));
    j.field("phase", static_cast<unsigned>(tier.phase));
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
  return fmt::format("{} {}", what, tier_where(model.topology(), model.fabric(), t));
}

void write_cost_text(std::ostream& out, const CostModel& model, const CollectiveCost& c) {
  const Topology& t = model.topology();
  fmt::print(out, "{} of {} ({} B) on {}\n", collective_name(c.op), format_byte_size(c.bytes), c.bytes,
             scope(model, c));
  if (!c.reachable) {
    fmt::print(out, "  time        unreachable: some ranks have no path to the others\n");
    fmt::print(out, "  bottleneck  {}\n", bottleneck_text(model, c));
    return;
  }
  fmt::print(out, "  algorithm   {}{}\n", method(c), c.forced ? " (requested)" : " (auto)");
  fmt::print(out, "  time        {} us (latency {} us)\n", fixed(c.time_us, 3), fixed(c.latency_us, 3));
  fmt::print(out, "  algbw       {} GB/s\n", fixed(c.algbw_gbps, 2));
  fmt::print(out, "  busbw       {} GB/s\n", fixed(c.busbw_gbps, 2));
  fmt::print(out, "  bottleneck  {}\n", bottleneck_text(model, c));
  if (c.tier_count > 0) {
    fmt::print(out, "\n  {:<16} {:<24} {:>16} {:>10} {:>12}\n", "tier", "where", "bytes", "GB/s", "time us");
    for (const TierCost& tier : c.tiers()) {
      std::string label = tier_label(t, tier);
      if (tier.phase > 0 || c.algorithm == Algorithm::hierarchical) label += fmt::format(" [{}]", tier.phase + 1);
      fmt::print(out, "  {:<16} {:<24} {:>16} {:>10} {:>12}\n", label, tier_where(t, model.fabric(), tier),
                 fixed(tier.bytes, 0), fixed(tier.bandwidth, 2), fixed(tier.time_us, 3));
    }
  }
  if (c.candidate_count > 0) {
    fmt::print(out, "\n  {:<24} {:>12}\n", "candidate", "time us");
    for (const Candidate& cand : c.candidates()) {
      const bool chosen = cand.algorithm == c.algorithm && cand.protocol == c.protocol;
      fmt::print(out, "  {:<24} {:>12}{}\n",
                 fmt::format("{}/{}", algorithm_name(cand.algorithm), protocol_name(cand.protocol)),
                 fixed(cand.time_us, 3), chosen ? "  *" : "");
    }
  }
}

void write_cost_json(std::ostream& out, const CostModel& model, const CollectiveCost& c) {
  JsonWriter j(out);
  write_point_json(j, model, c);
}

void write_sweep_text(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep) {
  if (sweep.empty()) return;
  const CollectiveCost& first = sweep.front();
  fmt::print(out, "{} on {}{}\n", collective_name(first.op), scope(model, first),
             first.forced ? fmt::format(", algorithm {}", algorithm_name(first.algorithm)) : "");
  fmt::print(out, "{:>14} {:>14} {:>11} {:>11}  {:<20} {}\n", "size (B)", "time (us)", "algbw GB/s", "busbw GB/s",
             "algorithm", "bottleneck");
  for (const CollectiveCost& c : sweep)
    fmt::print(out, "{:>14} {:>14} {:>11} {:>11}  {:<20} {}\n", c.bytes, c.reachable ? fixed(c.time_us, 3) : "unreachable",
               fixed(c.algbw_gbps, 2), fixed(c.busbw_gbps, 2), method(c), bottleneck_text(model, c));
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
