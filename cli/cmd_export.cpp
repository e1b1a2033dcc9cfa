// topoplan export TOPO --to FORMAT [-o FILE]
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "topoplan/formats/topology_export.hpp"

namespace topoplan::cli {

namespace {

constexpr const char* kExportFooter = R"(Examples:
  topoplan export dgx-h100:nodes=64 --to slurm-tree -o topology.conf
  topoplan export gb200-nvl72:racks=8 --to slurm-block
  topoplan export gb200-nvl72:racks=8 --to kueue --style kubectl | sh)";

struct ExportCommandOptions {
  std::string topology;
  std::string to;
  std::string output;
  ExportOptions options;
};

int run_export(const ExportCommandOptions& o) {
  const ExportFormat* format = find_export_format(o.to);  // CLI11 checked the name
  Topology topology = load_topology_argument(o.topology);
  std::string text = format->run(topology, o.options);
  write_output(o.output, text);
  return kSuccess;
}

}  // namespace

Action setup_export(CLI::App& command) {
  auto o = std::make_shared<ExportCommandOptions>();
  std::vector<std::string> names;
  std::string formats_help = "output format:";
  for (const ExportFormat& f : export_formats()) {
    names.emplace_back(f.name);
    formats_help += fmt::format("\n  {:<12} {}", f.name, f.summary);
  }
  command.add_option("TOPO", o->topology, "built-in name (with :key=value parameters) or topology file")->required();
  command.add_option("--to", o->to, formats_help)->required()->check(CLI::IsMember(names))->option_text("FORMAT");
  command.add_option("-o,--output", o->output, "write to FILE instead of stdout")->option_text("FILE");
  command.add_option("--level", o->options.level,
                     "level that becomes Slurm blocks or leaf switches (default: the format's choice)")
      ->option_text("LEVEL");
  command.add_option("--style", o->options.style, "kueue: yaml (objects) or kubectl (label commands)")
      ->check(CLI::IsMember({"yaml", "kubectl"}))
      ->option_text("yaml|kubectl");
  command.footer(kExportFooter);
  return [o]() { return run_export(*o); };
}

}  // namespace topoplan::cli
