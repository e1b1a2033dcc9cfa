#include "topoplan/placement/straggler_model.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

bool has_speed_variation(const Topology& t) {
  auto accels = t.accelerators();
  if (accels.empty()) return false;
  const float first = t.device(accels.front()).speed;
  if (std::any_of(accels.begin(), accels.end(), [&](DeviceId d) { return t.device(d).speed != first; })) return true;
  return std::any_of(t.speed_classes().begin(), t.speed_classes().end(), [](const SpeedClass& c) {
    return std::any_of(c.speed.begin(), c.speed.end(), [&](float s) { return s != c.speed.front(); });
  });
}

const SpeedClass* speed_class_of(const Topology& t, const Job& job) {
  return job.perf_class.empty() ? nullptr : t.speed_class(job.perf_class);
}

void check_perf_classes(const Topology& t, std::span<const Job> jobs, const std::string& file,
                        const std::optional<SourceLocation>& no_default) {
  std::vector<std::string> names;
  for (const SpeedClass& c : t.speed_classes()) names.push_back(c.name);
  DiagnosticSink sink;
  std::vector<std::string> classless;
  for (const Job& job : jobs) {
    if (job.perf_class.empty()) {
      classless.push_back(job.name);
    } else if (!names.empty() && !t.speed_class(job.perf_class)) {
      std::string hint = did_you_mean(job.perf_class, names);
      sink.error(job.perf_class_where.file.empty() ? job.where : job.perf_class_where,
                 fmt::format("perf_class '{}': {} has no rows of that class (classes: {}){}{}", job.perf_class, file,
                             fmt::join(names, ", "), hint.empty() ? "" : "; ", hint));
    }
  }
  if (no_default && !classless.empty())
    sink.error(*no_default, fmt::format("rows for {} workload classes ({}) and {} job{} naming none ({}{}); give {} "
                                        "'perf_class' or choose a default with --perf-class",
                                        names.size(), fmt::join(names, ", "), classless.size(),
                                        classless.size() == 1 ? "" : "s",
                                        fmt::join(classless.begin(), classless.begin() + std::min<std::ptrdiff_t>(3, std::ssize(classless)), ", "),
                                        classless.size() > 3 ? ", ..." : "", classless.size() == 1 ? "it" : "them"));
  sink.throw_if_any();
}

double slowest_speed(const Topology& t, std::span<const DeviceId> devices, const SpeedClass* workload) {
  double slowest = 0;
  bool any = false;
  for (DeviceId d : devices) {
    if (!is_accelerator(t.device(d).kind)) continue;
    const auto s = static_cast<double>(t.speed(d, workload));
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
  const SpeedClass* workload = speed_class_of(t, job);
  bool any = false;
  for (const auto& replica : p.replicas) {
    const double s = slowest_speed(t, replica, workload);
    if (!any || s < out.slowest_speed) out.slowest_speed = s;
    any = true;
  }
  out.straggler_loss = straggler_loss(job.workload.compute_seconds, p.step_seconds, out.slowest_speed);
  return out;
}

}  // namespace topoplan
