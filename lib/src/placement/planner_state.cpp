#include "topoplan/placement/planner_state.hpp"

#include "placement_explain.hpp"
#include "planner_core.hpp"

namespace topoplan {

PlannerState::PlannerState(const Topology& topology, PlannerOptions options)
    : core_(std::make_unique<PlannerCore>(topology, std::move(options))) {}
PlannerState::~PlannerState() = default;
PlannerState::PlannerState(PlannerState&&) noexcept = default;
PlannerState& PlannerState::operator=(PlannerState&&) noexcept = default;

const Topology& PlannerState::topology() const { return core_->t; }
const Occupancy& PlannerState::occupancy() const { return core_->occupancy; }
const PlannerOptions& PlannerState::options() const { return core_->options; }

PlannerState::PlaceResult PlannerState::place(const Job& job) {
  PlannerCore& c = *core_;
  const JobShape shape = resolve_job(c.t, job, c.node_size);
  PlaceResult result;
  const auto id = static_cast<JobId>(c.jobs.size());
  if (!c.place(job, shape, id, result.placement)) {
    result.placement.replicas.clear();
    // A policy that places pods (kueue) gives its own reason.
    if (c.options.explain && result.placement.reason.empty()) explain_unplaced(c, job, shape, result.placement);
    return result;
  }
  PlannerCore::Entry entry{job, result.placement, {}, c.tenant_id(job.tenant), true};
  // Domains an exclusive_level job keeps are topoplan's rule, which a policy
  // that places pods as Kueue does not know: it neither keeps them nor
  // avoids them, and check_placement reports what that breaks.
  if (shape.exclusive && result.placement.pods.empty())
    entry.kept = c.keep(id, entry.tenant, *shape.exclusive, result.placement.replicas);
  c.jobs.push_back(std::move(entry));
  result.id = id;
  return result;
}

PlannerState::JobId PlannerState::occupy(const Job& job, const JobPlacement& placement) {
  PlannerCore& c = *core_;
  const auto id = static_cast<JobId>(c.jobs.size());
  PlannerCore::Entry entry{job, placement, {}, c.tenant_id(job.tenant), true};
  entry.placement.placed = true;
  entry.placement.occupied = true;
  std::vector<std::uint32_t> changed;
  for (const auto& replica : placement.replicas)
    for (DeviceId d : replica) {
      std::uint32_t a = c.t.accelerator_index(d);
      if (a != kNone && c.occupancy.is_free(a)) {
        c.occupancy.take(a, id, entry.tenant);
        changed.push_back(a);
      }
    }
  c.accelerators_changed(changed);
  // Pods it names use their nodes too (release gives them back).
  for (const JobPlacement::NodePods& n : placement.pods) c.usage.add(n.node, n.per_pod, n.pods);
  if (job.exclusive_level)
    if (auto level = c.t.find_level(*job.exclusive_level)) entry.kept = c.keep(id, entry.tenant, *level, placement.replicas);
  c.jobs.push_back(std::move(entry));
  return id;
}

PlannerState::JobId PlannerState::occupy_running(const RunningPods& running) {
  PlannerCore& c = *core_;
  const auto id = static_cast<JobId>(c.jobs.size());
  Job job;
  job.name = "running pods";
  PlannerCore::Entry entry{job, {}, {}, kNone, true};
  entry.placement.placed = true;
  entry.placement.occupied = true;
  c.occupy_running(running, id);
  auto all = c.t.accelerators();
  std::vector<DeviceId> devices;
  for (const RunningPods::OnNode& n : running.nodes) {
    const Domain& node = c.t.domain(n.node);
    for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a)
      if (c.occupancy.owner(a) == id) devices.push_back(all[a]);
  }
  if (!devices.empty()) entry.placement.replicas.push_back(std::move(devices));
  c.jobs.push_back(std::move(entry));
  return id;
}

void PlannerState::release(JobId id) {
  PlannerCore& c = *core_;
  if (id >= c.jobs.size() || !c.jobs[id].active) return;
  PlannerCore::Entry& e = c.jobs[id];
  std::vector<std::uint32_t> changed;
  for (const auto& replica : e.placement.replicas)
    for (DeviceId d : replica) {
      std::uint32_t a = c.t.accelerator_index(d);
      if (a != kNone && c.occupancy.owner(a) == id) {
        c.occupancy.release(a);
        changed.push_back(a);
      }
    }
  for (DomainId domain : e.kept) {
    const Domain& d = c.t.domain(domain);
    for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
      if (c.occupancy.owner(a) == id) {
        c.occupancy.release(a);
        changed.push_back(a);
      }
  }
  c.accelerators_changed(changed);
  for (const JobPlacement::NodePods& n : e.placement.pods) c.usage.add(n.node, n.per_pod, -std::int64_t{n.pods});
  e.active = false;
}

std::size_t PlannerState::job_count() const { return core_->jobs.size(); }
bool PlannerState::active(JobId id) const { return id < core_->jobs.size() && core_->jobs[id].active; }
const Job& PlannerState::job(JobId id) const { return core_->jobs.at(id).job; }
const JobPlacement& PlannerState::placement(JobId id) const { return core_->jobs.at(id).placement; }

PlannerState::JobId PlannerState::owner(std::uint32_t accel) const {
  std::uint32_t o = core_->occupancy.owner(accel);
  return o < core_->jobs.size() ? o : kNone;
}

const ScenarioMask& PlannerState::mask() const { return core_->mask; }
void PlannerState::set_mask(const ScenarioMask& mask) { core_->apply_mask(mask); }

}  // namespace topoplan
