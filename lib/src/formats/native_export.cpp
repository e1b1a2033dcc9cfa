// export --to native: a topology in topoplan's own format
// (topoplan-topology(5)), the way import writes one. For a built-in or a
// file with parameters, the result is the instantiated topology (its
// parameters applied), a file to start from and edit.
#include <fmt/format.h>

#include "format_functions.hpp"
#include "topoplan/io/topology_writer.hpp"

namespace topoplan::formats {

std::string export_native(const Topology& t, const ExportOptions& options) {
  if (!options.level.empty())
    throw InputError({"--level", 0, 0}, "--level is for the Slurm formats; the native format keeps every level");
  if (options.style == "kubectl")
    throw InputError({"--style", 0, 0}, "--style kubectl is for --to kueue");
  TopologyWriteOptions write;
  std::vector<std::string> settings;
  for (const TopologyParameter& p : t.parameters()) settings.push_back(fmt::format("{}={}", p.name, p.value));
  write.comments.push_back(fmt::format("Exported by topoplan from {}{}{}{}.", t.name(), settings.empty() ? "" : " (",
                                       fmt::join(settings, ", "), settings.empty() ? "" : ")"));
  if (!settings.empty())
    write.comments.push_back("Its parameters are applied: this file describes exactly that cluster.");
  return write_topology_yaml(t, write);
}

}  // namespace topoplan::formats
