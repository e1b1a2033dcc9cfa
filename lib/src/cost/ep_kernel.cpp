#include "topoplan/cost/ep_kernel.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {
namespace {

// pplx-kernels' published dispatch and combine times on DGX H100
// (perplexityai/pplx-kernels README, mirrored at magnate3/linux-riscv-dev
// nccl/plugin/pplx-kernels/README.md @65a05200; rows a19-a35 of
// bench/data/collectives-added.csv); the fits are bench/fit_ep_kernels.py's.
//
// Inside one node the puts are NVLink stores: the 1-token EP8 runs, 41.6 us
// for dispatch and 41.7 us for combine, are the kernel's fixed cost there
// (fit points a19 and a26).
constexpr double kNvlinkDispatchFixedUs = 41.6;
constexpr double kNvlinkCombineFixedUs = 41.7;
// Across nodes (IBGDA: the GPU posts its own RDMA writes), a least-squares fit
// of relative error on four points, 1 token per GPU on EP16 and EP128 and 128
// tokens per GPU on EP32 and EP128 (fit points a20, a23, a24, a25), with the
// wire term of one 50 GB/s NIC per GPU: a fixed
// 97.1 us, 0.220 us for each remote peer (the kernel exchanges token counts
// with every peer before the data, so the 1-token time grows with the peers:
// 102.7, 115.7, 121.0, 125.9 us for 8, 24, 56, 120 remote peers), and 6.33 us
// for each put a peer receives. The kernel sends one put with signal per token
// and expert (csrc/all_to_all/internode_dispatch.cu), so a rank's puts spread
// over all its peers and the 128-token time falls as peers grow (622, 428, 317,
// 308 us on 2, 4, 8, 16 nodes) while the bytes each NIC carries grow. 6.33 us
// is far above the wire time of one 7 KiB put at 50 GB/s (0.14 us) and above a
// ConnectX-7's message rate; it is of the order of one fabric round trip, as if
// the puts to one peer were completed one after another. That mechanism is not
// documented by the kernel's authors: the figure is fitted, not derived.
constexpr double kIbgdaFixedUs = 97.1;
constexpr double kIbgdaPerRemotePeerUs = 0.220;
constexpr double kIbgdaPerPutUs = 6.33;
// The combine sends each expert's output back as one put per token and
// expert, the same number of puts as the dispatch, but it reuses the
// dispatch's routing: no token counts are exchanged and its 1-token time does
// not grow with the peers (62.7, 55.4, 58.6, 63.2 us on EP16-EP128). Fitted
// the same way on 1 token per GPU on EP16 and EP128 and 128 tokens on EP16 and
// EP32 (fit points a27, a30, a31, a32), BF16 puts of 14336 B: a fixed 59.3 us
// and 6.39 us per put a peer receives, the dispatch's per-put cost within 1 %.
// The model misses the combine's rise from EP32 to EP128 at 128 tokens (481,
// 530, 594 us; checks a34 and a35 come out 19 % and 33 % low).
constexpr double kIbgdaCombineFixedUs = 59.3;
constexpr double kIbgdaCombinePerPutUs = 6.39;

// DeepEP's low-latency kernels (deepseek-ai/DeepEP docs/legacy.md, "Low-latency
// kernels with pure RDMA"; rows a36-a47): every token goes straight to the GPU
// of each of its experts (IBGDA writes across nodes, NVLink inside one), one
// queue pair per local expert, so the puts run in parallel and the time is the
// bytes over the NIC plus one fixed cost for launch and the arrival flags.
// 38.4 us, one constant for dispatch and combine, fitted on dispatch EP8,
// EP32, EP128 and combine EP16, EP64 (H800, one CX7 400G NIC per GPU); the
// seven other points are within 12 %.
constexpr double kDeepEpLowLatencyFixedUs = 38.4;

// DeepEP's normal kernels send a token once to each node that holds one of its
// experts (over RDMA, to the GPU of the same local index) and forward it there
// over NVLink once to each GPU that holds one of them (csrc/kernels/legacy/
// internode.cu; tests/legacy/test_internode.py counts the bytes that way,
// deepseek-ai/DeepEP @dd758caf). The routing is DeepSeek-V3's node-limited
// gating: 256 routed experts, 8 per token, drawn from the experts of the top 4
// groups (config.json: n_routed_experts 256, num_experts_per_tok 8,
// topk_group 4), the groups being nodes: min(4, nodes) in DeepEP's test,
// which picks them by their best expert (tests/legacy/test_internode.py:
// group scores are the per-node maxima, @dd758caf).
constexpr double kRoutedExperts = 256;
constexpr double kTopK = 8;
constexpr double kTopGroups = 4;

// Across nodes the normal kernels pair their SMs into channels, one SM of each
// pair forwarding what arrives over RDMA to the GPUs of its node over NVLink
// (dispatch: even SMs, 8 forwarder warps, one per NVLink peer; combine: odd
// SMs, which reduce what the peers send and put it on RDMA; csrc/kernels/
// legacy/internode.cu @dd758caf), on the 24 SMs DeepEP's test gives them
// (tests/legacy/test_internode.py num_sms = 24; Buffer's default is 20). Every
// byte a GPU receives passes through one of those 12 SMs, so their copy rate
// bounds the NVLink side whatever the links: on 2 nodes, where each token goes
// to both nodes and about 6.5 GPUs, H800 (8 NVLinks, 43 GB/s counted as
// DeepEP's test counts RDMA bytes, c18) and H200 (18 NVLinks, 40.89 GB/s and
// 133.78 GB/s received over NVLink, DeepEP issue 493) reach the same rate
// while the NIC carries 20-22 GB/s of its 50. The rate of one forwarding SM
// is fitted on c18 alone; from 4 nodes on a token reaches fewer GPUs of each
// node and the NIC binds first (a48, a49, a52, a53).
constexpr double kDeepEpForwarderSms = 24.0 / 2;
constexpr double kDeepEpForwardGBpsPerSm = 13.55;

// The chance that none of `pick` experts drawn without replacement from `pool`
// falls among `held` of them: C(pool - held, pick) / C(pool, pick).
double none_drawn(double pool, double held, double pick) {
  double p = 1;
  for (double i = 0; i < pick; ++i) p *= std::max(0.0, pool - held - i) / (pool - i);
  return p;
}

}  // namespace

DeepEpRouting deepep_routing(std::uint32_t ranks, std::uint32_t nodes) {
  DeepEpRouting r;
  const double n = std::max<std::uint32_t>(nodes, 1);
  const double g = std::min(kTopGroups, n);
  const double pool = g * kRoutedExperts / n;  // the chosen groups' experts
  const double per_gpu = kRoutedExperts / std::max<std::uint32_t>(ranks, 1);
  const double gpus_in_pool = pool / per_gpu;
  const double per_node = kRoutedExperts / n;
  if (n <= kTopGroups) {
    // Every node is chosen: the 8 experts are a uniform draw from all of
    // them, and a node (GPU) receives the token when one of its own is drawn.
    r.nodes = g * (1 - none_drawn(pool, per_node, kTopK));
    r.gpus = gpus_in_pool * (1 - none_drawn(pool, per_gpu, kTopK));
  } else {
    // The 4 nodes are chosen by their best expert's score, so each receives
    // that expert (all but always: it would take 8 better experts on the other
    // three); the other 4 experts are a uniform draw from the rest of the pool.
    // A GPU of a chosen node receives the token when its node's best is one of
    // its experts or one of the 4 draws is.
    const double rest = kTopK - g;
    r.nodes = g;
    r.gpus = gpus_in_pool * (1 - (1 - per_gpu / per_node) * none_drawn(pool - g, per_gpu, rest));
  }
  r.remote_nodes = r.nodes * (n - 1) / n;  // the own node is one of the chosen with chance g/n
  r.top_k = kTopK;
  return r;
}

std::string_view ep_kernel_name(EpKernel kernel) {
  switch (kernel) {
    case EpKernel::nccl:
      return "nccl";
    case EpKernel::pplx:
      return "pplx";
    case EpKernel::deepep:
      return "deepep";
    case EpKernel::deepep_ll:
      return "deepep-ll";
  }
  return "nccl";
}

std::optional<EpKernel> parse_ep_kernel(std::string_view name) {
  for (EpKernel k : {EpKernel::nccl, EpKernel::pplx, EpKernel::deepep, EpKernel::deepep_ll})
    if (name == ep_kernel_name(k)) return k;
  return std::nullopt;
}

std::string_view ep_kernel_names() { return "nccl, pplx, deepep, deepep-ll"; }

std::string_view ep_phase_name(EpPhase phase) { return phase == EpPhase::dispatch ? "dispatch" : "combine"; }

std::optional<EpPhase> parse_ep_phase(std::string_view name) {
  if (name == "dispatch") return EpPhase::dispatch;
  if (name == "combine") return EpPhase::combine;
  return std::nullopt;
}

bool ep_kernel_uses_message(EpKernel kernel) { return kernel == EpKernel::pplx; }

Algorithm ep_wire_algorithm(const CostModel& model, EpKernel kernel, std::span<const DeviceId> ranks) {
  switch (kernel) {
    case EpKernel::nccl:
      return Algorithm::automatic;
    case EpKernel::pplx:
    case EpKernel::deepep_ll:
      // Each GPU writes straight to its peer (no PXN forwarding).
      return Algorithm::p2p;
    case EpKernel::deepep: {
      // NVLink forwarding needs two islands; inside one, plain NVLink sends.
      const Topology& t = model.topology();
      const FabricProfile& f = model.fabric();
      std::uint32_t island = kNone;
      for (DeviceId d : ranks) {
        const std::uint32_t a = t.accelerator_index(d);
        if (a == kNone) return Algorithm::p2p;  // CostModel::collective reports it
        const std::uint32_t i = f.accelerator(a).island;
        if (i == kNone) return Algorithm::p2p;
        if (island == kNone) island = i;
        if (i != island) return Algorithm::hierarchical;
      }
      return Algorithm::p2p;
    }
  }
  return Algorithm::automatic;
}

CollectiveCost ep_kernel_cost(EpKernel kernel, EpPhase phase, const CollectiveCost& wire, std::uint64_t bytes,
                              std::uint64_t message_bytes, EpDispatchTerms* terms) {
  if (ep_kernel_uses_message(kernel) && message_bytes == 0)
    throw InputError({}, fmt::format("a {} {} needs a message size above 0", ep_kernel_name(kernel),
                                     ep_phase_name(phase)));
  CollectiveCost cost = wire;
  EpDispatchTerms t;
  for (const TierCost& tier : cost.tiers()) t.wire_us = std::max(t.wire_us, tier.time_us);
  if (kernel == EpKernel::deepep && cost.reachable && cost.ranks >= 2) {
    // The wire priced every top-k copy: NVLink and NIC bytes shrink to the
    // distinct GPUs and nodes each token goes to, at the same rates (the
    // wire's shares under contention). Tokens for the own GPU stay put.
    const DeepEpRouting r = deepep_routing(cost.ranks, cost.islands);
    const double per_rank = static_cast<double>(bytes);
    const double n = std::max<std::uint32_t>(cost.islands, 1);
    const double ranks = cost.ranks;
    const double old_inside = per_rank * (ranks - 1) / ranks;
    const double old_outside = per_rank * (n - 1) / n;
    const double new_inside = per_rank / r.top_k * r.gpus * (ranks - 1) / ranks;
    const double new_outside = per_rank / r.top_k * r.remote_nodes;
    // Across islands, what each GPU receives (its own tokens included) passes
    // through the forwarding SMs: the NVLink side moves no faster than they copy.
    if (cost.islands > 1)
      t.forward_us = per_rank / r.top_k * r.gpus / (kDeepEpForwarderSms * kDeepEpForwardGBpsPerSm * 1e3);
    double links_us = 0;  // the busiest tier at the links' rates
    double bound_us = 0;  // ... and with the forwarders' bound on NVLink
    double inside_us = 0;
    for (std::size_t i = 0; i < cost.tier_count; ++i) {
      TierCost& tier = cost.tier_data[i];
      const bool inside = !is_outside(tier.tier);
      const double scale = inside ? new_inside / old_inside : (old_outside > 0 ? new_outside / old_outside : 1.0);
      tier.bytes *= scale;
      tier.time_us *= scale;
      links_us = std::max(links_us, tier.time_us);
      if (tier.tier == Tier::scale_up && t.forward_us > tier.time_us) {
        tier.time_us = t.forward_us;
        tier.bandwidth = tier.bytes / (tier.time_us * 1e3);
      }
      if (tier.time_us > bound_us && cost.bottleneck != kNone) cost.bottleneck = static_cast<std::uint32_t>(i);
      bound_us = std::max(bound_us, tier.time_us);
      if (inside) inside_us = std::max(inside_us, tier.time_us);
    }
    // The bandwidth part of the wire's time (its size ramp included) shrinks
    // or grows as its busiest tier does; the latency stays.
    if (t.wire_us > 0) cost.time_us = cost.latency_us + (cost.time_us - cost.latency_us) * bound_us / t.wire_us;
    t.wire_us = links_us;
    // The kernel's transfer: the busiest tier (its forwarders' bound
    // included) at the wire's ramp; NVLS and trees do not run here.
    cost.fill_us = 0;
    cost.tiers_us = bound_us;
    cost.transfer_us = std::max(0.0, cost.time_us - cost.latency_us);
    cost.algbw_gbps = per_rank / (cost.time_us * 1e3);
    cost.busbw_gbps = cost.algbw_gbps * bus_factor(Collective::alltoall, cost.ranks);
    cost.outside_us = cost.islands > 1 ? std::max(0.0, bound_us - inside_us) : 0.0;
    // NCCL's candidates priced NCCL's kernels: they do not apply.
    cost.candidate_count = 0;
    if (terms) *terms = t;
    return cost;
  }
  if (kernel == EpKernel::nccl || kernel == EpKernel::deepep || !cost.reachable || cost.ranks < 2) {
    if (terms) *terms = t;
    return cost;
  }
  // NVSHMEM and DeepEP write over NVLink inside a scale-up island (an NVL72
  // rack's trays included) and over the NICs between islands.
  const bool across = cost.islands > 1;
  const double ranks = cost.ranks;
  const double peers = ranks - 1;
  const double islands = std::max<std::uint32_t>(cost.islands, 1);
  double inside_fixed = kDeepEpLowLatencyFixedUs;
  if (kernel == EpKernel::pplx) {
    const bool dispatch = phase == EpPhase::dispatch;
    inside_fixed = dispatch ? kNvlinkDispatchFixedUs : kNvlinkCombineFixedUs;
    if (!across) {
      t.fixed_us = inside_fixed;
    } else {
      const double puts = static_cast<double>(bytes) / static_cast<double>(message_bytes);
      const double remote_peers = ranks - ranks / islands;
      t.fixed_us = dispatch ? kIbgdaFixedUs + kIbgdaPerRemotePeerUs * remote_peers : kIbgdaCombineFixedUs;
      t.per_put_us = (dispatch ? kIbgdaPerPutUs : kIbgdaCombinePerPutUs) * puts / peers;
    }
  } else {
    t.fixed_us = kDeepEpLowLatencyFixedUs;
  }
  cost.time_us = t.fixed_us + t.per_put_us + t.wire_us;
  cost.latency_us = t.fixed_us + t.per_put_us;
  // The wire is the transfer: the busiest tier at its rate, no ramp.
  cost.fill_us = 0;
  cost.tiers_us = t.wire_us;
  cost.transfer_us = t.wire_us;
  cost.algbw_gbps = static_cast<double>(bytes) / (cost.time_us * 1e3);
  cost.busbw_gbps = cost.algbw_gbps * bus_factor(Collective::alltoall, cost.ranks);
  cost.bottleneck = t.wire_us > cost.latency_us ? cost.bottleneck : kNone;
  // What leaving the islands adds: all but the one-node fixed cost and the NVLink bytes.
  double inside_wire = 0;
  for (const TierCost& tier : cost.tiers())
    if (tier.tier == Tier::scale_up) inside_wire = std::max(inside_wire, tier.time_us);
  cost.outside_us = across ? std::max(0.0, cost.time_us - inside_fixed - inside_wire) : 0.0;
  // NCCL's candidates priced another kernel: they do not apply.
  cost.candidate_count = 0;
  if (terms) *terms = t;
  return cost;
}

CollectiveCost ep_collective(const CostModel& model, const CollectiveQuery& query, EpKernel kernel, EpPhase phase,
                             std::uint64_t message_bytes, EpDispatchTerms* terms) {
  if (ep_kernel_uses_message(kernel) && message_bytes == 0)
    throw InputError({}, fmt::format("a {} {} needs a message size above 0", ep_kernel_name(kernel),
                                     ep_phase_name(phase)));
  CollectiveQuery q = query;
  q.op = Collective::alltoall;
  q.algorithm = ep_wire_algorithm(model, kernel, q.ranks);
  q.nccl_sends = kernel == EpKernel::nccl;
  return ep_kernel_cost(kernel, phase, model.collective(q), q.bytes, message_bytes, terms);
}

CollectiveCost pplx_dispatch(const CostModel& model, const CollectiveQuery& query, std::uint64_t message_bytes,
                             EpDispatchTerms* terms) {
  return ep_collective(model, query, EpKernel::pplx, EpPhase::dispatch, message_bytes, terms);
}

}  // namespace topoplan
