// Split sizing: when a group must span several children of a domain (a job
// larger than a rack), how many units each child takes. The first split that
// fits (whole children, largest first, the rest in the tightest) is often
// the dearest: with one NIC per accelerator, the child holding the smallest
// share has the fewest NICs and carries the cross-child traffic alone (a
// 20-node job on empty NVL72 racks: 18 + 2 nodes price at 2.5x 10 + 10).
// These are the other shapes worth pricing; the topo policy fills each and
// keeps the cheapest by the cost model (topo_policy.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/placement/capacity_view.hpp"

namespace topoplan {

/// Units one child of the split domain takes.
struct SplitShare {
  DomainId child = kNone;
  std::uint32_t units = 0;
};
using Split = std::vector<SplitShare>;

/// Balanced splits of `units` over the children of `domain` with room (each
/// child's usable count rounded down to a multiple of the alignment): over
/// the fewest children that hold it and (with `one_more`) over one more,
/// each child an equal
/// share (the smallest-capacity child first, each taking an equal part of
/// what is left), in multiples of each alignment of `alignments` (e.g. a
/// model replica's units, then one TP group's). At most 2 x alignments
/// splits, distinct, in that order; none when one child holds it all or the
/// domain is a node.
std::vector<Split> balanced_splits(const CapacityView& view, DomainId domain, std::uint32_t units,
                                   const std::vector<std::uint32_t>& alignments, bool one_more = true);

}  // namespace topoplan
