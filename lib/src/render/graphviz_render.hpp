// The Graphviz adapter behind draw_graph: the only code that sees Graphviz
// headers (graphviz_render.cpp).
#pragma once

#include "topoplan/render/render.hpp"

namespace topoplan::detail {

/// DOT text, or SVG/PNG laid out with `dot` and rendered in-process.
Drawing draw_with_graphviz(const TopologyGraph& graph, RenderFormat format);

}  // namespace topoplan::detail
