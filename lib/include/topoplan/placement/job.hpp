// What users ask to place: training jobs and inference services, with the
// constraints and communication volumes the planner and cost model need.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "topoplan/cost/step_cost.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct KueueWorkload;  // placement/kueue_workload.hpp
struct Service;        // placement/service.hpp

enum class JobKind : std::uint8_t { training, inference };

/// The shape a job's chips must form over direct chip-to-chip links (Groq
/// LPUs, whose compiler schedules every transfer ahead of time): a `chain`
/// of consecutive directly linked chips (a pipeline, layer by layer), a
/// `ring` (also last to first), a fully connected `group`; `none` leaves
/// the choice to the policy. placement/chain_finder.hpp finds them.
enum class ChainShape : std::uint8_t { none, chain, ring, group };

/// What a job's steps (or requests) communicate, as its manifest says. The
/// cost model's Workload is derived from it (placement/job_pricer.hpp); a zero
/// means "not given" and takes the documented default (topoplan-jobs(5)).
struct JobWorkload {
  double parameters = 0;              // model parameters (count)
  double bytes_per_parameter = 2;     // gradient precision (bf16)
  double gradient_bytes = 0;          // data-parallel reduction per step; 0 = parameters x precision
  bool sharded = false;               // ZeRO/FSDP: reduce-scatter + all-gather instead of all-reduce
  double activation_bytes = 0;        // one micro-batch's activations at a layer boundary
  std::uint32_t layers = 0;           // transformer layers
  std::uint32_t micro_batches = 0;    // per step and pipeline
  double expert_bytes = 0;            // MoE dispatch per rank, layer and micro-batch
  double expert_combine_bytes = 0;    // the combine's, when it differs (FP8 dispatch, BF16 combine); 0 = same
  std::uint32_t moe_layers = 0;       // MoE layers (default: all layers when expert_bytes is given)
  EpKernel ep_kernel = EpKernel::nccl;  // the library of its dispatch and combine (cost/ep_kernel.hpp)
  std::uint64_t ep_message_bytes = 0; // one token's hidden state, one pplx-kernels put; needed with pplx
  double compute_seconds = 0;         // compute per step at nominal device speed; 0 = compute dominates
};

/// One job of a manifest. Accelerator counts are per replica for services.
struct Job {
  std::string name;
  JobKind kind = JobKind::training;
  std::uint32_t replicas = 1;             // inference replicas (1 for training)
  std::uint32_t min_replicas = 0;         // replicas a service needs to keep its guarantee; 0 = all
  std::uint32_t per_replica = 0;          // accelerators per replica
  std::uint32_t nodes = 0;                // whole nodes requested instead (0 = by accelerator)
  Parallelism parallelism;  // cost/step_cost.hpp: tp x pp x dp ranks, ep within dp
  JobWorkload workload;
  std::optional<std::string> required;    // level: all (of a replica) in one domain
  std::optional<std::string> preferred;   // level: as few domains as possible
  std::optional<std::string> spread;      // level: each replica in a different domain
  std::optional<std::string> replicas_within;  // level: all replicas together in one domain
  std::optional<std::string> exclusive_level;  // level: each replica in one domain of its own,
                                               // which no other job uses (implies required and spread)
  std::int64_t priority = 0;
  std::string tenant;                     // jobs of different tenants never share a node
  std::string accelerator_model;          // glob on the accelerator model; "" = any
  bool exclusive = false;                 // whole nodes only (implied by `nodes`)
  ChainShape shape = ChainShape::none;    // chips in this shape over direct links
  bool deterministic = false;             // every hop of the shape at the same latency
  std::optional<std::string> spare;       // level: a whole node kept free in each such domain it uses
  std::string perf_class;                 // workload class whose --device-perf rows give its speeds; "" = the default
  SourceLocation perf_class_where;        // where perf_class is written (empty: not written)
  // Recorded from Kubernetes and Slurm manifests (topoplan-formats(5)) and
  // printed with the plan; the planner does not use them.
  std::string queue;                      // Kueue LocalQueue, Volcano queue, Slurm partition
  std::string priority_class;             // Kubernetes (Workload)PriorityClass name
  SourceLocation where;                   // where the job is defined
  // Kubernetes workloads: the pods as Kueue sees them, which `--policy
  // kueue` places pod by pod; null for other manifests (the policy then
  // derives pods from the accelerator request).
  std::shared_ptr<const KueueWorkload> kueue;
  // Inference services with roles, slices, an availability guarantee or
  // workload facts (topoplan-jobs(5)); null for everything else. The fields
  // above then hold the slices as replicas (placement/service.hpp).
  std::shared_ptr<const Service> service;
  /// Where each level constraint above is written (its value), for errors
  /// about the level; a location left empty means `where`.
  struct LevelKeys {
    SourceLocation required, preferred, spread, replicas_within, exclusive_level, spare;
  } level_where;

  /// Accelerators of all replicas, when known without a topology (0 for
  /// whole-node requests, which depend on the node size).
  std::uint64_t accelerators() const { return static_cast<std::uint64_t>(replicas) * per_replica; }
  /// Replicas that must run for the job to keep its guarantee (all of them
  /// unless min_replicas says fewer).
  std::uint32_t needed_replicas() const { return min_replicas ? min_replicas : replicas; }
};

}  // namespace topoplan
