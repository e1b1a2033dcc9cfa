// `topoplan cost` output: one priced collective, or a sweep over sizes like
// nccl-tests prints it, as text or JSON. Names come from the topology; the
// numbers have fixed precision so that output is reproducible.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "topoplan/cost/cost_model.hpp"

namespace topoplan {

/// `scale-up`, `node egress`, `su uplinks` ...: what a tier is, in words.
std::string tier_label(const Topology& topology, const TierCost& tier);
/// The device or domain a tier's figures belong to.
std::string tier_where(const Topology& topology, const FabricProfile& fabric, const TierCost& tier);
/// `latency`, or the limiting tier and where it is.
std::string bottleneck_text(const CostModel& model, const CollectiveCost& cost);

void write_cost_text(std::ostream& out, const CostModel& model, const CollectiveCost& cost);
void write_cost_json(std::ostream& out, const CostModel& model, const CollectiveCost& cost);

/// A sweep: every entry prices the same query at another size.
void write_sweep_text(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep);
void write_sweep_json(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep);

}  // namespace topoplan
