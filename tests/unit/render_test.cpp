#include "topoplan/render/render.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/model/topology_builder.hpp"
#include "topoplan/render/topology_graph.hpp"

using namespace topoplan;

namespace {

Topology builtin(const std::string& argument) {
  return load_topology(argument, [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
}

// Two racks of two nodes; each node has two GPUs on NVLink and a NIC on PCIe,
// each rack a ToR switch, the root one spine with a double uplink per ToR.
// One GPU in r1 is down.
Topology two_racks() {
  TopologyBuilder b("mini", {"cluster", "rack", "node"});
  DeviceId spine = b.add_device(b.root(), DeviceKind::network_switch, "spine", {"spine-model", 0, 1.0f, {}, {}});
  for (int r = 0; r < 2; ++r) {
    DomainId rack = b.add_domain(b.root(), "r" + std::to_string(r));
    DeviceId tor = b.add_device(rack, DeviceKind::network_switch, "tor", {"tor-model", 0, 1.0f, {}, {}});
    b.add_link(tor, spine, *find_link_type("ib-ndr"), 2);
    for (int n = 0; n < 2; ++n) {
      DomainId node = b.add_domain(rack, "n" + std::to_string(n));
      b.set_hostname(node, "h" + std::to_string(r) + std::to_string(n));
      DeviceState state = r == 1 && n == 1 ? DeviceState::down : DeviceState::up;
      DeviceId g0 = b.add_device(node, DeviceKind::gpu, "gpu0", {"H100", 80, 1.0f, DeviceState::up, {}});
      DeviceId g1 = b.add_device(node, DeviceKind::gpu, "gpu1", {"H100", 80, 1.0f, state, {}});
      DeviceId nic = b.add_device(node, DeviceKind::nic, "nic0", {"CX7", 0, 1.0f, {}, {}});
      b.add_link(g0, g1, *find_link_type("nvlink4"), 18);
      b.add_link(g0, nic, *find_link_type("pcie5x16"));
      b.add_link(nic, tor, *find_link_type("ib-ndr"));
    }
  }
  DiagnosticSink sink;
  return b.finish(sink);
}

const GraphNode* node_named(const TopologyGraph& graph, const std::string& id) {
  for (const GraphNode& node : graph.nodes)
    if (node.id == id) return &node;
  return nullptr;
}

std::uint32_t index_of(const TopologyGraph& graph, const std::string& id) {
  const GraphNode* node = node_named(graph, id);
  REQUIRE(node);
  return static_cast<std::uint32_t>(node - graph.nodes.data());
}

const GraphEdge* edge_between(const TopologyGraph& graph, const std::string& a, const std::string& b,
                              LinkFamily family) {
  std::uint32_t x = index_of(graph, a), y = index_of(graph, b);
  for (const GraphEdge& edge : graph.edges)
    if (((edge.a == x && edge.b == y) || (edge.a == y && edge.b == x)) && edge.family == family) return &edge;
  return nullptr;
}

std::string dot_of(const TopologyGraph& graph) { return draw_graph(graph, RenderFormat::dot).data; }

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("render: collapsing at a level keeps coarser devices and drops inner links") {
  Topology t = two_racks();
  TopologyGraph rack = collapse(t, *t.find_level("rack"));
  CHECK(rack.level_name == "rack");
  REQUIRE(rack.nodes.size() == 3);  // r0, r1 and the spine; the ToRs live inside their racks
  CHECK(rack.nodes[0].id == "r0");
  CHECK(rack.nodes[0].label == "r0\n4 x H100");
  CHECK(rack.nodes[1].label == "r1\n4 x H100\n(1 down or draining)");
  CHECK(rack.nodes[0].devices == 7);
  CHECK(rack.nodes[2].id == "spine");
  CHECK(rack.clusters.empty());
  REQUIRE(rack.edges.size() == 2);
  const GraphEdge* up = edge_between(rack, "r0", "spine", LinkFamily::infiniband);
  REQUIRE(up);
  CHECK(up->links == 2);
  CHECK(up->bandwidth == Approx(100));
  CHECK(up->type == "ib-ndr");
  CHECK(rack.nodes[up->a].id == "spine");  // the coarser end comes first

  TopologyGraph node = collapse(t, *t.find_level("node"));
  CHECK(node.nodes.size() == 4 + 2 + 1);  // four nodes, two ToRs, the spine
  REQUIRE(node.clusters.size() == 2);
  CHECK(node.clusters[0].id == "cluster:r0");
  CHECK(node.nodes[index_of(node, "h00")].cluster == 0);
  CHECK(node.nodes[index_of(node, "r1/tor")].cluster == 1);
  CHECK(node.nodes[index_of(node, "spine")].cluster == kNone);
  const GraphEdge* nic = edge_between(node, "h00", "r0/tor", LinkFamily::infiniband);
  REQUIRE(nic);
  CHECK(nic->links == 1);
  CHECK(node.edges.size() == 4 + 2);

  TopologyGraph all = collapse(t, device_level(t));
  CHECK(all.level_name == "device");
  CHECK(all.nodes.size() == t.device_count());
  CHECK(all.clusters.size() == 2 + 4);  // racks around nodes around devices
  CHECK(all.edges.size() == t.link_count());
  const GraphEdge* nvlink = edge_between(all, "h00/gpu0", "h00/gpu1", LinkFamily::nvlink);
  REQUIRE(nvlink);
  CHECK(nvlink->links == 18);
  CHECK(nvlink->bandwidth == Approx(450));
  CHECK(all.nodes[index_of(all, "h11/gpu1")].state == DeviceState::down);

  TopologyGraph whole = collapse(t, 0);
  REQUIRE(whole.nodes.size() == 1);
  CHECK(whole.nodes[0].label == "mini\n8 x H100\n(1 down or draining)");
  CHECK(whole.edges.empty());
}

TEST_CASE("render: node counts per level of gb200-nvl72:racks=2") {
  Topology t = builtin("gb200-nvl72:racks=2");
  const LevelIndex su = *t.find_level("su"), rack = *t.find_level("rack"), node = *t.find_level("node");
  CHECK(collapse(t, 0).nodes.size() == 1);
  CHECK(collapse(t, su).nodes.size() == 1 + 8);           // the SU and 8 spines
  CHECK(collapse(t, rack).nodes.size() == 2 + 4 + 8);     // 2 racks, 4 rail leaves, 8 spines
  std::size_t nvswitches = 0;
  for (const Device& d : t.devices()) nvswitches += d.kind == DeviceKind::nvswitch;
  TopologyGraph nodes = collapse(t, node);
  CHECK(nodes.nodes.size() == 36 + nvswitches + 4 + 8);
  CHECK(nodes.clusters.size() == 1 + 2);                  // su000 around r0000 and r0001
  CHECK(collapse(t, device_level(t)).nodes.size() == t.device_count());
  for (LevelIndex level = 0; level <= device_level(t); ++level)
    CHECK(collapse(t, level).nodes.size() == collapsed_node_count(t, level));
}

TEST_CASE("render: a rack's uplinks add up to its 72 NICs split over the rails") {
  Topology t = builtin("gb200-nvl72:racks=2");
  TopologyGraph g = collapse(t, *t.find_level("rack"));
  const double per_nic = find_link_type("ib-ndr")->bandwidth;
  double total = 0;
  for (int leaf = 0; leaf < 4; ++leaf) {
    const GraphEdge* e = edge_between(g, "su000/r0000", "su000/leaf" + std::to_string(leaf), LinkFamily::infiniband);
    REQUIRE(e);
    CHECK(e->links == 18);
    CHECK(e->bandwidth == Approx(72 * per_nic / 4));
    total += e->bandwidth;
  }
  CHECK(total == Approx(72 * per_nic));
  // Nothing inside a rack survives: no NVLink, C2C or PCIe edge at this level.
  for (const GraphEdge& e : g.edges) CHECK(e.link_class() == LinkClass::network);
}

TEST_CASE("render: DOT is deterministic, named by ids, boxed and has a legend") {
  Topology t = builtin("gb200-nvl72:racks=2");
  TopologyGraph g = collapse(t, *t.find_level("rack"));
  std::string dot = dot_of(g);
  CHECK(dot == dot_of(collapse(t, *t.find_level("rack"))));
  RenderOptions options;
  options.level = "node";
  CHECK(render(t, options).data == render(t, options).data);

  CHECK(dot.rfind("graph \"gb200-nvl72 (racks=2)\" {", 0) == 0);
  CHECK(contains(dot, "subgraph \"cluster:su000\" {"));
  CHECK(contains(dot, "\"su000/r0000\"\t[label=\"r0000\\n72 x GB200\"]"));
  CHECK(contains(dot, "legend\t[fontsize=9,\n\t\tlabel=<<TABLE BORDER=\"1\" STYLE=\"ROUNDED\""));
  CHECK(contains(dot, "network: InfiniBand, RoCE, Ethernet"));
  CHECK(contains(dot, "spine0 -- \"su000/leaf0\""));
  CHECK_FALSE(contains(dot, "0x"));  // no pointers anywhere
}

TEST_CASE("render: a label many edges share is said once, in the legend") {
  // 8 spines x 4 rail leaves and 2 racks x 4 leaves: 40 edges of 18 NDR links each.
  Topology t = builtin("gb200-nvl72:racks=2");
  std::string dot = dot_of(collapse(t, *t.find_level("rack")));
  CHECK_FALSE(contains(dot, "xlabel"));
  CHECK(contains(dot, "tooltip=\"900 GB/s\\n18 x ib-ndr\""));
  CHECK(contains(dot, "40 edges (label in the tooltip): 900 GB/s 18 x ib-ndr each"));
  // Labels of their own stay beside their edges: a DGX H100's links inside the node.
  Topology dgx = builtin("dgx-h100");
  std::string inside = dot_of(collapse(dgx, device_level(dgx)));
  CHECK(contains(inside, "xlabel="));
}

TEST_CASE("render: racks, leaves and spines are drawn in name order") {
  Topology t = builtin("gb200-nvl72:racks=8");
  std::string dot = dot_of(collapse(t, *t.find_level("rack")));
  // Each tier one rank, chained by invisible edges that dot keeps (mclimit=0).
  CHECK(contains(dot, "mclimit=0"));
  for (int r = 0; r < 7; ++r)
    CHECK(contains(dot, fmt::format("\"su000/r000{}\" -- \"su000/r000{}\"\t[style=invis]", r, r + 1)));
  CHECK(contains(dot, "\"su000/leaf2\" -- \"su000/leaf3\"\t[style=invis]"));
  CHECK(contains(dot, "spine6 -- spine7\t[style=invis]"));
  CHECK(contains(dot, "rank=same"));
}

TEST_CASE("render: a tier too wide to read across runs left to right") {
  Topology wide = builtin("gb200-nvl72:racks=64");  // 64 racks in 8 SU boxes
  CHECK(contains(dot_of(collapse(wide, *wide.find_level("rack"))), "rankdir=LR"));
  Topology one = builtin("gb200-nvl72:racks=8");
  CHECK_FALSE(contains(dot_of(collapse(one, *one.find_level("rack"))), "rankdir"));
}

TEST_CASE("render: every drawn node id is unique") {
  TopologyBuilder b("dup", {"cluster", "node"});
  DomainId n = b.add_domain(b.root(), "x");
  b.set_hostname(n, "x");
  b.add_device(n, DeviceKind::gpu, "gpu0", {"H100", 80, 1.0f, DeviceState::up, {}});
  b.add_device(b.root(), DeviceKind::network_switch, "x", {});
  DiagnosticSink sink;
  Topology t = b.finish(sink);
  TopologyGraph g = collapse(t, 1);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].id == "x");
  CHECK(g.nodes[1].id == "x:2");
}

TEST_CASE("render: the automatic level fits the node budget") {
  Topology small = builtin("gb200-nvl72");
  CHECK(choose_level(small) == device_level(small));
  Topology two = builtin("gb200-nvl72:racks=2");
  CHECK(choose_level(two, 20) == *two.find_level("rack"));
  CHECK(choose_level(two, 5) == 0);

  Topology big = builtin("gb200-nvl72:racks=1820");
  CHECK(big.accelerators().size() == 131040);
  CHECK(collapsed_node_count(big, *big.find_level("rack")) > kDefaultMaxNodes);
  LevelIndex level = choose_level(big);
  CHECK(level == *big.find_level("su"));
  CHECK(collapsed_node_count(big, level) == 228 + 8);
  RenderOptions options;
  Rendering r = render(big, options);
  CHECK(r.automatic);
  CHECK(r.level_name == "su");
  CHECK(r.nodes == 236);
  CHECK(contains(r.data, "layout=neato"));  // 228 SUs in one row would make dot draw a thin strip
}

TEST_CASE("render: unknown levels and extensions are input errors with suggestions") {
  Topology t = builtin("gb200-nvl72:racks=2");
  CHECK(find_render_level(t, "device") == device_level(t));
  CHECK(find_render_level(t, "su") == 1);
  try {
    find_render_level(t, "rak");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    std::string message = e.diagnostics().front().message;
    CHECK(contains(message, "unknown level 'rak'"));
    CHECK(contains(message, "cluster, su, rack, node"));
    CHECK(contains(message, "did you mean 'rack'?"));
  }
  RenderOptions options;
  options.level = "racks";
  CHECK_THROWS_AS(render(t, options), InputError);

  CHECK(parse_render_format("png") == RenderFormat::png);
  CHECK_FALSE(parse_render_format("pdf"));
  CHECK(format_for_path("out/x.svg") == RenderFormat::svg);
  CHECK(format_for_path("x.dot") == RenderFormat::dot);
  CHECK(format_for_path("x.gv") == RenderFormat::dot);
  CHECK(format_for_path("x.png") == RenderFormat::png);
  CHECK(format_for_path("x.json") == RenderFormat::json);
  try {
    format_for_path("x.sgv");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().front().where.file == "x.sgv");
    CHECK(contains(e.diagnostics().front().message, ".svg, .png, .dot, .gv, .json"));
    CHECK(contains(e.diagnostics().front().message, "did you mean '.svg'?"));
  }
  CHECK_THROWS_AS(format_for_path("dir.d/noext"), InputError);
}

TEST_CASE("render: SVG and PNG are laid out in-process") {
  Topology t = two_racks();
  TopologyGraph g = collapse(t, *t.find_level("node"));
  std::string svg = draw_graph(g, RenderFormat::svg).data;
  CHECK((svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0));
  CHECK(contains(svg, "</svg>"));
  std::string png = draw_graph(g, RenderFormat::png).data;
  REQUIRE(png.size() > 8);
  CHECK(png.substr(1, 3) == "PNG");
}

TEST_CASE("render: JSON lists nodes and edges by id") {
  Topology t = two_racks();
  std::ostringstream out;
  write_graph_json(out, collapse(t, *t.find_level("rack")));
  std::string json = out.str();
  CHECK(contains(json, "\"level\": \"rack\""));
  CHECK(contains(json, "\"id\": \"r0\""));
  CHECK(contains(json, "\"a\": \"spine\""));
  CHECK(contains(json, "\"bandwidth\": 100"));
  CHECK(contains(json, "\"class\": \"network\""));
}

namespace {

// A Groq rack with a 16-chip chain entering node n0 at lpu1 (as the planner
// places one: through the node, out over lpu0's link to n1), a ring of 3
// in n2 and a set in n3.
std::vector<DevicePath> groq_paths(const Topology& t) {
  TopologyIndex index(t);
  auto device = [&](const std::string& name) { return *index.find_device(name); };
  DevicePath chain{"pipe", PathShape::chain, {}};
  for (int k : {1, 2, 3, 4, 5, 6, 7, 0}) chain.devices.push_back(device(fmt::format("groq-r000-n0/lpu{}", k)));
  for (int k = 0; k < 8; ++k) chain.devices.push_back(device(fmt::format("groq-r000-n1/lpu{}", k)));
  DevicePath ring{"loop", PathShape::ring, {}};
  for (int k : {0, 1, 2}) ring.devices.push_back(device(fmt::format("groq-r000-n2/lpu{}", k)));
  DevicePath set{"serve", PathShape::set, {}};
  for (int k : {4, 5}) set.devices.push_back(device(fmt::format("groq-r000-n3/lpu{}", k)));
  return {chain, ring, set};
}

}  // namespace

TEST_CASE("render: a plan's chain is drawn in pipeline order, a ring closes, a set only marks its nodes") {
  Topology t = builtin("groq");
  const std::vector<DevicePath> paths = groq_paths(t);
  TopologyGraph g = collapse(t, device_level(t), paths);
  REQUIRE(g.paths.size() == 3);
  // Every device: each chip's label says its position, and every hop is
  // drawn, in order: the chain's 15, the ring's 3 (the last closes it), no
  // hop for the set.
  CHECK(contains(node_named(g, "groq-r000-n0/lpu1")->label, "\npipe #1"));
  CHECK(contains(node_named(g, "groq-r000-n0/lpu0")->label, "\npipe #8"));
  CHECK(contains(node_named(g, "groq-r000-n1/lpu0")->label, "\npipe #9"));
  CHECK(contains(node_named(g, "groq-r000-n3/lpu4")->label, "\nserve (1)"));
  std::vector<GraphHop> chain, ring, set;
  for (const GraphHop& hop : g.hops) (hop.path == 0 ? chain : hop.path == 1 ? ring : set).push_back(hop);
  REQUIRE(chain.size() == 15);
  for (std::uint32_t k = 0; k < 15; ++k) {
    CHECK(chain[k].position == k);
    CHECK(g.nodes[chain[k].from].device == paths[0].devices[k]);
    CHECK(g.nodes[chain[k].to].device == paths[0].devices[k + 1]);
  }
  REQUIRE(ring.size() == 3);
  CHECK(g.nodes[ring[2].from].device == paths[1].devices[2]);
  CHECK(g.nodes[ring[2].to].device == paths[1].devices[0]);
  CHECK(set.empty());

  // Collapsed to nodes: the chain's chips 1-8 in n0, 9-16 in n1, and one hop
  // between them, leaving chip 8; the ring stays inside n2.
  TopologyGraph nodes = collapse(t, *t.find_level("node"), paths);
  CHECK(contains(nodes.nodes[index_of(nodes, "groq-r000-n0")].label, "\npipe #1-8"));
  CHECK(contains(nodes.nodes[index_of(nodes, "groq-r000-n1")].label, "\npipe #9-16"));
  CHECK(contains(nodes.nodes[index_of(nodes, "groq-r000-n2")].label, "\nloop #1-3"));
  CHECK(contains(nodes.nodes[index_of(nodes, "groq-r000-n3")].label, "\nserve (2)"));
  REQUIRE(nodes.hops.size() == 1);
  CHECK(nodes.hops[0].from == index_of(nodes, "groq-r000-n0"));
  CHECK(nodes.hops[0].to == index_of(nodes, "groq-r000-n1"));
  CHECK(nodes.hops[0].position == 7);
}

TEST_CASE("render: a plan's paths in DOT and JSON, deterministic") {
  Topology t = builtin("groq");
  RenderOptions options;
  options.level = "node";
  options.paths = groq_paths(t);
  const std::string dot = render(t, options).data;
  CHECK(dot == render(t, options).data);
  // The hop: an arrow in the chain's colour, labelled with its positions.
  CHECK(
      contains(dot, "\"groq-r000-n0\" -- \"groq-r000-n1\"\t[arrowsize=0.7,\n\t\tcolor=\"#d62728\",\n\t\tdir=forward,"));
  // Laid out: Graphviz takes the arrows beside the links they run over.
  options.format = RenderFormat::svg;
  CHECK(contains(render(t, options).data, "pipe #8&#45;#9"));
  options.level = "device";
  CHECK(contains(render(t, options).data, "pipe #16"));
  options.level = "node";
  CHECK(contains(dot, "xlabel=\"pipe #8-#9\""));
  CHECK(contains(dot, "pipe: chain of 16, arrows in pipeline order"));
  CHECK(contains(dot, "serve: 2 devices"));
  options.format = RenderFormat::json;
  const std::string json = render(t, options).data;
  CHECK(contains(
      json, "\"name\": \"pipe\",\n      \"shape\": \"chain\",\n      \"devices\": [\n        \"groq-r000-n0/lpu1\","));
  CHECK(contains(json, "\"nodes\": [\n        \"groq-r000-n0\",\n        \"groq-r000-n1\"\n      ]"));
  CHECK(contains(json, "\"from\": \"groq-r000-n0\",\n          \"to\": \"groq-r000-n1\",\n          \"position\": 8"));
  // Without paths the JSON is what it was.
  options.paths.clear();
  CHECK_FALSE(contains(render(t, options).data, "\"paths\""));
}
