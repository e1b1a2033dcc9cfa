// Which topology level a scheduler's words name: Kubernetes node labels
// (Kueue, KAI, LWS, JobSet), Volcano tiers, Slurm's leaf switches and blocks.
// Private to lib/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

class LevelMap {
 public:
  /// Throws InputError when a LEVEL of `labels` is not a level of `topology`.
  LevelMap(const Topology& topology, const std::vector<LevelLabel>& labels);

  const Topology& topology() const { return topology_; }

  /// The level a node label names: --level-label first, then the built-in
  /// rules (topoplan-formats(5)); nullopt when none applies.
  std::optional<LevelIndex> level_of_label(std::string_view label) const;
  /// Like level_of_label, but reports an unknown label at `where`, saying
  /// which labels do map and how to map this one.
  std::optional<LevelIndex> resolve_label(std::string_view label, std::string_view annotation,
                                          const SourceLocation& where, DiagnosticSink& sink) const;
  /// Volcano: tier 1 is the level above the hosts, tier 2 the one above it...
  /// (the root when the tier is higher than the topology is deep).
  LevelIndex tier(long long tier) const;
  /// Slurm topology/tree: the level of leaf switches, just above the hosts.
  LevelIndex leaf_level() const;
  /// Slurm topology/block: the finest level whose domains are multi-node
  /// scale-up islands (an NVL72 rack), else the leaf level.
  LevelIndex block_level() const;

  std::string level_name(LevelIndex level) const { return topology_.levels()[level].name; }
  std::string level_list() const;

 private:
  LevelIndex island_level() const;

  const Topology& topology_;
  std::vector<std::pair<std::string, LevelIndex>> explicit_;
  mutable std::optional<LevelIndex> island_level_;  // island_level(), once known
};

}  // namespace topoplan
