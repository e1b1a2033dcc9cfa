// The narrowed views that speed-aware placement (speed_aware.hpp) and
// SLO-aware placement (slo_aware.hpp) give the policy: thresholds on a
// device's speed, and on a node's slowest usable device, that leave a few
// jobs' worth of devices or nodes at the fast or the slow end. A handful of
// views however many distinct speeds a measured file holds, so the policy
// runs a bounded number of times per job.
#pragma once

#include <cstdint>
#include <vector>

#include "planner_core.hpp"

namespace topoplan {

struct SpeedViews {
  // Device thresholds that leave m x ranks usable devices at each end, for
  // m = 1, 1.25, 1.5, 2, 3, 4, 8: `slow` ascending (keep devices at or
  // below), `fast` descending (keep devices at or above). A threshold that
  // would keep every device is left out.
  std::vector<float> slow;
  std::vector<float> fast;
  // The same on a node's slowest usable device, leaving 1-4 jobs' worth of
  // nodes and twelve quantiles of them.
  std::vector<float> slow_nodes;
  std::vector<float> fast_nodes;
  /// Per node (host-level domains from first_node): its slowest usable
  /// device; +inf for a node without one.
  std::vector<float> node_min;
  DomainId first_node = 0;

  /// The slowest usable device of accelerator `a`'s node.
  float node_min_of(const Occupancy& occupancy, std::uint32_t a) const {
    return node_min[occupancy.node_of(a) - first_node];
  }
};

/// Accelerator `a`'s (an index into topology.accelerators()) speed for a
/// job of class `speeds` (nullptr: the default class).
float accelerator_speed(const Topology& topology, const SpeedClass* speeds, std::uint32_t a);

/// The thresholds for a job of `ranks` ranks on `view`'s usable devices.
SpeedViews speed_views(const PlannerCore& core, const CapacityView& view, const SpeedClass* speeds,
                       std::uint32_t ranks);

/// Whether `chosen` cuts one of the shape's TP groups across nodes: a
/// locality problem (locality_check.hpp) that no speed gain is traded for.
bool splits_granules(const PlannerCore& core, const JobShape& shape, const std::vector<std::uint32_t>& chosen);

}  // namespace topoplan
