// Slurm's topology files as plain data: what topology.conf (topology/tree,
// topology/block) and topology.yaml (Slurm 25.05+) say, independent of the
// syntax they say it in. The readers fill it with the position of every item;
// the importer checks it and builds a Topology; the exporter fills it from a
// Topology and the writers print it.
//
// Sources (SchedMD/slurm): doc/man/man5/topology.conf.5 and topology.yaml.5;
// src/common/parse_config.c (key=value syntax, comments, continuation lines,
// case-insensitive keys); src/plugins/topology/tree/switch_record.c and
// src/plugins/topology/block/block_record.c (what the controller accepts).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/formats/topology_import.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::formats::slurm {

/// Slurm refuses longer switch names (HOST_NAME_MAX in switch_record.c).
inline constexpr std::size_t kMaxSwitchName = 64;
/// Switch tiers one tree may have; Slurm itself gives up above 20
/// ("Switch configuration is not a tree"), topoplan's cost model keeps 16
/// levels, two of which are the root and the hosts.
inline constexpr int kMaxTiers = 14;

/// A hostlist value (`n[001-016]`), expanded, with where it was written.
struct NameList {
  std::vector<std::string> names;
  SourceLocation where;
  bool present = false;  // the key was given (possibly with an empty list)
};

struct Switch {
  std::string name;
  SourceLocation where;
  NameList switches;  // child switches
  NameList nodes;     // hosts of a leaf switch
  std::string comment;  // written above the line by the exporter
};

struct Block {
  std::string name;
  SourceLocation where;
  NameList nodes;
  std::string comment;
};

struct BlockSize {
  long long nodes = 0;
  SourceLocation where;
};

/// One topology: a switch tree or a list of blocks.
struct TopologySpec {
  enum class Kind { tree, block, flat };
  Kind kind = Kind::tree;
  std::string name;  // topology.yaml: the `topology:` name; empty for topology.conf
  SourceLocation where;
  bool cluster_default = false;
  std::vector<Switch> switches;
  std::vector<Block> blocks;
  std::vector<BlockSize> block_sizes;  // empty: not given (Slurm's default)
  SourceLocation block_sizes_where;
  /// Level names from a `# topoplan-levels: a, b, c` comment (written by
  /// topoplan's exporter, ignored by Slurm); empty when there is none. For
  /// blocks: every level from the root to the blocks' own, then the hosts'
  /// (block names are the domain paths, '/' written as '.').
  std::vector<std::string> level_names;
  /// The topology's name from a `# topoplan-topology: NAME` comment (also
  /// topoplan's); empty when there is none.
  std::string topology_name;
  /// Comment lines written first (without `# `).
  std::vector<std::string> header;
  /// BlockName/SwitchName lines found commented out, for a better message
  /// when nothing else is left.
  int commented_out = 0;
};

/// The comments that carry level names and the topology's name through a
/// Slurm file.
inline constexpr std::string_view kLevelsComment = "topoplan-levels:";
inline constexpr std::string_view kNameComment = "topoplan-topology:";

/// Whether `text` looks like topology.yaml rather than topology.conf.
bool looks_like_topology_yaml(std::string_view text);

/// Reads topology.conf, expanding at most `max_hosts` names
/// (ImportOptions::max_hosts). Throws InputError listing every syntax problem.
TopologySpec read_topology_conf(const ImportSource& source, std::size_t max_hosts = ImportOptions{}.max_hosts);
/// Reads topology.yaml: every topology in it, in file order.
std::vector<TopologySpec> read_topology_yaml(const ImportSource& source,
                                             std::size_t max_hosts = ImportOptions{}.max_hosts);

/// Writes topology.conf for one tree or block topology.
std::string write_topology_conf(const TopologySpec& spec);
/// Writes topology.yaml holding `specs` in order.
std::string write_topology_yaml(const std::vector<TopologySpec>& specs, const std::vector<std::string>& header);

/// `names` as a hostlist Slurm reads back as the same names: topoplan's
/// compression where every item ends in a bracket group (Slurm 22.05's
/// hostlist refuses text after the last bracket, `r[1-2]-n0`), else runs of
/// one trailing number (`r1-n[0-3]`).
std::string slurm_hostlist(const std::vector<std::string>& names);

/// Whether `name` can stand in a Slurm hostlist or a topology.conf value:
/// not empty, no blank or control character, none of `,[]#="\'`.
bool slurm_safe(std::string_view name);

/// Why `name` cannot be a switch or block name ("" when it can): empty, or
/// holding '/' (topoplan's path separator) or a hostlist character ('[',
/// ']', ','), which would make it a different name when listed in
/// Switches= or read back by topoplan.
std::string name_problem(std::string_view name);

/// How many names one file may still expand to (all Nodes= and Switches=
/// together), so that many large hostlists cannot exhaust memory either.
struct NameBudget {
  explicit NameBudget(std::size_t max_names) : limit(max_names), left(max_names) {}
  std::size_t limit;
  std::size_t left;
  bool reported = false;
};

/// Expands a hostlist value starting at `where` (column of its first
/// character); reports problems to `sink`, and once when `budget` runs out.
NameList expand_names(std::string_view value, SourceLocation where, DiagnosticSink& sink, std::string_view what,
                      NameBudget& budget);

/// Checks `spec` the way slurmctld would (and stricter where Slurm only
/// warns), then builds the topology. `warnings` receives what still imports.
Topology build_topology(const TopologySpec& spec, const std::string& topology_name, const ImportOptions& options,
                        std::vector<ImportWarning>& warnings);

/// What a model richer than topology.conf adds to a switch tree (NVIDIA
/// Topograph's models: labels, accelerator domains).
struct TreeExtras {
  /// Level names of the switch tiers, leaves (tier 0) first; tiers beyond
  /// the list keep Slurm's names (`leaf`, `switchN`).
  std::vector<std::string> tier_names;
  std::string switch_model = "slurm-switch";
  std::string description;  // empty: "Slurm topology/tree: ..."
  std::map<std::string, Labels> switch_labels;  // by switch name
  std::map<std::string, Labels> host_labels;    // by host name
  /// Hosts that share one scale-up fabric across nodes (an NVLink domain).
  struct Island {
    std::string name;
    SourceLocation where;
    std::vector<std::string> hosts;
  };
  std::vector<Island> islands;
  /// How the format could say where the islands are, for the warning given
  /// when a node type's islands span nodes and no island is named.
  std::string islands_hint = "a topology/block file keeps the islands";
};

/// build_topology() for a tree, with `extras`. Each island is built in the
/// smallest switch domain holding all its hosts: with a node type whose own
/// islands span nodes (gb200-nvl72), as that island (its switch trays);
/// otherwise as one NVLink partition switch (add_nvlink_partition()).
Topology build_tree(const TopologySpec& spec, const std::string& topology_name, const ImportOptions& options,
                    std::vector<ImportWarning>& warnings, const TreeExtras& extras);

}  // namespace topoplan::formats::slurm
