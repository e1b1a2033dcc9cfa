#include "topoplan/simulate/simulation_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace topoplan {

namespace {

double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

Distribution distribution(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = values.size();
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  d.p50 = nearest_rank(values, 0.50);
  d.p95 = nearest_rank(values, 0.95);
  d.max = values.back();
  return d;
}

PolicyMetrics summarize(const PolicyRun& run) {
  PolicyMetrics m;
  m.policy = run.policy;
  m.jobs = run.jobs.size();
  std::vector<double> jct, wait, slowdown;
  std::size_t slowed = 0;
  for (const JobOutcome& j : run.jobs) {
    if (j.start_s < 0) ++m.never_started;
    else wait.push_back(j.start_s - j.submit_s);
    if (j.end_s >= 0) {
      ++m.completed;
      jct.push_back(j.end_s - j.submit_s);
      slowdown.push_back(j.slowdown);
      if (j.slowdown > 1.01) ++slowed;
    }
    if (j.blocked_by_placement) ++m.blocked_by_placement;
    m.restarts += j.restarts;
  }
  m.jct = distribution(std::move(jct));
  m.wait = distribution(std::move(wait));
  m.slowdown = distribution(std::move(slowdown));
  m.slowed_share = m.completed ? static_cast<double>(slowed) / static_cast<double>(m.completed) : 0;
  m.makespan_s = run.end_s - run.start_s;
  const double capacity = static_cast<double>(run.accelerators) * m.makespan_s;
  m.utilisation = capacity > 0 ? run.busy_accelerator_s / capacity : 0;
  if (!run.timeline.empty()) {
    m.mean_largest_free.assign(run.timeline.front().largest_free.size(), 0.0);
    for (const TimelinePoint& p : run.timeline)
      for (std::size_t l = 0; l < p.largest_free.size() && l < m.mean_largest_free.size(); ++l)
        m.mean_largest_free[l] += p.largest_free[l] / static_cast<double>(run.timeline.size());
  }
  m.failures = run.failures;
  m.lost_accelerator_hours = run.lost_accelerator_s / 3600.0;
  return m;
}

}  // namespace topoplan
