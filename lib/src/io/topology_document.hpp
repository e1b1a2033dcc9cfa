// The native topology format read from a YAML tree already parsed, for a
// reader that parsed the file to tell what it is (a TOPO argument may be a
// Kubernetes node list too) and should not parse it again. Private to lib/.
#pragma once

#include <string>
#include <string_view>

#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/topology.hpp"
#include "yaml_tree.hpp"

namespace topoplan {

/// parse_topology_yaml() of `root`, the first document of `text` (which
/// names what the file seems to be when it is no topology).
Topology parse_topology_document(const yaml::Node& root, std::string_view text, const std::string& file,
                                 const ParameterSettings& settings = {});

}  // namespace topoplan
