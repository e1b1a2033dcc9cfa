#include "topoplan/whatif/replan.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "../placement/local_search.hpp"
#include "topoplan/model/without_links.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/planner_state.hpp"
#include "topoplan/whatif/plan_state.hpp"

namespace topoplan {

namespace {

// Where a change's moved replicas now are, from the job's placement.
void record_moves(JobChange& change, const JobPlacement& now) {
  change.moved_to.clear();
  change.accelerators_moved = 0;
  for (std::uint32_t m : change.moved) {
    change.accelerators_moved += now.replicas[m].size();
    change.moved_to.push_back(now.replicas[m]);
  }
}

// The topo policy's improvement pass after its greedy queue, as plan_jobs
// runs it (local_search.hpp): moving in queue order, the first job moved can
// take the spot a heavier one needed. Only the jobs moved whole (every
// replica moved, none stopped or waiting) may move again, on the state with
// the scenario's mask, so they never land on what is down or drained;
// everything else stays where it is and is priced with them on what the
// scenario leaves of the fabric. The changes then say where the jobs went.
void improve_moves(const Plan& plan, const std::vector<std::size_t>& impact_of, const PlanPricer& pricer, PlanState& ps,
                   std::vector<JobChange>& changes) {
  std::vector<std::size_t> queue;
  for (std::size_t j : queue_order(plan)) {
    if (impact_of[j] == kNone) continue;
    const JobChange& change = changes[impact_of[j]];
    if (change.moved.empty() || !change.stopped.empty() || !change.waiting.empty()) continue;
    if (change.moved.size() == ps.state.placement(ps.ids[j]).replicas.size()) queue.push_back(j);
  }
  if (queue.empty()) return;
  // The pass reads kNone for a job not running: one the plan left out, or
  // one the scenario stopped.
  std::vector<PlannerState::JobId> ids = ps.ids;
  for (PlannerState::JobId& id : ids)
    if (id != kNone && !ps.state.active(id)) id = kNone;
  if (improve_placements(ps.state, plan.jobs, ids, queue, pricer).moves == 0) return;
  for (std::size_t j : queue) {
    ps.ids[j] = ids[j];
    record_moves(changes[impact_of[j]], ps.state.placement(ids[j]));
  }
}

}  // namespace

ScenarioResult run_scenario(const Topology& t, const Plan& plan, const std::vector<Target>& targets,
                            const ReplanOptions& options) {
  ScenarioResult out;
  out.kind = options.kind;
  out.targets = targets;
  out.policy = replan_policy(plan, options.policy);
  const ScenarioMask mask =
      scenario_mask(t, targets, options.kind == ScenarioKind::fail ? DeviceState::down : DeviceState::drain);
  out.radius = blast_radius(t, plan, mask);

  JobPricer pricer(t);
  out.before = plan;
  price_plan(t, out.before, &pricer);

  // What the scenario leaves of the fabric prices the re-plan and the result.
  const std::vector<LinkId> gone = masked_links(mask);
  out.fabric_changed = !gone.empty();
  std::optional<Topology> left;
  std::optional<JobPricer> left_pricer;
  if (out.fabric_changed) {
    left.emplace(without_links(t, gone));
    left_pricer.emplace(*left);
  }
  const Topology& fabric = left ? *left : t;
  const JobPricer& after_pricer = left_pricer ? *left_pricer : pricer;

  PlannerOptions po;
  po.policy = out.policy;
  po.pricer = &after_pricer;
  po.cache_prices = !out.fabric_changed;  // identical racks no longer cost the same
  PlanState ps = occupy_plan(t, plan, po);
  ps.state.set_mask(mask);

  std::vector<std::size_t> impact_of(plan.jobs.size(), kNone);
  for (std::size_t i = 0; i < out.radius.jobs.size(); ++i) impact_of[out.radius.jobs[i].job] = i;
  out.changes.resize(out.radius.jobs.size());
  for (std::size_t i = 0; i < out.radius.jobs.size(); ++i) out.changes[i].job = out.radius.jobs[i].job;

  for (std::size_t j : queue_order(plan)) {
    if (impact_of[j] == kNone) continue;
    const JobImpact& impact = out.radius.jobs[impact_of[j]];
    JobChange& change = out.changes[impact_of[j]];
    std::vector<std::uint32_t> moving;
    for (const ReplicaImpact& r : impact.replicas)
      if (r.must_move()) moving.push_back(r.replica);
    if (moving.empty()) continue;
    const Job& job = plan.jobs[j];
    const bool release_first = options.kind == ScenarioKind::fail || job.kind == JobKind::training;
    std::vector<std::uint32_t> failed;
    PlannerState::PlaceResult r = ps.state.move_replicas(ps.ids[j], moving, release_first);
    if (r.id != kNone) {
      change.moved = moving;
    } else if (moving.size() > 1) {
      // Save what can be saved, one replica at a time.
      for (std::uint32_t m : moving) {
        PlannerState::PlaceResult one = ps.state.move_replicas(ps.ids[j], {m}, release_first);
        if (one.id != kNone) {
          change.moved.push_back(m);
        } else {
          failed.push_back(m);
          change.reason = one.placement.reason;
        }
      }
    } else {
      failed = moving;
      change.reason = r.placement.reason;
    }
    const bool waits = options.kind == ScenarioKind::drain && job.kind != JobKind::training;
    (waits ? change.waiting : change.stopped) = failed;
    record_moves(change, ps.state.placement(ps.ids[j]));
    // Replicas lost for good free what they still held.
    if (!change.stopped.empty()) ps.state.release_replicas(ps.ids[j], change.stopped);
  }
  if (out.policy == "topo") improve_moves(plan, impact_of, after_pricer, ps, out.changes);

  // The plan after: placements from the state, stopped replicas left out.
  out.after = plan;
  for (const JobChange& change : out.changes) {
    const std::size_t j = change.job;
    if (change.moved.empty() && change.stopped.empty()) continue;
    JobPlacement& p = out.after.placements[j];
    Job& job = out.after.jobs[j];
    if (!ps.state.active(ps.ids[j])) {
      p = JobPlacement();
      p.reason = fmt::format("stopped by the {}; {}", options.kind == ScenarioKind::fail ? "failure" : "drain",
                             change.reason);
      continue;
    }
    p.replicas = ps.state.placement(ps.ids[j]).replicas;
    p.occupied = false;
    if (job.replicas != p.replicas.size()) {
      job.replicas = static_cast<std::uint32_t>(p.replicas.size());
      job.min_replicas = std::min(job.min_replicas, job.replicas);
    }
  }
  price_plan(fabric, out.after, &after_pricer);
  count_free(t, mask, out.after);
  return out;
}

}  // namespace topoplan
