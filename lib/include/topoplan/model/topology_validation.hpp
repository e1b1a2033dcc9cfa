// Checks of a loaded topology that go beyond its structure: isolated devices,
// a fabric that falls apart, links between devices that cannot carry them,
// and accelerators with fewer scale-up links than their island peers.
#pragma once

#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

/// Every problem found, each located at the rule that defined the device or
/// link; empty when the topology is sound. Never throws for a loaded topology.
std::vector<Diagnostic> validate_topology(const Topology& topology);

}  // namespace topoplan
