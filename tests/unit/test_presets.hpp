// Built-in topologies for tests, by the argument a user would give
// ("gb200-nvl72:racks=4"); files are not read.
#pragma once

#include <optional>
#include <string>

#include "topoplan/io/topology_source.hpp"

namespace topoplan::test {

inline Topology preset(const std::string& argument) {
  return load_topology(argument, [](const std::string&) { return std::optional<std::string>(); });
}

}  // namespace topoplan::test
