// The list of built-in topologies, as `topoplan topology list` prints it.
#pragma once

#include <ostream>
#include <vector>

#include "topoplan/io/topology_yaml.hpp"

namespace topoplan {

/// Every built-in topology's header, sorted by name.
std::vector<TopologyInfo> describe_builtin_topologies();

void write_catalog_text(std::ostream& out, const std::vector<TopologyInfo>& topologies);
void write_catalog_json(std::ostream& out, const std::vector<TopologyInfo>& topologies);

}  // namespace topoplan
