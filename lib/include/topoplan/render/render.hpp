// Drawing a topology: collapse it to a level of detail (topology_graph.hpp)
// and write the graph as Graphviz DOT, as an SVG or PNG laid out in-process by
// Graphviz, or as JSON. DOT and JSON output are byte-identical across runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/device_path.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/render/topology_graph.hpp"

namespace topoplan {

enum class RenderFormat : std::uint8_t { dot, svg, png, json };

/// "dot", "svg", "png", "json".
std::string_view format_name(RenderFormat format);
/// The format with that name; nullopt for other names.
std::optional<RenderFormat> parse_render_format(std::string_view name);

/// The format an output file asks for by its extension (.svg, .png, .dot or
/// .gv, .json, in any case). Throws InputError naming the known extensions
/// otherwise, or saying that a path ending in '/' is a directory.
RenderFormat format_for_path(std::string_view path);

struct RenderOptions {
  /// A level of the topology, "device" for every device, or empty to let
  /// choose_level pick one.
  std::string level;
  /// The node budget of the automatic choice.
  std::size_t max_nodes = kDefaultMaxNodes;
  RenderFormat format = RenderFormat::dot;
  /// Drawn over the topology (a plan's jobs, placement/plan_paths.hpp).
  std::vector<DevicePath> paths;
};

/// Graph drawn in one format.
struct Drawing {
  std::string data;                   // DOT or JSON text, SVG or PNG bytes
  std::vector<std::string> warnings;  // what Graphviz reported, e.g. a PNG scaled down to fit
};

struct Rendering {
  std::string data;             // the output: DOT or JSON text, SVG or PNG bytes
  std::vector<std::string> warnings;  // as in Drawing
  LevelIndex level = 0;         // the level drawn (device_level() for every device)
  std::string level_name;
  bool automatic = false;       // chosen by choose_level, not by the user
  std::size_t nodes = 0;
  std::size_t edges = 0;
};

/// Collapses `topology` as `options` say and draws it. Throws InputError for
/// an unknown level.
Rendering render(const Topology& topology, const RenderOptions& options);

/// Draws a collapsed graph: DOT text, or SVG/PNG bytes laid out with Graphviz
/// `dot`; JSON through write_graph_json.
Drawing draw_graph(const TopologyGraph& graph, RenderFormat format);

/// The graph as JSON: title, level, clusters, nodes, edges between node ids,
/// and paths (name, shape, devices and nodes in order, hops between nodes).
void write_graph_json(std::ostream& out, const TopologyGraph& graph);

}  // namespace topoplan
