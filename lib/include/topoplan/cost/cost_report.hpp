// `topoplan cost` output: one priced collective, or a sweep over sizes like
// nccl-tests prints it, as text or JSON. Names come from the topology; the
// numbers have fixed precision so that output is reproducible.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/ep_kernel.hpp"

namespace topoplan {

/// `scale-up`, `node egress`, `su uplinks` ...: what a tier is, in words.
std::string tier_label(const Topology& topology, const TierCost& tier);
/// The device or domain a tier's figures belong to.
std::string tier_where(const Topology& topology, const FabricProfile& fabric, const TierCost& tier);
/// `latency`, or the limiting tier and where it is.
std::string bottleneck_text(const CostModel& model, const CollectiveCost& cost);

/// An expert-parallel kernel's terms beside the cost they make up
/// (ep_collective), which `cost --ep-kernel` prints.
struct EpKernelReport {
  EpKernel kernel = EpKernel::nccl;
  EpPhase phase = EpPhase::dispatch;
  EpDispatchTerms terms;
};
/// "pplx dispatch: fixed 100.5 us + puts 430.5 us + wire 76.5 us", or for
/// DeepEP's normal kernels the links' time and the forwarding SMs'.
std::string ep_kernel_text(const EpKernelReport& kernel);
void write_cost_text(std::ostream& out, const CostModel& model, const CollectiveCost& cost,
                     const EpKernelReport* kernel = nullptr);
void write_cost_json(std::ostream& out, const CostModel& model, const CollectiveCost& cost,
                     const EpKernelReport* kernel = nullptr);

/// A sweep: every entry prices the same query at another size.
void write_sweep_text(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep);
void write_sweep_json(std::ostream& out, const CostModel& model, std::span<const CollectiveCost> sweep);

/// Where one kind of a step runs, in words: "scale-up nvls (nvls/simple), 8
/// ranks in 1 island" or "rack egress (tree/simple), 64 ranks in 8 islands,
/// 62% outside".
std::string step_part_text(const Topology& topology, const StepPart& part);
/// The tier label of a part ("latency" when latency-bound).
std::string step_part_tier(const Topology& topology, const StepPart& part);

class JsonWriter;
/// The parts of a step as a JSON array of objects (kind, seconds,
/// outside_seconds, groups, ranks, islands, collective, algorithm, protocol,
/// tier), kinds without groups left out.
void write_step_parts_json(JsonWriter& j, const Topology& topology, const StepCost& step);

/// `cost --plan --job`: a job's step by parallelism, as text or JSON.
void write_step_text(std::ostream& out, const CostModel& model, std::string_view job, const Parallelism& parallelism,
                     const StepCost& step);
void write_step_json(std::ostream& out, const CostModel& model, std::string_view job, const Parallelism& parallelism,
                     const StepCost& step);

}  // namespace topoplan
