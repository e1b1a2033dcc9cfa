// Builds a TopologyGraph as a libcgraph graph and writes it as DOT, or lays it
// out (dot, or neato for flat and wide graphs; see Look) and renders SVG or PNG
// with libgvc, all in-process.
//
// The only file that includes Graphviz headers. Graphviz 2.42's C API takes
// `char*` for strings it only reads; the const casts live in `cs()` here.
#include "graphviz_render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "topoplan/support/error.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan::detail {

namespace {

char* cs(const char* text) { return const_cast<char*>(text); }
char* cs(const std::string& text) { return const_cast<char*>(text.c_str()); }

// --- Object ids in creation order ------------------------------------------
//
// cgraph keeps subgraphs ordered by object id, and its default ids are the
// addresses of the interned name strings, so the order of clusters in the DOT
// output (and in the layout) would follow the heap. This discipline hands out
// ids in creation order instead: named objects get even ids, anonymous ones
// (edges, Graphviz's own helpers) odd ids, as in the default discipline.

struct IdState {
  Agraph_t* graph = nullptr;
  std::unordered_map<std::string, IDTYPE> ids;  // looked up only, never iterated
  // names[id / 2 - 1], interned with agstrdup: cgraph reads flags stored in
  // front of the names it prints, so they must be its own strings.
  std::vector<char*> names;
  IDTYPE next_anonymous = 1;
};

void* id_open(Agraph_t* g, Agdisc_t*) {
  auto* state = new IdState;
  state->graph = g;
  return state;
}

long id_map(void* state, int, char* name, IDTYPE* id, int create) {
  auto& s = *static_cast<IdState*>(state);
  if (!name) {
    *id = s.next_anonymous;
    s.next_anonymous += 2;
    return 1;
  }
  if (auto it = s.ids.find(name); it != s.ids.end()) {
    *id = it->second;
    return 1;
  }
  if (!create) return 0;
  s.names.push_back(agstrdup(s.graph, name));
  *id = 2 * static_cast<IDTYPE>(s.names.size());
  s.ids.emplace(name, *id);
  return 1;
}

long id_alloc(void*, int, IDTYPE) { return 0; }  // callers cannot pick ids
void id_free(void*, int, IDTYPE) {}              // names live until the graph closes

char* id_print(void* state, int, IDTYPE id) {
  auto& s = *static_cast<IdState*>(state);
  if (id % 2 == 1 || id == 0 || id / 2 > s.names.size()) return nullptr;
  return s.names[id / 2 - 1];
}

// cgraph calls this before it frees the graph's strings.
void id_close(void* state) {
  auto* s = static_cast<IdState*>(state);
  for (char* name : s->names) agstrfree(s->graph, name);
  delete s;
}
void id_register(void*, int, void*) {}

Agiddisc_t id_discipline = {id_open, id_map, id_alloc, id_free, id_print, id_close, id_register};

// agwrite appends to a std::string instead of a FILE.
int put_string(void* channel, const char* text) {
  static_cast<std::string*>(channel)->append(text);
  return 0;
}
int flush_nothing(void*) { return 0; }

Agiodisc_t io_discipline = {nullptr, put_string, flush_nothing};
Agdisc_t discipline = {nullptr, &id_discipline, &io_discipline};

// --- Diagnostics -------------------------------------------------------------

// Graphviz reports warnings and errors through one process-wide callback (it
// is not thread-safe anyway); collect them while we draw instead of letting
// the library print to stderr.
std::string* captured = nullptr;

int capture(char* text) {
  if (captured) captured->append(text);
  return 0;
}

class MessageCapture {
 public:
  MessageCapture() : previous_(agseterrf(capture)) { captured = &text_; }
  ~MessageCapture() {
    agseterrf(previous_);
    captured = nullptr;
  }
  MessageCapture(const MessageCapture&) = delete;
  MessageCapture& operator=(const MessageCapture&) = delete;

  /// One entry per non-empty line, "Warning: " prefixes dropped.
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text_.size()) {
      std::size_t end = text_.find('\n', start);
      if (end == std::string::npos) end = text_.size();
      std::string line = text_.substr(start, end - start);
      if (line.rfind("Warning: ", 0) == 0) line.erase(0, 9);
      if (line.rfind("Error: ", 0) == 0) line.erase(0, 7);
      // With no plugins at all, Graphviz lists nothing after "Use one of:".
      constexpr std::string_view kUseOneOf = "Use one of:";
      if (std::size_t at = line.find(kUseOneOf);
          at != std::string::npos && line.find_first_not_of(' ', at + kUseOneOf.size()) == std::string::npos)
        line = line.substr(0, at) + "(Graphviz finds no plugins: is it fully installed? 'dot -c' registers them)";
      if (!line.empty()) out.push_back(std::move(line));
      start = end + 1;
    }
    return out;
  }

  // Graphviz failing (a broken installation without its plugins, a layout
  // it cannot do) ends the command like bad input does: one error line and
  // exit status 2, through InputError.
  [[noreturn]] void fail(const std::string& what) const {
    std::vector<std::string> details = lines();
    throw InputError({}, fmt::format("graphviz: {}{}{}", what, details.empty() ? "" : ": ", fmt::join(details, "; ")));
  }

 private:
  std::string text_;
  agusererrf previous_;
};

// --- Styling -----------------------------------------------------------------

// How a drawing adapts to its size; all thresholds live here.
struct Look {
  // Edge labels sit beside their edges (xlabel), so they do not widen the
  // layout; past this many edges they only pile up, and the numbers stay in
  // the tooltips.
  static constexpr std::size_t kMaxLabelledEdges = 500;
  // Past this many edges, lines get thin and translucent.
  static constexpr std::size_t kDenseEdges = 1000;
  // dot puts each tier in one row; a flat graph (no boxes) with a tier wider
  // than this, like 228 SUs under 8 spines, becomes a strip a hundred times
  // wider than high, so it is laid out by stress majorisation (neato).
  static constexpr std::size_t kMaxRowNodes = 64;
  // With boxes, a tier wider than this (64 racks in 8 SUs) would make a
  // strip too wide to read (6932 x 814 pixels): the tiers then run left to
  // right, so the boxes stack and the drawing grows downwards, as a page.
  static constexpr std::size_t kMaxTopDownRow = 24;
  // A laid-out SVG or PNG longer than this many times its width (or the
  // reverse) is tried the other way round (draw_with_graphviz).
  static constexpr double kMaxElongation = 3.0;

  bool labelled = true;
  bool dense = false;
  bool flat_and_wide = false;
  bool left_to_right = false;

  explicit Look(const TopologyGraph& graph) {
    labelled = graph.edges.size() <= kMaxLabelledEdges;
    dense = graph.edges.size() > kDenseEdges;
    std::vector<std::size_t> per_depth;
    for (const GraphNode& node : graph.nodes) {
      if (node.depth >= per_depth.size()) per_depth.resize(node.depth + 1, 0);
      ++per_depth[node.depth];
    }
    std::size_t widest = per_depth.empty() ? 0 : *std::max_element(per_depth.begin(), per_depth.end());
    flat_and_wide = graph.clusters.empty() && widest > kMaxRowNodes;
    // A tier is a depth and a kind (a node's GPUs and NICs sit in two rows).
    std::map<std::pair<LevelIndex, int>, std::size_t> per_tier;
    std::size_t widest_tier = 0;
    for (const GraphNode& node : graph.nodes)
      widest_tier = std::max(widest_tier, ++per_tier[{node.depth, node.device == kNone ? -1 : static_cast<int>(node.kind)}]);
    left_to_right = !flat_and_wide && widest_tier > kMaxTopDownRow;
  }

  std::string colour(LinkClass link_class) const;
  std::string pen_width(double bandwidth) const;
};

struct ClassStyle {
  const char* colour;
  const char* legend;
};

ClassStyle class_style(LinkClass link_class) {
  switch (link_class) {
    case LinkClass::scale_up: return {"#2e7d32", "scale-up: NVLink, xGMI, C2C"};
    case LinkClass::network: return {"#1565c0", "network: InfiniBand, RoCE, Ethernet"};
    case LinkClass::host: return {"#8c8c8c", "host I/O: PCIe, CPU links"};
  }
  return {"#000000", ""};
}

std::string Look::colour(LinkClass link_class) const {
  return std::string(class_style(link_class).colour) + (dense ? "60" : "");
}

// Line width grows with the log of the bandwidth: 1 at 50 GB/s (one 400G
// port), +2 per factor of ten; a third of that in dense drawings.
std::string Look::pen_width(double bandwidth) const {
  double width = 1.0 + 2.0 * std::log10(std::max(bandwidth, 1.0) / 50.0);
  if (dense) width /= 3;
  return fmt::format("{:.1f}", std::clamp(width, dense ? 0.3 : 0.5, 12.0));
}

// Paths (a plan's jobs) in colours apart from the fabric tiers' greens,
// blues and greys; the palette repeats after eight.
const char* path_colour(std::size_t path) {
  static const char* const colours[] = {"#d62728", "#9467bd", "#ff7f0e", "#8c564b",
                                        "#e377c2", "#bcbd22", "#17becf", "#000000"};
  return colours[path % 8];
}

// Paths the legend names one by one before "+N more".
constexpr std::size_t kMaxLegendPaths = 12;

std::string gbps(double bandwidth) { return format_number(bandwidth, 1) + " GB/s"; }

// A label as Graphviz reads it: a line break becomes "\n" (centred), and a
// backslash is doubled, so that names and models holding one (`\N`, `\l`)
// are printed as written instead of read as escapes.
std::string label_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\\')
      out += "\\\\";
    else
      out += ch;
  }
  return out;
}

const char* cluster_fill(std::size_t nesting) {
  static const char* const fills[] = {"#f6f6f6", "#ececec", "#e2e2e2", "#d8d8d8"};
  return fills[std::min<std::size_t>(nesting, 3)];
}

struct NodeStyle {
  const char* shape;
  const char* fill;
};

NodeStyle device_style(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu:
    case DeviceKind::lpu: return {"box", "#d9ead3"};
    case DeviceKind::cpu: return {"box", "#dfe3f5"};
    case DeviceKind::nic: return {"box", "#fde8d0"};
    case DeviceKind::pcie_switch: return {"hexagon", "#eeeeee"};
    case DeviceKind::nvswitch: return {"hexagon", "#cfe8cf"};
    case DeviceKind::network_switch: return {"hexagon", "#d6e4f5"};
  }
  return {"box", "#ffffff"};
}

void set(void* object, const char* name, const std::string& value) { agsafeset(object, cs(name), cs(value), cs("")); }

// --- Graph construction ------------------------------------------------------

struct GraphCloser {
  void operator()(Agraph_t* g) const { agclose(g); }
};
using GraphPtr = std::unique_ptr<Agraph_t, GraphCloser>;

Agnode_t* make_node(Agraph_t* parent, const std::string& id) {
  Agnode_t* node = agnode(parent, cs(id), 1);
  if (!node) throw InputError({}, fmt::format("graphviz: cannot create node '{}'", id));
  return node;
}

Agedge_t* make_edge(Agraph_t* parent, Agnode_t* a, Agnode_t* b) {
  Agedge_t* edge = agedge(parent, a, b, nullptr, 1);
  if (!edge) throw InputError({}, "graphviz: cannot create an edge");
  return edge;
}

// Text in an HTML-like label.
std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// An HTML-like label: cgraph writes it as <...> only when interned as HTML.
void set_html(Agraph_t* g, void* object, const char* name, const std::string& html) {
  char* text = agstrdup_html(g, cs(html));
  agsafeset(object, cs(name), text, cs(""));
  agstrfree(g, text);
}

// Edge labels that many edges share ("900 GB/s, 18 x ib-ndr" on every
// leaf-spine edge) are said once in the legend instead of piling up.
struct SharedLabels {
  static constexpr std::size_t kMinShared = 4;
  std::map<std::string, std::size_t> count;  // label -> edges
  bool shared(const std::string& label) const { return count.at(label) >= kMinShared; }
};

// The legend: one node holding a table (a box in every layout, neato's too,
// where a cluster of sample edges would drift apart): the note, a bar per
// fabric tier present in its colour, the thinnest and thickest line drawn,
// and the edge labels many edges share.
void add_legend(Agraph_t* g, const TopologyGraph& graph, const Look& look, const SharedLabels& labels) {
  std::string rows = "<TR><TD ALIGN=\"LEFT\" COLSPAN=\"2\"><B>legend</B></TD></TR>";
  auto text_row = [&](const std::string& text) {
    rows += "<TR><TD ALIGN=\"LEFT\" COLSPAN=\"2\">" + html_escape(text) + "</TD></TR>";
  };
  auto bar_row = [&](const std::string& colour, double bandwidth, const std::string& text) {
    double width = std::stod(look.pen_width(bandwidth));
    int height = std::max(1, static_cast<int>(std::lround(width)));
    rows += fmt::format("<TR><TD FIXEDSIZE=\"TRUE\" WIDTH=\"36\" HEIGHT=\"{}\" CELLPADDING=\"0\" BGCOLOR=\"{}\"></TD>"
                        "<TD ALIGN=\"LEFT\">{}</TD></TR>",
                        height, colour.substr(0, 7), html_escape(text));
  };
  if (graph.edges.empty()) {
    text_row("no links between these nodes");
  } else {
    text_row(look.labelled ? "edge label: GB/s per direction of all links, then links x type"
                           : fmt::format("{} edges: labels only in tooltips (GB/s per direction, links x type)",
                                         graph.edges.size()));
    text_row("colour: fabric tier; width: grows with log GB/s");
  }
  bool present[3] = {false, false, false};
  double low = 0, high = 0;
  for (const GraphEdge& edge : graph.edges) {
    present[static_cast<std::size_t>(edge.link_class())] = true;
    low = low == 0 ? edge.bandwidth : std::min(low, edge.bandwidth);
    high = std::max(high, edge.bandwidth);
  }
  for (LinkClass lc : {LinkClass::scale_up, LinkClass::network, LinkClass::host})
    if (present[static_cast<std::size_t>(lc)]) bar_row(look.colour(lc), 400, class_style(lc).legend);
  if (!graph.edges.empty()) {
    bar_row("#555555", low, gbps(low));
    if (high > low) bar_row("#555555", high, gbps(high));
  }
  for (std::size_t i = 0; i < graph.paths.size() && i < kMaxLegendPaths; ++i) {
    const GraphPath& path = graph.paths[i];
    bar_row(path_colour(i), 400,
            path.shape == PathShape::set
                ? fmt::format("{}: {} device{}", path.name, path.devices.size(), path.devices.size() == 1 ? "" : "s")
                : fmt::format("{}: {} of {}, arrows in pipeline order", path.name, path_shape_name(path.shape),
                              path.devices.size()));
  }
  if (graph.paths.size() > kMaxLegendPaths)
    text_row(fmt::format("+{} more paths", graph.paths.size() - kMaxLegendPaths));
  if (look.labelled)
    for (const auto& [label, edges] : labels.count)
      if (edges >= SharedLabels::kMinShared) {
        std::string text = label;
        std::replace(text.begin(), text.end(), '\n', ' ');
        text_row(fmt::format("{} edges (label in the tooltip): {} each", edges, text));
      }
  Agnode_t* legend = make_node(g, "legend");
  set(legend, "shape", "plaintext");
  set(legend, "style", "");
  set(legend, "fontsize", "9");
  set(legend, "margin", "0");
  set_html(g, legend, "label",
           "<TABLE BORDER=\"1\" STYLE=\"ROUNDED\" COLOR=\"#a0a0a0\" CELLBORDER=\"0\" CELLSPACING=\"3\" "
           "CELLPADDING=\"1\">" +
               rows + "</TABLE>");
}

// Nodes of one box, tier and kind in name order (racks r0000, r0001, ...;
// spines 0 to 7), as a reader looks for them: crossing minimisation cannot
// untangle a fabric's complete bipartite wiring and only scrambles it. Each
// such group is one rank (rank=same) chained left to right by invisible
// edges, and dot keeps that first ordering (mclimit=0).
void keep_name_order(Agraph_t* g, const TopologyGraph& graph, const std::vector<Agraph_t*>& boxes,
                     const std::vector<Agnode_t*>& nodes, bool left_to_right) {
  std::map<std::tuple<std::uint32_t, LevelIndex, int>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& n = graph.nodes[i];
    groups[{n.cluster, n.depth, n.device == kNone ? -1 : static_cast<int>(n.kind)}].push_back(i);
  }
  std::size_t count = 0;
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::uint32_t cluster = std::get<0>(key);
    Agraph_t* row = agsubg(cluster == kNone ? g : boxes[cluster], cs(fmt::format("order:{}", count++)), 1);
    set(row, "rank", "same");
    for (std::size_t i : members) agsubnode(row, nodes[i], 1);
    // With rankdir=LR, Graphviz 2.42 stacks a chain inside a box bottom up
    // (outside one, top down): chained backwards there, names read down.
    std::vector<std::size_t> order = members;
    if (left_to_right && cluster != kNone) std::reverse(order.begin(), order.end());
    for (std::size_t k = 1; k < order.size(); ++k)
      set(make_edge(row, nodes[order[k - 1]], nodes[order[k]]), "style", "invis");
  }
  set(g, "mclimit", "0");
  set(g, "remincross", "false");
}

GraphPtr build(const TopologyGraph& graph) {
  Look look(graph);
  GraphPtr owner(agopen(cs(graph.title), Agundirected, &discipline));
  Agraph_t* g = owner.get();
  if (!g) throw InputError({}, "graphviz: cannot create a graph");

  // Defaults first, so that DOT lists them once at the top.
  agattr(g, AGRAPH, cs("fontname"), cs("Helvetica"));
  agattr(g, AGRAPH, cs("label"), cs(""));
  agattr(g, AGNODE, cs("fontname"), cs("Helvetica"));
  agattr(g, AGNODE, cs("fontsize"), cs("10"));
  agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("style"), cs("rounded,filled"));
  agattr(g, AGNODE, cs("fillcolor"), cs("#fff3d6"));
  agattr(g, AGEDGE, cs("fontname"), cs("Helvetica"));
  agattr(g, AGEDGE, cs("fontsize"), cs("8"));
  agattr(g, AGEDGE, cs("fontcolor"), cs("#333333"));

  std::string level_text = graph.level_name == kDeviceLevelName
                               ? std::string("every device")
                               : fmt::format("collapsed to level '{}'", graph.level_name);
  set(g, "label", label_text(graph.title + "\n" + level_text));
  set(g, "labelloc", "t");
  set(g, "fontsize", "16");
  set(g, "outputorder", "edgesfirst");
  if (look.flat_and_wide) {
    // The layout attribute also steers `dot -Tsvg` run on our DOT output.
    // neato: spines in the middle, the wide tier around them. (fdp would
    // keep the legend box too, but its 2.42 layouts vary between runs.)
    set(g, "layout", "neato");
    set(g, "overlap", "false");
  } else {
    set(g, "nodesep", "0.3");
    set(g, "ranksep", "0.8");
    if (look.left_to_right) set(g, "rankdir", "LR");
  }

  std::vector<Agraph_t*> boxes(graph.clusters.size());
  std::vector<std::size_t> nesting(graph.clusters.size(), 0);
  for (std::size_t i = 0; i < graph.clusters.size(); ++i) {
    const GraphCluster& cluster = graph.clusters[i];
    Agraph_t* parent = g;
    if (cluster.parent != kNone) {
      parent = boxes[cluster.parent];
      nesting[i] = nesting[cluster.parent] + 1;
    }
    boxes[i] = agsubg(parent, cs(cluster.id), 1);
    if (!boxes[i]) throw InputError({}, fmt::format("graphviz: cannot create cluster '{}'", cluster.id));
    set(boxes[i], "label", label_text(cluster.label));
    set(boxes[i], "style", "rounded,filled");
    set(boxes[i], "fillcolor", cluster_fill(nesting[i]));
    set(boxes[i], "color", "#a0a0a0");
    set(boxes[i], "fontsize", "11");
    set(boxes[i], "labeljust", "l");
  }

  std::vector<Agnode_t*> nodes(graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    Agnode_t* n = make_node(node.cluster == kNone ? g : boxes[node.cluster], node.id);
    nodes[i] = n;
    set(n, "label", label_text(node.label));
    if (node.device != kNone) {
      NodeStyle style = device_style(node.kind);
      if (std::string_view(style.shape) != "box") set(n, "shape", style.shape);
      set(n, "fillcolor", style.fill);
      if (node.kind == DeviceKind::nic || node.kind == DeviceKind::cpu) set(n, "fontsize", "9");
      if (node.state != DeviceState::up) {
        set(n, "style", "rounded,filled,dashed");
        set(n, "color", node.state == DeviceState::down ? "#c62828" : "#ef6c00");
      }
    } else if (node.accelerators_unavailable > 0) {
      set(n, "color", "#c62828");
      set(n, "penwidth", "2");
    }
  }

  SharedLabels labels;
  auto label_of = [](const GraphEdge& edge) { return fmt::format("{}\n{} x {}", gbps(edge.bandwidth), edge.links, edge.type); };
  for (const GraphEdge& edge : graph.edges) ++labels.count[label_of(edge)];
  for (const GraphEdge& edge : graph.edges) {
    Agedge_t* e = make_edge(g, nodes[edge.a], nodes[edge.b]);
    std::string text = label_of(edge);
    set(e, "color", look.colour(edge.link_class()));
    set(e, "penwidth", look.pen_width(edge.bandwidth));
    set(e, look.labelled && !labels.shared(text) ? "xlabel" : "tooltip", label_text(text));
  }
  // A plan's paths: the nodes each one touches outlined in its colour, and
  // its hops between nodes as arrows. (They take part in the layout:
  // Graphviz 2.42's dot aborts in merge_chain on constraint=false edges
  // beside other edges between the same nodes, as a Groq plan has.)
  std::vector<bool> outlined(graph.nodes.size(), false);
  for (std::size_t i = 0; i < graph.paths.size(); ++i)
    for (std::uint32_t node : graph.paths[i].nodes) {
      if (outlined[node]) continue;
      outlined[node] = true;
      if (graph.nodes[node].accelerators_unavailable > 0 || graph.nodes[node].state != DeviceState::up) continue;
      set(nodes[node], "color", path_colour(i));
      set(nodes[node], "penwidth", "2");
    }
  const bool every_device = graph.level_name == kDeviceLevelName;
  for (const GraphHop& hop : graph.hops) {
    Agedge_t* e = make_edge(g, nodes[hop.from], nodes[hop.to]);
    const GraphPath& path = graph.paths[hop.path];
    const std::uint32_t next = (hop.position + 1) % static_cast<std::uint32_t>(path.devices.size());
    std::string text = fmt::format("{} #{}-#{}", path.name, hop.position + 1, next + 1);
    set(e, "color", path_colour(hop.path));
    set(e, "penwidth", "2.5");
    set(e, "dir", "forward");
    set(e, "arrowsize", "0.7");
    // Every device drawn: the nodes' labels number the chips already.
    set(e, every_device || !look.labelled ? "tooltip" : "xlabel", label_text(text));
    if (!every_device && look.labelled) set(e, "fontcolor", path_colour(hop.path));
  }
  if (!look.flat_and_wide) keep_name_order(g, graph, boxes, nodes, look.left_to_right);

  add_legend(g, graph, look, labels);
  return owner;
}

// --- Layout and rendering ------------------------------------------------------

struct ContextCloser {
  void operator()(GVC_t* gvc) const { gvFreeContext(gvc); }
};

// One Graphviz context for the whole process, freed at exit. Graphviz 2.42's
// pango plugin remembers the last font name by pointer into the context's
// font table (fixed in later releases), so a second context would read the
// first one's freed memory (AddressSanitizer: heap-use-after-free in
// textspan_size). Loading the plugins once is also faster.
GVC_t* context(const MessageCapture& messages) {
  static std::unique_ptr<GVC_t, ContextCloser> gvc(gvContext());
  if (!gvc) messages.fail("cannot create a context");
  return gvc.get();
}

// How far a laid-out drawing is from square: its longer side over its
// shorter (Graphviz's bounding box, "llx,lly,urx,ury").
double elongation(Agraph_t* g) {
  const char* bb = agget(g, cs("bb"));
  double llx = 0, lly = 0, urx = 0, ury = 0;
  if (!bb || std::sscanf(bb, "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury) != 4) return 1;
  double w = urx - llx, h = ury - lly;
  if (w <= 0 || h <= 0) return 1;
  return std::max(w / h, h / w);
}

struct RenderDataFree {
  void operator()(char* data) const { gvFreeRenderData(data); }
};

// Frees the layout before the graph closes.
class Layout {
 public:
  Layout(GVC_t* gvc, Agraph_t* g, const MessageCapture& messages) : gvc_(gvc), g_(g) {
    if (gvLayout(gvc_, g_, "dot") != 0) messages.fail("layout failed");
  }
  ~Layout() { gvFreeLayout(gvc_, g_); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;

 private:
  GVC_t* gvc_;
  Agraph_t* g_;
};

}  // namespace

Drawing draw_with_graphviz(const TopologyGraph& graph, RenderFormat format) {
  MessageCapture messages;
  Drawing drawing;
  if (format == RenderFormat::dot) {
    GraphPtr g = build(graph);
    if (agwrite(g.get(), &drawing.data) != 0) messages.fail("cannot write DOT");
    drawing.warnings = messages.lines();
    return drawing;
  }

  const char* device = format == RenderFormat::svg ? "svg" : "png";
  GVC_t* gvc = context(messages);
  GraphPtr g = build(graph);
  // Cairo bitmaps end at 32767 pixels; at 96 dpi this size keeps below that,
  // so Graphviz scales big drawings itself instead of complaining on stderr.
  if (format == RenderFormat::png) set(g.get(), "size", "340,340");
  {
    std::optional<Layout> layout(std::in_place, gvc, g.get(), messages);
    // A drawing much wider than high (the spines, leaves and insides of one
    // DGX side by side: 4926 x 814 pixels) is laid out again with its tiers
    // left to right, and the shape closer to a page is kept.
    const char* rankdir = agget(g.get(), cs("rankdir"));
    const char* layout_name = agget(g.get(), cs("layout"));
    bool dot = !layout_name || std::string_view(layout_name).empty() || std::string_view(layout_name) == "dot";
    if (dot && (!rankdir || std::string_view(rankdir) != "LR") && elongation(g.get()) > Look::kMaxElongation) {
      double top_down = elongation(g.get());
      layout.reset();
      set(g.get(), "rankdir", "LR");
      layout.emplace(gvc, g.get(), messages);
      if (elongation(g.get()) >= top_down) {
        layout.reset();
        set(g.get(), "rankdir", "TB");
        layout.emplace(gvc, g.get(), messages);
      }
    }
    char* raw = nullptr;
    unsigned int length = 0;
    int status = gvRenderData(gvc, g.get(), device, &raw, &length);
    std::unique_ptr<char, RenderDataFree> data(raw);
    if (status != 0 || !data) messages.fail(fmt::format("cannot render {}", device));
    drawing.data.assign(data.get(), length);
  }
  drawing.warnings = messages.lines();
  return drawing;
}

}  // namespace topoplan::detail

// --- Leak checking -------------------------------------------------------------
//
// Graphviz 2.42 and the font libraries under its pango plugin keep memory that
// nothing can free, which LeakSanitizer (run by CI with -DTOPOPLAN_SANITIZE=ON)
// would report on every run that lays out a graph:
//  - gvContext never frees its plugin configuration text (gvconfig);
//  - dot's cluster skeletons (virtual nodes and edges made in class1/class2)
//    survive gvFreeLayout, for any graph with a cluster;
//  - fontconfig's pattern caches, filled by pango.
// Everything we own is freed (graphs, layouts, render buffers, the context at
// exit). Suppressions can only name what the fast unwinder sees: the first
// frame under malloc, which is Graphviz's allocation wrappers (gmalloc, zmalloc,
// grealloc) or fontconfig. Graphs, attributes and render buffers are allocated
// elsewhere (libcgraph, plain malloc in libgvc), so leaks of those still show.
#if defined(__SANITIZE_ADDRESS__)
#define TOPOPLAN_LSAN_SUPPRESSIONS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TOPOPLAN_LSAN_SUPPRESSIONS 1
#endif
#endif

#ifdef TOPOPLAN_LSAN_SUPPRESSIONS
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() {
  return "leak:gmalloc\n"
         "leak:zmalloc\n"
         "leak:grealloc\n"
         "leak:libfontconfig.so\n";
}

// Without this, LeakSanitizer lists the suppressions used on stderr, which the
// golden CLI tests compare.
extern "C" const char* __lsan_default_options();
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif
