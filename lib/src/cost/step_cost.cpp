// CostModel::step, steps and kv_transfer: a job's communication per step from
// its parallelism, and KV-cache hand-over between inference pools.
#include "topoplan/cost/step_cost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "cost/placement_layout.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// KV transfer through a transfer engine (Mooncake + vLLM v1, hardware.md 6.1):
// 1P1D over 8 x 200G RoCE moved 20 MB in 0.54 ms and 4.50 GB in 31.65 ms. The
// line through these ends gives 0.40 ms of fixed cost and 144 GB/s, 72 % of
// the 200 GB/s of NICs; it is within 7 % of the two middle points (146 MB in
// 1.50 ms, 1.13 GB in 8.84 ms).
constexpr double kKvFixedUs = 400;
constexpr double kKvEfficiency = 0.72;

std::uint64_t whole_bytes(double bytes) {
  return static_cast<std::uint64_t>(std::max(1.0, std::ceil(bytes)));
}

void check(const StepQuery& job, std::size_t index) {
  const Parallelism& p = job.parallelism;
  std::string where = fmt::format("job {}", index + 1);
  if (p.tp == 0 || p.pp == 0 || p.dp == 0 || p.ep == 0)
    throw InputError({}, fmt::format("{}: tp, pp, dp and ep must be at least 1", where));
  if (static_cast<std::uint64_t>(p.tp) * p.pp * p.dp != job.ranks.size())
    throw InputError({}, fmt::format("{}: tp x pp x dp = {} x {} x {} = {} but it has {} ranks", where, p.tp, p.pp,
                                     p.dp, static_cast<std::uint64_t>(p.tp) * p.pp * p.dp, job.ranks.size()));
  if (p.dp % p.ep != 0)
    throw InputError({}, fmt::format("{}: ep ({}) must divide dp ({})", where, p.ep, p.dp));
  if (job.workload.micro_batches == 0) throw InputError({}, fmt::format("{}: micro_batches must be at least 1", where));
  const Workload& w = job.workload;
  if (w.gradient_bytes < 0 || w.activation_bytes < 0 || w.moe_dispatch_bytes < 0 || w.moe_combine_bytes < 0)
    throw InputError({}, fmt::format("{}: workload sizes must not be negative", where));
  if (ep_kernel_uses_message(w.ep_kernel) && w.ep_message_bytes == 0 && p.ep > 1 && w.moe_dispatch_bytes > 0)
    throw InputError({}, fmt::format("{}: the {} kernel needs the size of one message (ep_message_bytes)", where,
                                     ep_kernel_name(w.ep_kernel)));
}

// The slowest group of one kind of one job, as priced.
struct Slowest {
  double time_us = 0;
  double outside_us = 0;
  std::uint32_t groups = 0;
  StepPart part;
};

// The combine's bytes per rank, and whether they differ from the dispatch's
// (then the two are priced apart).
double combine_bytes(const Workload& w) { return w.moe_combine_bytes > 0 ? w.moe_combine_bytes : w.moe_dispatch_bytes; }
bool combine_apart(const Workload& w) { return whole_bytes(combine_bytes(w)) != whole_bytes(w.moe_dispatch_bytes); }

// Expert-parallel passes of CostModel::steps: none (another kind), both
// phases of every job (and the dispatch of jobs whose combine differs), the
// combine of those jobs.
enum class EpPass : std::uint8_t { none, dispatch, combine };

// Fills `part` of a step from the slowest group, times `repeat` (layers,
// micro-batches, directions).
void fill_part(StepPart& part, const Slowest& w, double repeat) {
  part = w.part;
  part.groups = w.groups;
  part.seconds = w.time_us * 1e-6 * repeat;
  part.outside_seconds = std::isfinite(w.outside_us) ? w.outside_us * 1e-6 * repeat : 0.0;
}

}  // namespace

std::string_view step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::tp: return "tp";
    case StepKind::pp: return "pp";
    case StepKind::dp: return "dp";
    case StepKind::ep: return "ep";
  }
  return "?";
}

StepCost CostModel::step(std::span<const DeviceId> ranks, const Parallelism& parallelism,
                         const Workload& workload) const {
  StepQuery job{ranks, parallelism, workload};
  return steps(std::span<const StepQuery>(&job, 1)).front();
}

std::vector<StepCost> CostModel::steps(std::span<const StepQuery> jobs) const {
  for (std::size_t j = 0; j < jobs.size(); ++j) check(jobs[j], j);
  std::vector<StepCost> out(jobs.size());
  Scratch::StepGroups& g = scratch_->step_groups;
  std::vector<Slowest> worst;
  // A kernel's dispatch and combine of one group, made once: a CollectiveCost
  // is large, and most groups never need them.
  CollectiveCost dispatch, combine;

  // Prices every group in `g` together; worst[j] = the slowest group of job j.
  // In the EP passes each group is an expert-parallel dispatch and its
  // combine (or one of them, when their bytes differ), by the job's kernel,
  // on the wire cost the link model gives under contention.
  auto price = [&](EpPass ep) {
    worst.assign(jobs.size(), Slowest{});
    if (g.job.empty()) return;
    g.queries.clear();
    for (std::size_t i = 0; i < g.job.size(); ++i) {
      CollectiveQuery q;
      q.ranks = std::span<const DeviceId>(g.pool).subspan(g.offset[i], g.size[i]);
      q.op = g.op[i];
      q.bytes = g.bytes[i];
      q.algorithm = g.algorithm[i];
      q.nccl_sends = ep == EpPass::none || jobs[g.job[i]].workload.ep_kernel == EpKernel::nccl;
      g.queries.push_back(q);
      ++worst[g.job[i]].groups;
    }
    price_concurrent(g.queries, [&](std::size_t i, const CollectiveCost& wire) {
      Slowest& w = worst[g.job[i]];
      const CollectiveCost* priced = &wire;
      double t = wire.reachable ? wire.time_us : kInf;
      double outside = wire.outside_us;
      if (ep != EpPass::none) {
        const Workload& wl = jobs[g.job[i]].workload;
        const bool apart = combine_apart(wl);
        if (apart) {
          // This pass's phase alone, on its own bytes: the wire's one way for
          // NCCL, else the kernel's, its message as much larger as the
          // combine's bytes are.
          if (wl.ep_kernel != EpKernel::nccl) {
            const bool back = ep == EpPass::combine;
            std::uint64_t message = wl.ep_message_bytes;
            if (back && message > 0)
              message = whole_bytes(static_cast<double>(message) * combine_bytes(wl) / wl.moe_dispatch_bytes);
            CollectiveCost& one = back ? combine : dispatch;
            one = ep_kernel_cost(wl.ep_kernel, back ? EpPhase::combine : EpPhase::dispatch, wire, g.bytes[i], message);
            priced = &one;
            t = wire.reachable ? one.time_us : kInf;
            outside = one.outside_us;
          }
        } else if (wl.ep_kernel == EpKernel::nccl) {
          // Both directions move the same bytes the same way.
          t *= 2;
          outside *= 2;
        } else {
          dispatch = ep_kernel_cost(wl.ep_kernel, EpPhase::dispatch, wire, g.bytes[i], wl.ep_message_bytes);
          combine = ep_kernel_cost(wl.ep_kernel, EpPhase::combine, wire, g.bytes[i], wl.ep_message_bytes);
          priced = combine.time_us >= dispatch.time_us ? &combine : &dispatch;
          t = wire.reachable ? dispatch.time_us + combine.time_us : kInf;
          outside = dispatch.outside_us + combine.outside_us;
        }
      }
      const CollectiveCost& c = *priced;
      if (w.part.ranks != 0 && !(t > w.time_us)) return;
      w.time_us = t;
      w.outside_us = outside;
      StepPart& part = w.part;
      part.ranks = c.ranks;
      part.islands = c.islands;
      part.op = c.op;
      part.algorithm = c.algorithm;
      part.protocol = c.protocol;
      part.reachable = c.reachable;
      part.latency_bound = c.bottleneck == kNone;
      if (!part.latency_bound) {
        const TierCost& tier = c.tiers()[c.bottleneck];
        part.tier = tier.tier;
        part.level = tier.level;
      }
    }, false);
  };
  auto rank = [](const StepQuery& q, std::uint32_t t, std::uint32_t p, std::uint32_t d) {
    const Parallelism& par = q.parallelism;
    return q.ranks[t + par.tp * (p + par.pp * d)];
  };

  // Tensor parallelism: all-reduces of the activations, per layer and micro-batch.
  g.clear();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const StepQuery& q = jobs[j];
    const Parallelism& p = q.parallelism;
    if (p.tp < 2 || q.workload.activation_bytes <= 0 || q.workload.layers == 0) continue;
    for (std::uint32_t d = 0; d < p.dp; ++d)
      for (std::uint32_t s = 0; s < p.pp; ++s) {
        g.begin(j, Collective::allreduce, whole_bytes(q.workload.activation_bytes));
        for (std::uint32_t t = 0; t < p.tp; ++t) g.add(rank(q, t, s, d));
      }
  }
  price(EpPass::none);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Workload& w = jobs[j].workload;
    const double per_layer = w.training ? 4 : 2;  // Megatron TP: 2 forward, 2 backward
    const double layers = static_cast<double>(w.layers) / jobs[j].parallelism.pp;
    fill_part(out[j].parts[0], worst[j], per_layer * layers * w.micro_batches);
    out[j].tp = out[j].parts[0].seconds;
  }

  // Pipeline parallelism: each stage sends a 1/tp slice of the activations on.
  g.clear();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const StepQuery& q = jobs[j];
    const Parallelism& p = q.parallelism;
    if (p.pp < 2 || q.workload.activation_bytes <= 0) continue;
    for (std::uint32_t d = 0; d < p.dp; ++d)
      for (std::uint32_t s = 0; s + 1 < p.pp; ++s)
        for (std::uint32_t t = 0; t < p.tp; ++t) {
          g.begin(j, Collective::sendrecv, whole_bytes(q.workload.activation_bytes / p.tp));
          g.add(rank(q, t, s, d));
          g.add(rank(q, t, s + 1, d));
        }
  }
  price(EpPass::none);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Workload& w = jobs[j].workload;
    fill_part(out[j].parts[1], worst[j], (w.training ? 2 : 1) * w.micro_batches);
    out[j].pp = out[j].parts[1].seconds;
  }

  // Data parallelism: the gradient shard of each (t, p), once per step; with
  // a sharded optimizer a reduce-scatter and an all-gather.
  for (int phase = 0; phase < 2; ++phase) {
    g.clear();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const StepQuery& q = jobs[j];
      const Parallelism& p = q.parallelism;
      const Workload& w = q.workload;
      if (p.dp < 2 || w.gradient_bytes <= 0 || !w.training) continue;
      if (phase == 1 && !w.sharded_data_parallel) continue;
      const Collective op = !w.sharded_data_parallel ? Collective::allreduce
                            : phase == 0            ? Collective::reducescatter
                                                    : Collective::allgather;
      for (std::uint32_t s = 0; s < p.pp; ++s)
        for (std::uint32_t t = 0; t < p.tp; ++t) {
          g.begin(j, op, whole_bytes(w.gradient_bytes / (static_cast<double>(p.tp) * p.pp)));
          for (std::uint32_t d = 0; d < p.dp; ++d) g.add(rank(q, t, s, d));
        }
    }
    price(EpPass::none);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (worst[j].groups == 0) continue;
      StepPart part;
      fill_part(part, worst[j], 1);
      StepPart& dp = out[j].parts[2];
      // Sharded: a reduce-scatter then an all-gather; the part describes the slower.
      const double seconds = dp.seconds + part.seconds;
      const double outside = dp.outside_seconds + part.outside_seconds;
      if (part.seconds >= dp.seconds) dp = part;
      dp.seconds = seconds;
      dp.outside_seconds = outside;
      out[j].dp = dp.seconds;
    }
  }

  // Expert parallelism: dispatch and combine all-to-alls per MoE layer.
  g.clear();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const StepQuery& q = jobs[j];
    const Parallelism& p = q.parallelism;
    const Workload& w = q.workload;
    if (p.ep < 2 || w.moe_dispatch_bytes <= 0 || w.moe_layers == 0) continue;
    for (std::uint32_t s = 0; s < p.pp; ++s)
      for (std::uint32_t t = 0; t < p.tp; ++t)
        for (std::uint32_t block = 0; block < p.dp / p.ep; ++block) {
          g.begin(j, Collective::alltoall, whole_bytes(w.moe_dispatch_bytes));
          for (std::uint32_t k = 0; k < p.ep; ++k) g.add(rank(q, t, s, block * p.ep + k));
          if (w.ep_kernel != EpKernel::nccl) {
            const std::span<const DeviceId> group(g.pool.data() + g.offset.back(), g.size.back());
            g.algorithm.back() = ep_wire_algorithm(*this, w.ep_kernel, group);
          }
        }
  }
  price(EpPass::dispatch);
  // Jobs whose combine moves other bytes than their dispatch: the combines
  // in a pass of their own (they run after the dispatches), added.
  if (std::any_of(g.job.begin(), g.job.end(), [&](std::size_t j) { return combine_apart(jobs[j].workload); })) {
    const std::vector<Slowest> dispatched = worst;
    Scratch::StepGroups all = g;
    g.clear();
    for (std::size_t i = 0; i < all.job.size(); ++i) {
      if (!combine_apart(jobs[all.job[i]].workload)) continue;
      g.begin(all.job[i], Collective::alltoall, whole_bytes(combine_bytes(jobs[all.job[i]].workload)));
      for (std::uint32_t k = 0; k < all.size[i]; ++k) g.add(all.pool[all.offset[i] + k]);
      g.algorithm.back() = all.algorithm[i];
    }
    price(EpPass::combine);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (worst[j].groups == 0) {
        worst[j] = dispatched[j];
        continue;
      }
      Slowest sum = worst[j].time_us >= dispatched[j].time_us ? worst[j] : dispatched[j];
      sum.time_us = dispatched[j].time_us + worst[j].time_us;
      sum.outside_us = dispatched[j].outside_us + worst[j].outside_us;
      sum.groups = dispatched[j].groups;
      worst[j] = sum;
    }
  }
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Workload& w = jobs[j].workload;
    // A dispatch and a combine (priced together above) forward, and in
    // training backward again (the backward of a dispatch is a combine).
    const double per_layer = w.training ? 2 : 1;
    const double layers = static_cast<double>(w.moe_layers) / jobs[j].parallelism.pp;
    fill_part(out[j].parts[3], worst[j], per_layer * layers * w.micro_batches);
    out[j].ep = out[j].parts[3].seconds;
  }
  return out;
}

KvTransferCost CostModel::kv_transfer(std::span<const DeviceId> prefill, std::span<const DeviceId> decode,
                                      std::uint64_t bytes) const {
  const Topology& t = topology();
  if (prefill.empty() || decode.empty()) throw InputError({}, "a KV transfer needs a prefill and a decode pool");
  if (bytes == 0) throw InputError({}, "a KV transfer must move at least one byte");
  std::vector<std::uint32_t> p_index, d_index;
  auto collect = [&](std::span<const DeviceId> pool, std::vector<std::uint32_t>& out) {
    for (DeviceId dev : pool) {
      if (dev >= t.device_count() || !is_accelerator(t.device(dev).kind))
        throw InputError({}, fmt::format("device {} of a KV pool is not an accelerator", dev));
      out.push_back(t.accelerator_index(dev));
    }
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end()) != out.end())
      throw InputError({}, "a KV pool lists an accelerator twice");
  };
  collect(prefill, p_index);
  collect(decode, d_index);
  for (std::uint32_t a : p_index)
    if (std::binary_search(d_index.begin(), d_index.end(), a))
      throw InputError({}, fmt::format("'{}' is in both the prefill and the decode pool",
                                       t.device_name(fabric_.accelerator(a).device)));

  KvTransferCost out;
  const double s = static_cast<double>(bytes);
  const std::uint32_t island = fabric_.accelerator(p_index.front()).island;
  bool one_island = island != kNone;
  for (std::uint32_t a : p_index) one_island = one_island && fabric_.accelerator(a).island == island;
  for (std::uint32_t a : d_index) one_island = one_island && fabric_.accelerator(a).island == island;
  double bw_us = 0;
  if (one_island) {
    // Over the scale-up fabric: each rank moves its shard at its own rate.
    out.scale_up = true;
    auto side = [&](const std::vector<std::uint32_t>& pool) {
      double slowest = kInf;
      for (std::uint32_t a : pool) {
        const AcceleratorProfile& p = fabric_.accelerator(a);
        slowest = std::min(slowest, p.switch_bw > 0 ? p.switch_bw : p.relay_bw);
      }
      return s / static_cast<double>(pool.size()) / (slowest * 1e3);
    };
    bw_us = std::max(side(p_index), side(d_index));
  } else {
    // Over the network: a transfer engine stripes over every NIC of the
    // pools' nodes (Mooncake's multi-NIC transfers), and the traffic leaves
    // each domain that holds part of one pool but not all of the other.
    auto node_nics = [&](const std::vector<std::uint32_t>& pool) {
      std::map<DomainId, double> nodes;
      for (std::uint32_t a : pool) {
        const DomainId node = fabric_.accelerator(a).node;
        if (nodes.count(node)) continue;
        const Domain& dom = t.domain(node);
        double sum = 0;
        for (std::uint32_t k = dom.accel_begin; k < dom.accel_end; ++k) sum += fabric_.accelerator(k).nic_bw;
        nodes[node] = sum;
      }
      return nodes;
    };
    const std::map<DomainId, double> p_nodes = node_nics(p_index);
    const std::map<DomainId, double> d_nodes = node_nics(d_index);
    auto total = [](const std::map<DomainId, double>& nodes) {
      double sum = 0;
      for (const auto& [node, bw] : nodes) sum += bw;
      return sum;
    };
    bw_us = std::max(s / (total(p_nodes) * 1e3), s / (total(d_nodes) * 1e3));
    for (LevelIndex level = 1; level < t.host_level(); ++level) {
      std::map<DomainId, std::array<double, 4>> load;  // prefill share, decode share, prefill NICs, decode NICs
      for (const auto& [node, bw] : p_nodes) {
        auto& l = load[t.ancestor(node, level)];
        l[2] += bw;
      }
      for (const auto& [node, bw] : d_nodes) {
        auto& l = load[t.ancestor(node, level)];
        l[3] += bw;
      }
      for (std::uint32_t a : p_index) load[t.ancestor(fabric_.accelerator(a).node, level)][0] += 1.0 / static_cast<double>(p_index.size());
      for (std::uint32_t a : d_index) load[t.ancestor(fabric_.accelerator(a).node, level)][1] += 1.0 / static_cast<double>(d_index.size());
      for (const auto& [domain, l] : load) {
        const double egress = fabric_.network_egress(domain);
        const double out_bytes = s * l[0] * (1 - l[1]);
        const double in_bytes = s * l[1] * (1 - l[0]);
        if (out_bytes > 0) bw_us = std::max(bw_us, out_bytes / (std::min(egress, l[2]) * 1e3));
        if (in_bytes > 0) bw_us = std::max(bw_us, in_bytes / (std::min(egress, l[3]) * 1e3));
      }
    }
  }
  if (!(bw_us < kInf)) {
    out.reachable = false;
    out.seconds = kInf;
    return out;
  }
  out.seconds = (kKvFixedUs + bw_us / kKvEfficiency) * 1e-6;
  out.bandwidth_gbps = s / out.seconds * 1e-9;
  return out;
}

}  // namespace topoplan
