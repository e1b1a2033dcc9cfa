// `topoplan export --to slurm-tree|slurm-block|slurm-yaml`: a topology written
// as Slurm's topology.conf or topology.yaml.
//
// - tree: one SwitchName per domain from the root down to the leaf level
//   (the level above the hosts, or --level) that has hosts below it, in
//   domain id order, so the root comes first (Slurm 22.05 leaves the root's
//   parent at index 0, see bench/slurm_agreement.sh). Leaves list their hosts
//   in `Nodes=`, the others their child switches in `Switches=`. A domain
//   with no devices and one child only passes its child through (the import
//   adds such domains to trees of uneven depth) and is left out. When the
//   domains below the root share no switch (no device in the root, no link
//   between them: a Slurm forest imported), the root is left out too.
// - block: one BlockName per domain of the block level: the finest level
//   whose domains hold whole scale-up islands (NVL72 racks), the level above
//   the hosts when the islands are single nodes, or --level. BlockSizes are
//   the smallest block's node count (the planning base block, which no block
//   may undercut before Slurm 25.05) and its power-of-two multiples up to the
//   number of blocks: Slurm joins 2^k blocks adjacent in file order
//   (block_record.c), so larger sizes could never be filled.
// Switch and block names are domain paths with '/' written as '.', the root
// is the topology's name. A `# topoplan-levels:` comment keeps the level
// names for `topoplan import`.
#include <map>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "slurm_topology.hpp"
#include "topoplan/model/fabric.hpp"

namespace topoplan::formats {

namespace {

using slurm::slurm_safe;
using slurm::TopologySpec;

class SlurmView {
 public:
  explicit SlurmView(const Topology& t) : t_(t), hosts_below_(t.domain_count(), 0), devices_(t.domain_count(), 0) {
    if (t.host_level() == 0)
      throw InputError({t.name(), 0, 0}, fmt::format("topology '{}' has no level above its nodes: nothing to write "
                                                     "as Slurm switches or blocks",
                                                     t.name()));
    auto [first, last] = t.domains_at(t.host_level());
    for (DomainId h = first; h < last; ++h) {
      if (!slurm_safe(t.hostname(h)))
        throw InputError({t.name(), 0, 0}, fmt::format("hostname '{}' cannot be written in a Slurm hostlist",
                                                       t.hostname(h)));
      for (DomainId d = h; d != kNone; d = t.domain(d).parent) ++hosts_below_[d];
    }
    for (const Device& dev : t.devices()) ++devices_[dev.domain];
  }

  std::uint32_t hosts_below(DomainId d) const { return hosts_below_[d]; }

  LevelIndex level_option(const ExportOptions& o, std::string_view what) const {
    std::optional<LevelIndex> level = t_.find_level(o.level);
    std::vector<std::string> names;
    for (const Level& l : t_.levels()) names.push_back(l.name);
    if (!level) {
      std::string hint = did_you_mean(o.level, names);
      throw InputError({"--level", 0, 0}, fmt::format("topology '{}' has no level '{}'{}; its levels are {}", t_.name(),
                                                      o.level, hint.empty() ? "" : " (" + hint + ")",
                                                      fmt::join(names, ", ")));
    }
    if (*level == t_.host_level())
      throw InputError({"--level", 0, 0}, fmt::format("'{}' is the host level; {} must be a level above it", o.level, what));
    return *level;
  }

  /// The domain path with '.' between names, leaving out pass-through
  /// domains above `leaf` (whose child stands in their place); the topology's
  /// name for the root.
  std::string name(DomainId d, LevelIndex leaf) const {
    if (d == t_.root()) return checked(t_.name());
    std::string n;
    for (DomainId a = d; a != t_.root(); a = t_.domain(a).parent) {
      if (a != d && pass_through(a, leaf)) continue;
      n = n.empty() ? std::string(t_.str(t_.domain(a).name)) : fmt::format("{}.{}", t_.str(t_.domain(a).name), n);
    }
    return checked(n);
  }

  std::string checked(std::string n) const {
    if (!slurm_safe(n))
      throw InputError({t_.name(), 0, 0}, fmt::format("domain name '{}' cannot be written as a Slurm name", n));
    if (n.size() > slurm::kMaxSwitchName)
      throw InputError({t_.name(), 0, 0}, fmt::format("switch name '{}' is longer than Slurm's limit of {} characters",
                                                      n, slurm::kMaxSwitchName));
    return n;
  }

  std::vector<std::string> hosts(DomainId d) const {
    std::vector<std::string> out;
    collect_hosts(d, out);
    return out;
  }

  // A domain above the leaves that only passes its single child through.
  bool pass_through(DomainId d, LevelIndex leaf) const {
    const Domain& dom = t_.domain(d);
    return d != t_.root() && devices_[d] == 0 && dom.child_count == 1 && dom.level < leaf;
  }

  std::string describe(DomainId d) const {
    return fmt::format("{} {}: {} nodes, {} accelerators", t_.levels()[t_.domain(d).level].name, t_.domain_name(d),
                       hosts_below_[d], t_.domain(d).accelerator_count());
  }

 private:
  void collect_hosts(DomainId d, std::vector<std::string>& out) const {
    const Domain& dom = t_.domain(d);
    if (dom.level == t_.host_level()) {
      out.emplace_back(t_.hostname(d));
      return;
    }
    for (std::uint32_t c = 0; c < dom.child_count; ++c) collect_hosts(dom.first_child + c, out);
  }

  const Topology& t_;
  std::vector<std::uint32_t> hosts_below_;
  std::vector<std::uint32_t> devices_;
};

// The subtrees below the root share no switch: the root holds no device and
// no link joins two of them (a Slurm forest imported, or separate fabrics).
bool is_forest(const Topology& t, LevelIndex leaf) {
  if (leaf == 0 || t.domain(t.root()).child_count < 2) return false;
  for (const Device& d : t.devices())
    if (d.domain == t.root()) return false;
  auto subtree = [&](DeviceId d) { return t.ancestor(t.device(d).domain, 1); };
  for (const Link& l : t.links())
    if (subtree(l.a) != subtree(l.b)) return false;
  return true;
}

TopologySpec tree_spec(const Topology& t, const ExportOptions& o) {
  SlurmView v(t);
  const LevelIndex leaf = o.level.empty() ? t.host_level() - 1 : v.level_option(o, "the leaf switch level");
  const bool forest = is_forest(t, leaf);
  TopologySpec spec;
  spec.kind = TopologySpec::Kind::tree;
  std::size_t switches = 0;
  for (DomainId d = 0; d < t.domain_count() && t.domain(d).level <= leaf; ++d) {
    if (v.hosts_below(d) == 0 || v.pass_through(d, leaf) || (forest && d == t.root())) continue;
    slurm::Switch s;
    s.name = v.name(d, leaf);
    s.comment = v.describe(d);
    const Domain& dom = t.domain(d);
    if (dom.level == leaf) {
      s.nodes.names = v.hosts(d);
    } else {
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        DomainId child = dom.first_child + c;
        while (v.pass_through(child, leaf)) child = t.domain(child).first_child;
        if (v.hosts_below(child) > 0) s.switches.names.push_back(v.name(child, leaf));
      }
    }
    spec.switches.push_back(std::move(s));
    ++switches;
  }
  // Leaving pass-through domains out of the names could make two alike.
  std::map<std::string, int> seen;
  for (const slurm::Switch& s : spec.switches)
    if (++seen[s.name] == 2)
      throw InputError({t.name(), 0, 0}, fmt::format("two switches would be named '{}'", s.name));
  for (LevelIndex l = 0; l <= leaf; ++l) spec.level_names.push_back(t.levels()[l].name);
  spec.level_names.push_back(t.levels()[t.host_level()].name);
  spec.topology_name = t.name();
  spec.header = {
      fmt::format("Slurm topology.conf for TopologyPlugin=topology/tree, written by topoplan from {}.", t.name()),
      fmt::format("{} switches, {} nodes; leaf switches are the domains of level '{}'.", switches,
                  v.hosts_below(t.root()), t.levels()[leaf].name),
      forest ? "Switch names are topoplan domain paths ('/' written as '.'). The top-level domains share no switch: "
               "each is a tree of its own, and Slurm lets no job span two."
             : "Switch names are topoplan domain paths ('/' written as '.'); the root is named after the topology."};
  return spec;
}

TopologySpec block_spec(const Topology& t, const ExportOptions& o) {
  SlurmView v(t);
  LevelIndex level = 0;
  std::string why;
  if (!o.level.empty()) {
    level = v.level_option(o, "the block level");
    why = "given with --level";
  } else {
    ScaleUpIslands islands = find_scale_up_islands(t);
    if (islands.level >= t.host_level()) {
      level = t.host_level() - 1;
      why = "the level above the nodes, since the scale-up islands are single nodes";
    } else {
      level = islands.level;
      why = islands.level_is_island ? "each block one scale-up island" : "the finest level holding whole scale-up islands";
    }
  }
  TopologySpec spec;
  spec.kind = TopologySpec::Kind::block;
  auto [first, last] = t.domains_at(level);
  long long base = 0;
  for (DomainId d = first; d < last; ++d) {
    if (v.hosts_below(d) == 0) continue;
    slurm::Block b;
    b.name = v.name(d, level);
    b.comment = v.describe(d);
    b.nodes.names = v.hosts(d);
    long long n = static_cast<long long>(b.nodes.names.size());
    base = base == 0 ? n : std::min(base, n);
    spec.blocks.push_back(std::move(b));
  }
  if (spec.blocks.empty()) throw InputError({t.name(), 0, 0}, fmt::format("topology '{}' has no nodes", t.name()));
  for (long long k = 1; k <= static_cast<long long>(spec.blocks.size()) && k <= (1LL << 15); k *= 2)
    spec.block_sizes.push_back({base * k, {}});
  // Every level down to the blocks' (their names are those paths) and the
  // hosts', so that topoplan import rebuilds the levels between them.
  if (level > 0) {
    for (LevelIndex l = 0; l <= level; ++l) spec.level_names.push_back(t.levels()[l].name);
    spec.level_names.push_back(t.levels()[t.host_level()].name);
  }
  spec.topology_name = t.name();
  spec.header = {
      fmt::format("Slurm topology.conf for TopologyPlugin=topology/block (Slurm 23.11+), written by topoplan from {}.",
                  t.name()),
      fmt::format("{} block{} of level '{}' ({}), {} nodes.", spec.blocks.size(), spec.blocks.size() == 1 ? "" : "s",
                  t.levels()[level].name, why, v.hosts_below(t.root())),
      fmt::format("BlockSizes: the base block of {} nodes (the smallest block) and its power-of-two multiples up to",
                  base),
      "the number of blocks; Slurm joins blocks adjacent in this file's order."};
  return spec;
}

}  // namespace

std::string export_slurm_tree(const Topology& topology, const ExportOptions& options) {
  return slurm::write_topology_conf(tree_spec(topology, options));
}

std::string export_slurm_block(const Topology& topology, const ExportOptions& options) {
  return slurm::write_topology_conf(block_spec(topology, options));
}

std::string export_slurm_yaml(const Topology& topology, const ExportOptions& options) {
  // --level picks the leaf switches of the tree; the blocks keep their own
  // choice, since one level rarely suits both.
  TopologySpec tree = tree_spec(topology, options);
  tree.name = "tree";
  tree.cluster_default = true;
  tree.header.clear();
  TopologySpec block = block_spec(topology, ExportOptions{});
  block.name = "block";
  std::vector<std::string> header = {
      fmt::format("Slurm topology.yaml (Slurm 25.05+), written by topoplan from {}.", topology.name()),
      fmt::format("'tree' (the cluster default) for topology/tree: leaf switches are the domains of level '{}'.",
                  tree.level_names[tree.level_names.size() - 2]),
      "'block' for topology/block: " + block.header[1],
      "Switch and block names are topoplan domain paths ('/' written as '.'); the root is named after the topology.",
      "Select one per partition with Topology= in slurm.conf."};
  block.header.clear();
  return slurm::write_topology_yaml({tree, block}, header);
}

}  // namespace topoplan::formats
