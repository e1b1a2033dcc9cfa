#include "topoplan/cost/ep_kernel.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {
namespace {

// pplx-kernels' published dispatch times on DGX H100 (perplexityai/pplx-kernels
// README, mirrored at magnate3/linux-riscv-dev nccl/plugin/pplx-kernels/README.md
// @65a05200; rows a19-a25 of bench/data/collectives-added.csv).
//
// Inside one node the puts are NVLink stores: the 1-token EP8 run, 41.6 us,
// is the kernel's fixed cost there (fit point a19).
constexpr double kNvlinkFixedUs = 41.6;
// Across nodes (IBGDA: the GPU posts its own RDMA writes), a least-squares fit
// of relative error on four points, 1 token per GPU on EP16 and EP128 and 128
// tokens per GPU on EP32 and EP128 (fit points a20, a23, a24, a25), with the
// wire term of one 50 GB/s NIC per GPU (bench/fit_pplx_dispatch.py): a fixed
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

}  // namespace

std::string_view ep_kernel_name(EpKernel kernel) {
  switch (kernel) {
    case EpKernel::nccl:
      return "nccl";
    case EpKernel::pplx:
      return "pplx";
  }
  return "nccl";
}

std::optional<EpKernel> parse_ep_kernel(std::string_view name) {
  if (name == "nccl") return EpKernel::nccl;
  if (name == "pplx") return EpKernel::pplx;
  return std::nullopt;
}

CollectiveCost pplx_dispatch(const CostModel& model, const CollectiveQuery& query, std::uint64_t message_bytes,
                             EpDispatchTerms* terms) {
  if (message_bytes == 0) throw InputError({}, "a pplx-kernels dispatch needs a message size above 0");
  CollectiveQuery direct = query;
  direct.op = Collective::alltoall;
  // The kernel writes straight from each GPU to its peer (no PXN forwarding).
  direct.algorithm = Algorithm::p2p;
  CollectiveCost cost = model.collective(direct);
  if (!cost.reachable || cost.ranks < 2) return cost;

  EpDispatchTerms t;
  for (const TierCost& tier : cost.tiers()) t.wire_us = std::max(t.wire_us, tier.time_us);
  const double ranks = cost.ranks;
  const double peers = ranks - 1;
  const double nodes = std::max<std::uint32_t>(cost.nodes, 1);
  const double remote_peers = ranks - ranks / nodes;
  if (cost.nodes <= 1) {
    t.fixed_us = kNvlinkFixedUs;
  } else {
    const double puts = static_cast<double>(query.bytes) / static_cast<double>(message_bytes);
    t.fixed_us = kIbgdaFixedUs + kIbgdaPerRemotePeerUs * remote_peers;
    t.per_put_us = kIbgdaPerPutUs * puts / peers;
  }
  cost.time_us = t.fixed_us + t.per_put_us + t.wire_us;
  cost.latency_us = t.fixed_us + t.per_put_us;
  cost.algbw_gbps = static_cast<double>(query.bytes) / (cost.time_us * 1e3);
  cost.busbw_gbps = cost.algbw_gbps * bus_factor(Collective::alltoall, cost.ranks);
  cost.bottleneck = t.wire_us > cost.latency_us ? cost.bottleneck : kNone;
  // What leaving the node adds: all but the one-node fixed cost and the NVLink bytes.
  double inside_wire = 0;
  for (const TierCost& tier : cost.tiers())
    if (tier.tier == Tier::scale_up) inside_wire = std::max(inside_wire, tier.time_us);
  cost.outside_us = cost.nodes > 1 ? std::max(0.0, cost.time_us - kNvlinkFixedUs - inside_wire) : 0.0;
  // NCCL's candidates priced another kernel: they do not apply.
  cost.candidate_count = 0;
  if (terms) *terms = t;
  return cost;
}

}  // namespace topoplan
