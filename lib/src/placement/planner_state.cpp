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
    if (c.options.explain) explain_unplaced(c, job, shape, result.placement);
    return result;
  }
  PlannerCore::Entry entry{job, result.placement, {}, c.tenant_id(job.tenant), true};
  if (shape.exclusive) entry.kept = c.keep(id, entry.tenant, *shape.exclusive, result.placement.replicas);
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
  for (const auto& replica : placement.replicas)
    for (DeviceId d : replica) {
      std::uint32_t a = c.t.accelerator_index(d);
      if (a != kNone) c.occupancy.take(a, id, entry.tenant);
    }
  if (job.exclusive_level)
    if (auto level = c.t.find_level(*job.exclusive_level)) entry.kept = c.keep(id, entry.tenant, *level, placement.replicas);
  c.jobs.push_back(std::move(entry));
  return id;
}

void PlannerState::release(JobId id) {
  PlannerCore& c = *core_;
  if (id >= c.jobs.size() || !c.jobs[id].active) return;
  PlannerCore::Entry& e = c.jobs[id];
  for (const auto& replica : e.placement.replicas)
    for (DeviceId d : replica) {
      std::uint32_t a = c.t.accelerator_index(d);
      if (a != kNone && c.occupancy.owner(a) == id) c.occupancy.release(a);
    }
  for (DomainId domain : e.kept) {
    const Domain& d = c.t.domain(domain);
    for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
      if (c.occupancy.owner(a) == id) c.occupancy.release(a);
  }
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
