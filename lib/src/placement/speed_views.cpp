#include "speed_views.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace topoplan {

namespace {

// Sorted and without repeats: ascending, or descending with `descending`.
void tidy(std::vector<float>& v, bool descending) {
  if (descending)
    std::sort(v.begin(), v.end(), std::greater<>());
  else
    std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

float accelerator_speed(const Topology& t, const SpeedClass* speeds, std::uint32_t a) {
  return speeds ? speeds->speed[a] : t.device(t.accelerators()[a]).speed;
}

SpeedViews speed_views(const PlannerCore& core, const CapacityView& view, const SpeedClass* speeds,
                       std::uint32_t ranks) {
  const Topology& t = core.t;
  const std::size_t accelerators = t.accelerators().size();
  SpeedViews v;
  std::vector<float> usable;  // ascending
  for (std::uint32_t a = 0; a < accelerators; ++a)
    if (view.usable(a)) usable.push_back(accelerator_speed(t, speeds, a));
  std::sort(usable.begin(), usable.end());
  for (double m : {1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0}) {
    const auto k = static_cast<std::size_t>(std::ceil(m * ranks));
    if (k == 0 || k > usable.size()) break;
    if (usable[k - 1] < usable.back()) v.slow.push_back(usable[k - 1]);
    if (usable[usable.size() - k] > usable.front()) v.fast.push_back(usable[usable.size() - k]);
  }
  tidy(v.slow, false);
  tidy(v.fast, true);

  // Devices of a TP group share a node, and measured speeds scatter over
  // nodes: a device threshold rarely leaves whole nodes, which such jobs
  // need. Host-level domains are one contiguous id range.
  v.first_node = t.domains_at(t.host_level()).first;
  v.node_min.assign(t.domains_at(t.host_level()).second - v.first_node, std::numeric_limits<float>::infinity());
  for (std::uint32_t a = 0; a < accelerators; ++a)
    if (view.usable(a)) {
      float& m = v.node_min[core.occupancy.node_of(a) - v.first_node];
      m = std::min(m, accelerator_speed(t, speeds, a));
    }
  std::vector<float> mins;  // ascending
  for (float m : v.node_min)
    if (std::isfinite(m)) mins.push_back(m);
  std::sort(mins.begin(), mins.end());
  const std::size_t per_job = (ranks + core.node_size - 1) / std::max<std::uint32_t>(1, core.node_size);
  std::vector<std::size_t> counts;
  for (std::size_t k = 1; k <= 4; ++k) counts.push_back(k * std::max<std::size_t>(1, per_job));
  constexpr std::size_t kQuantiles = 12;
  for (std::size_t q = 1; q <= kQuantiles; ++q) counts.push_back((q * mins.size() + kQuantiles - 1) / kQuantiles);
  for (std::size_t n : counts) {
    if (n == 0 || n > mins.size()) continue;
    if (mins[n - 1] < mins.back()) v.slow_nodes.push_back(mins[n - 1]);
    if (mins[mins.size() - n] > mins.front()) v.fast_nodes.push_back(mins[mins.size() - n]);
  }
  tidy(v.slow_nodes, false);
  tidy(v.fast_nodes, true);
  return v;
}

bool splits_granules(const PlannerCore& core, const JobShape& shape, const std::vector<std::uint32_t>& chosen) {
  if (shape.granule <= 1) return false;
  for (std::size_t i = 0; i + shape.granule <= chosen.size(); i += shape.granule)
    for (std::size_t k = i + 1; k < i + shape.granule; ++k)
      if (core.occupancy.node_of(chosen[k]) != core.occupancy.node_of(chosen[i])) return true;
  return false;
}

}  // namespace topoplan
