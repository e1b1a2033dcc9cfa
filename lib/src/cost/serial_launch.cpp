#include "topoplan/cost/serial_launch.hpp"

#include <algorithm>

namespace topoplan {

double serial_launch_us(Generation generation, std::uint32_t gpus_per_thread) {
  if (gpus_per_thread <= 1 || generation != Generation::cdna) return 0;
  return (gpus_per_thread - 1) * kRocmLaunchUs;
}

CollectiveCost with_added_time(CollectiveCost cost, double extra_us) {
  if (!cost.reachable || !(cost.time_us > 0) || !(extra_us > 0)) return cost;
  const double scale = cost.time_us / (cost.time_us + extra_us);
  cost.time_us += extra_us;
  cost.latency_us += extra_us;
  if (cost.one_island_us > 0) cost.one_island_us += extra_us;
  // Every candidate would pay it; NCCL's estimates, which choose, do not.
  for (std::uint32_t i = 0; i < cost.candidate_count; ++i) cost.candidate_data[i].time_us += extra_us;
  cost.algbw_gbps *= scale;
  cost.busbw_gbps *= scale;
  if (!transfer_bound(cost.time_us, cost.latency_us)) cost.bottleneck = kNone;
  return cost;
}

CollectiveCost with_serial_launches(CollectiveCost cost, std::uint32_t gpus_per_thread) {
  const double before_us = cost.time_us;
  cost = with_added_time(cost, serial_launch_us(cost.generation, gpus_per_thread));
  cost.gpus_per_thread = std::max<std::uint32_t>(gpus_per_thread, 1);
  cost.serial_launch_us += cost.time_us - before_us;
  return cost;
}

}  // namespace topoplan
