#include "slo_aware.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "speed_views.hpp"
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
  auto speed = [&](std::uint32_t a) { return accelerator_speed(t, speeds, a); };
  // Views of the slow end and of the fast end, by device and by a node's
  // slowest device (speed_views.hpp).
  const SpeedViews views = speed_views(core, view, speeds, shape.ranks);
  auto min_of = [&](std::uint32_t a) { return views.node_min_of(core.occupancy, a); };

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
    if (chosen.empty() || splits_granules(core, shape, chosen)) return;
    const Score s = score(chosen);
    if (!best_score || better(s, *best_score)) {
      best = std::move(chosen);
      best_score = s;
    }
  };
  for (float threshold : views.slow) consider([&](std::uint32_t a) { return speed(a) <= threshold; });
  for (float threshold : views.slow_nodes) consider([&](std::uint32_t a) { return min_of(a) <= threshold; });
  for (float threshold : views.fast) consider([&](std::uint32_t a) { return speed(a) >= threshold; });
  for (float threshold : views.fast_nodes) consider([&](std::uint32_t a) { return min_of(a) >= threshold; });
  return best;
}

}  // namespace topoplan
