#include "planner_core.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kv_apart.hpp"
#include "shaped_placement.hpp"
#include "slo_aware.hpp"
#include "speed_aware.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/model/node_size.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

PlannerCore::PlannerCore(const Topology& topology, PlannerOptions opts)
    : t(topology),
      options(std::move(opts)),
      occupancy(topology),
      usage(topology),
      policy(make_policy(options.policy, topology)),
      node_size(typical_node_accelerators(topology)),
      speed_levels(topoplan::speed_levels(topology)),
      mask(topology) {
  if (options.pricer && options.cache_prices) prices_ = std::make_unique<PriceCache>(topology, *options.pricer);
}

PlannerCore::PlannerCore(const PlannerCore& other)
    : t(other.t),
      options(other.options),
      occupancy(other.occupancy),
      usage(other.usage),
      // A fresh policy: what it keeps between jobs (kueue's counts) is
      // derived from the occupancy it is shown.
      policy(make_policy(other.options.policy, other.t)),
      node_size(other.node_size),
      speed_levels(other.speed_levels),
      mask(other.mask),
      jobs(other.jobs),
      prices_(other.prices_ ? std::make_unique<PriceCache>(*other.prices_) : nullptr),
      tenants_(other.tenants_),
      class_masks_(other.class_masks_) {}

std::uint32_t PlannerCore::tenant_id(const std::string& tenant) {
  if (tenant.empty()) return kNone;
  return tenants_.try_emplace(tenant, static_cast<std::uint32_t>(tenants_.size())).first->second;
}

std::uint32_t PlannerCore::find_tenant(const std::string& tenant) const {
  if (tenant.empty()) return kNone;
  auto it = tenants_.find(tenant);
  return it == tenants_.end() ? kNone - 2 : it->second;
}

const std::vector<std::uint8_t>* PlannerCore::class_mask(const std::string& pattern) const {
  auto it = class_masks_.find(pattern);
  if (it == class_masks_.end()) {
    const std::vector<StringId>& models = occupancy.models();
    std::vector<std::uint8_t> wanted(models.size(), 0);
    NamePattern p;
    std::string error;
    if (p.parse(pattern, error))
      for (std::size_t k = 0; k < models.size(); ++k) wanted[k] = p.matches(t.str(models[k])) ? 1 : 0;
    if (std::all_of(wanted.begin(), wanted.end(), [](std::uint8_t w) { return w != 0; })) wanted.clear();
    it = class_masks_.emplace(pattern, std::move(wanted)).first;
  }
  return it->second.empty() ? nullptr : &it->second;
}

CapacityView PlannerCore::view_over(const Occupancy& occ, const Job& job, const JobShape& shape) const {
  CapacityView view(occ, shape.whole_nodes);
  if (!job.accelerator_model.empty())
    if (const std::vector<std::uint8_t>* wanted = class_mask(job.accelerator_model)) view.only_classes(*wanted);
  // Nodes of a named tenant take only that tenant's jobs, and a named
  // tenant's job takes no node another tenant uses.
  if (any_tenant() && &occ == &occupancy) view.for_tenant(find_tenant(job.tenant));
  return view;
}

CapacityView PlannerCore::view_for(const Job& job, const JobShape& shape, const std::vector<DomainId>& excluded,
                                   DomainId inside) const {
  CapacityView view = view_over(occupancy, job, shape);
  if (inside != kNone) view.inside(inside);
  for (DomainId d : excluded) view.exclude(d);
  // An exclusive job takes no domain of its level that something else uses.
  if (shape.exclusive) {
    auto [first, last] = t.domains_at(*shape.exclusive);
    for (DomainId d = first; d < last; ++d)
      if (occupancy.free_in(d) < occupancy.usable_in(d)) view.exclude(d);
  }
  if (options.policy == "topo") exclude_isolated(job, view);
  return view;
}

// Tenant isolation above the node (placement/service.hpp): a service that
// isolates takes no unit of its level holding another tenant's job, and no
// job of another tenant enters a unit an isolating service holds. Only
// isolating services are scanned, found once each as jobs are added.
void PlannerCore::exclude_isolated(const Job& job, CapacityView& view) const {
  for (; isolation_seen_ < jobs.size(); ++isolation_seen_) {
    const Job& j = jobs[isolation_seen_].job;
    if (j.service && j.service->isolation != Isolation::none && j.service->isolation != Isolation::node)
      isolating_.push_back(static_cast<JobId>(isolation_seen_));
  }
  if (isolating_.empty() && !(job.service && job.service->isolation != Isolation::none)) return;
  if (!nvlink_level_) nvlink_level_ = nvlink_domain_level(t);
  std::vector<DomainId> out;
  auto add = [&](const Entry& e, LevelIndex level) {
    for (const auto& replica : e.placement.replicas)
      for (DeviceId d : replica) out.push_back(t.ancestor(t.device(d).domain, level));
  };
  if (job.service && job.service->isolation != Isolation::none && job.service->isolation != Isolation::node)
    if (auto level = isolation_level(t, *job.service, nvlink_level_))
      for (const Entry& e : jobs)
        if (e.active && e.job.tenant != job.tenant) add(e, *level);
  for (JobId id : isolating_) {
    const Entry& e = jobs[id];
    if (!e.active || e.job.tenant == job.tenant) continue;
    if (auto level = isolation_level(t, *e.job.service, nvlink_level_)) add(e, *level);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  for (DomainId d : out) view.exclude(d);
}

PlaceRequest PlannerCore::request_for(const Job& job, const JobShape& shape) const {
  PlaceRequest request;
  request.units = shape.units;
  request.granule = shape.granule;
  request.group = shape.group;
  request.required = shape.required;
  request.preferred = shape.preferred;
  request.job = &job;
  request.pricer = prices_ ? static_cast<const PlacementPricer*>(prices_.get()) : options.pricer;
  return request;
}

std::vector<std::uint32_t> PlannerCore::place_replica(const Job& job, const JobShape& shape,
                                                      const std::vector<DomainId>& excluded, DomainId inside) const {
  CapacityView view = view_for(job, shape, excluded, inside);
  if (job.shape != ChainShape::none) return place_shaped(*this, view, job, shape);
  std::vector<std::uint32_t> chosen;
  if (weighs_slo(*this, job))
    chosen = place_slo_aware(*this, view, job, shape);
  else if (weighs_speed(*this, job, shape))
    chosen = place_speed_aware(*this, view, job, shape);
  else
    chosen = policy->place(view, request_for(job, shape));
  if (keeps_kv_apart(*this, job, shape)) return place_kv_apart(*this, view, job, shape, std::move(chosen));
  return chosen;
}

bool PlannerCore::place(const Job& job, const JobShape& shape, JobId id, JobPlacement& out, DomainId inside) {
  // A policy that places pods (kueue) places the whole job its way; inside a
  // given domain (what-if's place_in) the planner places replicas itself.
  if (std::uint32_t groups = policy->pod_groups(job); groups > 0 && inside == kNone)
    return place_pod_groups(job, shape, id, groups, out);
  if (!place_replicas(job, shape, id, job.replicas, {}, inside, out.replicas)) return false;
  out.placed = true;
  return true;
}

bool PlannerCore::place_replicas(const Job& job, const JobShape& shape, JobId id, std::uint32_t count,
                                 std::vector<DomainId> excluded, DomainId inside,
                                 std::vector<std::vector<DeviceId>>& out) {
  if (shape.within && (inside == kNone || *shape.within > t.domain(inside).level)) {
    // All replicas in one domain: the policy says which domains to try.
    WithinRequest within{request_for(job, shape), count, *shape.within, shape.spread};
    std::optional<std::vector<DomainId>> domains = policy->within_domains(view_for(job, shape, excluded, inside), within);
    if (domains) {
      for (DomainId d : *domains)
        if (place_inside(job, shape, id, count, excluded, d, out)) return true;
      return false;
    }
  }
  return place_inside(job, shape, id, count, std::move(excluded), inside, out);
}

bool PlannerCore::place_inside(const Job& job, const JobShape& shape, JobId id, std::uint32_t count,
                               std::vector<DomainId> excluded, DomainId inside,
                               std::vector<std::vector<DeviceId>>& out) {
  std::vector<std::vector<std::uint32_t>> taken;
  auto rollback = [&]() {
    for (const auto& group : taken)
      for (std::uint32_t a : group) occupancy.release(a);
  };
  for (std::uint32_t replica = 0; replica < count; ++replica) {
    std::vector<std::uint32_t> accels = place_replica(job, shape, excluded, inside);
    if (accels.empty()) {
      rollback();
      return false;
    }
    const std::uint32_t owner_tenant = job.tenant.empty() ? kNone : tenant_id(job.tenant);
    for (std::uint32_t a : accels) occupancy.take(a, id, owner_tenant);
    if (shape.spread) {
      for (std::uint32_t a : accels) {
        DomainId d = t.ancestor(occupancy.node_of(a), *shape.spread);
        if (std::find(excluded.begin(), excluded.end(), d) == excluded.end()) excluded.push_back(d);
      }
    }
    taken.push_back(std::move(accels));
  }
  auto all = t.accelerators();
  out.clear();
  for (const auto& group : taken) {
    std::vector<DeviceId> devices;
    for (std::size_t i = 0; i < group.size() && i < shape.ranks; ++i) devices.push_back(all[group[i]]);
    out.push_back(std::move(devices));
  }
  return true;
}

// A policy that places pods (kueue) places the job's pod groups one after
// the other, each seeing the others; all or none. Its reason stands when one
// does not fit. Spread and exclusive levels are the planner's constraints,
// which such a policy does not know: check_placement reports what it breaks.
bool PlannerCore::place_pod_groups(const Job& job, const JobShape& shape, JobId id, std::uint32_t groups,
                                   JobPlacement& out) {
  const std::uint32_t tenant = job.tenant.empty() ? kNone : tenant_id(job.tenant);
  std::vector<std::uint32_t> taken;
  std::vector<std::vector<std::uint32_t>> per_group;
  auto rollback = [&]() {
    for (std::uint32_t a : taken) occupancy.release(a);
    for (const JobPlacement::NodePods& n : out.pods) usage.add(n.node, n.per_pod, -std::int64_t{n.pods});
    out.pods.clear();
  };
  out.pods.clear();
  for (std::uint32_t g = 0; g < groups; ++g) {
    PlaceRequest request = request_for(job, shape);
    request.usage = &usage;
    request.pod_group = g;
    // Domains kept to one job (exclusive_level) are topoplan's, not Kueue's:
    // the view carries the job's model and tenant only.
    PodPlacement p = policy->place_pods(view_over(occupancy, job, shape), request);
    if (p.pods.empty()) {
      rollback();
      out.reason = groups > 1 ? fmt::format("pod group {} of {}: {}", g + 1, groups, p.reason) : p.reason;
      return false;
    }
    for (std::uint32_t a : p.accelerators) occupancy.take(a, id, tenant);
    taken.insert(taken.end(), p.accelerators.begin(), p.accelerators.end());
    per_group.push_back(p.accelerators);
    for (PodPlacement::Pods& pods : p.pods) {
      usage.add(pods.node, pods.per_pod, pods.pods);
      out.pods.push_back({g, p.pod_sets[pods.pod_set], pods.node, pods.pods, std::move(pods.per_pod)});
    }
  }
  // Replicas: a group each when they match (LeaderWorkerSet groups), else
  // runs of the job's replica size in rank order (Kueue slices), else one.
  auto all = t.accelerators();
  std::vector<std::vector<std::uint32_t>> replicas;
  if (groups == job.replicas) {
    replicas = std::move(per_group);
  } else if (job.replicas > 1 && shape.ranks > 0 && taken.size() == std::size_t{job.replicas} * shape.ranks) {
    for (std::size_t i = 0; i < taken.size(); i += shape.ranks)
      replicas.emplace_back(taken.begin() + static_cast<std::ptrdiff_t>(i),
                            taken.begin() + static_cast<std::ptrdiff_t>(i + shape.ranks));
  } else {
    replicas.push_back(taken);
  }
  out.replicas.clear();
  for (const auto& group : replicas) {
    std::vector<DeviceId> devices;
    for (std::uint32_t a : group) devices.push_back(all[a]);
    out.replicas.push_back(std::move(devices));
  }
  out.placed = true;
  return true;
}

void PlannerCore::nodes_changed(std::vector<DomainId> nodes) const {
  if (nodes.empty()) return;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  policy->nodes_changed(nodes);
}

void PlannerCore::accelerators_changed(const std::vector<std::uint32_t>& accels) const {
  std::vector<DomainId> nodes;
  nodes.reserve(accels.size());
  for (std::uint32_t a : accels) nodes.push_back(occupancy.node_of(a));
  nodes_changed(std::move(nodes));
}

void PlannerCore::occupy_running(const RunningPods& running, JobId owner) {
  std::vector<DomainId> nodes;
  for (const RunningPods::OnNode& n : running.nodes) {
    nodes.push_back(n.node);
    take_running(t, n, owner, occupancy);
    ResourceList rest = n.requests;
    rest.erase("nvidia.com/gpu");
    rest.erase("amd.com/gpu");
    usage.add_total(n.node, rest);
  }
  nodes_changed(std::move(nodes));
}

void take_running(const Topology& t, const RunningPods::OnNode& n, std::uint32_t owner, Occupancy& occupancy) {
  const Domain& node = t.domain(n.node);
  std::uint32_t left = n.accelerators;
  for (std::uint32_t a = node.accel_begin; a < node.accel_end && left > 0; ++a)
    if (occupancy.is_free(a)) {
      occupancy.take(a, owner);
      --left;
    }
}

std::vector<DomainId> PlannerCore::keep(JobId id, std::uint32_t tenant, LevelIndex level,
                                        const std::vector<std::vector<DeviceId>>& replicas) {
  std::vector<DomainId> domains;
  for (const auto& replica : replicas)
    for (DeviceId d : replica) {
      if (!is_accelerator(t.device(d).kind)) continue;
      DomainId domain = t.ancestor(t.device(d).domain, level);
      if (std::find(domains.begin(), domains.end(), domain) == domains.end()) domains.push_back(domain);
    }
  std::vector<std::uint32_t> changed;
  for (DomainId domain : domains) {
    const Domain& d = t.domain(domain);
    for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
      if (occupancy.is_free(a)) {
        occupancy.take(a, id, tenant);
        changed.push_back(a);
      }
  }
  accelerators_changed(changed);
  return domains;
}

std::uint64_t PlannerCore::kept_free() const {
  std::uint64_t n = 0;
  for (JobId id = 0; id < jobs.size(); ++id) {
    const Entry& e = jobs[id];
    if (!e.active || e.kept.empty()) continue;
    // What it holds in those domains beyond its own devices (a kept domain
    // may lie apart from them: a shaped job's spare node).
    std::uint64_t held = 0, own = 0;
    for (DomainId domain : e.kept) {
      const Domain& d = t.domain(domain);
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a) held += occupancy.owner(a) == id ? 1u : 0u;
      for (const auto& replica : e.placement.replicas)
        for (DeviceId dev : replica)
          if (std::uint32_t a = t.accelerator_index(dev); a >= d.accel_begin && a < d.accel_end) ++own;
    }
    n += held - std::min(held, own);
  }
  return n;
}

namespace {

// Accelerators a mask names, directly or through a domain, in index order.
void masked_accelerators(const Topology& t, const ScenarioMask& m, std::vector<std::uint32_t>& out) {
  for (const auto& [device, state] : m.devices()) {
    std::uint32_t a = t.accelerator_index(device);
    if (a != kNone) out.push_back(a);
  }
  for (const auto& [domain, state] : m.domains()) {
    const Domain& d = t.domain(domain);
    for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a) out.push_back(a);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace

const Occupancy& PlannerCore::empty() const {
  if (!empty_) {
    empty_ = std::make_unique<Occupancy>(t);
    std::vector<std::uint32_t> touched;
    masked_accelerators(t, mask, touched);
    for (std::uint32_t a : touched) empty_->set_available(a, mask.accelerator(a) == DeviceState::up);
  }
  return *empty_;
}

void PlannerCore::apply_mask(const ScenarioMask& next) {
  std::vector<std::uint32_t> touched;
  masked_accelerators(t, mask, touched);
  masked_accelerators(t, next, touched);
  mask = next;
  std::vector<std::pair<DomainId, JobId>> kept;
  for (JobId id = 0; id < jobs.size(); ++id)
    if (jobs[id].active)
      for (DomainId domain : jobs[id].kept) kept.emplace_back(domain, id);
  for (std::uint32_t a : touched) {
    const bool available = mask.accelerator(a) == DeviceState::up;
    occupancy.set_available(a, available);
    if (!available || !occupancy.is_free(a)) continue;
    // Back up inside a domain an exclusive job keeps: it stays that job's.
    for (const auto& [domain, id] : kept)
      if (a >= t.domain(domain).accel_begin && a < t.domain(domain).accel_end) occupancy.take(a, id, jobs[id].tenant);
  }
  accelerators_changed(touched);
  empty_.reset();
}

}  // namespace topoplan
