// The communication time of one training or inference step of a job, from its
// parallelism and workload sizes, and of a KV-cache hand-over between a
// prefill and a decode pool. CostModel::step, steps and kv_transfer compute them.
//
// Rank mapping: global rank r of a job with parallelism (tp, pp, dp) is
//     r = t + tp * (p + pp * d)      t < tp, p < pp, d < dp
// so tensor-parallel groups are runs of tp consecutive ranks, pipeline stages
// come next (stride tp) and data-parallel replicas last (stride tp * pp), as
// in Megatron-LM's default order. Expert-parallel groups are runs of ep
// consecutive data-parallel replicas of the same (t, p): ep must divide dp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "topoplan/cost/collective.hpp"
#include "topoplan/cost/ep_kernel.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

struct Parallelism {
  std::uint32_t tp = 1;  // tensor parallel
  std::uint32_t pp = 1;  // pipeline parallel
  std::uint32_t dp = 1;  // data parallel (replicas)
  std::uint32_t ep = 1;  // expert parallel, within data parallel

  std::uint32_t ranks() const { return tp * pp * dp; }
};

/// Sizes in bytes of what a step communicates. Zero switches a part off.
struct Workload {
  /// Gradient bytes of the whole model per step (parameters x gradient
  /// dtype); each data-parallel group synchronises its 1/(tp*pp) share.
  double gradient_bytes = 0;
  /// ZeRO/FSDP-style reduce-scatter + all-gather instead of an all-reduce.
  bool sharded_data_parallel = false;
  /// One micro-batch's activations at a layer boundary (batch x sequence x
  /// hidden x dtype): tensor parallelism all-reduces it, pipeline stages send
  /// a 1/tp slice of it (scatter-gather) to the next stage.
  double activation_bytes = 0;
  std::uint32_t layers = 0;        // transformer layers of the whole model
  std::uint32_t micro_batches = 1; // per step and pipeline
  /// Bytes each rank dispatches per MoE layer and micro-batch (tokens x hidden
  /// x dtype x top-k); dispatch and combine are all-to-alls over the EP group.
  double moe_dispatch_bytes = 0;
  /// Bytes each rank gets back in the combine; 0 = the dispatch's. They
  /// differ when the dispatch is quantised: DeepEP and DeepSeek-V3 dispatch
  /// in FP8 (with one scale per 128 values) and combine in BF16, so the
  /// combine moves about twice the dispatch's bytes.
  double moe_combine_bytes = 0;
  std::uint32_t moe_layers = 0;
  /// The library that runs dispatch and combine (ep_kernel.hpp), and the size
  /// of one of its dispatch messages (one token's hidden state), which
  /// pplx-kernels' time depends on; a combine message is as much larger as
  /// the combine's bytes are.
  EpKernel ep_kernel = EpKernel::nccl;
  std::uint64_t ep_message_bytes = 0;
  /// Training: forward and backward (TP 4 all-reduces per layer, PP sends both
  /// ways, MoE 4 all-to-alls per layer, DP gradient sync). Inference: forward
  /// only (TP 2 all-reduces per layer, PP one way, MoE 2, no DP).
  bool training = true;
};

/// One job of CostModel::steps.
struct StepQuery {
  std::span<const DeviceId> ranks;  // size tp * pp * dp, in rank order
  Parallelism parallelism;
  Workload workload;
};

/// The kinds of a step's communication, in StepCost::parts order.
enum class StepKind : std::uint8_t { tp, pp, dp, ep };
inline constexpr std::size_t kStepKinds = 4;
std::string_view step_kind_name(StepKind kind);  // "tp", "pp", "dp", "ep"

/// One kind of a step's communication: its time per step and where its
/// slowest group runs.
struct StepPart {
  double seconds = 0;
  /// Of `seconds`, the part spent leaving scale-up islands: the slowest
  /// group's CollectiveCost::outside_us share, times its repetitions.
  double outside_seconds = 0;
  std::uint32_t groups = 0;   // collective groups of this kind; 0 when it has none
  std::uint32_t ranks = 0;    // ranks per group
  std::uint32_t islands = 0;  // scale-up islands (or PCIe nodes) the slowest group spans
  Collective op = Collective::allreduce;
  Algorithm algorithm = Algorithm::ring;  // of the slowest group
  Protocol protocol = Protocol::simple;
  bool latency_bound = false;  // the slowest group spends more time on latency than on bandwidth
  Tier tier = Tier::scale_up;  // its limiting tier (when not latency-bound)
  LevelIndex level = kNone;    // that tier's level, for island and level tiers
  bool reachable = true;
};

/// Seconds of communication per step, by kind. Groups of one kind run at the
/// same time and share links; the time of a kind is that of its slowest group.
/// Overlap with computation is not modelled: this is exposed time if nothing
/// overlaps.
struct StepCost {
  double tp = 0;
  double pp = 0;
  double dp = 0;
  double ep = 0;
  /// tp, pp, dp, ep with where each runs (parts[i].seconds == the field).
  std::array<StepPart, kStepKinds> parts{};
  double seconds() const { return tp + pp + dp + ep; }
  const StepPart& part(StepKind kind) const { return parts[static_cast<std::size_t>(kind)]; }
  /// Of seconds(), the time spent leaving scale-up islands.
  double outside_seconds() const {
    double sum = 0;
    for (const StepPart& p : parts) sum += p.outside_seconds;
    return sum;
  }
};

/// A KV-cache hand-over from a prefill pool to a decode pool.
struct KvTransferCost {
  double seconds = 0;
  double bandwidth_gbps = 0;  // bytes / seconds
  bool scale_up = false;      // both pools in one scale-up island (NVLink path)
  bool reachable = true;
};

}  // namespace topoplan
