#include "level_map.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/model/fabric.hpp"
#include "topoplan/support/ascii.hpp"

namespace topoplan {

namespace {

}  // namespace

LevelLabel parse_level_label(std::string_view text, std::string_view option) {
  std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    throw InputError({std::string(option), 0, 0},
                     fmt::format("'{}' is not LABEL=LEVEL (e.g. cloud.google.com/gce-topology-block=su)", text));
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

LevelMap::LevelMap(const Topology& topology, const std::vector<LevelLabel>& labels) : topology_(topology) {
  DiagnosticSink sink;
  for (const LevelLabel& l : labels) {
    auto level = topology.find_level(l.level);
    if (!level) {
      std::vector<std::string> names;
      for (const Level& lv : topology.levels()) names.push_back(lv.name);
      std::string hint = did_you_mean(l.level, names);
      sink.error({"--level-label", 0, 0}, fmt::format("'{}={}': '{}' is not a level of topology '{}' ({}){}{}", l.label,
                                                      l.level, l.level, topology.name(), level_list(),
                                                      hint.empty() ? "" : "; ", hint));
      continue;
    }
    explicit_.emplace_back(l.label, *level);
  }
  sink.throw_if_any();
}

LevelIndex LevelMap::island_level() const {
  // A multi-node NVLink domain is what Slurm's blocks and the GPU clique
  // label describe; single-node islands (DGX, HGX) have no such level. Found
  // on first use: most manifests never ask, and it walks every link.
  if (!island_level_) {
    ScaleUpIslands islands = find_scale_up_islands(topology_);
    island_level_ = islands.size.empty() ? topology_.host_level() : islands.level == kNone ? 0 : islands.level;
  }
  return *island_level_;
}

std::string LevelMap::level_list() const {
  std::vector<std::string> names;
  for (const Level& l : topology_.levels()) names.push_back(l.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::optional<LevelIndex> LevelMap::level_of_label(std::string_view label) const {
  // The last --level-label for a label wins, as with repeated options elsewhere.
  for (auto it = explicit_.rbegin(); it != explicit_.rend(); ++it)
    if (it->first == label) return it->second;
  if (label == "kubernetes.io/hostname") return topology_.host_level();
  // NVIDIA's GPU feature discovery labels each node with its NVLink clique
  // (ClusterUUID.CliqueID): one multi-node NVLink domain.
  if (label == "nvidia.com/gpu.clique" && island_level() < topology_.host_level()) return island_level();
  std::string_view name = label.substr(label.rfind('/') == std::string_view::npos ? 0 : label.rfind('/') + 1);
  std::string name_lower = ascii_lower(name);
  for (LevelIndex l = 0; l < topology_.levels().size(); ++l)
    if (ascii_lower(topology_.levels()[l].name) == name_lower) return l;
  // Provider labels put the level last: cloud.provider.com/topology-rack,
  // cloud.google.com/gce-topology-block.
  std::size_t sep = name.find_last_of("-_.");
  if (sep != std::string_view::npos) {
    std::string last = ascii_lower(name.substr(sep + 1));
    for (LevelIndex l = 0; l < topology_.levels().size(); ++l)
      if (ascii_lower(topology_.levels()[l].name) == last) return l;
  }
  return std::nullopt;
}

std::optional<LevelIndex> LevelMap::resolve_label(std::string_view label, std::string_view annotation,
                                                  const SourceLocation& where, DiagnosticSink& sink) const {
  if (auto level = level_of_label(label)) return level;
  std::vector<std::string> known;
  for (const auto& [l, level] : explicit_) known.push_back(fmt::format("{} ({})", l, level_name(level)));
  known.push_back(fmt::format("kubernetes.io/hostname ({})", level_name(topology_.host_level())));
  if (island_level() < topology_.host_level())
    known.push_back(fmt::format("nvidia.com/gpu.clique ({})", level_name(island_level())));
  known.push_back("any label ending in /LEVEL or -LEVEL");
  sink.error(where, fmt::format("{}: node label '{}' names no level of topology '{}' ({}); labels that do: {}; map it "
                                "with --level-label {}=LEVEL",
                                annotation, label, topology_.name(), level_list(), fmt::join(known, ", "), label));
  return std::nullopt;
}

LevelIndex LevelMap::tier(long long tier) const {
  LevelIndex host = topology_.host_level();
  if (tier >= static_cast<long long>(host)) return 0;
  return static_cast<LevelIndex>(host - static_cast<LevelIndex>(tier));
}

LevelIndex LevelMap::leaf_level() const { return topology_.host_level() == 0 ? 0 : topology_.host_level() - 1; }

LevelIndex LevelMap::block_level() const {
  if (island_level() < topology_.host_level()) return island_level();
  return leaf_level();
}

}  // namespace topoplan
