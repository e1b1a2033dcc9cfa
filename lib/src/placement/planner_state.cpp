#include "topoplan/placement/planner_state.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "placement_explain.hpp"
#include "planner_core.hpp"
#include "shaped_placement.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

PlannerState::PlannerState(const Topology& topology, PlannerOptions options)
    : core_(std::make_unique<PlannerCore>(topology, std::move(options))) {}
PlannerState::~PlannerState() = default;
PlannerState::PlannerState(PlannerState&&) noexcept = default;
PlannerState& PlannerState::operator=(PlannerState&&) noexcept = default;
PlannerState::PlannerState(const PlannerState& other) : core_(std::make_unique<PlannerCore>(*other.core_)) {}

const Topology& PlannerState::topology() const { return core_->t; }
const Occupancy& PlannerState::occupancy() const { return core_->occupancy; }
const PlannerOptions& PlannerState::options() const { return core_->options; }

namespace {

// Records a job placed by the core as `id`, keeping what exclusive_level asks.
void admit(PlannerCore& c, const Job& job, const JobShape& shape, PlannerState::JobId id, JobPlacement& placement) {
  placement.spares = spare_nodes(c, shape, placement);
  PlannerCore::Entry entry{job, placement, {}, c.tenant_id(job.tenant), true};
  // Domains an exclusive_level job keeps are topoplan's rule, which a policy
  // that places pods as Kueue does not know: it neither keeps them nor
  // avoids them, and check_placement reports what that breaks.
  if (shape.exclusive && placement.pods.empty())
    entry.kept = c.keep(id, entry.tenant, *shape.exclusive, placement.replicas);
  // A shaped job's spare nodes are its own, like the domains it keeps.
  for (DomainId node : placement.spares)
    if (std::find(entry.kept.begin(), entry.kept.end(), node) == entry.kept.end()) {
      entry.kept.push_back(node);
      c.keep(id, entry.tenant, c.t.host_level(), {{c.t.accelerators()[c.t.domain(node).accel_begin]}});
    }
  c.jobs.push_back(std::move(entry));
}

// Calls visit(accelerator index) for the accelerators among `devices`.
template <typename Visit>
void for_accelerators(const Topology& t, const std::vector<DeviceId>& devices, Visit&& visit) {
  for (DeviceId d : devices)
    if (std::uint32_t a = t.accelerator_index(d); a != kNone) visit(a);
}

// A job's accelerators and those of the domains it keeps: what to report to
// the policy (nodes_changed) when some of them are freed or taken again.
std::vector<std::uint32_t> touched(const PlannerCore& c, const PlannerCore::Entry& e) {
  std::vector<std::uint32_t> out;
  for (const auto& replica : e.placement.replicas)
    for_accelerators(c.t, replica, [&](std::uint32_t a) { out.push_back(a); });
  for (DomainId domain : e.kept)
    for (std::uint32_t a = c.t.domain(domain).accel_begin; a < c.t.domain(domain).accel_end; ++a) out.push_back(a);
  return out;
}

// Takes a job's accelerators and kept domains again (those that are free).
void take_back(PlannerCore& c, const PlannerCore::Entry& e, PlannerState::JobId id) {
  for (const auto& replica : e.placement.replicas)
    for_accelerators(c.t, replica, [&](std::uint32_t a) { c.occupancy.take(a, id, e.tenant); });
  for (DomainId domain : e.kept) {
    const Domain& d = c.t.domain(domain);
    for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a) c.occupancy.take(a, id, e.tenant);
  }
}

}  // namespace

PlannerState::PlaceResult PlannerState::place(const Job& job) {
  PlannerCore& c = *core_;
  const JobShape shape = resolve_job(c.t, job, c.node_size);
  PlaceResult result;
  const auto id = static_cast<JobId>(c.jobs.size());
  // Topo refuses a service whose weights and KV fit no accelerator's HBM;
  // the peers do not look (check then reports it).
  if (job.service && c.options.policy == "topo")
    if (std::string why = memory_refusal(c.t, job); !why.empty()) {
      result.placement.reason = std::move(why);
      return result;
    }
  if (!c.place(job, shape, id, result.placement)) {
    result.placement.replicas.clear();
    // A policy that places pods (kueue) gives its own reason.
    if (c.options.explain && result.placement.reason.empty()) explain_unplaced(c, job, shape, result.placement);
    return result;
  }
  admit(c, job, shape, id, result.placement);
  result.id = id;
  return result;
}

PlannerState::PlaceResult PlannerState::place_in(const Job& job, DomainId domain) {
  PlannerCore& c = *core_;
  const JobShape shape = resolve_job(c.t, job, c.node_size);
  PlaceResult result;
  const auto id = static_cast<JobId>(c.jobs.size());
  if (!c.place(job, shape, id, result.placement, domain)) {
    result.placement.replicas.clear();
    if (c.options.explain) {
      CapacityView view = c.view_for(job, shape, {}, domain);
      const std::string how = shape_text(c.t, shape, job.replicas);
      result.placement.reason = fmt::format(
          "needs {}{} inside {}, which has {} usable", unit_text(c.t, shape, std::uint64_t{shape.units} * job.replicas),
          how.empty() ? "" : " (" + how + ")", c.t.domain_name(domain), unit_text(c.t, shape, view.count(domain)));
    }
    return result;
  }
  admit(c, job, shape, id, result.placement);
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
  // A shaped job's spare nodes stay its own, as when it was placed.
  for (DomainId node : placement.spares)
    if (std::find(entry.kept.begin(), entry.kept.end(), node) == entry.kept.end() &&
        c.t.domain(node).accelerator_count() > 0) {
      entry.kept.push_back(node);
      c.keep(id, entry.tenant, c.t.host_level(), {{c.t.accelerators()[c.t.domain(node).accel_begin]}});
    }
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

void PlannerState::release_replicas(JobId id, const std::vector<std::uint32_t>& replicas) {
  PlannerCore& c = *core_;
  if (!active(id)) return;
  PlannerCore::Entry& e = c.jobs[id];
  std::vector<std::uint8_t> going(e.placement.replicas.size(), 0);
  for (std::uint32_t r : replicas)
    if (r < going.size()) going[r] = 1;
  if (std::all_of(going.begin(), going.end(), [](std::uint8_t g) { return g != 0; })) return release(id);
  std::vector<std::uint32_t> changed = touched(c, e);
  std::vector<std::vector<DeviceId>> kept;
  for (std::size_t r = 0; r < going.size(); ++r) {
    if (!going[r]) {
      kept.push_back(std::move(e.placement.replicas[r]));
      continue;
    }
    for_accelerators(c.t, e.placement.replicas[r], [&](std::uint32_t a) {
      if (c.occupancy.owner(a) == id) c.occupancy.release(a);
    });
  }
  e.placement.replicas = std::move(kept);
  // Domains an exclusive job kept only for the freed replicas are given up.
  if (!e.kept.empty()) {
    for (DomainId domain : e.kept) {
      const Domain& d = c.t.domain(domain);
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
        if (c.occupancy.owner(a) == id) c.occupancy.release(a);
    }
    for (const auto& replica : e.placement.replicas)
      for_accelerators(c.t, replica, [&](std::uint32_t a) { c.occupancy.take(a, id, e.tenant); });
    const JobShape shape = resolve_job(c.t, e.job, c.node_size);
    e.kept = shape.exclusive ? c.keep(id, e.tenant, *shape.exclusive, e.placement.replicas) : std::vector<DomainId>{};
    for (std::uint32_t a : touched(c, e)) changed.push_back(a);
  }
  c.accelerators_changed(changed);
}

void PlannerState::restore(JobId id) {
  PlannerCore& c = *core_;
  if (id >= c.jobs.size() || c.jobs[id].active) return;
  take_back(c, c.jobs[id], id);
  c.jobs[id].active = true;
  c.accelerators_changed(touched(c, c.jobs[id]));
}

PlannerState::PlaceResult PlannerState::move_replicas(JobId id, const std::vector<std::uint32_t>& replicas,
                                                      bool release_first) {
  PlannerCore& c = *core_;
  PlaceResult result;
  if (!active(id)) {
    result.placement.reason = "the job is not running";
    return result;
  }
  PlannerCore::Entry& e = c.jobs[id];
  const Job& job = e.job;
  const JobShape shape = resolve_job(c.t, job, c.node_size);
  std::vector<std::uint8_t> moving(e.placement.replicas.size(), 0);
  for (std::uint32_t r : replicas)
    if (r < moving.size()) moving[r] = 1;
  const auto count = static_cast<std::uint32_t>(std::count(moving.begin(), moving.end(), std::uint8_t{1}));
  result.id = id;
  result.placement = e.placement;
  if (count == 0) return result;
  std::vector<std::uint32_t> changed = touched(c, e);
  // The replicas that stay: the domains they spread over and the one they share.
  std::vector<DomainId> excluded;
  DomainId inside = kNone;
  for (std::size_t r = 0; r < moving.size(); ++r) {
    if (moving[r]) continue;
    for_accelerators(c.t, e.placement.replicas[r], [&](std::uint32_t a) {
      if (shape.spread) {
        DomainId d = c.t.ancestor(c.occupancy.node_of(a), *shape.spread);
        if (std::find(excluded.begin(), excluded.end(), d) == excluded.end()) excluded.push_back(d);
      }
      if (shape.within && inside == kNone) inside = c.t.ancestor(c.occupancy.node_of(a), *shape.within);
    });
  }
  // An exclusive job gives up the domains it keeps and keeps them anew.
  auto free_moving = [&]() {
    for (DomainId domain : e.kept) {
      const Domain& d = c.t.domain(domain);
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
        if (c.occupancy.owner(a) == id) c.occupancy.release(a);
    }
    for (std::size_t r = 0; r < moving.size(); ++r)
      if (moving[r])
        for_accelerators(c.t, e.placement.replicas[r], [&](std::uint32_t a) {
          if (c.occupancy.owner(a) == id) c.occupancy.release(a);
        });
    for (std::size_t r = 0; r < moving.size(); ++r)
      if (!moving[r])
        for_accelerators(c.t, e.placement.replicas[r], [&](std::uint32_t a) { c.occupancy.take(a, id, e.tenant); });
  };
  if (release_first) free_moving();
  std::vector<std::vector<DeviceId>> placed;
  if (!c.place_replicas(job, shape, id, count, excluded, inside, placed)) {
    if (release_first) take_back(c, e, id);
    c.accelerators_changed(changed);
    result.id = kNone;
    result.placement = JobPlacement();
    const std::string how = shape_text(c.t, shape, job.replicas);
    result.placement.reason =
        job.replicas == 1
            ? fmt::format("no room for {}{}", unit_text(c.t, shape, shape.units), how.empty() ? "" : " (" + how + ")")
            : fmt::format("no room for {} {} of {}{}{}", count, count == 1 ? "replica" : "replicas",
                          unit_text(c.t, shape, shape.units), count < moving.size() ? " beside the others" : "",
                          how.empty() ? "" : " (" + how + ")");
    return result;
  }
  if (!release_first) free_moving();
  std::size_t next = 0;
  for (std::size_t r = 0; r < moving.size(); ++r)
    if (moving[r]) e.placement.replicas[r] = std::move(placed[next++]);
  if (shape.exclusive) e.kept = c.keep(id, e.tenant, *shape.exclusive, e.placement.replicas);
  for (std::uint32_t a : touched(c, e)) changed.push_back(a);
  c.accelerators_changed(changed);
  result.placement = e.placement;
  return result;
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
