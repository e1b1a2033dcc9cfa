// Expert-parallel dispatch and combine by the kernel library a job uses.
// NCCL's all-to-all is what the cost model prices by default; DeepEP's normal
// kernels move the same bytes through NVLink forwarding (the hierarchical
// all-to-all); pplx-kernels sends one NVSHMEM put per token and expert, so its
// time is set by how many puts each peer receives, not only by the bytes;
// DeepEP's low-latency kernels send every token straight to its experts' GPUs
// and pay one fixed cost. topoplan-cost(7), "Expert-parallel kernels", gives
// the models and their fits.
//
// Only forward declarations here: step_cost.hpp (which cost_model.hpp
// includes) names EpKernel; include cost_model.hpp to call the functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "topoplan/cost/collective.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

class CostModel;
struct CollectiveQuery;
struct CollectiveCost;

/// The library that runs a job's expert-parallel traffic.
enum class EpKernel : std::uint8_t { nccl, pplx, deepep, deepep_ll };
/// The two all-to-alls of an MoE layer: tokens to their experts and back.
enum class EpPhase : std::uint8_t { dispatch, combine };

/// "nccl", "pplx", "deepep", "deepep-ll".
std::string_view ep_kernel_name(EpKernel kernel);
/// One of ep_kernel_name's names; nullopt for any other.
std::optional<EpKernel> parse_ep_kernel(std::string_view name);
/// "nccl, pplx, deepep, deepep-ll", for messages.
std::string_view ep_kernel_names();
std::string_view ep_phase_name(EpPhase phase);  // "dispatch", "combine"
std::optional<EpPhase> parse_ep_phase(std::string_view name);
/// Whether the kernel's time depends on its message (put) size.
bool ep_kernel_uses_message(EpKernel kernel);

/// The fixed and per-message terms a kernel adds to its wire time, in microseconds.
struct EpDispatchTerms {
  double fixed_us = 0;    // launch and signalling; pplx dispatch: the token-count exchange with every remote peer
  double per_put_us = 0;  // pplx: puts each peer receives x the cost of one put
  double wire_us = 0;     // the bytes over the busiest tier of the link model, at the links' rates
  double forward_us = 0;  // DeepEP's normal kernels across islands: what a GPU receives, through its forwarding SMs
};

/// Where DeepEP's normal kernels send a token (DeepSeek-V3's node-limited
/// routing: 8 of 256 experts from the top min(4, nodes) nodes), as expected
/// counts per token: the distinct nodes it goes to (its own included, which
/// DeepEP's test counts as RDMA bytes), those of them that are remote, and the
/// distinct GPUs. Up to 4 nodes every node is chosen and the experts are a
/// uniform draw; beyond, the 4 chosen nodes each receive their best expert
/// and the other 4 experts are drawn uniformly (topoplan-cost(7)).
struct DeepEpRouting {
  double nodes = 1;
  double remote_nodes = 0;
  double gpus = 1;
  double top_k = 8;
};
DeepEpRouting deepep_routing(std::uint32_t ranks, std::uint32_t nodes);

/// The algorithm of the link model that carries the kernel's bytes on
/// `ranks`: NCCL's choice (automatic), direct sends (p2p: pplx-kernels and
/// DeepEP's low-latency kernels), or NVLink forwarding (hierarchical: DeepEP's
/// normal kernels, when the ranks span more than one scale-up island).
Algorithm ep_wire_algorithm(const CostModel& model, EpKernel kernel, std::span<const DeviceId> ranks);

/// The kernel's time from the link model's cost of its all-to-all (`wire`,
/// priced with ep_wire_algorithm, alone or under contention): NCCL's is the
/// wire cost itself, DeepEP's normal kernels its bytes cut to the nodes and
/// GPUs a token reaches, the NVLink side no faster than the forwarding SMs
/// across islands (EpDispatchTerms::forward_us); pplx-kernels and DeepEP's
/// low-latency kernels replace NCCL's time by their own terms plus the wire
/// time of the busiest tier. `message_bytes` (one token's hidden state) must
/// be above 0 where ep_kernel_uses_message.
CollectiveCost ep_kernel_cost(EpKernel kernel, EpPhase phase, const CollectiveCost& wire, std::uint64_t bytes,
                              std::uint64_t message_bytes, EpDispatchTerms* terms = nullptr);

/// Prices one dispatch or combine of `query.bytes` per rank on `query.ranks`
/// (query.op and query.algorithm are set here). Throws InputError as
/// CostModel::collective does, and for a zero message size where one is needed.
CollectiveCost ep_collective(const CostModel& model, const CollectiveQuery& query, EpKernel kernel, EpPhase phase,
                             std::uint64_t message_bytes, EpDispatchTerms* terms = nullptr);

/// ep_collective of a pplx-kernels dispatch.
CollectiveCost pplx_dispatch(const CostModel& model, const CollectiveQuery& query, std::uint64_t message_bytes,
                             EpDispatchTerms* terms = nullptr);

}  // namespace topoplan
