// A topology with some links taken out: what a scenario's failed links,
// NVSwitch trays, NICs and network switches leave of the fabric, for pricing
// degraded jobs with the unchanged cost model.
#pragma once

#include <span>

#include "topoplan/model/topology.hpp"

namespace topoplan {

/// A copy of `topology` without the links in `removed`, built through
/// TopologyBuilder. Every device and domain keeps its id, name, state and
/// properties, and accelerators() its order, so placements, plans and
/// masks made for `topology` hold for the copy; link ids are renumbered
/// (the remaining links keep their order).
Topology without_links(const Topology& topology, std::span<const LinkId> removed);

}  // namespace topoplan
