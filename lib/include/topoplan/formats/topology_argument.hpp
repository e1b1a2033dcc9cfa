// What a TOPO argument of the commands names, whatever the file is: a
// built-in preset, a topology file in topoplan's format, a Kubernetes node
// list (`kubectl get nodes -o json|yaml`) or an Alibaba openb node list,
// the last two read through their importers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"

namespace topoplan {

struct TopologyArgumentOptions {
  /// A Kubernetes node list's levels: node label keys, coarsest first
  /// (ImportOptions::level_labels); empty: the first label scheme found.
  std::vector<std::string> level_labels;
};

/// Loads the topology `argument` names. A file is read once (it may be a
/// pipe) and its YAML parsed once: the parsed documents tell a node list from
/// a topology and are then read as what they are. The warnings are the
/// importers'. Throws InputError on anything else, with the built-ins listed
/// when nothing has the name.
ImportResult load_topology_argument(std::string_view argument, const FileReader& read,
                                    const TopologyArgumentOptions& options = {});

}  // namespace topoplan
