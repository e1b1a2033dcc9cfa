// Node sizes: how many accelerators a node holds, for whole-node requests
// (`nodes: 4`, `sbatch -N 4`, a pod asking for a whole node's GPUs).
#pragma once

#include <cstdint>

#include "topoplan/model/topology.hpp"

namespace topoplan {

/// Accelerators of the most common node with any (the size whole-node
/// requests are counted in); the smaller size wins a tie; 0 without any.
std::uint32_t typical_node_accelerators(const Topology& topology);

/// Accelerators of the largest node.
std::uint32_t largest_node_accelerators(const Topology& topology);

}  // namespace topoplan
