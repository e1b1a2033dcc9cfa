#include "topoplan/render/render.hpp"

#include <array>
#include <sstream>

#include <fmt/format.h>

#include "graphviz_render.hpp"
#include "topoplan/support/ascii.hpp"
#include "topoplan/support/error.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

namespace {

struct Extension {
  std::string_view suffix;
  RenderFormat format;
};

constexpr std::array<Extension, 5> kExtensions = {{
    {"svg", RenderFormat::svg},
    {"png", RenderFormat::png},
    {"dot", RenderFormat::dot},
    {"gv", RenderFormat::dot},
    {"json", RenderFormat::json},
}};

}  // namespace

std::string_view format_name(RenderFormat format) {
  switch (format) {
    case RenderFormat::dot: return "dot";
    case RenderFormat::svg: return "svg";
    case RenderFormat::png: return "png";
    case RenderFormat::json: return "json";
  }
  return "?";
}

std::optional<RenderFormat> parse_render_format(std::string_view name) {
  for (RenderFormat format : {RenderFormat::dot, RenderFormat::svg, RenderFormat::png, RenderFormat::json})
    if (format_name(format) == name) return format;
  return std::nullopt;
}

RenderFormat format_for_path(std::string_view path) {
  if (!path.empty() && path.back() == '/') throw InputError({std::string(path), 0, 0}, "is a directory, not a file");
  std::string_view base = path.substr(path.rfind('/') + 1);
  std::size_t dot = base.rfind('.');
  std::string suffix(dot == std::string_view::npos ? std::string_view() : base.substr(dot + 1));
  // Extensions are matched regardless of case (cluster.SVG), as plan -o does.
  const std::string lower = ascii_lower(suffix);
  std::vector<std::string> known;
  for (const Extension& e : kExtensions) {
    if (e.suffix == lower) return e.format;
    known.push_back(fmt::format(".{}", e.suffix));
  }
  std::string hint = suffix.empty() ? std::string() : did_you_mean(fmt::format(".{}", suffix), known);
  std::string what = suffix.empty() ? std::string("no extension") : fmt::format("unknown extension '.{}'", suffix);
  throw InputError({std::string(path), 0, 0}, fmt::format("{}; the output formats are {}{}{}", what,
                                                          fmt::join(known, ", "), hint.empty() ? "" : "; ", hint));
}

Drawing draw_graph(const TopologyGraph& graph, RenderFormat format) {
  if (format != RenderFormat::json) return detail::draw_with_graphviz(graph, format);
  std::ostringstream out;
  write_graph_json(out, graph);
  return {out.str(), {}};
}

Rendering render(const Topology& topology, const RenderOptions& options) {
  Rendering result;
  if (options.level.empty()) {
    result.level = choose_level(topology, options.max_nodes);
    result.automatic = true;
  } else {
    result.level = find_render_level(topology, options.level);
  }
  TopologyGraph graph = collapse(topology, result.level, options.paths);
  result.level_name = graph.level_name;
  result.nodes = graph.nodes.size();
  result.edges = graph.edges.size();
  Drawing drawing = draw_graph(graph, options.format);
  result.data = std::move(drawing.data);
  result.warnings = std::move(drawing.warnings);
  return result;
}

void write_graph_json(std::ostream& out, const TopologyGraph& graph) {
  JsonWriter json(out);
  json.begin_object();
  json.field("title", graph.title).field("level", graph.level_name);
  json.key("clusters").begin_array();
  for (const GraphCluster& cluster : graph.clusters) {
    json.begin_object().field("id", cluster.id).field("label", cluster.label);
    json.key("parent");
    if (cluster.parent == kNone)
      json.null();
    else
      json.value(graph.clusters[cluster.parent].id);
    json.end_object();
  }
  json.end_array();
  json.key("nodes").begin_array();
  for (const GraphNode& node : graph.nodes) {
    json.begin_object().field("id", node.id).field("label", node.label);
    json.field("type", node.device == kNone ? "domain" : kind_name(node.kind));
    if (node.device != kNone) json.field("state", state_name(node.state));
    json.key("cluster");
    if (node.cluster == kNone)
      json.null();
    else
      json.value(graph.clusters[node.cluster].id);
    json.field("devices", node.devices).field("accelerators", node.accelerators);
    json.field("accelerators_unavailable", node.accelerators_unavailable);
    json.end_object();
  }
  json.end_array();
  json.key("edges").begin_array();
  for (const GraphEdge& edge : graph.edges) {
    json.begin_object().field("a", graph.nodes[edge.a].id).field("b", graph.nodes[edge.b].id);
    json.field("class", link_class_name(edge.link_class())).field("family", family_name(edge.family));
    json.field("type", edge.type).field("links", edge.links).field("bandwidth", edge.bandwidth, 1);
    json.end_object();
  }
  json.end_array();
  if (!graph.paths.empty()) {
    json.key("paths").begin_array();
    for (std::size_t i = 0; i < graph.paths.size(); ++i) {
      const GraphPath& path = graph.paths[i];
      json.begin_object().field("name", path.name).field("shape", path_shape_name(path.shape));
      json.key("devices").begin_array();
      for (const std::string& device : path.devices) json.value(device);
      json.end_array();
      // The nodes it runs through, a run of devices in one node said once.
      json.key("nodes").begin_array();
      for (std::size_t k = 0; k < path.nodes.size(); ++k)
        if (k == 0 || path.nodes[k] != path.nodes[k - 1]) json.value(graph.nodes[path.nodes[k]].id);
      json.end_array();
      json.key("hops").begin_array();
      for (const GraphHop& hop : graph.hops)
        if (hop.path == i)
          json.begin_object()
              .field("from", graph.nodes[hop.from].id)
              .field("to", graph.nodes[hop.to].id)
              .field("position", std::uint64_t{hop.position} + 1)
              .end_object();
      json.end_array();
      json.end_object();
    }
    json.end_array();
  }
  json.end_object();
}

}  // namespace topoplan
