// What a policy's run amounts to: completion and queueing times, slowdown,
// utilisation and fragmentation, from the per-job outcomes and the timeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/simulate/simulator.hpp"

namespace topoplan {

/// Mean and nearest-rank percentiles (the smallest value with at least p of
/// the values at or below it) of a sample; all zero when it is empty.
struct Distribution {
  std::size_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p95 = 0;
  double max = 0;
};
Distribution distribution(std::vector<double> values);

struct PolicyMetrics {
  std::string policy;
  std::size_t jobs = 0;
  std::size_t completed = 0;
  std::size_t never_started = 0;
  Distribution jct;       // end - submit, completed jobs
  Distribution wait;      // first start - submit, started jobs
  Distribution slowdown;  // run-time factor, completed jobs
  /// Completed jobs slowed by more than 1 % by their placement, as a share.
  double slowed_share = 0;
  /// Jobs that waited although enough accelerators were free in total.
  std::size_t blocked_by_placement = 0;
  /// Busy accelerator-seconds over accelerators x (end - first arrival).
  double utilisation = 0;
  double makespan_s = 0;  // end - first arrival
  /// Per level, coarsest first: the most free accelerators in one domain,
  /// averaged over the timeline.
  std::vector<double> mean_largest_free;
  std::uint64_t failures = 0;
  std::uint64_t restarts = 0;
  double lost_accelerator_hours = 0;
};

PolicyMetrics summarize(const PolicyRun& run);

}  // namespace topoplan
