// What users ask to place: training jobs and inference services, with the
// constraints and communication volumes the planner and cost model need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topoplan/support/error.hpp"

namespace topoplan {

enum class JobKind : std::uint8_t { training, inference };

/// How a job's ranks split: tensor, pipeline, data and expert parallelism.
/// Ranks are numbered TP-fastest: rank = tp_i + tp * (pp_i + pp * dp_i); expert
/// parallel groups run across the data-parallel dimension.
struct Parallelism {
  std::uint32_t tp = 1;
  std::uint32_t pp = 1;
  std::uint32_t dp = 1;
  std::uint32_t ep = 1;
  std::uint32_t ranks() const { return tp * pp * dp; }
};

/// Communication volume of one training step (or one inference request).
/// Defaults are generic so that placements can be compared without them;
/// topoplan-jobs(5) documents them.
struct Workload {
  double gradient_bytes = 0;          // data-parallel reduction per step; 0 = from params
  double parameters = 0;              // model parameters (count)
  double bytes_per_parameter = 2;     // gradient precision (bf16)
  double tp_bytes = 0;                // tensor-parallel all-reduce volume per step per rank
  double activation_bytes = 0;        // pipeline send/recv per micro-batch
  std::uint32_t micro_batches = 0;    // pipeline micro-batches per step; 0 = 4 x pp
  double expert_bytes = 0;            // MoE dispatch (+ combine) per step per rank
  double kv_bytes = 0;                // KV cache per request, prefill -> decode
};

/// One job of a manifest. Accelerator counts are per replica for services.
struct Job {
  std::string name;
  JobKind kind = JobKind::training;
  std::uint32_t replicas = 1;             // inference replicas (1 for training)
  std::uint32_t per_replica = 0;          // accelerators per replica
  std::uint32_t nodes = 0;                // whole nodes requested instead (0 = by accelerator)
  Parallelism parallelism;
  Workload workload;
  std::optional<std::string> required;    // level: all (of a replica) in one domain
  std::optional<std::string> preferred;   // level: as few domains as possible
  std::optional<std::string> spread;      // level: each replica in a different domain
  std::int64_t priority = 0;
  std::string tenant;                     // jobs of different tenants never share a node
  std::string accelerator_model;          // glob on the accelerator model; "" = any
  bool exclusive = false;                 // whole nodes only (implied by `nodes`)
  SourceLocation where;                   // where the job is defined

  /// Accelerators of all replicas, when known without a topology (0 for
  /// whole-node requests, which depend on the node size).
  std::uint64_t accelerators() const { return static_cast<std::uint64_t>(replicas) * per_replica; }
};

}  // namespace topoplan
