#include "topoplan/model/topology_summary.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/support/json_writer.hpp"

namespace topoplan {

TopologySummary summarize(const Topology& topology) {
  TopologySummary s;
  s.name = topology.name();
  s.description = topology.description();
  for (const NcclSetting& n : topology.nccl_environment().settings) s.nccl.emplace_back(n.name, n.value);
  for (const TopologyParameter& p : topology.parameters()) s.parameters.emplace_back(p.name, p.value);

  std::map<std::tuple<int, std::string>, ModelCount> models;
  for (const Device& d : topology.devices()) {
    ++s.devices[static_cast<std::size_t>(d.kind)];
    ++s.device_total;
    if (is_accelerator(d.kind)) {
      ++s.accelerators;
      if (d.state == DeviceState::up) ++s.accelerators_up;
      if (d.state == DeviceState::drain) ++s.accelerators_drain;
      if (d.state == DeviceState::down) ++s.accelerators_down;
    }
    if (!is_accelerator(d.kind) && !is_switch(d.kind)) continue;
    auto key = std::make_tuple(static_cast<int>(d.kind), std::string(topology.str(d.model)));
    auto [it, added] = models.try_emplace(key);
    ModelCount& m = it->second;
    std::string logical;
    for (const auto& [label, value] : topology.labels(d.labels))
      if (label == kLogicalLabel) logical = value;
    if (added) {
      m.kind = std::string(kind_name(d.kind));
      m.model = std::get<1>(key);
      m.memory_gib = static_cast<double>(d.memory_gib);
      m.logical = logical;
    } else {
      if (m.memory_gib != static_cast<double>(d.memory_gib)) m.memory_gib = 0;
      if (m.logical != logical) m.logical.clear();
    }
    ++m.count;
  }
  for (auto& [key, m] : models) s.models.push_back(m);

  ScaleUpIslands islands = find_scale_up_islands(topology);
  s.scale_up_islands = islands.size.size();
  if (!islands.size.empty()) {
    s.island_size_min = *std::min_element(islands.size.begin(), islands.size.end());
    s.island_size_max = *std::max_element(islands.size.begin(), islands.size.end());
    s.island_level = topology.levels()[islands.level].name;
    s.island_level_exact = islands.level_is_island;
  }

  std::vector<Egress> egress = domain_egress(topology);
  double best_cut = std::numeric_limits<double>::infinity();
  for (LevelIndex l = 0; l <= topology.host_level(); ++l) {
    LevelSummary level;
    level.name = topology.levels()[l].name;
    auto [first, last] = topology.domains_at(l);
    level.domains = last - first;
    level.accelerators_min = std::numeric_limits<std::uint64_t>::max();
    level.egress_min = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::infinity()};
    double total = 0;
    for (DomainId d = first; d < last; ++d) {
      std::uint64_t n = topology.domain(d).accelerator_count();
      level.accelerators_min = std::min(level.accelerators_min, n);
      level.accelerators_max = std::max(level.accelerators_max, n);
      total += egress[d].total();
      if (n == 0) continue;
      level.egress_min.scale_up = std::min(level.egress_min.scale_up, egress[d].scale_up);
      level.egress_min.network = std::min(level.egress_min.network, egress[d].network);
      level.egress_min.other = std::min(level.egress_min.other, egress[d].other);
    }
    if (level.domains == 0) level.accelerators_min = 0;
    if (!(level.egress_min.scale_up < std::numeric_limits<double>::infinity())) level.egress_min = {};
    // A balanced cut that keeps this level's domains whole may run along any
    // coarser level with at least two domains; the cheapest such cut bounds the
    // bisection bandwidth (half the total egress of that level's domains).
    if (l > 0 && level.domains >= 2) best_cut = std::min(best_cut, total / 2);
    if (l > 0 && best_cut < std::numeric_limits<double>::infinity()) level.bisection = best_cut;
    s.levels.push_back(level);
  }

  std::map<std::string, LinkTypeSummary> types;
  for (const Link& link : topology.links()) {
    const LinkType& t = topology.link_type(link);
    auto [it, added] = types.try_emplace(t.name);
    LinkTypeSummary& lt = it->second;
    if (added) {
      lt.type = t.name;
      lt.family = std::string(family_name(t.family));
      lt.bandwidth = static_cast<double>(link.bandwidth);
    }
    lt.links += link.count;
    lt.aggregate += link.total_bandwidth();
  }
  for (auto& [name, lt] : types) s.link_types.push_back(lt);
  std::stable_sort(s.link_types.begin(), s.link_types.end(),
                   [](const LinkTypeSummary& a, const LinkTypeSummary& b) { return a.aggregate > b.aggregate; });

  std::map<std::pair<LevelIndex, std::string>, SwitchTierSummary> tiers;
  for (const SwitchLoad& load : switch_loads(topology)) {
    const Device& d = topology.device(load.device);
    LevelIndex level = topology.domain(d.domain).level;
    auto key = std::make_pair(level, std::string(topology.str(d.model)));
    auto [it, added] = tiers.try_emplace(key);
    SwitchTierSummary& t = it->second;
    if (added) {
      t.level = topology.levels()[level].name;
      t.model = key.second;
    }
    ++t.count;
    t.down = std::max(t.down, load.down);
    t.up = std::max(t.up, load.up);
    t.oversubscription = std::max(t.oversubscription, load.oversubscription());
  }
  for (auto& [key, t] : tiers) s.switch_tiers.push_back(t);
  return s;
}

namespace {

std::string gbps(double v) { return format_number(v, 1); }

std::string parameter_text(const TopologySummary& s) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : s.parameters) parts.push_back(fmt::format("{}={}", name, value));
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace

void write_summary_text(std::ostream& out, const TopologySummary& s) {
  std::string params = parameter_text(s);
  fmt::print(out, "topology {}{}\n", s.name, params.empty() ? "" : fmt::format(" ({})", params));
  if (!s.description.empty()) fmt::print(out, "  {}\n", s.description);
  if (!s.nccl.empty()) {
    std::string env;
    for (const auto& [name, value] : s.nccl) env += fmt::format("{}{}={}", env.empty() ? "" : " ", name, value);
    fmt::print(out, "  NCCL environment: {}\n", env);
  }

  fmt::print(out, "\ndevices\n");
  for (std::size_t k = 0; k < s.devices.size(); ++k)
    if (s.devices[k]) fmt::print(out, "  {:<12} {:>9}\n", kind_name(static_cast<DeviceKind>(k)), s.devices[k]);
  fmt::print(out, "  {:<12} {:>9}\n", "total", s.device_total);
  if (!s.models.empty()) {
    fmt::print(out, "\nmodels\n");
    for (const ModelCount& m : s.models)
      fmt::print(out, "  {:<12} {:<20} {:>9}{}{}\n", m.kind, m.model.empty() ? "-" : m.model, m.count,
                 m.memory_gib > 0 ? fmt::format("  {} GiB each", format_number(m.memory_gib, 1)) : "",
                 m.logical.empty() ? "" : "  logical: " + m.logical);
  }
  fmt::print(out, "\naccelerators: {} ({} up, {} drain, {} down)\n", s.accelerators, s.accelerators_up,
             s.accelerators_drain, s.accelerators_down);
  if (s.scale_up_islands) {
    std::string sizes = s.island_size_min == s.island_size_max
                            ? fmt::format("{}", s.island_size_min)
                            : fmt::format("{}-{}", s.island_size_min, s.island_size_max);
    fmt::print(out, "scale-up islands: {} of {} accelerators{}\n", s.scale_up_islands, sizes,
               s.island_level_exact ? fmt::format(", one per {}", s.island_level)
                                    : fmt::format(", each inside one {}", s.island_level));
  } else {
    fmt::print(out, "scale-up islands: none (no NVLink, xGMI or C2C links between accelerators)\n");
  }

  fmt::print(out, "\n{:<14} {:>9} {:>13}  {:>28}  {:>14}\n", "level", "domains", "accel/domain",
             "egress/domain GB/s (min)", "bisection GB/s");
  fmt::print(out, "{:<14} {:>9} {:>13}  {:>9} {:>9} {:>8}  {:>14}\n", "", "", "", "scale-up", "network", "other", "");
  for (const LevelSummary& l : s.levels) {
    std::string accel = l.accelerators_min == l.accelerators_max
                            ? fmt::format("{}", l.accelerators_min)
                            : fmt::format("{}-{}", l.accelerators_min, l.accelerators_max);
    fmt::print(out, "{:<14} {:>9} {:>13}  {:>9} {:>9} {:>8}  {:>14}\n", l.name, l.domains, accel,
               gbps(l.egress_min.scale_up), gbps(l.egress_min.network), gbps(l.egress_min.other),
               l.bisection < 0 ? "-" : gbps(l.bisection));
  }

  fmt::print(out, "\n{:<14} {:<11} {:>10} {:>12} {:>16}\n", "link type", "family", "links", "GB/s each",
             "aggregate GB/s");
  for (const LinkTypeSummary& t : s.link_types)
    fmt::print(out, "{:<14} {:<11} {:>10} {:>12} {:>16}\n", t.type, t.family, t.links, gbps(t.bandwidth),
               gbps(t.aggregate));

  if (!s.switch_tiers.empty()) {
    fmt::print(out, "\n{:<14} {:<16} {:>7} {:>12} {:>12} {:>10}\n", "switch tier", "model", "count", "down GB/s",
               "up GB/s", "oversub");
    for (const SwitchTierSummary& t : s.switch_tiers)
      fmt::print(out, "{:<14} {:<16} {:>7} {:>12} {:>12} {:>10}\n", t.level, t.model.empty() ? "-" : t.model,
                 t.count, gbps(t.down), gbps(t.up),
                 t.up > 0 ? fmt::format("{}:1", format_number(t.oversubscription, 2)) : "top");
  }
}

void write_summary_json(std::ostream& out, const TopologySummary& s) {
  JsonWriter j(out);
  j.begin_object();
  j.field("name", s.name);
  j.field("description", s.description);
  if (!s.nccl.empty()) {
    j.key("nccl_environment").begin_object();
    for (const auto& [name, value] : s.nccl) j.field(name, value);
    j.end_object();
  }
  j.key("parameters").begin_object();
  for (const auto& [name, value] : s.parameters) j.field(name, value);
  j.end_object();
  j.key("devices").begin_object();
  for (std::size_t k = 0; k < s.devices.size(); ++k) j.field(kind_name(static_cast<DeviceKind>(k)), s.devices[k]);
  j.field("total", s.device_total);
  j.end_object();
  j.key("accelerators").begin_object();
  j.field("total", s.accelerators).field("up", s.accelerators_up).field("drain", s.accelerators_drain);
  j.field("down", s.accelerators_down);
  j.end_object();
  j.key("models").begin_array();
  for (const ModelCount& m : s.models) {
    j.begin_object().field("kind", m.kind).field("model", m.model).field("count", m.count);
    j.field("memory_gib", m.memory_gib, 1);
    if (!m.logical.empty()) j.field("logical", m.logical);
    j.end_object();
  }
  j.end_array();
  j.key("scale_up").begin_object();
  j.field("islands", s.scale_up_islands).field("size_min", s.island_size_min).field("size_max", s.island_size_max);
  j.key("level");
  if (s.island_level.empty())
    j.null();
  else
    j.value(s.island_level);
  j.field("one_island_per_domain", s.island_level_exact);
  j.end_object();
  j.key("levels").begin_array();
  for (const LevelSummary& l : s.levels) {
    j.begin_object().field("name", l.name).field("domains", l.domains);
    j.field("accelerators_min", l.accelerators_min).field("accelerators_max", l.accelerators_max);
    j.key("egress_min_gbps").begin_object();
    j.field("scale_up", l.egress_min.scale_up, 1).field("network", l.egress_min.network, 1);
    j.field("other", l.egress_min.other, 1).end_object();
    j.key("bisection_gbps");
    if (l.bisection < 0)
      j.null();
    else
      j.value(l.bisection, 1);
    j.end_object();
  }
  j.end_array();
  j.key("links").begin_array();
  for (const LinkTypeSummary& t : s.link_types) {
    j.begin_object().field("type", t.type).field("family", t.family).field("links", t.links);
    j.field("bandwidth_gbps", t.bandwidth, 3).field("aggregate_gbps", t.aggregate, 1).end_object();
  }
  j.end_array();
  j.key("switch_tiers").begin_array();
  for (const SwitchTierSummary& t : s.switch_tiers) {
    j.begin_object().field("level", t.level).field("model", t.model).field("count", t.count);
    j.field("down_gbps", t.down, 1).field("up_gbps", t.up, 1).field("oversubscription", t.oversubscription, 3);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace topoplan
