// Writes a Topology in topoplan's native YAML format (topoplan-topology(5)).
// Nodes with the same contents become one block repeated under a name list,
// so an imported cluster of thousands of identical hosts stays short.
#pragma once

#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

struct TopologyWriteOptions {
  /// Comment lines written at the top (without the leading `# `), e.g. where
  /// an import came from.
  std::vector<std::string> comments;
};

/// The native YAML text of `topology`. Loading it back gives the same levels,
/// domains (names, hostnames, labels), devices (names, kinds, models, memory,
/// speed, state, labels) and links (ends, type, count, bandwidth, latency).
std::string write_topology_yaml(const Topology& topology, const TopologyWriteOptions& options = {});

}  // namespace topoplan
