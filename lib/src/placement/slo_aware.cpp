#include "slo_aware.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "topoplan/placement/service_latency.hpp"
#include "topoplan/placement/straggler_model.hpp"

namespace topoplan {

bool weighs_slo(const PlannerCore& core, const Job& job) {
  return core.speed_levels.size() > 1 && job.service && (job.service->ttft_ms || job.service->tpot_ms) &&
         core.options.policy == "topo";
}

std::vector<std::uint32_t> place_slo_aware(const PlannerCore& core, const CapacityView& view, const Job& job,
                                           const JobShape& shape) {
  const Topology& t = core.t;
  const Service& service = *job.service;
  const PlaceRequest request = core.request_for(job, shape);
  const CostModel* model = core.options.pricer ? core.options.pricer->cost_model() : nullptr;
  auto accels = t.accelerators();
  const SpeedClass* speeds = speed_class_of(t, job);
  auto speed = [&](std::uint32_t a) { return speeds ? speeds->speed[a] : t.device(accels[a]).speed; };

  // Thresholds that leave m x ranks usable devices at the slow end and at the
  // fast end, for m = 1, 1.25, ..., 8: a handful of views however many
  // distinct speeds a measured file has.
  std::vector<float> usable;
  for (std::uint32_t a = 0; a < accels.size(); ++a)
    if (view.usable(a)) usable.push_back(speed(a));
  std::sort(usable.begin(), usable.end());
  std::vector<float> slow, fast;
  for (double m : {1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0}) {
    const auto k = static_cast<std::size_t>(std::ceil(m * shape.ranks));
    if (k == 0 || k > usable.size()) break;
    if (usable[k - 1] < usable.back()) slow.push_back(usable[k - 1]);
    if (usable[usable.size() - k] > usable.front()) fast.push_back(usable[usable.size() - k]);
  }
  std::sort(slow.begin(), slow.end());
  slow.erase(std::unique(slow.begin(), slow.end()), slow.end());
  std::sort(fast.begin(), fast.end(), std::greater<>());
  fast.erase(std::unique(fast.begin(), fast.end()), fast.end());

  // Devices of a slice's TP groups share a node, and measured speeds scatter
  // over nodes: also views of whole nodes by their slowest usable device,
  // those at or below a threshold (the nodes holding the worst stragglers)
  // and those at or above it (nodes without any), for thresholds that keep
  // one to four slices' worth of nodes and twelve quantiles of them.
  // Per node (host-level domains are one contiguous id range), its slowest
  // usable device; nodes without one stay at +inf and out of `mins`.
  const DomainId first_node = t.domains_at(t.host_level()).first;
  std::vector<float> node_min(t.domains_at(t.host_level()).second - first_node,
                              std::numeric_limits<float>::infinity());
  for (std::uint32_t a = 0; a < accels.size(); ++a)
    if (view.usable(a)) {
      float& m = node_min[core.occupancy.node_of(a) - first_node];
      m = std::min(m, speed(a));
    }
  std::vector<float> mins;
  for (float m : node_min)
    if (std::isfinite(m)) mins.push_back(m);
  std::sort(mins.begin(), mins.end());
  std::vector<float> slow_nodes, fast_nodes;
  // The first k slices' worth of nodes (k = 1..4), then the quantiles.
  std::vector<std::size_t> counts;
  const std::size_t per_slice = (shape.ranks + core.node_size - 1) / std::max<std::uint32_t>(1, core.node_size);
  for (std::size_t k = 1; k <= 4; ++k) counts.push_back(k * std::max<std::size_t>(1, per_slice));
  constexpr std::size_t kQuantiles = 12;
  for (std::size_t q = 1; q <= kQuantiles; ++q) counts.push_back((q * mins.size() + kQuantiles - 1) / kQuantiles);
  for (std::size_t n : counts) {
    if (n == 0 || n > mins.size()) continue;
    if (mins[n - 1] < mins.back()) slow_nodes.push_back(mins[n - 1]);
    if (mins[mins.size() - n] > mins.front()) fast_nodes.push_back(mins[mins.size() - n]);
  }
  std::sort(slow_nodes.begin(), slow_nodes.end());
  std::sort(fast_nodes.begin(), fast_nodes.end(), std::greater<>());
  slow_nodes.erase(std::unique(slow_nodes.begin(), slow_nodes.end()), slow_nodes.end());
  fast_nodes.erase(std::unique(fast_nodes.begin(), fast_nodes.end()), fast_nodes.end());
  auto min_of = [&](std::uint32_t a) { return node_min[core.occupancy.node_of(a) - first_node]; };

  // A candidate that cuts a TP group across nodes trades speed for a
  // locality problem: not a trade the estimate sees.
  auto splits_granules = [&](const std::vector<std::uint32_t>& chosen) {
    if (shape.granule <= 1) return false;
    for (std::size_t i = 0; i + shape.granule <= chosen.size(); i += shape.granule)
      for (std::size_t k = i + 1; k < i + shape.granule; ++k)
        if (core.occupancy.node_of(chosen[k]) != core.occupancy.node_of(chosen[i])) return true;
    return false;
  };
  struct Score {
    double ratio = 0;        // worst estimate / target; <= 1 meets every target
    double slowest = 0;      // its slowest member: the straggler it keeps from synchronous jobs
    double speed_sum = 0;    // the fast capacity it takes
  };
  auto score = [&](const std::vector<std::uint32_t>& chosen) {
    std::vector<DeviceId> devices;
    Score s;
    for (std::size_t i = 0; i < chosen.size() && i < shape.ranks; ++i) {
      devices.push_back(accels[chosen[i]]);
      s.speed_sum += static_cast<double>(speed(chosen[i]));
    }
    const std::vector<ReplicaLatency> l = slice_latency(t, service, 0, assign_roles(t, service, devices), model, speeds, &job.workload);
    s.ratio = worst_slo_ratio(service, l);
    s.slowest = slowest_speed(t, devices, speeds);
    return s;
  };
  // Better: meets its targets where the other does not; both meet: a
  // slower slowest member, then less speed taken; neither: closer to the
  // targets. Equal keeps the earlier.
  auto less = [](double x, double y) { return x < y * (1 - 1e-9); };
  auto better = [&](const Score& a, const Score& b) {
    const bool ma = a.ratio <= 1, mb = b.ratio <= 1;
    if (ma != mb) return ma;
    if (!ma) return less(a.ratio, b.ratio);
    if (less(a.slowest, b.slowest)) return true;
    return !less(b.slowest, a.slowest) && less(a.speed_sum, b.speed_sum);
  };

  std::vector<std::uint32_t> best = core.policy->place(view, request);
  std::optional<Score> best_score;
  if (!best.empty()) {
    best_score = score(best);
    // Nothing to weigh: the workload gives no estimate.
    if (best_score->ratio <= 0) return best;
  }
  auto consider = [&](auto keep) {
    CapacityView narrowed = view;
    narrowed.restrict(keep);
    std::vector<std::uint32_t> chosen = core.policy->place(narrowed, request);
    if (chosen.empty() || splits_granules(chosen)) return;
    const Score s = score(chosen);
    if (!best_score || better(s, *best_score)) {
      best = std::move(chosen);
      best_score = s;
    }
  };
  for (float threshold : slow) consider([&](std::uint32_t a) { return speed(a) <= threshold; });
  for (float threshold : slow_nodes) consider([&](std::uint32_t a) { return min_of(a) <= threshold; });
  for (float threshold : fast) consider([&](std::uint32_t a) { return speed(a) >= threshold; });
  for (float threshold : fast_nodes) consider([&](std::uint32_t a) { return min_of(a) >= threshold; });
  return best;
}

}  // namespace topoplan
