// plan_jobs: the batch planner, a loop over PlannerState::place in queue
// order (priority, then file order), after the --occupied plan's jobs are
// accounted.
#include <algorithm>
#include <array>
#include <numeric>

#include "job_shape.hpp"
#include "local_search.hpp"
#include "planner_core.hpp"
#include "topoplan/model/node_size.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/planner_state.hpp"

namespace topoplan {

Plan plan_jobs(const Topology& topology, std::vector<Job> jobs, const PlanOptions& options) {
  // Every job the topology cannot interpret is reported, not only the first.
  {
    const std::uint32_t node_size = typical_node_accelerators(topology);
    DiagnosticSink sink(20);
    for (const Job& job : jobs) {
      try {
        resolve_job(topology, job, node_size);
      } catch (const InputError& e) {
        for (const Diagnostic& d : e.diagnostics()) sink.error(d.where, d.message);
      }
    }
    sink.throw_if_any();
  }
  PlannerState state(topology, {options.policy, options.pricer, true});
  Plan plan;
  plan.topology = options.topology_name.empty() ? topology.name() : options.topology_name;
  plan.policy = options.policy;
  plan.placements.resize(jobs.size());

  // Accelerators already in use come first.
  std::uint64_t occupied = 0;
  if (options.occupied) {
    const Plan& old = *options.occupied;
    for (std::size_t i = 0; i < old.placements.size(); ++i) {
      const JobPlacement& p = old.placements[i];
      if (!p.placed) continue;
      occupied += p.device_count();
      state.occupy(i < old.jobs.size() ? old.jobs[i] : Job{}, p);
    }
  }

  // Pods already running: their accelerators are taken, the rest is usage.
  if (options.running) {
    for (const RunningPods::OnNode& n : options.running->nodes) occupied += n.accelerators;
    state.occupy_running(*options.running);
  }

  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].priority > jobs[b].priority; });
  std::vector<PlannerState::JobId> ids(jobs.size(), kNone);
  for (std::size_t j : order) {
    PlannerState::PlaceResult r = state.place(jobs[j]);
    ids[j] = r.id;
    plan.placements[j] = std::move(r.placement);
  }
  // The topo policy optimises the plan's summed step time: a bounded local
  // search improves on the greedy queue order (local_search.hpp). The peers'
  // policies stand as their schedulers would place.
  if (options.policy == "topo" && options.pricer) {
    LocalSearchResult improved = improve_placements(state, jobs, ids, order, *options.pricer);
    if (improved.moves > 0)
      for (std::size_t j : order) {
        if (ids[j] != kNone) {
          plan.placements[j] = state.placement(ids[j]);
          continue;
        }
        // The space has changed since this job was turned away: try it
        // again, so that it is placed if it now fits and its reason tells
        // what is free now.
        PlannerState::PlaceResult r = state.place(jobs[j]);
        ids[j] = r.id;
        plan.placements[j] = std::move(r.placement);
      }
  }
  plan.jobs = std::move(jobs);

  price_plan(topology, plan, options.pricer);
  plan.summary.accelerators_occupied = occupied;
  plan.summary.accelerators_free -= std::min(plan.summary.accelerators_free, occupied);
  // Per-level free islands with the occupied devices taken too, and the
  // accelerators of running pods (counts per node: which ones is moot).
  if (options.occupied || options.running) {
    Occupancy occ(topology);
    for (const Plan* p : std::array<const Plan*, 2>{&plan, options.occupied})
      if (p)
        for (const JobPlacement& jp : p->placements)
          if (jp.placed)
            for (const auto& r : jp.replicas)
              for (DeviceId d : r)
                if (topology.accelerator_index(d) != kNone) occ.take(topology.accelerator_index(d), 0);
    if (options.running)
      for (const RunningPods::OnNode& n : options.running->nodes) take_running(topology, n, 0, occ);
    for (LevelIndex l = 0; l <= topology.host_level(); ++l) {
      auto [first, last] = topology.domains_at(l);
      LevelFree& lf = plan.summary.levels[l];
      lf.largest_free = 0;
      lf.free_domains = 0;
      for (DomainId d = first; d < last; ++d) {
        lf.largest_free = std::max(lf.largest_free, occ.free_in(d));
        lf.free_domains += occ.usable_in(d) > 0 && occ.free_in(d) == occ.usable_in(d) ? 1u : 0u;
      }
    }
  }
  return plan;
}

}  // namespace topoplan
