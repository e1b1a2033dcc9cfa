// `topoplan import --from slurm`: a Slurm topology.conf or topology.yaml
// turned into a topology.
//
// The topology is named after the file (`cluster.conf` -> cluster), or after
// the single top switch of a file topoplan wrote (which names it after the
// topology), so that native -> Slurm -> native keeps the name.
//
// Level mapping (documented in topoplan-formats(5)):
// - tree: Slurm numbers switch tiers from the leaves (a leaf switch is 0, any
//   other switch 1 + its highest child; switch_record.c). Tier t becomes the
//   level H - t below the top (H = the highest tier), so every leaf switch
//   sits on the level just above the hosts, as in Slurm and in topoplan's
//   `slurm` policies. A switch whose parent is more than one tier above it
//   (a tree of uneven depth) hangs below pass-through domains named like it,
//   which have no devices; the exporter leaves them out again. Several top
//   switches (Slurm allows a forest; jobs cannot span its trees) get a
//   common root level `cluster` without a switch.
// - block: levels cluster, block, node; the blocks are joined by one `core`
//   switch, since topology/block says nothing about the network between them.
// Every switch (and block) is a network switch device in its domain, linked
// to its parent's and to the NICs of its hosts. Slurm's files say nothing of
// link capacity (LinkSpeed is only a weight), so the fabric is taken to be
// non-blocking: a switch has as many uplinks as NIC links below it. With a
// node type whose scale-up fabric spans nodes (gb200-nvl72), every block is
// built as one such island (topology/block exists for NVLink domains).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "import_support.hpp"
#include "slurm_topology.hpp"
#include "topoplan/formats/node_type.hpp"
#include "topoplan/model/topology_builder.hpp"

namespace topoplan::formats {

namespace slurm {

namespace {

std::string at_line(const SourceLocation& where) { return where.line > 0 ? fmt::format(" (line {})", where.line) : ""; }

LinkType fabric_link(const ImportOptions& options) {
  if (std::optional<LinkType> t = find_link_type(options.fabric_link)) return *t;
  std::string hint = did_you_mean(options.fabric_link, link_type_names());
  throw InputError({"--fabric-link", 0, 0}, fmt::format("unknown link type '{}'{}", options.fabric_link,
                                                        hint.empty() ? "" : " (" + hint + ")"));
}

NodeType node_type(const ImportOptions& options) {
  if (options.node_type) return NodeType::copy_of(*options.node_type);
  return NodeType::generic(options.gpus_per_node > 0 ? options.gpus_per_node : 8,
                           options.gpu_model.empty() ? "GPU" : options.gpu_model);
}

// Level names from the file's `# topoplan-levels:` comment when it fits,
// else `generic`.
std::vector<std::string> level_names(const TopologySpec& spec, std::vector<std::string> generic,
                                     std::vector<ImportWarning>& warnings) {
  if (spec.level_names.empty()) return generic;
  std::set<std::string> unique(spec.level_names.begin(), spec.level_names.end());
  // Level names are letters, digits and underscores (topoplan-topology(5)).
  bool valid = unique.size() == spec.level_names.size() &&
               std::all_of(spec.level_names.begin(), spec.level_names.end(), [](const std::string& name) {
                 return std::all_of(name.begin(), name.end(),
                                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
               });
  std::string problem;
  if (spec.level_names.size() != generic.size())
    problem = fmt::format("names {} levels, the file has {}", spec.level_names.size(), generic.size());
  else if (!valid)
    problem = "does not name distinct levels of letters, digits and underscores";
  if (!problem.empty()) {
    warnings.push_back({spec.where, fmt::format("the {} comment ({}) {}; using {}", kLevelsComment,
                                                fmt::join(spec.level_names, ", "), problem, fmt::join(generic, ", "))});
    return generic;
  }
  return spec.level_names;
}

// The hosts of a file, each with the switch or block that lists it.
class HostSet {
 public:
  /// False (after reporting) when `host` is already placed or has no usable name.
  bool add(const std::string& host, const std::string& owner, const SourceLocation& where, DiagnosticSink& sink,
           std::string_view what) {
    auto [it, fresh] = owner_.emplace(host, owner);
    if (!fresh) {
      sink.error(where, fmt::format("node '{}' is in two {}: '{}' and '{}'", host, what, it->second, owner));
      return false;
    }
    if (host.find('/') != std::string::npos) {
      sink.error(where, fmt::format("node name '{}' contains '/', which topoplan uses between names", host));
      return false;
    }
    return true;
  }
  std::size_t size() const { return owner_.size(); }

 private:
  std::map<std::string, std::string> owner_;
};

void check_host_count(std::size_t hosts, const TopologySpec& spec, const ImportOptions& options,
                      DiagnosticSink& sink) {
  if (hosts > options.max_hosts)
    sink.error(spec.where, fmt::format("{} nodes are more than topoplan imports ({})", hosts, options.max_hosts));
}

// Links every NIC of a host to its switch; a node type without NICs leaves the
// host off the fabric, which the caller reports once.
// `links` uplinks of the fabric's type; beyond the 65,535 parallel links a
// Link counts, one link carries the rest as bandwidth.
void uplink(TopologyBuilder& b, DeviceId from, DeviceId to, std::size_t links, std::uint16_t type,
            const LinkType& link) {
  if (links == 0) links = 1;
  if (links <= 65535) {
    b.add_link(from, to, type, static_cast<int>(links), link.bandwidth, link.latency_us, 0);
  } else {
    b.add_link(from, to, type, 1, link.bandwidth * static_cast<double>(links), link.latency_us, 0);
  }
}

void attach(TopologyBuilder& b, const std::vector<DeviceId>& nics, DeviceId sw, std::uint16_t type,
            const LinkType& link) {
  for (DeviceId nic : nics) b.add_link(nic, sw, type, 1, link.bandwidth, link.latency_us, 0);
}

// The islands of `extras` (their hosts are built and in `hosts`), each in the
// smallest switch domain that holds all its hosts.
void add_islands(TopologyBuilder& b, const std::vector<TreeExtras::Island>& islands,
                 const std::map<std::string, std::pair<DomainId, NodeType::Instance>, std::less<>>& hosts,
                 const NodeType& type, std::vector<ImportWarning>& warnings) {
  std::vector<DomainId> owner(islands.size(), kNone);
  std::map<DomainId, int> per_owner;
  for (std::size_t i = 0; i < islands.size(); ++i) {
    for (const std::string& h : islands[i].hosts) {
      DomainId node = b.parent(hosts.find(h)->second.first);  // islands sit above the hosts
      owner[i] = owner[i] == kNone ? node : common_ancestor(b, owner[i], node);
    }
    ++per_owner[owner[i]];
  }
  for (std::size_t i = 0; i < islands.size(); ++i) {
    const TreeExtras::Island& island = islands[i];
    std::string prefix = per_owner[owner[i]] > 1 ? safe_name(island.name) + "-" : std::string();
    if (type.island_nodes() > 1) {
      std::vector<NodeType::Instance> members;
      for (const std::string& h : island.hosts) members.push_back(hosts.find(h)->second.second);
      type.instantiate_island(b, owner[i], members, prefix);
      if (members.size() > static_cast<std::size_t>(type.island_nodes()))
        warnings.push_back({island.where, fmt::format("accelerator domain '{}' has {} nodes, more than the {} of the "
                                                      "node type's scale-up island: imported as one island all the "
                                                      "same",
                                                      island.name, members.size(), type.island_nodes())});
    } else {
      std::vector<DeviceId> gpus;
      for (const std::string& h : island.hosts)
        for (DeviceId d : hosts.find(h)->second.second.devices)
          if (is_accelerator(b.device_kind(d))) gpus.push_back(d);
      add_nvlink_partition(b, owner[i], "nvl-" + safe_name(island.name), gpus, b.add_origin(island.where));
    }
  }
}

}  // namespace

Topology build_tree(const TopologySpec& spec, const std::string& name, const ImportOptions& options,
                    std::vector<ImportWarning>& warnings, const TreeExtras& extras) {
  DiagnosticSink sink;
  const std::vector<Switch>& sw = spec.switches;
  const std::size_t n = sw.size();
  constexpr std::size_t kNo = static_cast<std::size_t>(-1);
  if (n == 0) throw InputError(spec.where, "the tree has no switches");

  std::map<std::string, std::size_t> index;
  std::vector<std::string> all_names;
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, fresh] = index.emplace(sw[i].name, i);
    if (!fresh)
      sink.error(sw[i].where, fmt::format("switch '{}' is defined twice (first on line {})", sw[i].name,
                                          sw[it->second].where.line));
    all_names.push_back(sw[i].name);
  }

  std::vector<std::size_t> parent(n, kNo);
  std::vector<std::vector<std::size_t>> children(n);
  HostSet hosts;
  for (std::size_t i = 0; i < n; ++i) {
    const Switch& s = sw[i];
    if (index.at(s.name) != i) continue;  // a duplicate, reported above
    if (s.switches.present && s.nodes.present) {
      // Slurm 23.02+ refuses such a line ("has both child switches and
      // nodes"); older versions ignored the switches.
      sink.error(s.switches.where, fmt::format("switch '{}' has both Switches= and Nodes=", s.name));
      continue;
    }
    for (const std::string& c : s.switches.names) {
      auto it = index.find(c);
      if (it == index.end()) {
        std::string hint = did_you_mean(c, all_names);
        sink.error(s.switches.where, fmt::format("switch '{}' lists unknown switch '{}'{}", s.name, c,
                                                 hint.empty() ? "" : " (" + hint + ")"));
        continue;
      }
      std::size_t child = it->second;
      if (child == i) {
        sink.error(s.switches.where, fmt::format("switch '{}' lists itself", s.name));
      } else if (parent[child] == i) {
        sink.error(s.switches.where, fmt::format("switch '{}' lists '{}' twice", s.name, c));
      } else if (parent[child] != kNo) {
        sink.error(s.switches.where, fmt::format("switch '{}' has two parents: '{}'{} and '{}'", c,
                                                 sw[parent[child]].name, at_line(sw[parent[child]].where), s.name));
      } else {
        parent[child] = i;
        children[i].push_back(child);
      }
    }
    if (s.nodes.present && s.nodes.names.empty())
      sink.error(s.nodes.where, fmt::format("switch '{}' has an empty Nodes=", s.name));
    for (const std::string& h : s.nodes.names) hosts.add(h, s.name, s.nodes.where, sink, "leaf switches");
  }

  // Order: roots in file order, each followed by its subtree (children in the
  // order their parent lists them). Switches never reached sit on a cycle,
  // since each switch has at most one parent.
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < n; ++i)
    if (parent[i] == kNo && index.at(sw[i].name) == i) roots.push_back(i);
  std::vector<std::size_t> order;
  std::vector<bool> reached(n, false);
  for (std::size_t r : roots) {
    std::vector<std::size_t> stack{r};
    while (!stack.empty()) {
      std::size_t s = stack.back();
      stack.pop_back();
      reached[s] = true;
      order.push_back(s);
      for (auto it = children[s].rbegin(); it != children[s].rend(); ++it) stack.push_back(*it);
    }
  }
  std::vector<bool> on_path(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (reached[i] || index.at(sw[i].name) != i) continue;
    std::vector<std::size_t> path;
    std::size_t s = i;
    while (!reached[s] && !on_path[s]) {
      on_path[s] = true;
      path.push_back(s);
      s = parent[s];
    }
    if (on_path[s]) {
      std::vector<std::string> cycle;
      for (auto it = std::find(path.begin(), path.end(), s); it != path.end(); ++it) cycle.push_back(sw[*it].name);
      cycle.push_back(sw[s].name);
      sink.error(sw[s].where, fmt::format("switches form a cycle, each listed among the child switches of the next: {}",
                                          fmt::join(cycle, ", ")));
    }
    for (std::size_t p : path) {
      on_path[p] = false;
      reached[p] = true;
    }
  }
  if (sink.empty() && hosts.size() == 0) sink.error(spec.where, "no switch has nodes");
  check_host_count(hosts.size(), spec, options, sink);
  sink.throw_if_any();

  // Slurm's tiers, leaves first.
  std::vector<int> tier(n, 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (std::size_t c : children[*it]) tier[*it] = std::max(tier[*it], tier[c] + 1);
  int height = 0;
  for (std::size_t r : roots) height = std::max(height, tier[r]);
  if (height + 1 > kMaxTiers)
    throw InputError(spec.where, fmt::format("the tree has {} switch tiers; topoplan imports at most {}", height + 1,
                                             kMaxTiers));
  for (std::size_t s : order)
    if (children[s].empty() && sw[s].nodes.names.empty())
      warnings.push_back({sw[s].where, fmt::format("switch '{}' has no nodes and no child switches", sw[s].name)});

  const bool forest = roots.size() > 1;
  const LevelIndex top = forest ? 1 : 0;
  std::vector<std::string> generic;
  if (forest) generic.emplace_back("cluster");
  for (int t = height; t >= 0; --t) {
    if (static_cast<std::size_t>(t) < extras.tier_names.size())
      generic.push_back(extras.tier_names[static_cast<std::size_t>(t)]);
    else
      generic.push_back(t == 0 ? "leaf" : fmt::format("switch{}", t));
  }
  generic.emplace_back("node");
  if (forest) {
    std::vector<std::string> top_names;
    for (std::size_t r : roots) top_names.push_back(sw[r].name);
    warnings.push_back({spec.where, fmt::format("{} top-level switches ({}) share no parent: Slurm does not let a job "
                                                "span them; they are joined under a root level without a switch",
                                                roots.size(), fmt::join(top_names, ", "))});
  }

  TopologyBuilder b(name, level_names(spec, generic, warnings));
  b.set_description(extras.description.empty()
                        ? fmt::format("Slurm topology/tree: {} switches, {} nodes", order.size(), hosts.size())
                        : extras.description);
  const LinkType link = fabric_link(options);
  const std::uint16_t link_index = b.link_type_index(link);
  const NodeType nodes = node_type(options);
  std::vector<DomainId> domain(n, kNone);
  std::vector<DeviceId> device(n, kNone);
  std::vector<std::size_t> below(n, 0);  // NIC links in each switch's subtree
  bool no_nics = false;
  DeviceProperties props;
  props.model = extras.switch_model;
  // Hosts of an island, as built, by name.
  std::map<std::string, std::pair<DomainId, NodeType::Instance>, std::less<>> island_hosts;
  for (const TreeExtras::Island& island : extras.islands)
    for (const std::string& h : island.hosts) island_hosts.try_emplace(h);
  for (std::size_t s : order) {
    const Switch& x = sw[s];
    std::uint32_t origin = b.add_origin(x.where);
    if (parent[s] == kNo && !forest) {
      domain[s] = b.root();
    } else {
      DomainId up = parent[s] == kNo ? b.root() : domain[parent[s]];
      // A child named `PARENT.x` is `x` within its parent, so that a tree
      // exported by topoplan (switch names are domain paths) reads back with
      // the same domain paths.
      std::string_view local = x.name;
      if (parent[s] != kNo) {
        const std::string& p = sw[parent[s]].name;
        if (local.size() > p.size() + 1 && local.substr(0, p.size()) == p && local[p.size()] == '.')
          local.remove_prefix(p.size() + 1);
      }
      const LevelIndex level = top + static_cast<LevelIndex>(height - tier[s]);
      for (LevelIndex l = b.level_of(up) + 1; l < level; ++l) up = b.add_domain(up, local, origin);
      domain[s] = b.add_domain(up, local, origin);
    }
    device[s] = b.add_device(domain[s], DeviceKind::network_switch, "switch", props, origin);
    if (auto it = extras.switch_labels.find(x.name); it != extras.switch_labels.end())
      b.set_domain_labels(domain[s], it->second);
    std::uint32_t hosts_origin = x.nodes.names.empty() ? 0 : b.add_origin(x.nodes.where);
    for (const std::string& h : x.nodes.names) {
      DomainId node = b.add_domain(domain[s], h, hosts_origin);
      b.set_hostname(node, h);
      if (auto it = extras.host_labels.find(h); it != extras.host_labels.end()) b.set_domain_labels(node, it->second);
      NodeType::Instance built = nodes.instantiate_node(b, node);
      no_nics = no_nics || built.nics.empty();
      attach(b, built.nics, device[s], link_index, link);
      below[s] += built.nics.size();
      if (auto it = island_hosts.find(h); it != island_hosts.end()) it->second = {node, std::move(built)};
    }
  }
  // Uplinks once every switch knows the NIC links below it (children come
  // after their parents in `order`).
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (parent[*it] != kNo) below[parent[*it]] += below[*it];
  for (std::size_t s : order)
    if (parent[s] != kNo) uplink(b, device[s], device[parent[s]], below[s], link_index, link);
  if (no_nics)
    warnings.push_back({spec.where, "the node type has no NIC: hosts are not linked to their switches"});
  add_islands(b, extras.islands, island_hosts, nodes, warnings);
  if (nodes.island_nodes() > 1 && extras.islands.empty())
    warnings.push_back({spec.where, fmt::format("the node type's scale-up islands span {} nodes, which a switch tree "
                                                "cannot show: each node is imported as its own island; {}",
                                                nodes.island_nodes(), extras.islands_hint)});
  return b.finish(sink);
}

namespace {

Topology build_blocks(const TopologySpec& spec, const std::string& name, const ImportOptions& options,
                      std::vector<ImportWarning>& warnings) {
  DiagnosticSink sink;
  if (spec.blocks.empty()) {
    SourceLocation where = spec.block_sizes.empty() ? spec.where : spec.block_sizes_where;
    std::string hint = spec.commented_out > 0 ? fmt::format("; {} are commented out", spec.commented_out) : "";
    throw InputError(where, fmt::format("no blocks: topology/block needs at least one BlockName line{} (slurmctld "
                                        "stops with \"No blocks configured\")",
                                        hint));
  }
  std::map<std::string, std::size_t> index;
  HostSet hosts;
  for (std::size_t i = 0; i < spec.blocks.size(); ++i) {
    const Block& bl = spec.blocks[i];
    auto [it, fresh] = index.emplace(bl.name, i);
    if (!fresh)
      sink.error(bl.where, fmt::format("block '{}' is defined twice (first on line {})", bl.name,
                                       spec.blocks[it->second].where.line));
    if (bl.nodes.names.empty())
      sink.error(bl.nodes.present ? bl.nodes.where : bl.where, fmt::format("block '{}' has no nodes", bl.name));
    for (const std::string& h : bl.nodes.names) hosts.add(h, bl.name, bl.nodes.where, sink, "blocks");
  }
  check_host_count(hosts.size(), spec, options, sink);

  // BlockSizes (block_record.c): the first is the planning base block size;
  // each one is the base times a power of two (at most 2^15), larger than the
  // one before. Without it Slurm takes the first block's node count as the
  // base and aggregates 1, 2, 4 and 8 blocks.
  long long base = static_cast<long long>(spec.blocks.front().nodes.names.size());
  if (!spec.block_sizes.empty()) {
    base = spec.block_sizes.front().nodes;
    long long prior = 0;
    for (const BlockSize& s : spec.block_sizes) {
      long long q = s.nodes / base;
      bool power = s.nodes % base == 0 && q > 0 && (q & (q - 1)) == 0 && q <= (1LL << 15);
      if (!power)
        sink.error(s.where, fmt::format("BlockSizes entry {} is not the base block size {} times a power of two "
                                        "({}, {}, {}, ... up to {} x {})",
                                        s.nodes, base, base, 2 * base, 4 * base, 1 << 15, base));
      else if (s.nodes <= prior)
        sink.error(s.where, fmt::format("BlockSizes entry {} is not larger than the one before it ({})", s.nodes, prior));
      else
        prior = s.nodes;
    }
  }
  sink.throw_if_any();
  // Slurm before 25.05 refuses a block smaller than the base ("children count
  // lower than bblock_node_cnt"); 25.05 accepts it.
  for (const Block& bl : spec.blocks)
    if (static_cast<long long>(bl.nodes.names.size()) < base)
      warnings.push_back({bl.where, fmt::format("block '{}' has {} nodes, fewer than the base block size {} (Slurm "
                                                "before 25.05 refuses that)",
                                                bl.name, bl.nodes.names.size(), base)});

  // Block names that are domain paths ('.' between the names) as many levels
  // deep as the levels comment says are rebuilt as those domains.
  std::vector<std::vector<std::string>> paths;
  if (spec.level_names.size() > 3) {
    for (const Block& bl : spec.blocks) {
      std::vector<std::string> parts;
      for (std::size_t start = 0;;) {
        std::size_t dot = bl.name.find('.', start);
        parts.push_back(bl.name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      bool usable = parts.size() == spec.level_names.size() - 2 &&
                    std::none_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); });
      if (!usable) {
        paths.clear();
        break;
      }
      paths.push_back(std::move(parts));
    }
  }
  std::vector<std::string> generic = {"cluster", "block", "node"};
  if (!paths.empty()) {
    generic = {"cluster"};
    for (std::size_t l = 1; l + 1 < spec.level_names.size(); ++l) generic.push_back(fmt::format("level{}", l));
    generic.push_back("node");
  }
  TopologyBuilder b(name, level_names(spec, generic, warnings));
  std::vector<long long> sizes;
  for (const BlockSize& s : spec.block_sizes) sizes.push_back(s.nodes);
  b.set_description(fmt::format("Slurm topology/block: {} blocks, {} nodes, BlockSizes={}", spec.blocks.size(),
                                hosts.size(), sizes.empty() ? std::string("(default)") : fmt::format("{}", fmt::join(sizes, ","))));
  const LinkType link = fabric_link(options);
  const std::uint16_t link_index = b.link_type_index(link);
  const NodeType nodes = node_type(options);
  DeviceProperties props;
  props.model = "slurm-switch";
  DeviceId core = b.add_device(b.root(), DeviceKind::network_switch, "core", props, b.add_origin(spec.where));
  bool no_nics = false;
  std::map<std::string, DomainId> inner;  // path prefix -> domain, for the levels between
  for (std::size_t i = 0; i < spec.blocks.size(); ++i) {
    const Block& bl = spec.blocks[i];
    std::uint32_t origin = b.add_origin(bl.where);
    DomainId parent = b.root();
    std::string prefix;
    if (!paths.empty()) {
      for (std::size_t l = 0; l + 1 < paths[i].size(); ++l) {
        prefix += paths[i][l] + "/";
        auto [it, fresh] = inner.try_emplace(prefix, 0);
        if (fresh) it->second = b.add_domain(parent, paths[i][l], origin);
        parent = it->second;
      }
    }
    DomainId block = b.add_domain(parent, paths.empty() ? bl.name : paths[i].back(), origin);
    DeviceId sw = b.add_device(block, DeviceKind::network_switch, "switch", props, origin);
    std::uint32_t hosts_origin = b.add_origin(bl.nodes.where);
    std::vector<NodeType::Instance> members;
    std::size_t nic_links = 0;
    for (const std::string& h : bl.nodes.names) {
      DomainId node = b.add_domain(block, h, hosts_origin);
      b.set_hostname(node, h);
      members.push_back(nodes.instantiate_node(b, node));
      no_nics = no_nics || members.back().nics.empty();
      attach(b, members.back().nics, sw, link_index, link);
      nic_links += members.back().nics.size();
    }
    uplink(b, sw, core, nic_links, link_index, link);
    if (nodes.island_nodes() > 1) {
      nodes.instantiate_island(b, block, members);
      if (members.size() > static_cast<std::size_t>(nodes.island_nodes()))
        warnings.push_back({bl.where, fmt::format("block '{}' has {} nodes, more than the {} of the node type's "
                                                  "scale-up island: imported as one island all the same",
                                                  bl.name, members.size(), nodes.island_nodes())});
    }
  }
  if (no_nics)
    warnings.push_back({spec.where, "the node type has no NIC: hosts are not linked to their block's switch"});
  return b.finish(sink);
}

// The single top switch of a tree topoplan wrote (it has the levels
// comment), which topoplan names after the topology; empty otherwise.
std::string topoplan_root(const TopologySpec& spec) {
  if (spec.kind != TopologySpec::Kind::tree || spec.level_names.empty()) return {};
  std::set<std::string> children;
  for (const Switch& s : spec.switches) children.insert(s.switches.names.begin(), s.switches.names.end());
  std::string root;
  for (const Switch& s : spec.switches) {
    if (children.count(s.name)) continue;
    if (!root.empty()) return {};
    root = s.name;
  }
  return root;
}

// `cluster.conf` -> `cluster`; stdin -> `slurm`.
std::string name_from_path(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (std::size_t dot = base.find('.'); dot != std::string::npos && dot > 0) base.resize(dot);
  if (base.empty() || base.front() == '<') return "slurm";
  return base;
}

}  // namespace

Topology build_topology(const TopologySpec& spec, const std::string& topology_name, const ImportOptions& options,
                        std::vector<ImportWarning>& warnings) {
  switch (spec.kind) {
    case TopologySpec::Kind::tree:
      return build_tree(spec, topology_name, options, warnings, TreeExtras{});
    case TopologySpec::Kind::block:
      return build_blocks(spec, topology_name, options, warnings);
    case TopologySpec::Kind::flat:
      break;
  }
  throw InputError(spec.where, fmt::format("topology '{}' is flat: it has no switches or blocks to import", spec.name));
}

}  // namespace slurm

ImportResult import_slurm(std::span<const ImportSource> sources, const ImportOptions& options) {
  using namespace slurm;
  if (sources.size() != 1)
    throw InputError({}, fmt::format("--from slurm reads one file (topology.conf or topology.yaml), not {}",
                                     sources.size()));
  const ImportSource& source = sources.front();
  std::string name = options.name.empty() ? name_from_path(source.path) : options.name;
  ImportResult result;
  if (!looks_like_topology_yaml(source.text)) {
    if (!options.slurm_topology.empty())
      throw InputError({source.path, 0, 0}, "--slurm-topology chooses among the topologies of a topology.yaml; "
                                            "this is a topology.conf");
    TopologySpec spec = read_topology_conf(source, options.max_hosts);
    if (std::string root = topoplan_root(spec); options.name.empty() && !root.empty()) name = root;
    if (options.name.empty() && !spec.topology_name.empty()) name = safe_name(spec.topology_name);
    result.topology = build_topology(spec, name, options, result.warnings);
    return result;
  }
  std::vector<TopologySpec> specs = read_topology_yaml(source, options.max_hosts);
  std::vector<std::string> names;
  for (const TopologySpec& s : specs) names.push_back(s.name);
  const TopologySpec* chosen = nullptr;
  std::string why;
  if (!options.slurm_topology.empty()) {
    for (const TopologySpec& s : specs)
      if (s.name == options.slurm_topology) chosen = &s;
    if (!chosen) {
      std::string hint = did_you_mean(options.slurm_topology, names);
      throw InputError({source.path, 0, 0}, fmt::format("no topology '{}'{}; the file has {}", options.slurm_topology,
                                                        hint.empty() ? "" : " (" + hint + ")", fmt::join(names, ", ")));
    }
  } else {
    for (const TopologySpec& s : specs)
      if (!chosen && s.cluster_default) chosen = &s;
    why = chosen ? "the cluster default" : "the first";
    if (!chosen) chosen = &specs.front();
    if (specs.size() > 1)
      result.warnings.push_back({chosen->where, fmt::format("the file has {} topologies ({}); importing '{}', {}; "
                                                            "choose another with --slurm-topology",
                                                            specs.size(), fmt::join(names, ", "), chosen->name, why)});
  }
  if (std::string root = topoplan_root(*chosen); options.name.empty() && !root.empty()) name = root;
  if (options.name.empty() && !chosen->topology_name.empty()) name = safe_name(chosen->topology_name);
  result.topology = build_topology(*chosen, name, options, result.warnings);
  return result;
}

}  // namespace topoplan::formats
