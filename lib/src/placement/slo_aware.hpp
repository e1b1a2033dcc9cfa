// SLO-aware placement for inference services (the serving latency model,
// placement/service_latency.hpp): a slice may go to slower accelerators as
// long as every replica's estimated TTFT and TPOT stay within the service's
// targets, which keeps the faster ones for synchronous training; when the
// policy's own choice misses a target, a faster choice that meets it wins.
// Candidates are the policy's choice and its choices on views narrowed to
// the slowest and to the fastest devices, and to the nodes holding the
// slowest devices and to those without them (a few quantiles of the usable
// speeds each); among those that meet every target the one whose slowest
// member is slowest wins (the straggler it keeps from synchronous jobs,
// which run at their slowest member's pace), then the one taking the least
// total speed (ties: the policy's topology-first order); when none meets
// them, the one closest to its targets. The planner's hook (place_replica).
#pragma once

#include <vector>

#include "planner_core.hpp"

namespace topoplan {

/// Whether the planner weighs SLOs for `job`: a service with a TTFT or TPOT
/// target, under the topo policy, on a topology whose accelerators differ in
/// speed.
bool weighs_slo(const PlannerCore& core, const Job& job);

/// One replica (a slice) in `view` (accelerator indices, empty when none fits).
std::vector<std::uint32_t> place_slo_aware(const PlannerCore& core, const CapacityView& view, const Job& job,
                                           const JobShape& shape);

}  // namespace topoplan
