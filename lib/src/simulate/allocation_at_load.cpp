#include "topoplan/simulate/allocation_at_load.hpp"

#include <cmath>
#include <vector>

#include "random.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/planner_state.hpp"
#include "trace_job.hpp"

namespace topoplan {

AllocationAtLoad allocation_at_load(const Topology& topology, const Trace& trace, std::string_view policy,
                                    const AllocationAtLoadOptions& options) {
  if (trace.jobs.empty()) throw InputError({}, "the trace has no job to draw");
  if (!(options.load > 0) || !std::isfinite(options.load)) throw InputError({}, "the load must be above 0");
  JobPricer pricer(topology);
  // explain off: a dropped job's reason is never shown, and finding it costs.
  PlannerState state(topology, {std::string(policy), &pricer, false});
  std::vector<Job> jobs;
  jobs.reserve(trace.jobs.size());
  bool any_size = false;
  for (const TraceJob& t : trace.jobs) {
    jobs.push_back(to_job(t));
    any_size = any_size || t.gpus > 0;
  }
  if (!any_size) throw InputError({}, "no job of the trace asks for an accelerator");  // the load would never be reached

  AllocationAtLoad result;
  result.policy = std::string(policy);
  result.accelerators = topology.accelerators().size();
  const double target = options.load * static_cast<double>(result.accelerators);
  Random random(options.seed);
  auto share = [&](std::uint64_t allocated) {
    return result.accelerators ? static_cast<double>(allocated) / static_cast<double>(result.accelerators) : 0.0;
  };
  bool dropped = false;
  while (static_cast<double>(result.arrived_accelerators) < target) {
    const auto pick = static_cast<std::size_t>(random.uniform() * static_cast<double>(jobs.size()));
    const Job& job = jobs[pick < jobs.size() ? pick : jobs.size() - 1];
    const std::uint64_t size = std::uint64_t{job.replicas} * job.per_replica;
    ++result.arrived_jobs;
    result.arrived_accelerators += size;
    if (state.place(job).id == kNone) {
      if (!dropped) result.first_drop_ratio = share(result.allocated_accelerators);
      dropped = true;
      continue;
    }
    ++result.placed_jobs;
    result.allocated_accelerators += size;
  }
  result.allocation_ratio = share(result.allocated_accelerators);
  if (!dropped) result.first_drop_ratio = result.allocation_ratio;
  return result;
}

}  // namespace topoplan
