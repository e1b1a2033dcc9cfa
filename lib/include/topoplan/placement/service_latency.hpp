// The serving latency model: what one role replica of a service takes for a
// prompt (time to first token) and for an output token (time per output
// token) on the accelerators it got, compute and communication together.
//
//   prefill  = max(2 x active x tokens / (G x peak x e_prefill),
//                  pp x bytes_read / (bw x e_decode)) / speed
//   decode   = max(pp x (weights + KV) per GPU / (bw x e_decode),
//                  2 x active x batch / (G x peak x e_prefill)) / speed
//   TTFT     = prefill + its TP all-reduces and EP all-to-alls + KV hand-over
//   TPOT     = decode + its TP all-reduces and EP all-to-alls
//
// tokens = prompt_tokens: TTFT is one request's, its prompt prefilled alone
// (no queueing), while a decode step serves the replica's whole batch; bytes
// read = the weights one GPU holds; G = the replica's GPUs of
// one pipeline stage (tp x dp; stages run one after another for one
// request); peak and bw the datasheet roofs (cost/accelerator_spec.hpp) of
// its slowest part, peak at the weights' precision (FP8/FP4 paths where the
// part has them); speed the slowest member's relative speed as the job's
// performance class sees it (straggler_model.hpp), which scales compute.
// Prefill is compute-bound and decode bandwidth-bound; the max is the
// roofline, so a large decode batch becomes compute-bound too.
//
// Efficiencies (the workload may state its own, prefill_efficiency and
// decode_efficiency):
//   e_prefill = 0.76: model FLOPs utilisation of large-batch prefill measured
//     by Pope et al., "Efficiently Scaling Transformer Inference" (MLSys 2023,
//     arXiv 2211.05102; PaLM 540B on 64 TPU v4), a best case;
//   e_decode = 0.60: memory-bandwidth utilisation of batch-1 decode measured
//     by Databricks/MosaicML, "LLM Inference Performance Engineering: Best
//     Practices" (2023; Llama-2-70B on 2 x H100 with TensorRT-LLM, 60 %).
// Communication is the cost model's (service_report.hpp), the KV hand-over
// the cost model's kv_transfer to the nearest decode replica of the slice.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

class CostModel;

/// The published efficiencies the header cites (the workload's own win).
constexpr double kPrefillEfficiency = 0.76;
constexpr double kDecodeEfficiency = 0.60;

/// Parameters a token passes through: as given, or all of them for a dense
/// model; 0 (unknown) for an MoE model that does not say.
double active_parameters(const ServiceWorkload& workload);

/// The compute of one phase on `devices` (a role replica), in seconds at the
/// slowest member's `speed`; < 0 when a device's model has no datasheet row
/// or the workload lacks the figures (parameters, prompt_tokens for prefill).
double prefill_compute_seconds(const Topology& topology, const Service& service, const ServiceRole& role,
                               std::span<const DeviceId> devices, double speed);
double decode_compute_seconds(const Topology& topology, const Service& service, const ServiceRole& role,
                              std::span<const DeviceId> devices, double speed);

/// The TP all-reduces and EP all-to-alls of one forward step of a role
/// replica over `tokens` tokens (CostModel::step, inference); < 0 unknown
/// (no hidden size or layers, or devices that are not a whole replica).
/// `job` says which kernel runs the EP traffic (null: NCCL).
double role_communication_seconds(const CostModel& model, const Service& service, const ServiceRole& role,
                                  std::span<const DeviceId> devices, double tokens, const JobWorkload* job = nullptr);

/// One role replica's estimate for the target its role answers: TTFT for
/// prefill (and for the only role of an aggregated service), TPOT for decode
/// (and the only role); a replica of another role answers neither.
struct ReplicaLatency {
  std::uint32_t slice = 0;
  std::uint32_t role = 0;     // index into Service::roles
  std::uint32_t replica = 0;  // within its role and slice
  double speed = 1;           // its slowest member's
  // Seconds; < 0 unknown. The KV hand-over is 0 for an aggregated service.
  double ttft_compute = -1, ttft_comm = -1, ttft_kv = 0;
  double tpot_compute = -1, tpot_comm = -1;
  bool answers_ttft = false, answers_tpot = false;
  /// compute + communication + KV, the unknown parts left out; < 0 when
  /// every part is unknown.
  double ttft() const;
  double tpot() const;
  /// Within the service's targets (true for a target it does not answer or
  /// cannot estimate).
  bool meets(const Service& service) const;
};

/// The estimates of every role replica of one slice (assign_roles' output),
/// with `speeds` the job's class (null: the devices' own) and `model` for
/// communication (null: compute only).
std::vector<ReplicaLatency> slice_latency(const Topology& topology, const Service& service, std::uint32_t slice,
                                          const std::vector<RoleReplica>& roles, const CostModel* model,
                                          const SpeedClass* speeds, const JobWorkload* job = nullptr);

/// What a slice's placement adds to one request, in seconds: the
/// communication of its slowest first token (prefill's TP and EP traffic
/// plus the KV hand-over) and of its slowest output token (decode's). The
/// service's price in a plan's objective (price_plan), in place of pricing
/// the slice as one training job. < 0 when the workload does not say
/// enough (hidden size and layers) to price both.
double request_communication_seconds(const Topology& topology, const Service& service,
                                     const std::vector<RoleReplica>& roles, const CostModel& model,
                                     const JobWorkload* job = nullptr);

/// request_communication_seconds of each entry that is a service's slice
/// (`jobs[i]` placed on `ranks[i]`), -1 for the others and for all without
/// a model: what price_plan and the improvement pass put in place of a
/// service's step.
std::vector<double> service_request_prices(const Topology& topology, const std::vector<const Job*>& jobs,
                                           const std::vector<std::vector<DeviceId>>& ranks, const CostModel* model);

/// The worst ratio of estimate to target over the replicas and the
/// service's targets (<= 1: every target met); 0 when nothing is estimated.
double worst_slo_ratio(const Service& service, std::span<const ReplicaLatency> replicas);

}  // namespace topoplan
