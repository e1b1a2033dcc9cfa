#include "topoplan/placement/straggler_model.hpp"

#include <algorithm>

namespace topoplan {

bool has_speed_variation(const Topology& t) {
  auto accels = t.accelerators();
  if (accels.empty()) return false;
  const float first = t.device(accels.front()).speed;
  return std::any_of(accels.begin(), accels.end(), [&](DeviceId d) { return t.device(d).speed != first; });
}

double slowest_speed(const Topology& t, std::span<const DeviceId> devices) {
  double slowest = 0;
  bool any = false;
  for (DeviceId d : devices) {
    if (!is_accelerator(t.device(d).kind)) continue;
    const auto s = static_cast<double>(t.device(d).speed);
    slowest = any ? std::min(slowest, s) : s;
    any = true;
  }
  return any ? slowest : 1.0;
}

double estimated_step(double compute, double communication, double slowest) {
  if (compute <= 0) return 1.0 / slowest;
  return compute / slowest + std::max(0.0, communication);
}

double straggler_loss(double compute, double communication, double slowest) {
  return estimated_step(compute, communication, slowest) / estimated_step(compute, communication, 1.0) - 1.0;
}

JobSpeed job_speed(const Topology& t, const Job& job, const JobPlacement& p) {
  JobSpeed out;
  bool any = false;
  for (const auto& replica : p.replicas) {
    const double s = slowest_speed(t, replica);
    if (!any || s < out.slowest_speed) out.slowest_speed = s;
    any = true;
  }
  out.straggler_loss = straggler_loss(job.workload.compute_seconds, p.step_seconds, out.slowest_speed);
  return out;
}

}  // namespace topoplan
