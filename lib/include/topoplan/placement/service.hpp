// An inference service as topoplan-jobs(5) describes it: roles (prefill,
// decode, ...) with their replicas and parallelism, slices (copies of the
// whole role set), packing per slice, an availability guarantee across
// slices, workload facts for memory and KV pricing, SLO targets and tenant
// isolation.
//
// A service is planned through the ordinary Job fields: its slices are the
// job's replicas (per_replica = every role's accelerators of one slice),
// `pack` is `required`, `pack_preferred` is `preferred`, the availability
// level is `spread` and min_slices is `min_replicas`. Inside a slice the
// accelerators are dealt to roles here (assign_roles), so every policy's
// placement reads as roles without a second placement path.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/cost/step_cost.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/placement/role_phase.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct Job;

/// One role of a service (prefill, decode, router, ...); counts are per slice.
struct ServiceRole {
  std::string name;
  std::uint32_t replicas = 1;
  std::uint32_t per_replica = 1;  // accelerators per replica (tp x pp x dp)
  Parallelism parallelism;
  std::uint32_t batch = 0;        // requests in flight per replica; 0 = the workload's
  RolePhase phase = RolePhase::other;
  bool is_prefill() const { return phase == RolePhase::prefill; }
  bool is_decode() const { return phase == RolePhase::decode; }
  std::uint32_t accelerators() const { return replicas * per_replica; }
};

/// Which domains a tenant keeps to itself: node, the NVLink domain (scale-up
/// island) or the rack level.
enum class Isolation : std::uint8_t { none, node, nvlink_domain, rack };
std::string_view isolation_name(Isolation isolation);  // "node", "nvlink-domain", "rack"

/// "Losing any `survive` domains of `level` leaves at least `min_slices`."
struct Availability {
  std::string level;
  std::uint32_t survive = 1;
  std::uint32_t min_slices = 1;
  SourceLocation where;
};

/// Workload facts for memory fit, KV transfer and the SLO view; zero means
/// not given (topoplan-jobs(5) states each default).
struct ServiceWorkload {
  double parameters = 0;           // of the whole model
  double expert_parameters = 0;    // of them, in experts (split over ep)
  double bytes_per_parameter = 2;  // weights precision: bf16 unless given
  double kv_bytes_per_token = 0;   // given, or derived (derive_kv_bytes_per_token)
  std::uint32_t layers = 0;
  std::uint32_t kv_heads = 0;      // GQA key/value heads
  std::uint32_t head_dim = 0;
  std::uint32_t kv_latent = 0;     // MLA: kv_lora_rank + rope dim, one latent per layer
  double kv_bytes_per_element = 2; // KV cache precision (bf16)
  std::uint32_t hidden = 0;        // hidden size, for TP all-reduce sizes
  double expert_bytes = 0;         // (training's key; services use experts_per_token)
  std::uint32_t experts_per_token = 0;  // MoE top-k: each token goes to this many experts
  std::uint32_t moe_layers = 0;
  std::uint32_t prompt_tokens = 0;
  std::uint32_t output_tokens = 0;
  std::uint32_t batch = 1;         // requests in flight per replica
  double tokens_in_flight = 0;     // per replica; 0 = batch x (prompt + output)
  double activation_bytes = 0;     // activation memory per GPU
  double active_parameters = 0;    // a token passes through; 0 = all (dense) or unknown (MoE)
  double prefill_efficiency = 0;   // achieved / peak FLOP/s; 0 = published default (service_latency.hpp)
  double decode_efficiency = 0;    // achieved / peak HBM bandwidth; 0 = published default
};

struct Service {
  std::uint32_t slices = 1;
  std::vector<ServiceRole> roles;  // in manifest order
  std::optional<Availability> availability;
  ServiceWorkload workload;
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  Isolation isolation = Isolation::none;
  /// KV hand-over policy (Dynamo's kvTransferPolicy): every domain of
  /// `kv_level` holding a prefill replica also holds a decode replica of
  /// the same slice; `kv_required` makes a violation a check failure.
  std::optional<std::string> kv_level;
  bool kv_required = false;
  /// Whether a prefill and a decode replica of one slice may share a node.
  /// Not on fabrics whose transfer engine refuses same-node transfers (NIXL
  /// over AWS EFA, inference.md): the KV of a prefill replica then only goes
  /// to decode replicas on other nodes, and sharing one is a check failure.
  bool kv_same_host = true;
  SourceLocation where;

  std::uint32_t slice_accelerators() const;
  /// The largest TP size that divides every role's replica size, for the
  /// planner's granule (runs kept in one node).
  std::uint32_t granule() const;
  bool disaggregated() const;  // has both a prefill and a decode role
};

/// Hands a manifest's `service` to `job` and sizes the job from it: its
/// slices are the job's replicas, a slice's accelerators a replica's, the
/// parallelism the only role's (one replica) or TP at the granule, and the
/// workload facts the job keeps beside its service's (parameters, precision,
/// layers) copied when the service knows them.
void attach_service(Job& job, std::shared_ptr<Service> service);

/// KV bytes per token of the whole model: as given, or GQA 2 x layers x
/// kv_heads x head_dim x bytes, or MLA layers x latent x bytes (one latent,
/// no x2); 0 when the workload says neither.
double derive_kv_bytes_per_token(const ServiceWorkload& w);

/// Memory one accelerator of `role` needs, in bytes: weights / (tp x pp)
/// (experts also / ep), KV for its tokens in flight (split over tp up to
/// kv_heads, the MLA latent on every TP rank, / pp) and activations.
double role_memory_bytes(const Service& service, const ServiceRole& role);

/// Of that, the weights and the KV cache one accelerator of `role` holds
/// (what a decode step reads).
double role_weight_bytes(const Service& service, const ServiceRole& role);
double role_kv_bytes(const Service& service, const ServiceRole& role);

/// The smallest TP size (a power of two, at most 64) at which `role` fits in
/// `have_gib` per accelerator; 0 when none does.
std::uint32_t tp_that_fits(const Service& service, const ServiceRole& role, double have_gib);

/// Why the job's service cannot fit any accelerator the topology has that
/// matches the job's model ("" when it can, or when memory is unknown):
/// "role 'decode' needs 96.0 GiB per GPU at tp 4; a H100 has 80: use tp 8".
std::string memory_refusal(const Topology& topology, const Job& job);

/// One replica of a role inside one slice and its accelerators, in rank order.
struct RoleReplica {
  std::uint32_t role = 0;     // index into Service::roles
  std::uint32_t replica = 0;  // within its role and slice
  std::vector<DeviceId> devices;
};

/// Deals one slice's devices to its roles: devices in topology order, the
/// roles with the largest replicas first (so that aligned TP groups stay in
/// their nodes), each replica a run of consecutive devices. Returned in
/// manifest role order. A slice of another size than the service asks gets
/// what it has: trailing replicas may be short or missing.
///
/// A disaggregated service whose KV may not stay on a node (kv_same_host
/// false) is dealt by node instead when its nodes allow it: prefill from a
/// set of whole nodes holding at least the prefill accelerators and room
/// for no decode one (the earliest such set with the fewest accelerators),
/// decode from the other nodes, other roles from what is left; in each the
/// nodes holding most of the slice first. When no set of nodes does, the
/// dealing is the plain one above.
std::vector<RoleReplica> assign_roles(const Topology& topology, const Service& service,
                                      const std::vector<DeviceId>& slice);

/// A node holding devices of both lists (the first in `a`'s order), or kNone.
DomainId shared_node(const Topology& topology, std::span<const DeviceId> a, std::span<const DeviceId> b);

/// A prefill and a decode replica of one slice on one node (the first such
/// pair in `roles`' order, prefill first), as kv_same_host false forbids.
struct SharedKvNode {
  const RoleReplica* prefill = nullptr;
  const RoleReplica* decode = nullptr;
  DomainId node = kNone;
};
std::optional<SharedKvNode> prefill_decode_shared_node(const Topology& topology, const Service& service,
                                                       const std::vector<RoleReplica>& roles);

/// The level whose domains are NVLink domains: the finest level whose every
/// domain holds whole scale-up islands (the host level when there are none).
LevelIndex nvlink_domain_level(const Topology& topology);

/// The level index of a service's isolation unit in `topology`, or nullopt
/// when the service does not isolate or the topology lacks the level;
/// `nvlink_level` is nvlink_domain_level's answer when the caller keeps it.
std::optional<LevelIndex> isolation_level(const Topology& topology, const Service& service,
                                          std::optional<LevelIndex> nvlink_level = std::nullopt);

}  // namespace topoplan
