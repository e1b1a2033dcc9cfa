// A placed job node by node: what a scheduler that is told nodes and counts
// per node (Slurm's --nodelist and --gpus-per-node, Kubernetes' node
// affinity) can be told about it, and what of the plan it cannot hear (the
// accelerators inside a node, the order of the ranks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

/// The job's share of one node.
struct NodeShare {
  DomainId node = kNone;
  std::uint32_t accelerators = 0;  // of the job on this node
  bool whole = false;              // every accelerator of the node
};

struct JobLayout {
  /// Every node the job uses, once, in topology order (which is the order of
  /// topoplan's Slurm exports, and so Slurm's node order).
  std::vector<NodeShare> nodes;
  /// The nodes of each replica, in topology order.
  std::vector<std::vector<DomainId>> replica_nodes;
  /// Accelerators on each node when all nodes hold the same number, else 0.
  std::uint32_t per_node = 0;
  /// Every node is the job's whole.
  bool whole_nodes = false;
  /// The accelerators' kind when they are all of one kind (gpu, lpu).
  DeviceKind kind = DeviceKind::gpu;
  bool mixed_kinds = false;
  /// Where a replica's rank order leaves the natural one (nodes in topology
  /// order, each node's accelerators in its own order, one node after the
  /// other), e.g. "rank 4 (r0000-n00/gpu0) comes after r0000-n01/gpu3";
  /// empty when every replica follows it. Launchers number ranks that way.
  std::string rank_order;
};

/// The layout of a placed job (`placement.placed`).
JobLayout layout_of(const Topology& topology, const JobPlacement& placement);

/// "3 whole nodes", "part of 1 node", "2 nodes (1 whole)": for comments.
std::string describe_nodes(const JobLayout& layout);

/// Hostnames of `nodes`, in the order given.
std::vector<std::string> hostnames(const Topology& topology, const std::vector<DomainId>& nodes);
std::vector<std::string> hostnames(const Topology& topology, const std::vector<NodeShare>& nodes);

}  // namespace topoplan
