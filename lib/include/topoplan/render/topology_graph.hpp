// A topology collapsed to one level of detail: the graph `topoplan render`
// draws. Collapsing at level L turns every domain of level L into one node
// that stands for all devices inside it; devices owned by coarser domains
// (leaf switches of an SU, spines at the root) stay nodes of their own; links
// inside one node vanish and links between the same two nodes add up, per
// link family. Domains coarser than L (except the root) become clusters:
// boxes around the nodes they contain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/device_path.hpp"
#include "topoplan/model/link_type.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

/// The tier of the fabric a link belongs to, which decides how it is drawn.
enum class LinkClass : std::uint8_t {
  scale_up,  // NVLink, xGMI, Groq C2C, NVLink-C2C: chip-to-chip, memory-semantic
  network,   // InfiniBand, RoCE, Ethernet
  host,      // PCIe, CPU socket links
};

LinkClass link_class(LinkFamily family);
/// "scale-up", "network", "host".
std::string_view link_class_name(LinkClass link_class);

/// The pseudo-level name that asks for every device as a node of its own.
inline constexpr std::string_view kDeviceLevelName = "device";
/// Automatic level choice aims at graphs of at most this many nodes.
inline constexpr std::size_t kDefaultMaxNodes = 400;

/// The pseudo-level finer than every level of `topology` (levels().size()):
/// collapsing there keeps every device a node of its own.
LevelIndex device_level(const Topology& topology);

/// The level named `name`, or device_level() for "device" (unless a real level
/// has that name). Throws InputError listing the levels, with a suggestion.
LevelIndex find_render_level(const Topology& topology, std::string_view name);

/// The name of a level or of the device pseudo-level.
std::string render_level_name(const Topology& topology, LevelIndex level);

/// How many nodes collapse(topology, level) has: the domains at `level` plus
/// the devices owned by coarser domains (every device at device_level).
std::size_t collapsed_node_count(const Topology& topology, LevelIndex level);

/// The level to draw when the user names none: every device when there are at
/// most `max_nodes`, else the finest level whose graph has at most `max_nodes`
/// nodes, else level 0 (the whole topology as one node).
LevelIndex choose_level(const Topology& topology, std::size_t max_nodes = kDefaultMaxNodes);

/// A box around nodes: a domain coarser than the collapse level, not the root.
struct GraphCluster {
  std::string id;                 // "cluster:" + the domain's path; unique and stable
  std::string label;              // the domain's name: hostname for nodes, local name elsewhere
  DomainId domain = kNone;
  std::uint32_t parent = kNone;   // the enclosing cluster's index; kNone at the top
};

/// One drawn node: a domain standing for every device inside it, or a device.
struct GraphNode {
  std::string id;                 // the domain's or device's name; unique and stable
  std::string label;              // lines separated by '\n'
  DomainId domain = kNone;        // the domain it stands for; kNone for a device node
  DeviceId device = kNone;        // the device it is; kNone for a domain node
  DeviceKind kind = DeviceKind::gpu;      // device nodes only
  DeviceState state = DeviceState::up;    // device nodes only
  std::uint32_t cluster = kNone;  // innermost enclosing cluster's index; kNone at the top
  LevelIndex depth = 0;           // its domain's level (the owner's for a device): coarser is drawn higher
  std::uint64_t devices = 0;      // devices it stands for (1 for a device node)
  std::uint64_t accelerators = 0;
  std::uint64_t accelerators_unavailable = 0;  // down or draining
};

/// All links of one family between two nodes.
struct GraphEdge {
  std::uint32_t a = 0;            // node index of the coarser end (smaller depth, then smaller index)
  std::uint32_t b = 0;
  LinkFamily family = LinkFamily::pcie;
  std::string type;               // the link type when all links share one, else the family name
  std::uint64_t links = 0;        // counting parallel links
  double bandwidth = 0;           // GB/s per direction, all links together

  LinkClass link_class() const { return topoplan::link_class(family); }
};

/// A device path (a placed job's chain) drawn over the graph's nodes.
struct GraphPath {
  std::string name;
  PathShape shape = PathShape::set;
  std::vector<std::string> devices;  // device names, in the path's order
  /// The node each device falls in, in the path's order (repeats kept: a
  /// chain runs through several chips of one collapsed node).
  std::vector<std::uint32_t> nodes;
};

/// Hops of a path drawn between nodes: the chain or ring's hops whose two
/// ends fall in different nodes, in path order (position of the hop's first
/// device, 0-based); none for a set.
struct GraphHop {
  std::uint32_t path = 0;  // index into TopologyGraph::paths
  std::uint32_t from = 0;  // node indices
  std::uint32_t to = 0;
  std::uint32_t position = 0;  // the hop leaves the path's device at this position
};

struct TopologyGraph {
  std::string title;              // topology name with its parameters: "gb200-nvl72 (racks=2)"
  LevelIndex level = 0;           // the collapse level; device_level() for every device
  std::string level_name;         // its name, or "device"
  std::vector<GraphCluster> clusters;  // in domain id order, so parents come first
  std::vector<GraphNode> nodes;   // domain nodes in domain id order, then device nodes in device id order
  std::vector<GraphEdge> edges;   // sorted by (a, b, family)
  std::vector<GraphPath> paths;   // in the order given
  std::vector<GraphHop> hops;     // by path, then position
};

/// Collapses `topology` at `level` (at most device_level(topology)), with
/// `paths` drawn over it: every node a path touches gets a label line per
/// path with the positions (1-based) of its devices there, "llama #1-8", or
/// their count for a set, "serve (4)"; hops between nodes become GraphHops.
/// Devices must belong to `topology`.
TopologyGraph collapse(const Topology& topology, LevelIndex level, std::span<const DevicePath> paths = {});

}  // namespace topoplan
