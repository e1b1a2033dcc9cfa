// topoplan topology list | show | links | validate
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "topoplan/io/topology_catalog.hpp"
#include "topoplan/model/link_table.hpp"
#include "topoplan/model/topology_summary.hpp"
#include "topoplan/model/validation_report.hpp"

namespace topoplan::cli {

namespace {

struct TopologyOptions {
  Format format = Format::text;
  std::string topology;
  std::vector<std::string> topologies;
  LinkTableOptions links;
};

int run_list(const TopologyOptions& o) {
  std::vector<TopologyInfo> all = describe_builtin_topologies();
  if (o.format == Format::json)
    write_catalog_json(std::cout, all);
  else
    write_catalog_text(std::cout, all);
  return kSuccess;
}

int run_show(const TopologyOptions& o) {
  Topology topology = load_topology_argument(o.topology);
  TopologySummary summary = summarize(topology);
  if (o.format == Format::json)
    write_summary_json(std::cout, summary);
  else
    write_summary_text(std::cout, summary);
  return kSuccess;
}

int run_links(const TopologyOptions& o) {
  Topology topology = load_topology_argument(o.topology);
  std::vector<LinkRow> rows = link_table(topology, o.links);
  if (o.format == Format::json)
    write_link_table_json(std::cout, topology, rows);
  else
    write_link_table_text(std::cout, rows);
  return kSuccess;
}

int run_validate(const TopologyOptions& o) {
  std::vector<ValidationResult> results;
  for (const std::string& argument : o.topologies) {
    try {
      results.push_back(validation_result(argument, load_topology_argument(argument)));
    } catch (const InputError& e) {
      results.push_back(load_failure(argument, e));
    }
  }
  if (o.format == Format::json)
    write_validation_json(std::cout, results);
  else
    write_validation_text(std::cout, std::cerr, results);
  return validation_status(results);
}

}  // namespace

Action setup_topology(CLI::App& command) {
  auto o = std::make_shared<TopologyOptions>();
  command.require_subcommand(1);
  command.footer(
      "TOPO is a built-in topology, optionally with parameters (gb200-nvl72:racks=4),\n"
      "or a topology file in the format of topoplan-topology(5).");

  CLI::App* list = command.add_subcommand("list", "list the built-in topologies with their parameters");
  add_format_option(*list, o->format);

  CLI::App* show = command.add_subcommand(
      "show", "summarise a topology: devices, levels and their domains, links, switch tiers, bisection");
  show->add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  add_format_option(*show, o->format);
  show->footer("Example:\n  topoplan topology show gb200-nvl72:racks=4 --format json");

  CLI::App* links = command.add_subcommand(
      "links", "list the link graph, one link a line: from, to, type, count, GB/s per direction of one link, latency");
  links->add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  links->add_option("--type", o->links.type, "only links of this type (groq-c2c, nvlink5, pcie4x16, ...)");
  links->add_flag("--accelerators", o->links.accelerators, "only links between two accelerators (GPUs, LPUs)");
  add_format_option(*links, o->format);
  links->footer(
      "Links are listed in the order the topology defines them; a link with COUNT > 1\n"
      "stands for that many parallel links between the same two devices.\n"
      "Example:\n  topoplan topology links groq --accelerators --format json");

  CLI::App* validate = command.add_subcommand(
      "validate", "check topologies; exit 0 when all are valid, 1 when one has problems, 2 when one cannot be read");
  validate->add_option("TOPO", o->topologies, "built-in names or topology files")->required();
  add_format_option(*validate, o->format);

  return [o, list, show, links, validate]() {
    if (list->parsed()) return run_list(*o);
    if (show->parsed()) return run_show(*o);
    if (links->parsed()) return run_links(*o);
    if (validate->parsed()) return run_validate(*o);
    return static_cast<int>(kInputError);
  };
}

}  // namespace topoplan::cli
