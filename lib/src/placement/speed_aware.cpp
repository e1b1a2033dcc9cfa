#include "speed_aware.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

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
  // The speed of accelerator `a` (an index into accels) for this job.
  auto speed = [&](std::uint32_t a) { return workload ? workload->speed[a] : t.device(accels[a]).speed; };
  // The usable devices' speeds, fastest first: a threshold that leaves
  // m x ranks of them for m = 1, 1.25, ..., 8 (the tighter, the more the
  // policy's topology choice gives way to speed).
  std::vector<float> usable;
  for (std::uint32_t a = 0; a < accels.size(); ++a)
    if (view.usable(a)) usable.push_back(speed(a));
  std::sort(usable.begin(), usable.end(), std::greater<>());
  std::vector<float> thresholds;
  for (double m : {1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0}) {
    const auto k = static_cast<std::size_t>(std::ceil(m * shape.ranks));
    if (k == 0 || k > usable.size()) break;
    if (usable[k - 1] > usable.back()) thresholds.push_back(usable[k - 1]);  // else it narrows nothing
  }
  std::sort(thresholds.begin(), thresholds.end(), std::greater<>());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
  // A device threshold rarely leaves whole nodes when measured speeds
  // scatter over them, which whole-node jobs need: also views of the nodes
  // whose slowest usable device is at least as fast as that of the k-th
  // fastest node, for k = 1..4 jobs' worth of nodes and twelve quantiles.
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
  std::sort(mins.begin(), mins.end(), std::greater<>());
  std::vector<float> node_thresholds;
  const std::size_t per_job = (shape.ranks + core.node_size - 1) / std::max<std::uint32_t>(1, core.node_size);
  std::vector<std::size_t> counts;
  for (std::size_t k = 1; k <= 4; ++k) counts.push_back(k * std::max<std::size_t>(1, per_job));
  constexpr std::size_t kQuantiles = 12;
  for (std::size_t q = 1; q <= kQuantiles; ++q) counts.push_back((q * mins.size() + kQuantiles - 1) / kQuantiles);
  for (std::size_t n : counts)
    if (n > 0 && n <= mins.size() && mins[n - 1] > mins.back()) node_thresholds.push_back(mins[n - 1]);
  std::sort(node_thresholds.begin(), node_thresholds.end(), std::greater<>());
  node_thresholds.erase(std::unique(node_thresholds.begin(), node_thresholds.end()), node_thresholds.end());

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

  // A candidate that cuts a TP group across nodes trades speed for a
  // locality problem (locality_check.hpp): not a trade the objective sees.
  auto splits_granules = [&](const std::vector<std::uint32_t>& chosen) {
    if (shape.granule <= 1) return false;
    for (std::size_t i = 0; i + shape.granule <= chosen.size(); i += shape.granule)
      for (std::size_t k = i + 1; k < i + shape.granule; ++k)
        if (core.occupancy.node_of(chosen[k]) != core.occupancy.node_of(chosen[i])) return true;
    return false;
  };
  std::vector<std::uint32_t> best = core.policy->place(view, request);
  std::pair<double, double> best_score = best.empty() ? std::make_pair(0.0, 0.0) : score(best);
  auto consider = [&](const std::function<bool(std::uint32_t)>& keep) {
    CapacityView fast = view;
    fast.restrict(keep);
    std::vector<std::uint32_t> chosen = core.policy->place(fast, request);
    if (chosen.empty() || splits_granules(chosen)) return;
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
  for (float threshold : thresholds) consider([&](std::uint32_t a) { return speed(a) >= threshold; });
  for (float threshold : node_thresholds)
    consider([&](std::uint32_t a) { return node_min[core.occupancy.node_of(a) - first_node] >= threshold; });
  return best;
}

}  // namespace topoplan
