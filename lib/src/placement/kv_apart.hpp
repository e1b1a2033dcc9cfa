// Prefill and decode of a slice on different nodes, for a disaggregated
// service whose transfer engine refuses same-node KV hand-over
// (`kv_transfer: {same_host: false}`, NIXL over AWS EFA; inference.md). When
// the policy's placement of a whole slice is dealt (assign_roles) so that a
// node holds both phases, the slice is placed in two steps inside the
// smallest domain around that placement that allows it: the prefill
// accelerators (with the slice's granule), then the rest on other nodes of
// the same domain, so the KV goes over the shortest path off the node. The
// first domain, from the placement's own up to its required level (or the
// root), where both steps fit wins; when none does, the placement stands and
// check reports the shared node. The planner's hook (place_replica).
#pragma once

#include <vector>

#include "planner_core.hpp"

namespace topoplan {

/// Whether the planner keeps `job`'s prefill and decode apart: a
/// disaggregated service with same_host false, under the topo policy (the
/// peers do not know the switch), counted in accelerators (a whole-node
/// service takes nodes for whole slices).
bool keeps_kv_apart(const PlannerCore& core, const Job& job, const JobShape& shape);

/// `chosen` (a slice's accelerator indices in `view`) when its dealing keeps
/// prefill and decode on different nodes or no placement can; else a
/// placement whose dealing does.
std::vector<std::uint32_t> place_kv_apart(const PlannerCore& core, const CapacityView& view, const Job& job,
                                          const JobShape& shape, std::vector<std::uint32_t> chosen);

}  // namespace topoplan
