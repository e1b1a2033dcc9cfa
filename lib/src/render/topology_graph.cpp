#include "topoplan/render/topology_graph.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

LinkClass link_class(LinkFamily family) {
  if (is_scale_up(family) || family == LinkFamily::nvlink_c2c) return LinkClass::scale_up;
  if (is_network(family)) return LinkClass::network;
  return LinkClass::host;
}

std::string_view link_class_name(LinkClass link_class) {
  switch (link_class) {
    case LinkClass::scale_up: return "scale-up";
    case LinkClass::network: return "network";
    case LinkClass::host: return "host";
  }
  return "?";
}

LevelIndex device_level(const Topology& topology) { return static_cast<LevelIndex>(topology.levels().size()); }

LevelIndex find_render_level(const Topology& topology, std::string_view name) {
  if (std::optional<LevelIndex> level = topology.find_level(name)) return *level;
  if (name == kDeviceLevelName) return device_level(topology);
  std::vector<std::string> names;
  for (const Level& level : topology.levels()) names.push_back(level.name);
  std::string hint = did_you_mean(std::string(name), [&] {
    std::vector<std::string> all = names;
    all.emplace_back(kDeviceLevelName);
    return all;
  }());
  throw InputError({}, fmt::format("unknown level '{}'; the levels of {} are {} ('{}' draws every device){}{}", name,
                                   topology.name(), fmt::join(names, ", "), kDeviceLevelName,
                                   hint.empty() ? "" : "; ", hint));
}

std::string render_level_name(const Topology& topology, LevelIndex level) {
  if (level < topology.levels().size()) return topology.levels()[level].name;
  return std::string(kDeviceLevelName);
}

namespace {

// Devices owned by the domains of each level.
std::vector<std::size_t> owned_per_level(const Topology& topology) {
  std::vector<std::size_t> owned(topology.levels().size(), 0);
  for (const Device& device : topology.devices()) ++owned[topology.domain(device.domain).level];
  return owned;
}

std::size_t node_count(const Topology& topology, const std::vector<std::size_t>& owned, LevelIndex level) {
  if (level >= device_level(topology)) return topology.device_count();
  std::size_t count = topology.domain_count_at(level);
  for (LevelIndex coarser = 0; coarser < level; ++coarser) count += owned[coarser];
  return count;
}

std::string title_of(const Topology& topology) {
  std::vector<std::string> settings;
  for (const TopologyParameter& p : topology.parameters()) settings.push_back(fmt::format("{}={}", p.name, p.value));
  if (settings.empty()) return topology.name();
  return fmt::format("{} ({})", topology.name(), fmt::join(settings, ","));
}

// What a domain is called inside its parent's box: nodes by hostname, the root
// by the topology name, everything else by its local name.
std::string short_name(const Topology& topology, DomainId domain) {
  const Domain& d = topology.domain(domain);
  if (domain == topology.root()) return topology.name();
  if (d.level == topology.host_level()) return std::string(topology.hostname(domain));
  return std::string(topology.str(d.name));
}

// "72 x GB200" lines for the accelerators a domain node stands for, or for all
// of its devices when it has no accelerators.
using ModelCounts = std::map<std::tuple<bool, DeviceKind, std::string_view>, std::uint64_t>;

std::string domain_label(const std::string& name, const ModelCounts& counts, const GraphNode& node) {
  std::vector<std::pair<std::uint64_t, std::string>> lines;
  for (const auto& [key, count] : counts) {
    const auto& [accelerator, kind, model] = key;
    if (accelerator != (node.accelerators > 0)) continue;
    lines.emplace_back(count, fmt::format("{} x {}", count, model.empty() ? kind_name(kind) : model));
  }
  // Most numerous first; ties in name order.
  std::stable_sort(lines.begin(), lines.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string label = name;
  for (const auto& line : lines) label += "\n" + line.second;
  if (node.devices == 0) label += "\nno devices";
  if (node.accelerators_unavailable > 0) label += fmt::format("\n({} down or draining)", node.accelerators_unavailable);
  return label;
}

std::string device_label(const Topology& topology, const Device& device) {
  std::string label(topology.str(device.name));
  if (!topology.str(device.model).empty()) label += fmt::format("\n{}", topology.str(device.model));
  if (device.state != DeviceState::up) label += fmt::format("\n({})", state_name(device.state));
  return label;
}

// Ids come from names that the loaders keep unique, but a domain path and a
// device name could still coincide; later ones get a ':N' suffix (':' never
// occurs in names read from files).
void make_ids_unique(std::vector<GraphNode>& nodes) {
  std::vector<std::uint32_t> order(nodes.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return nodes[x].id < nodes[y].id; });
  for (std::size_t i = 1, run = 1; i < order.size(); ++i) {
    if (nodes[order[i]].id == nodes[order[i - run]].id) {
      nodes[order[i]].id += fmt::format(":{}", run + 1);
      ++run;
    } else {
      run = 1;
    }
  }
}

// A node's label line for one path: the 1-based positions of its devices
// there as runs ("llama #1-8, #17"), or their count for a set ("serve (4)").
constexpr std::size_t kMaxRuns = 3;       // runs written before "..."
constexpr std::size_t kMaxPathLines = 4;  // path lines per node before "+N more"

std::string path_line(const GraphPath& path, const std::vector<std::uint32_t>& positions) {
  if (path.shape == PathShape::set) return fmt::format("{} ({})", path.name, positions.size());
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < positions.size();) {
    std::size_t j = i;
    while (j + 1 < positions.size() && positions[j + 1] == positions[j] + 1) ++j;
    if (runs.size() == kMaxRuns) {
      runs.emplace_back("...");
      break;
    }
    runs.push_back(j == i ? fmt::format("#{}", positions[i] + 1)
                          : fmt::format("#{}-{}", positions[i] + 1, positions[j] + 1));
    i = j + 1;
  }
  return fmt::format("{} {}", path.name, fmt::join(runs, ", "));
}

void add_paths(const Topology& topology, std::span<const DevicePath> paths,
               const std::vector<std::uint32_t>& node_of_device, TopologyGraph& graph) {
  // Per node, the paths through it with their positions there, in path order.
  std::vector<std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>>> through(graph.nodes.size());
  for (const DevicePath& p : paths) {
    const auto index = static_cast<std::uint32_t>(graph.paths.size());
    GraphPath& path = graph.paths.emplace_back();
    path.name = p.name;
    path.shape = p.shape;
    for (std::size_t k = 0; k < p.devices.size(); ++k) {
      const std::uint32_t node = node_of_device[p.devices[k]];
      path.devices.push_back(topology.device_name(p.devices[k]));
      path.nodes.push_back(node);
      auto& here = through[node];
      if (here.empty() || here.back().first != index) here.emplace_back(index, std::vector<std::uint32_t>());
      here.back().second.push_back(static_cast<std::uint32_t>(k));
    }
    if (path.shape == PathShape::set) continue;
    const std::size_t n = path.nodes.size();
    const std::size_t hops = path.shape == PathShape::ring && n > 2 ? n : n - std::min<std::size_t>(n, 1);
    for (std::size_t k = 0; k < hops; ++k) {
      const std::uint32_t from = path.nodes[k], to = path.nodes[(k + 1) % n];
      if (from != to) graph.hops.push_back({index, from, to, static_cast<std::uint32_t>(k)});
    }
  }
  for (std::size_t node = 0; node < through.size(); ++node) {
    const auto& here = through[node];
    for (std::size_t i = 0; i < here.size() && i < kMaxPathLines; ++i)
      graph.nodes[node].label += "\n" + path_line(graph.paths[here[i].first], here[i].second);
    if (here.size() > kMaxPathLines) graph.nodes[node].label += fmt::format("\n+{} more", here.size() - kMaxPathLines);
  }
}

struct LinkEntry {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  LinkFamily family = LinkFamily::pcie;
  LinkId link = 0;

  auto key() const { return std::tie(a, b, family, link); }
};

}  // namespace

std::size_t collapsed_node_count(const Topology& topology, LevelIndex level) {
  return node_count(topology, owned_per_level(topology), level);
}

LevelIndex choose_level(const Topology& topology, std::size_t max_nodes) {
  if (topology.device_count() <= max_nodes) return device_level(topology);
  std::vector<std::size_t> owned = owned_per_level(topology);
  for (LevelIndex level = topology.host_level() + 1; level-- > 0;)
    if (node_count(topology, owned, level) <= max_nodes) return level;
  return 0;
}

TopologyGraph collapse(const Topology& topology, LevelIndex level, std::span<const DevicePath> paths) {
  level = std::min(level, device_level(topology));
  TopologyGraph graph;
  graph.title = title_of(topology);
  graph.level = level;
  graph.level_name = render_level_name(topology, level);

  // Domains at `level` become nodes; finer domains map to their ancestor's.
  std::vector<std::uint32_t> node_of_domain(topology.domain_count(), kNone);
  if (level < device_level(topology)) {
    auto [first, last] = topology.domains_at(level);
    for (DomainId d = first; d < last; ++d) {
      node_of_domain[d] = static_cast<std::uint32_t>(graph.nodes.size());
      GraphNode& node = graph.nodes.emplace_back();
      node.id = topology.domain_name(d);
      node.domain = d;
      node.depth = level;
    }
    for (DomainId d = last; d < topology.domain_count(); ++d)
      node_of_domain[d] = node_of_domain[topology.domain(d).parent];
  }
  const std::size_t domain_nodes = graph.nodes.size();

  // Devices of coarser domains stay nodes of their own.
  std::vector<std::uint32_t> node_of_device(topology.device_count(), kNone);
  std::vector<ModelCounts> models(domain_nodes);
  for (DeviceId id = 0; id < topology.device_count(); ++id) {
    const Device& device = topology.device(id);
    std::uint32_t n = node_of_domain[device.domain];
    if (n == kNone) {
      n = static_cast<std::uint32_t>(graph.nodes.size());
      GraphNode& node = graph.nodes.emplace_back();
      node.id = topology.device_name(id);
      node.label = device_label(topology, device);
      node.device = id;
      node.kind = device.kind;
      node.state = device.state;
      node.depth = topology.domain(device.domain).level;
    } else {
      ++models[n][{is_accelerator(device.kind), device.kind, topology.str(device.model)}];
    }
    node_of_device[id] = n;
    GraphNode& node = graph.nodes[n];
    ++node.devices;
    if (is_accelerator(device.kind)) {
      ++node.accelerators;
      if (device.state != DeviceState::up) ++node.accelerators_unavailable;
    }
  }
  for (std::size_t n = 0; n < domain_nodes; ++n)
    graph.nodes[n].label = domain_label(short_name(topology, graph.nodes[n].domain), models[n], graph.nodes[n]);
  make_ids_unique(graph.nodes);

  // Clusters: the domains between the root and `level` that hold a node.
  auto immediate_domain = [&](const GraphNode& node) {
    return node.device != kNone ? topology.device(node.device).domain : topology.domain(node.domain).parent;
  };
  std::vector<bool> boxed(topology.domain_count(), false);
  for (const GraphNode& node : graph.nodes) {
    if (node.domain == topology.root()) continue;
    for (DomainId d = immediate_domain(node); d != topology.root() && !boxed[d]; d = topology.domain(d).parent)
      boxed[d] = true;
  }
  std::vector<std::uint32_t> cluster_of_domain(topology.domain_count(), kNone);
  for (DomainId d = 0; d < topology.domain_count(); ++d) {
    if (!boxed[d]) continue;
    const Domain& domain = topology.domain(d);
    cluster_of_domain[d] = static_cast<std::uint32_t>(graph.clusters.size());
    GraphCluster& cluster = graph.clusters.emplace_back();
    cluster.id = "cluster:" + topology.domain_path(d);
    cluster.label = short_name(topology, d);
    cluster.domain = d;
    cluster.parent = domain.parent == topology.root() ? kNone : cluster_of_domain[domain.parent];
  }
  for (GraphNode& node : graph.nodes)
    if (node.domain != topology.root()) node.cluster = cluster_of_domain[immediate_domain(node)];

  // Links between different nodes, grouped by node pair and family.
  std::vector<LinkEntry> entries;
  for (LinkId id = 0; id < topology.link_count(); ++id) {
    const Link& link = topology.link(id);
    std::uint32_t a = node_of_device[link.a];
    std::uint32_t b = node_of_device[link.b];
    if (a == b) continue;
    auto higher = [&](std::uint32_t x, std::uint32_t y) {
      return std::tie(graph.nodes[x].depth, x) < std::tie(graph.nodes[y].depth, y);
    };
    if (higher(b, a)) std::swap(a, b);
    entries.push_back({a, b, topology.link_type(link).family, id});
  }
  std::sort(entries.begin(), entries.end(), [](const LinkEntry& x, const LinkEntry& y) { return x.key() < y.key(); });
  for (std::size_t i = 0; i < entries.size();) {
    const LinkEntry& first = entries[i];
    GraphEdge& edge = graph.edges.emplace_back();
    edge.a = first.a;
    edge.b = first.b;
    edge.family = first.family;
    std::uint16_t type = topology.link(first.link).type;
    bool mixed = false;
    for (; i < entries.size() && entries[i].a == first.a && entries[i].b == first.b && entries[i].family == first.family;
         ++i) {
      const Link& link = topology.link(entries[i].link);
      edge.links += link.count;
      edge.bandwidth += link.total_bandwidth();
      mixed = mixed || link.type != type;
    }
    edge.type = mixed ? std::string(family_name(edge.family)) : topology.link_types()[type].name;
  }
  add_paths(topology, paths, node_of_device, graph);
  return graph;
}

}  // namespace topoplan
