#include "speed_aware.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "speed_views.hpp"
#include "topoplan/placement/straggler_model.hpp"

namespace topoplan {

std::vector<float> speed_levels(const Topology& t) {
  std::vector<float> speeds;
  for (DeviceId d : t.accelerators()) speeds.push_back(t.device(d).speed);
  for (const SpeedClass& c : t.speed_classes()) speeds.insert(speeds.end(), c.speed.begin(), c.speed.end());
  std::sort(speeds.begin(), speeds.end(), std::greater<>());
  speeds.erase(std::unique(speeds.begin(), speeds.end()), speeds.end());
  return speeds;
}

bool weighs_speed(const PlannerCore& core, const Job& job, const JobShape& shape) {
  return core.speed_levels.size() > 1 && job.kind == JobKind::training && shape.ranks > 1 &&
         core.options.policy == "topo";
}

std::vector<std::uint32_t> place_speed_aware(const PlannerCore& core, const CapacityView& view, const Job& job,
                                             const JobShape& shape) {
  const Topology& t = core.t;
  const PlaceRequest request = core.request_for(job, shape);
  auto accels = t.accelerators();
  const SpeedClass* workload = speed_class_of(t, job);
  // Views of ever faster devices, and of nodes whose slowest device is ever
  // faster (the tighter, the more the policy's topology choice gives way to
  // speed).
  const SpeedViews views = speed_views(core, view, workload, shape.ranks);

  // The estimated step of a candidate: (primary, secondary), smaller first.
  // With a compute time, one objective, compute at the slowest member's
  // speed + communication; without one the job is compute-bound, so the
  // slowest member decides and communication breaks ties.
  const double compute = job.workload.compute_seconds;
  auto score = [&](const std::vector<std::uint32_t>& chosen) {
    std::vector<DeviceId> devices;
    for (std::size_t i = 0; i < chosen.size() && i < shape.ranks; ++i) devices.push_back(accels[chosen[i]]);
    const double slowest = slowest_speed(t, devices, workload);
    const double comm = request.pricer ? std::max(0.0, request.pricer->step_seconds(job, devices)) : 0.0;
    return compute > 0 ? std::make_pair(estimated_step(compute, comm, slowest), 0.0)
                       : std::make_pair(estimated_step(0, 0, slowest), comm);
  };

  std::vector<std::uint32_t> best = core.policy->place(view, request);
  std::pair<double, double> best_score = best.empty() ? std::make_pair(0.0, 0.0) : score(best);
  auto consider = [&](const std::function<bool(std::uint32_t)>& keep) {
    CapacityView fast = view;
    fast.restrict(keep);
    std::vector<std::uint32_t> chosen = core.policy->place(fast, request);
    if (chosen.empty() || splits_granules(core, shape, chosen)) return;
    std::pair<double, double> s = score(chosen);
    // Better by more than rounding: equal estimates keep the policy's
    // (topology-first) choice.
    auto better = [](double a, double b) { return a < b * (1 - 1e-9); };
    if (best.empty() || better(s.first, best_score.first) ||
        (!better(best_score.first, s.first) && better(s.second, best_score.second))) {
      best = std::move(chosen);
      best_score = s;
    }
  };
  for (float threshold : views.fast)
    consider([&](std::uint32_t a) { return accelerator_speed(t, workload, a) >= threshold; });
  for (float threshold : views.fast_nodes)
    consider([&](std::uint32_t a) { return views.node_min_of(core.occupancy, a) >= threshold; });
  return best;
}

}  // namespace topoplan
