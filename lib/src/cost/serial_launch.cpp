#include "topoplan/cost/serial_launch.hpp"

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
  cost.algbw_gbps *= scale;
  cost.busbw_gbps *= scale;
  return cost;
}

}  // namespace topoplan
