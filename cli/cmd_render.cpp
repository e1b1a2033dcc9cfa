// topoplan render TOPO [--level LEVEL] [--plan PLAN] [-o FILE] [--format dot|svg|png|json]
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/plan_paths.hpp"
#include "topoplan/render/render.hpp"

namespace topoplan::cli {

namespace {

constexpr const char* kRenderFooter = R"(Levels:
  --level L collapses the topology at level L (see the levels in 'topoplan
  topology show TOPO'): every domain of level L becomes one node standing for
  all devices inside it, e.g. "r0000: 72 x GB200"; devices owned by coarser
  domains (leaf switches of an SU, spines) stay nodes of their own; coarser
  domains are drawn as boxes around what they hold. Links inside a node vanish,
  links between two nodes add up per link family. '--level device' draws every
  device.

  Without --level, topoplan draws every device when there are at most 400, and
  otherwise the finest level that gives at most 400 nodes (a note on stderr
  says which).

Edges:
  label: total GB/s per direction, then links x type; a label that 4 or more
  edges share is said once in the legend (and beyond 500 edges every label is
  only a tooltip); colour: green scale-up (NVLink, xGMI, C2C), blue network
  (InfiniBand, RoCE, Ethernet), grey host I/O (PCIe); width grows with the log
  of the bandwidth. The legend repeats this. Nodes of one box and tier are
  drawn in name order (r0000, r0001, ...; spine0, spine1, ...).

Plans:
  --plan PLAN draws a plan's placed jobs over the topology (a plan from
  'topoplan plan -o', or any plan 'evaluate' reads): a chain or ring job's
  chips carry their pipeline position in the node labels ("llama #1-8": its
  chips 1 to 8 are in this node), its hops between drawn nodes are arrows in
  the job's colour, in pipeline order (labelled "llama #8-#9" when nodes are
  collapsed); other jobs (groups, jobs without a shape) mark the nodes they
  use with their device count, serve (4). The legend names each job with
  its colour; JSON adds "paths" (name, shape, devices and nodes in order,
  hops).

Formats:
  DOT goes to stdout unless -o names a file, whose extension picks the format:
  .svg, .png, .dot or .gv, or .json (the collapsed graph: clusters, nodes,
  edges). --format overrides the extension. SVG and PNG are laid out
  in-process by Graphviz: dot, or neato when one tier of a graph without boxes
  holds more than 64 nodes (the DOT says layout=neato then).

Examples:
  topoplan render gb200-nvl72:racks=2 --level rack
  topoplan render gb200-nvl72:racks=64 -o cluster.svg
  topoplan render gb200-nvl72 --level node | dot -Tpdf -o rack.pdf
  topoplan plan groq:racks=2 samples/jobs-groq.yaml -o plan.yaml
  topoplan render groq:racks=2 --plan plan.yaml -o chains.svg)";

struct RenderCommandOptions {
  std::string topology;
  std::string level;
  std::string output;
  std::string format_name;  // empty: from the extension of `output`
  std::string plan;         // empty: the topology alone
};

int run_render(const RenderCommandOptions& o) {
  bool to_stdout = o.output.empty() || o.output == "-";
  if (!to_stdout) refuse_directory(o.output);
  RenderOptions options;
  options.level = o.level;
  if (!o.format_name.empty())
    options.format = *parse_render_format(o.format_name);  // CLI11 checked the name
  else if (!to_stdout)
    options.format = format_for_path(o.output);
  Topology topology = load_topology_argument(o.topology);
  if (!o.plan.empty()) options.paths = plan_paths(parse_plan_yaml(read_input(o.plan), o.plan, topology));

  Rendering rendering = render(topology, options);
  for (const std::string& warning : rendering.warnings)
    write_diagnostic(std::cerr, "warning", {{}, "graphviz: " + warning});
  if (rendering.automatic && rendering.level_name != kDeviceLevelName)
    write_diagnostic(std::cerr, "note",
                     {{},
                      fmt::format("{} devices are too many to draw one by one; drawing level '{}' ({} node{}); "
                                  "choose another with --level",
                                  topology.device_count(), rendering.level_name, rendering.nodes,
                                  rendering.nodes == 1 ? "" : "s")});

  if (to_stdout) {
    std::cout.write(rendering.data.data(), static_cast<std::streamsize>(rendering.data.size()));
    std::cout.flush();
  } else {
    write_file_atomically(o.output, rendering.data);
  }
  return kSuccess;
}

}  // namespace

Action setup_render(CLI::App& command) {
  auto o = std::make_shared<RenderCommandOptions>();
  command.add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  command.add_option("--level", o->level,
                     "level to collapse at: a level of TOPO, or 'device' for every device (default: automatic)")
      ->option_text("LEVEL");
  command.add_option("--plan", o->plan, "draw this plan's jobs (chains in pipeline order) over the topology")
      ->option_text("PLAN");
  command.add_option("-o,--output", o->output, "write to FILE instead of stdout; its extension picks the format")
      ->option_text("FILE");
  command.add_option("--format", o->format_name, "output format (default: from the -o extension, else dot)")
      ->check(CLI::IsMember({"dot", "svg", "png", "json"}))
      ->option_text("dot|svg|png|json");
  command.footer(kRenderFooter);
  return [o]() { return run_render(*o); };
}

}  // namespace topoplan::cli
